//===- CApiStateUpdate.cpp - C ABI of the decode step -----------*- C++ -*-===//
//
// tilec_mamba2_state_update: the C descriptors as the C++ ones, then the
// implementation of stateUpdateGpu, which names every failure.
//
//===----------------------------------------------------------------------===//

#include "CApiSupport.h"
#include "RepeatedCall.h"
#include "StateUpdateGpu.h"

#include "tilec/Mamba2/tilec_mamba2.h"

#include <optional>
#include <string>

using namespace tilec::mamba2;

namespace {

/// tilec_mamba2_state_update without the repeated-call shortcut.
int checkAndLaunch(const tilec_mamba2_decode_problem *problem,
                   const tilec_mamba2_tensor *state,
                   const tilec_mamba2_tensor *x, const tilec_mamba2_tensor *dt,
                   const tilec_mamba2_tensor *A, const tilec_mamba2_tensor *B,
                   const tilec_mamba2_tensor *C, const tilec_mamba2_tensor *D,
                   const tilec_mamba2_tensor *z,
                   const tilec_mamba2_tensor *dt_bias, int32_t dt_softplus,
                   const int64_t *state_indices, int64_t pad_slot_id,
                   const tilec_mamba2_tensor *y, void *stream);

} // namespace

extern "C" int tilec_mamba2_state_update(
    const tilec_mamba2_decode_problem *problem,
    const tilec_mamba2_tensor *state, const tilec_mamba2_tensor *x,
    const tilec_mamba2_tensor *dt, const tilec_mamba2_tensor *A,
    const tilec_mamba2_tensor *B, const tilec_mamba2_tensor *C,
    const tilec_mamba2_tensor *D, const tilec_mamba2_tensor *z,
    const tilec_mamba2_tensor *dt_bias, int32_t dt_softplus,
    const int64_t *state_indices, int64_t pad_slot_id,
    const tilec_mamba2_tensor *y, void *stream) {
  if (!problem)
    return gpu::failCall(TILEC_MAMBA2_ERROR_NULL_POINTER,
                         "decode problem: the problem descriptor is null");
  // Every byte the checks and the launch read (RepeatedCall.h): the
  // indices are read on the device, so their pointer is the argument.
  thread_local gpu::RepeatedCall repeated;
  gpu::CallKey &key = repeated.key;
  key.clear();
  key.add(*problem);
  for (const tilec_mamba2_tensor *t : {state, x, dt, A, B, C, D, z, dt_bias, y})
    key.addTensor(t);
  key.add(dt_softplus);
  key.add(state_indices);
  key.add(pad_slot_id);
  key.add(stream);
  tilec_mamba2_status status;
  std::string message;
  if (gpu::replayed(repeated, static_cast<CUstream>(stream), status, message))
    return status == TILEC_MAMBA2_SUCCESS
               ? TILEC_MAMBA2_SUCCESS
               : gpu::failCall(status, std::move(message));
  const int code =
      checkAndLaunch(problem, state, x, dt, A, B, C, D, z, dt_bias,
                     dt_softplus, state_indices, pad_slot_id, y, stream);
  gpu::remember(repeated, tilec_mamba2_status(code));
  return code;
}

namespace {

int checkAndLaunch(
    const tilec_mamba2_decode_problem *problem,
    const tilec_mamba2_tensor *state, const tilec_mamba2_tensor *x,
    const tilec_mamba2_tensor *dt, const tilec_mamba2_tensor *A,
    const tilec_mamba2_tensor *B, const tilec_mamba2_tensor *C,
    const tilec_mamba2_tensor *D, const tilec_mamba2_tensor *z,
    const tilec_mamba2_tensor *dt_bias, int32_t dt_softplus,
    const int64_t *state_indices, int64_t pad_slot_id,
    const tilec_mamba2_tensor *y, void *stream) {
  const DecodeProblem p{problem->batch,   problem->heads,  problem->groups,
                        problem->headdim, problem->dstate, problem->state_rows};
  StateUpdateArgs args;
  gpu::DescriptorVectors vectors;
  std::string message;
  // In the order the validation walks them; an optional tensor is absent
  // when its descriptor is null.
  if (tilec_mamba2_status code =
          gpu::readTensorArguments({{"state", state, &args.state, nullptr},
                                    {"x", x, &args.x, nullptr},
                                    {"dt", dt, &args.dt, nullptr},
                                    {"A", A, &args.A, nullptr},
                                    {"B", B, &args.B, nullptr},
                                    {"C", C, &args.C, nullptr},
                                    {"D", D, nullptr, &args.D},
                                    {"z", z, nullptr, &args.z},
                                    {"dt_bias", dt_bias, nullptr, &args.dtBias},
                                    {"y", y, &args.y, nullptr}},
                                   vectors, message))
    return gpu::failCall(code, std::move(message));
  args.dtSoftplus = dt_softplus != 0;
  args.stateIndices = state_indices;
  args.padSlotId = pad_slot_id;
  if (tilec_mamba2_status code =
          gpu::stateUpdate(p, args, static_cast<CUstream>(stream), message))
    return gpu::failCall(code, std::move(message));
  return TILEC_MAMBA2_SUCCESS;
}

} // namespace
