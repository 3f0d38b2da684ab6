//===- Mamba2Ops.cpp - tilec's Mamba-2 ops as C++ torch ops ---------------===//
//
// tilec::mamba2_chunk_scan_combined and tilec::mamba2_selective_state_update
// defined (TORCH_LIBRARY) and implemented (TORCH_LIBRARY_IMPL, CUDA and CPU)
// in C++, calling libtilec_mamba2's C ABI directly: the ops of
// python/tilec/mamba2.py's Python registrations with the same schemas,
// results and errors, without Python between the dispatcher and the C call
// (docs/mamba2.md, "The C++ op"). The fake (meta) kernels stay in Python
// (torch.library.register_fake in tilec/mamba2.py). The CPU kernels are the
// same functions: they report that the tensors are not CUDA tensors, in the
// package's words, instead of the dispatcher's "could not run" error.
//
//===----------------------------------------------------------------------===//

#include "DeviceContext.h"
#include "Errors.h"
#include "Profile.h"
#include "Workspaces.h"

#include "tilec/Mamba2/tilec_mamba2.h"

#include <ATen/ATen.h>
#include <torch/library.h>
#include <torch/version.h>

#include <array>
#include <atomic>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilec_torch_op {
namespace {

// The optional of kernel signatures: std::optional since torch 2.5 made
// c10::optional its alias.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 5)
template <typename T> using Optional = std::optional<T>;
#else
template <typename T> using Optional = c10::optional<T>;
#endif
using Tensor = at::Tensor;
using OptionalTensor = Optional<Tensor>;

/// A tensor argument by name; null for an absent optional one.
struct Named {
  const char *name;
  const Tensor *tensor;
};

const Tensor *present(const OptionalTensor &t) {
  return t.has_value() ? &*t : nullptr;
}

/// Python's tuple(shape): "(3,)", "(2, 3)".
std::string shapeText(at::IntArrayRef shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

/// Every tensor on one CUDA device (the C ABI cannot tell another device's
/// memory from its own), checked as tilec.mamba2._check_devices does; the
/// messages are made only for a refusal.
c10::Device checkDevices(std::initializer_list<Named> named) {
  const Named &first = *named.begin();
  const c10::Device device = first.tensor->device();
  bool sameDevice = true;
  for (const Named &n : named)
    sameDevice = sameDevice && (!n.tensor || n.tensor->device() == device);
  if (sameDevice && device.is_cuda())
    return device;
  std::string elsewhere, names;
  for (const Named &n : named) {
    if (!n.tensor)
      continue;
    names += (names.empty() ? "" : ", ") + std::string(n.name);
    if (n.tensor->device() != device)
      elsewhere += (elsewhere.empty() ? "" : ", ") + std::string(n.name) +
                   " on " + n.tensor->device().str();
  }
  if (!sameDevice)
    throwError(TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER,
               std::string(first.name) + " is on " + device.str() + " but " +
                   elsewhere +
                   ": every tensor must be on the same CUDA device");
  throwError(TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER,
             names + " are on " + device.str() +
                 ": tilec's Mamba-2 forward needs CUDA tensors");
}

/// The descriptors of a call's tensors (`named`, in the C ABI's order: the
/// enums below index them), and the notes of those whose dtype the C ABI
/// has no name for.
template <size_t N> struct Descriptors {
  std::array<tilec_mamba2_tensor, N> structs{};
  std::array<bool, N> given{};
  std::string notes;

  explicit Descriptors(std::initializer_list<Named> named) {
    size_t i = 0;
    for (const Named &n : named) {
      if (const Tensor *t = n.tensor) {
        const int dtype = dtypeCode(t->scalar_type());
        if (dtype < 0)
          notes += (notes.empty() ? "" : "; ") + std::string(n.name) +
                   " is " + pythonName(t->scalar_type());
        structs[i] = {t->data_ptr(), dtype, int32_t(t->dim()),
                      t->sizes().data(), t->strides().data()};
        given[i] = true;
      }
      ++i;
    }
  }
  const tilec_mamba2_tensor *operator[](size_t i) const {
    return given[i] ? &structs[i] : nullptr;
  }
};

/// Loads every kernel into the device's context at its first call (what
/// tilec_mamba2_prepare does, needed before graph capture), with that
/// context current.
void prepare(c10::Device device) {
  static std::array<std::atomic<bool>, 64> prepared{};
  makePrimaryContextCurrent(device.index());
  std::atomic<bool> &done = prepared.at(size_t(device.index()));
  if (done.load(std::memory_order_acquire))
    return;
  if (int status = tilec_mamba2_prepare())
    throwStatus(status);
  done.store(true, std::memory_order_release);
}

// The smallest magnitude that rounds to infinity in f32 (as
// tilec.mamba2._F32_OVERFLOW): a bound at or beyond it is infinite.
const double kF32Overflow = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);

float f32Bound(double v) {
  return std::fabs(v) >= kF32Overflow ? float(std::copysign(INFINITY, v))
                                      : float(v);
}

enum ForwardTensor {
  kX, kDt, kA, kB, kC, kD, kInit, kY, kFinal, kZ, kDtBias, kStates, kSeqIdx,
  kCuSeqlens, kVarlen, kForwardTensors
};

/// The outputs asked for, in this order: y, then the final states, the chunk
/// states and the varlen states for those asked for (the schema's
/// Tensor[]: an output not asked for is not allocated).
std::vector<Tensor>
chunkScanCombined(const Tensor &x, const Tensor &dt, const Tensor &A,
                  const Tensor &B, const Tensor &C, c10::SymInt chunkSize,
                  const OptionalTensor &D, const OptionalTensor &initialStates,
                  bool returnFinalStates, const OptionalTensor &z,
                  const OptionalTensor &dtBias, bool dtSoftplus,
                  double dtLimitLow, double dtLimitHigh, bool yF32,
                  bool returnChunkStates, const OptionalTensor &seqIdx,
                  const OptionalTensor &cuSeqlens, bool returnVarlenStates,
                  bool bf16States) {
  Laps laps(Stage::ForwardWhole);
  // In the order of chunk_scan_combined's checks (tilec/mamba2.py).
  if (returnVarlenStates && !cuSeqlens)
    throwError(TILEC_MAMBA2_ERROR_INVALID_ARGUMENT,
               "return_varlen_states=True needs cu_seqlens (the states at the "
               "end of each sequence it gives), as in mamba_ssm");
  const c10::Device device = checkDevices(
      {{"x", &x}, {"dt", &dt}, {"A", &A}, {"B", &B}, {"C", &C},
       {"D", present(D)}, {"initial_states", present(initialStates)},
       {"dt_bias", present(dtBias)}, {"z", present(z)},
       {"seq_idx", present(seqIdx)}, {"cu_seqlens", present(cuSeqlens)}});
  const int64_t chunk = chunkSize.expect_int();
  // The sizes as mamba_ssm reads them (tilec.mamba2.problem_sizes): ones
  // for a tensor of another rank, which the C ABI then reports.
  int64_t batch = 1, seqlen = 1, heads = 1, headdim = 1, groups = 1,
          dstate = B.dim() == 4 ? B.size(3) : 1;
  if (x.dim() == 4) {
    batch = x.size(0), seqlen = x.size(1), heads = x.size(2),
    headdim = x.size(3);
    groups = B.dim() == 4 ? B.size(2) : 1;
  }
  const tilec_mamba2_problem problem{batch, seqlen, heads, groups,
                                     headdim, dstate, chunk};
  laps.lap(Stage::ForwardChecks);
  prepare(device);
  void *stream = currentStream(device);
  const bool capturing = isCapturing(stream);
  laps.lap(Stage::ForwardContext);

  const at::ScalarType xType = x.scalar_type();
  const bool xStorable =
      xType == at::kBFloat16 || xType == at::kHalf || xType == at::kFloat;
  const auto f32 = x.options().dtype(at::kFloat);
  Tensor y = emptyOnDevice({batch, seqlen, heads, headdim},
                           x.options().dtype(xStorable && !yF32 ? xType
                                                                : at::kFloat));
  const int64_t nchunks = chunk > 0 ? (seqlen + chunk - 1) / chunk : 1;
  const int64_t sequences =
      cuSeqlens && cuSeqlens->dim() == 1 ? cuSeqlens->size(0) - 1 : 0;
  Tensor final, states, varlen;
  if (returnFinalStates)
    final = emptyOnDevice({batch, heads, headdim, dstate}, f32);
  // With bf16 states between chunks the chunk states returned are those.
  if (returnChunkStates)
    states = emptyOnDevice({batch, nchunks, heads, headdim, dstate},
                           bf16States ? x.options().dtype(at::kBFloat16) : f32);
  if (returnVarlenStates)
    varlen = emptyOnDevice({sequences, heads, headdim, dstate}, f32);
  Tensor zeros;
  if (!D)
    zeros = zeroD(device, heads, capturing);
  laps.lap(Stage::ForwardOutputs);

  const Descriptors<kForwardTensors> t(
      {{"x", &x},
       {"dt", &dt},
       {"A", &A},
       {"B", &B},
       {"C", &C},
       {"D", D ? &*D : &zeros},
       {"initial_states", present(initialStates)},
       {"y", &y},
       {"final_states", final.defined() ? &final : nullptr},
       {"z", present(z)},
       {"dt_bias", present(dtBias)},
       {"chunk_states", states.defined() ? &states : nullptr},
       {"seq_idx", present(seqIdx)},
       {"cu_seqlens", present(cuSeqlens)},
       {"varlen_states", varlen.defined() ? &varlen : nullptr}});
  tilec_mamba2_options options{};
  options.size = sizeof options;
  options.z = t[kZ];
  options.dt_bias = t[kDtBias];
  options.chunk_states = t[kStates];
  options.dt_softplus = dtSoftplus ? 1 : 0;
  options.dt_limit =
      !(dtLimitLow == -INFINITY && dtLimitHigh == INFINITY) ? 1 : 0;
  options.dt_min = options.dt_limit ? f32Bound(dtLimitLow) : 0.0f;
  options.dt_max = options.dt_limit ? f32Bound(dtLimitHigh) : 0.0f;
  options.seq_idx = t[kSeqIdx];
  options.cu_seqlens = t[kCuSeqlens];
  options.varlen_states = t[kVarlen];
  options.state_dtype = bf16States ? TILEC_MAMBA2_BF16 : TILEC_MAMBA2_F32;

  size_t workspaceBytes = 0;
  if (int sizeStatus =
          tilec_mamba2_workspace_size(&problem, &workspaceBytes)) {
    // The problem is invalid: the forward reports it, or whatever its
    // documented order of checks finds first, without touching memory.
    const std::string sizeError = tilec_mamba2_last_error();
    if (int status = tilec_mamba2_forward_with_options(
            &problem, t[kX], t[kDt], t[kA], t[kB], t[kC], t[kD], t[kInit],
            t[kY], t[kFinal], &options, nullptr, 0, stream))
      throwStatus(status, t.notes);
    throwError(sizeStatus, sizeError);
  }
  Tensor buffer = workspace(device, stream, workspaceBytes, capturing);
  laps.lap(Stage::ForwardWorkspace);
  if (int status = tilec_mamba2_forward_with_options(
          &problem, t[kX], t[kDt], t[kA], t[kB], t[kC], t[kD], t[kInit],
          t[kY], t[kFinal], &options, buffer.data_ptr(), workspaceBytes,
          stream))
    throwStatus(status, t.notes);
  laps.lap(Stage::ForwardCApi);
  std::vector<Tensor> outputs;
  outputs.reserve(4);
  outputs.push_back(std::move(y));
  for (Tensor *asked : {&final, &states, &varlen})
    if (asked->defined())
      outputs.push_back(std::move(*asked));
  return outputs;
}

enum DecodeTensor {
  kState, kStepX, kStepDt, kStepA, kStepB, kStepC, kStepD, kStepZ,
  kStepDtBias, kStepY, kDecodeTensors
};

Tensor selectiveStateUpdate(const Tensor &state, const Tensor &x,
                            const Tensor &dt, const Tensor &A,
                            const Tensor &B, const Tensor &C,
                            const OptionalTensor &D, const OptionalTensor &z,
                            const OptionalTensor &dtBias, bool dtSoftplus,
                            const OptionalTensor &stateBatchIndices,
                            c10::SymInt padSlotId) {
  Laps laps(Stage::DecodeWhole);
  const c10::Device device = checkDevices(
      {{"state", &state}, {"x", &x}, {"dt", &dt}, {"A", &A}, {"B", &B},
       {"C", &C}, {"D", present(D)}, {"z", present(z)},
       {"dt_bias", present(dtBias)}});
  int64_t batch = 1, heads = 1, headdim = 1, groups = 1, dstate = 1;
  if (x.dim() == 3)
    batch = x.size(0), heads = x.size(1), headdim = x.size(2);
  if (B.dim() == 3)
    groups = B.size(1), dstate = B.size(2);
  const int64_t stateRows = state.dim() == 4 ? state.size(0) : batch;
  laps.lap(Stage::DecodeChecks);
  prepare(device);
  void *stream = currentStream(device);
  laps.lap(Stage::DecodeContext);
  // The kernel reads the indices on the device as contiguous int64: the
  // caller's tensor when it is so already (nothing waits for the stream),
  // else converted on the device.
  Tensor indices;
  if (stateBatchIndices) {
    const Tensor &given = *stateBatchIndices;
    if (given.device() != device && isCapturing(stream))
      throwNotImplemented(
          "tilec.mamba2.selective_state_update: state_batch_indices on " +
          given.device().str() +
          " during CUDA graph capture is not supported (the kernel reads "
          "them on the device: pass them on " +
          device.str() + ")");
    if (!(given.dim() == 1 && given.size(0) == batch))
      throwError(TILEC_MAMBA2_ERROR_INVALID_SHAPE,
                 "state_batch_indices has shape " + shapeText(given.sizes()) +
                     "; the batch needs (" + std::to_string(batch) + ",)");
    indices = given.to(device, at::kLong).contiguous();
  }
  Tensor y = emptyOnDevice({batch, heads, headdim}, x.options());
  laps.lap(Stage::DecodeOutputs);
  const tilec_mamba2_decode_problem problem{batch,   heads,  groups,
                                            headdim, dstate, stateRows};
  const Descriptors<kDecodeTensors> t(
      {{"state", &state}, {"x", &x}, {"dt", &dt}, {"A", &A}, {"B", &B},
       {"C", &C}, {"D", present(D)}, {"z", present(z)},
       {"dt_bias", present(dtBias)}, {"y", &y}});
  if (int status = tilec_mamba2_state_update(
          &problem, t[kState], t[kStepX], t[kStepDt], t[kStepA], t[kStepB],
          t[kStepC], t[kStepD], t[kStepZ], t[kStepDtBias], dtSoftplus ? 1 : 0,
          indices.defined() ? static_cast<const int64_t *>(indices.data_ptr())
                            : nullptr,
          padSlotId.expect_int(), t[kStepY], stream))
    throwStatus(status, t.notes);
  laps.lap(Stage::DecodeCApi);
  return y;
}

} // namespace
} // namespace tilec_torch_op

