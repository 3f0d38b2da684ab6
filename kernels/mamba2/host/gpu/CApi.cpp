//===- CApi.cpp - C ABI of the Mamba-2 forward pass on the GPU --*- C++ -*-===//
//
// Turns the C descriptors into the C++ ones (checking what only the C form
// can get wrong: null descriptors and shape arrays, ranks, dtype values) and
// calls the implementation of forwardGpu, which names every failure.
//
//===----------------------------------------------------------------------===//

#include "CApiSupport.h"
#include "Forward.h"
#include "RepeatedCall.h"

#include "tilec/Mamba2/tilec_mamba2.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace tilec::mamba2;
using gpu::DescriptorVectors;

namespace {

thread_local std::string lastError;

/// The vectors DescriptorVectors lends, kept with their capacity between
/// calls.
thread_local std::vector<std::vector<int64_t>> spareVectors;

std::vector<int64_t> takeSpare() {
  if (spareVectors.empty())
    return {};
  std::vector<int64_t> v = std::move(spareVectors.back());
  spareVectors.pop_back();
  v.clear();
  return v;
}

/// Both forward functions: tilec_mamba2_forward is this with no options.
int forwardWithOptions(
    const tilec_mamba2_problem *problem, const tilec_mamba2_tensor *x,
    const tilec_mamba2_tensor *dt, const tilec_mamba2_tensor *A,
    const tilec_mamba2_tensor *B, const tilec_mamba2_tensor *C,
    const tilec_mamba2_tensor *D, const tilec_mamba2_tensor *initial_state,
    const tilec_mamba2_tensor *y, const tilec_mamba2_tensor *final_state,
    const tilec_mamba2_options *options, void *workspace,
    size_t workspace_bytes, void *stream);

int fail(tilec_mamba2_status code, std::string message) {
  lastError = std::move(message);
  return code;
}

/// `t` as a Tensor. `name` and `layout` word the errors like the shared
/// validation does.
tilec_mamba2_status toTensor(const char *name, const tilec_mamba2_tensor *t,
                             Tensor &out, std::string &message) {
  // The name as a string only for a message: a valid call builds none.
  auto what = [name] { return std::string(name); };
  if (!t) {
    message = what() + ": the tensor descriptor is null";
    return TILEC_MAMBA2_ERROR_NULL_POINTER;
  }
  if (t->rank < 0 || t->rank > TILEC_MAMBA2_MAX_RANK) {
    message = what() + ": rank " + std::to_string(t->rank) + " is outside [0, " +
              std::to_string(TILEC_MAMBA2_MAX_RANK) + "]";
    return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
  }
  if (t->rank > 0 && !t->shape) {
    message = what() + ": the shape array is null";
    return TILEC_MAMBA2_ERROR_NULL_POINTER;
  }
  switch (t->dtype) {
  case TILEC_MAMBA2_F32:
    out.dtype = DType::F32;
    break;
  case TILEC_MAMBA2_F16:
    out.dtype = DType::F16;
    break;
  case TILEC_MAMBA2_BF16:
    out.dtype = DType::BF16;
    break;
  case TILEC_MAMBA2_I32:
    out.dtype = DType::I32;
    break;
  default:
    message = what() + ": dtype " + std::to_string(t->dtype) +
              " is not a tilec_mamba2_dtype";
    return TILEC_MAMBA2_ERROR_INVALID_DTYPE;
  }
  out.data = t->data;
  out.shape.assign(t->shape, t->shape + t->rank);
  if (t->strides) {
    out.strides.assign(t->strides, t->strides + t->rank);
    return TILEC_MAMBA2_SUCCESS;
  }
  // Row-major strides. A shape with a non-positive extent is reported by
  // the validation (it is not the problem's), whatever strides it gets here.
  out.strides.assign(t->rank, 1);
  for (int d = t->rank - 1; d > 0; --d)
    if (__builtin_mul_overflow(out.strides[d], out.shape[d],
                               &out.strides[d - 1])) {
      message = what() + ": the row-major strides of its shape do not fit in "
                       "64 bits";
      return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
    }
  return TILEC_MAMBA2_SUCCESS;
}

} // namespace

int gpu::failCall(tilec_mamba2_status code, std::string message) {
  return fail(code, std::move(message));
}

gpu::DescriptorVectors::~DescriptorVectors() {
  for (size_t i = 0; i < count; ++i) {
    spareVectors.push_back(std::move(lent[i]->shape));
    spareVectors.push_back(std::move(lent[i]->strides));
  }
}

void gpu::DescriptorVectors::lend(Tensor &tensor) {
  tensor.shape = takeSpare();
  tensor.strides = takeSpare();
  // More tensors than any C function has: those keep their own vectors.
  if (count < kMaxTensors)
    lent[count++] = &tensor;
}

tilec_mamba2_status
gpu::readTensorArguments(std::initializer_list<TensorArgument> arguments,
                         DescriptorVectors &vectors, std::string &message) {
  for (const TensorArgument &arg : arguments) {
    if (arg.optional && !arg.descriptor)
      continue;
    Tensor &tensor = arg.optional ? arg.optional->emplace() : *arg.required;
    vectors.lend(tensor);
    if (tilec_mamba2_status code =
            toTensor(arg.name, arg.descriptor, tensor, message))
      return code;
  }
  return TILEC_MAMBA2_SUCCESS;
}

extern "C" {

const char *tilec_mamba2_status_name(int status) {
  switch (status) {
  case TILEC_MAMBA2_SUCCESS:
    return "TILEC_MAMBA2_SUCCESS";
  case TILEC_MAMBA2_ERROR_INVALID_SHAPE:
    return "TILEC_MAMBA2_ERROR_INVALID_SHAPE";
  case TILEC_MAMBA2_ERROR_INVALID_STRIDE:
    return "TILEC_MAMBA2_ERROR_INVALID_STRIDE";
  case TILEC_MAMBA2_ERROR_INVALID_DTYPE:
    return "TILEC_MAMBA2_ERROR_INVALID_DTYPE";
  case TILEC_MAMBA2_ERROR_UNALIGNED:
    return "TILEC_MAMBA2_ERROR_UNALIGNED";
  case TILEC_MAMBA2_ERROR_GROUPS_DO_NOT_DIVIDE_HEADS:
    return "TILEC_MAMBA2_ERROR_GROUPS_DO_NOT_DIVIDE_HEADS";
  case TILEC_MAMBA2_ERROR_UNSUPPORTED_CHUNK:
    return "TILEC_MAMBA2_ERROR_UNSUPPORTED_CHUNK";
  case TILEC_MAMBA2_ERROR_NULL_POINTER:
    return "TILEC_MAMBA2_ERROR_NULL_POINTER";
  case TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER:
    return "TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER";
  case TILEC_MAMBA2_ERROR_NO_DRIVER:
    return "TILEC_MAMBA2_ERROR_NO_DRIVER";
  case TILEC_MAMBA2_ERROR_NO_DEVICE:
    return "TILEC_MAMBA2_ERROR_NO_DEVICE";
  case TILEC_MAMBA2_ERROR_NO_CONTEXT:
    return "TILEC_MAMBA2_ERROR_NO_CONTEXT";
  case TILEC_MAMBA2_ERROR_WORKSPACE_TOO_SMALL:
    return "TILEC_MAMBA2_ERROR_WORKSPACE_TOO_SMALL";
  case TILEC_MAMBA2_ERROR_OUT_OF_MEMORY:
    return "TILEC_MAMBA2_ERROR_OUT_OF_MEMORY";
  case TILEC_MAMBA2_ERROR_LAUNCH_FAILURE:
    return "TILEC_MAMBA2_ERROR_LAUNCH_FAILURE";
  case TILEC_MAMBA2_ERROR_INVALID_ARGUMENT:
    return "TILEC_MAMBA2_ERROR_INVALID_ARGUMENT";
  }
  return "TILEC_MAMBA2_ERROR_UNKNOWN";
}

const char *tilec_mamba2_last_error(void) { return lastError.c_str(); }

int tilec_mamba2_workspace_size(const tilec_mamba2_problem *problem,
                                size_t *bytes) {
  if (!problem || !bytes)
    return fail(TILEC_MAMBA2_ERROR_NULL_POINTER,
                "tilec_mamba2_workspace_size: the problem and the result "
                "must not be null");
  const Problem p{problem->batch,  problem->seqlen,  problem->heads,
                  problem->groups, problem->headdim, problem->dstate,
                  problem->chunk};
  std::string message;
  if (tilec_mamba2_status code = gpu::workspaceSize(
          p, ForwardStructure::FourKernels, *bytes, message))
    return fail(code, std::move(message));
  return TILEC_MAMBA2_SUCCESS;
}

int tilec_mamba2_prepare(void) {
  std::string message;
  if (tilec_mamba2_status code = gpu::prepare(message))
    return fail(code, std::move(message));
  return TILEC_MAMBA2_SUCCESS;
}

int tilec_mamba2_forward(
    const tilec_mamba2_problem *problem, const tilec_mamba2_tensor *x,
    const tilec_mamba2_tensor *dt, const tilec_mamba2_tensor *A,
    const tilec_mamba2_tensor *B, const tilec_mamba2_tensor *C,
    const tilec_mamba2_tensor *D, const tilec_mamba2_tensor *initial_state,
    const tilec_mamba2_tensor *y, const tilec_mamba2_tensor *final_state,
    void *workspace, size_t workspace_bytes, void *stream) {
  return forwardWithOptions(problem, x, dt, A, B, C, D, initial_state, y,
                            final_state, nullptr, workspace, workspace_bytes,
                            stream);
}

int tilec_mamba2_forward_with_options(
    const tilec_mamba2_problem *problem, const tilec_mamba2_tensor *x,
    const tilec_mamba2_tensor *dt, const tilec_mamba2_tensor *A,
    const tilec_mamba2_tensor *B, const tilec_mamba2_tensor *C,
    const tilec_mamba2_tensor *D, const tilec_mamba2_tensor *initial_state,
    const tilec_mamba2_tensor *y, const tilec_mamba2_tensor *final_state,
    const tilec_mamba2_options *options, void *workspace,
    size_t workspace_bytes, void *stream) {
  if (options && options->size < TILEC_MAMBA2_OPTIONS_SIZE_V1)
    return fail(TILEC_MAMBA2_ERROR_INVALID_ARGUMENT,
                "options: size " + std::to_string(options->size) +
                    " is below the first version's " +
                    std::to_string(TILEC_MAMBA2_OPTIONS_SIZE_V1) +
                    " bytes (set it to sizeof(tilec_mamba2_options))");
  if (options && options->size > TILEC_MAMBA2_OPTIONS_SIZE_V3 &&
      options->size < TILEC_MAMBA2_OPTIONS_SIZE_V4)
    return fail(TILEC_MAMBA2_ERROR_INVALID_ARGUMENT,
                "options: size " + std::to_string(options->size) +
                    " ends inside version 4's fields (state_dtype and "
                    "reserved, " +
                    std::to_string(TILEC_MAMBA2_OPTIONS_SIZE_V4) +
                    " bytes; set it to sizeof(tilec_mamba2_options))");
  if (options && options->size > sizeof(tilec_mamba2_options)) {
    // A newer header's struct: its extra fields must ask for nothing.
    const unsigned char *bytes =
        reinterpret_cast<const unsigned char *>(options);
    for (size_t i = sizeof(tilec_mamba2_options); i < options->size; ++i)
      if (bytes[i])
        return fail(TILEC_MAMBA2_ERROR_INVALID_ARGUMENT,
                    "options: byte " + std::to_string(i) + " of " +
                        std::to_string(options->size) +
                        " is set, past the " +
                        std::to_string(sizeof(tilec_mamba2_options)) +
                        " bytes of the options this library knows");
  }
  return forwardWithOptions(problem, x, dt, A, B, C, D, initial_state, y,
                            final_state, options, workspace, workspace_bytes,
                            stream);
}

} // extern "C"