// The schemas of tilec/mamba2.py's Python registrations, word for word
// (python/tests/test_torch_op.py compares them).
TORCH_LIBRARY(tilec, m) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  // The fake kernels are registered by this Python module (torch requires
  // the link for an op defined in C++, and imports the module when it needs
  // a fake before the module was imported).
  m.set_python_module("tilec.mamba2");
#endif
  m.def("mamba2_chunk_scan_combined(Tensor x, Tensor dt, Tensor A, Tensor B, "
        "Tensor C, SymInt chunk_size, Tensor? D, Tensor? initial_states, "
        "bool return_final_states, Tensor? z, Tensor? dt_bias, "
        "bool dt_softplus, float dt_limit_low, float dt_limit_high, "
        "bool y_f32, bool return_chunk_states, Tensor? seq_idx, "
        "Tensor? cu_seqlens, bool return_varlen_states, "
        "bool bf16_states=False) -> Tensor[]");
  m.def("mamba2_selective_state_update(Tensor(a0!) state, Tensor x, "
        "Tensor dt, Tensor A, Tensor B, Tensor C, Tensor? D, Tensor? z, "
        "Tensor? dt_bias, bool dt_softplus, Tensor? state_batch_indices, "
        "SymInt pad_slot_id) -> Tensor");
  m.def("mamba2_release_workspaces() -> ()",
        &tilec_torch_op::releaseWorkspaces);
}

TORCH_LIBRARY_IMPL(tilec, CUDA, m) {
  m.impl("mamba2_chunk_scan_combined", &tilec_torch_op::chunkScanCombined);
  m.impl("mamba2_selective_state_update",
         &tilec_torch_op::selectiveStateUpdate);
}

TORCH_LIBRARY_IMPL(tilec, CPU, m) {
  m.impl("mamba2_chunk_scan_combined", &tilec_torch_op::chunkScanCombined);
  m.impl("mamba2_selective_state_update",
         &tilec_torch_op::selectiveStateUpdate);
}