// The last version's fields end the struct: no padding byte that a caller
// might leave unset.
static_assert(sizeof(tilec_mamba2_options) == TILEC_MAMBA2_OPTIONS_SIZE_V4,
              "tilec_mamba2_options has padding after its last field");

namespace {

/// Every byte of a forward call's arguments that its checks and launches
/// read (RepeatedCall.h): the problem, each descriptor by content, the
/// options' size and each scalar option of the versions it covers, field
/// by field (never a padding byte), with the descriptors they point to by
/// content, the workspace and the stream. An option added to
/// tilec_mamba2_options must be added here.
void forwardKey(gpu::CallKey &key, const tilec_mamba2_problem &problem,
                std::initializer_list<const tilec_mamba2_tensor *> tensors,
                const tilec_mamba2_options *options, void *workspace,
                size_t workspace_bytes, void *stream) {
  key.clear();
  key.add(problem);
  for (const tilec_mamba2_tensor *t : tensors)
    key.addTensor(t);
  key.add(options != nullptr);
  if (options) {
    const bool v2 = options->size >= TILEC_MAMBA2_OPTIONS_SIZE_V2;
    const bool v3 = options->size >= TILEC_MAMBA2_OPTIONS_SIZE_V3;
    const bool v4 = options->size >= TILEC_MAMBA2_OPTIONS_SIZE_V4;
    key.add(options->size);
    key.add(options->dt_softplus);
    key.add(options->dt_limit);
    key.add(options->dt_min);
    key.add(options->dt_max);
    key.add(v4 ? options->state_dtype : int32_t(0));
    key.add(v4 ? options->reserved : int32_t(0));
    for (const tilec_mamba2_tensor *t :
         {options->z, options->dt_bias, options->chunk_states,
          v2 ? options->seq_idx : nullptr, v3 ? options->cu_seqlens : nullptr,
          v3 ? options->varlen_states : nullptr})
      key.addTensor(t);
  }
  key.add(workspace);
  key.add(workspace_bytes);
  key.add(stream);
}

/// forwardWithOptions without the repeated-call shortcut.
int checkAndLaunch(
    const tilec_mamba2_problem *problem, const tilec_mamba2_tensor *x,
    const tilec_mamba2_tensor *dt, const tilec_mamba2_tensor *A,
    const tilec_mamba2_tensor *B, const tilec_mamba2_tensor *C,
    const tilec_mamba2_tensor *D, const tilec_mamba2_tensor *initial_state,
    const tilec_mamba2_tensor *y, const tilec_mamba2_tensor *final_state,
    const tilec_mamba2_options *options, void *workspace,
    size_t workspace_bytes, void *stream);

int forwardWithOptions(
    const tilec_mamba2_problem *problem, const tilec_mamba2_tensor *x,
    const tilec_mamba2_tensor *dt, const tilec_mamba2_tensor *A,
    const tilec_mamba2_tensor *B, const tilec_mamba2_tensor *C,
    const tilec_mamba2_tensor *D, const tilec_mamba2_tensor *initial_state,
    const tilec_mamba2_tensor *y, const tilec_mamba2_tensor *final_state,
    const tilec_mamba2_options *options, void *workspace,
    size_t workspace_bytes, void *stream) {
  if (!problem)
    return fail(TILEC_MAMBA2_ERROR_NULL_POINTER,
                "problem: the problem descriptor is null");
  // A call without a workspace allocates one: never the same twice.
  if (!workspace)
    return checkAndLaunch(problem, x, dt, A, B, C, D, initial_state, y,
                          final_state, options, workspace, workspace_bytes,
                          stream);
  thread_local gpu::RepeatedCall repeated;
  forwardKey(repeated.key, *problem,
             {x, dt, A, B, C, D, initial_state, y, final_state}, options,
             workspace, workspace_bytes, stream);
  tilec_mamba2_status status;
  std::string message;
  if (gpu::replayed(repeated, static_cast<CUstream>(stream), status, message))
    return status == TILEC_MAMBA2_SUCCESS ? TILEC_MAMBA2_SUCCESS
                                          : fail(status, std::move(message));
  const int code =
      checkAndLaunch(problem, x, dt, A, B, C, D, initial_state, y, final_state,
                     options, workspace, workspace_bytes, stream);
  gpu::remember(repeated, tilec_mamba2_status(code));
  return code;
}

int checkAndLaunch(
    const tilec_mamba2_problem *problem, const tilec_mamba2_tensor *x,
    const tilec_mamba2_tensor *dt, const tilec_mamba2_tensor *A,
    const tilec_mamba2_tensor *B, const tilec_mamba2_tensor *C,
    const tilec_mamba2_tensor *D, const tilec_mamba2_tensor *initial_state,
    const tilec_mamba2_tensor *y, const tilec_mamba2_tensor *final_state,
    const tilec_mamba2_options *options, void *workspace,
    size_t workspace_bytes, void *stream) {
  const Problem p{problem->batch,  problem->seqlen,  problem->heads,
                  problem->groups, problem->headdim, problem->dstate,
                  problem->chunk};
  Inputs in;
  Outputs out;
  DescriptorVectors vectors;
  std::string message;
  // The fields of later versions, read only when the struct's size covers
  // them (an older caller's struct ends before them).
  const bool v2 = options && options->size >= TILEC_MAMBA2_OPTIONS_SIZE_V2;
  const bool v3 = options && options->size >= TILEC_MAMBA2_OPTIONS_SIZE_V3;
  const bool v4 = options && options->size >= TILEC_MAMBA2_OPTIONS_SIZE_V4;
  // In the order the validation walks them; an optional tensor is absent
  // when its descriptor is null.
  if (tilec_mamba2_status code = gpu::readTensorArguments(
          {{"x", x, &in.x, nullptr},
           {"dt", dt, &in.dt, nullptr},
           {"A", A, &in.A, nullptr},
           {"B", B, &in.B, nullptr},
           {"C", C, &in.C, nullptr},
           {"D", D, &in.D, nullptr},
           {"initial state", initial_state, nullptr, &in.initialState},
           {"dt bias", options ? options->dt_bias : nullptr, nullptr,
            &in.dtBias},
           {"z", options ? options->z : nullptr, nullptr, &in.z},
           {"seq idx", v2 ? options->seq_idx : nullptr, nullptr, &in.seqIdx},
           {"cu seqlens", v3 ? options->cu_seqlens : nullptr, nullptr,
            &in.cuSeqlens},
           {"y", y, &out.y, nullptr},
           {"final state", final_state, nullptr, &out.finalState},
           {"chunk states", options ? options->chunk_states : nullptr,
            nullptr, &out.chunkStates},
           {"varlen states", v3 ? options->varlen_states : nullptr, nullptr,
            &out.varlenStates}},
          vectors, message))
    return fail(code, std::move(message));
  if (options) {
    in.dtSoftplus = options->dt_softplus != 0;
    if (options->dt_limit)
      in.dtLimit = DtLimit{options->dt_min, options->dt_max};
  }
  if (v4 && options->reserved != 0)
    return fail(TILEC_MAMBA2_ERROR_INVALID_ARGUMENT,
                "options: reserved is " + std::to_string(options->reserved) +
                    ", it must be 0");
  // The shared validation says which state dtypes the kernels take.
  if (v4 && options->state_dtype != TILEC_MAMBA2_F32) {
    if (options->state_dtype != TILEC_MAMBA2_BF16 &&
        options->state_dtype != TILEC_MAMBA2_F16)
      return fail(TILEC_MAMBA2_ERROR_INVALID_DTYPE,
                  "options: state_dtype " +
                      std::to_string(options->state_dtype) +
                      " is not a float tilec_mamba2_dtype");
    in.stateDtype = options->state_dtype == TILEC_MAMBA2_BF16 ? DType::BF16
                                                               : DType::F16;
  }
  GpuOptions gpuOptions;
  gpuOptions.workspace = workspace;
  gpuOptions.workspaceBytes = workspace_bytes;
  if (tilec_mamba2_status code = gpu::forward(
          p, in, out, gpuOptions, static_cast<CUstream>(stream), message))
    return fail(code, std::move(message));
  return TILEC_MAMBA2_SUCCESS;
}

} // namespace
