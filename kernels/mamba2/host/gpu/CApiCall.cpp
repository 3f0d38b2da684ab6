//===- CApiCall.cpp - the C ABI's calls with one struct argument -*- C++ -*-===//
//
// tilec_mamba2_forward_call and tilec_mamba2_state_update_call: the
// functions of CApi.cpp and CApiStateUpdate.cpp on the fields of one
// struct, for callers that pay per argument passed (Python's ctypes).
// Nothing is checked here but the struct pointer: the functions called
// check the rest in their documented order.
//
//===----------------------------------------------------------------------===//

#include "CApiSupport.h"

#include "tilec/Mamba2/tilec_mamba2.h"

using namespace tilec::mamba2;

extern "C" {

int tilec_mamba2_forward_call(const tilec_mamba2_forward_args *args) {
  if (!args)
    return gpu::failCall(TILEC_MAMBA2_ERROR_NULL_POINTER,
                         "tilec_mamba2_forward_call: the arguments are null");
  return tilec_mamba2_forward_with_options(
      args->problem, args->x, args->dt, args->A, args->B, args->C, args->D,
      args->initial_state, args->y, args->final_state, args->options,
      args->workspace, args->workspace_bytes, args->stream);
}

int tilec_mamba2_state_update_call(const tilec_mamba2_state_update_args *args) {
  if (!args)
    return gpu::failCall(
        TILEC_MAMBA2_ERROR_NULL_POINTER,
        "tilec_mamba2_state_update_call: the arguments are null");
  return tilec_mamba2_state_update(
      args->problem, args->state, args->x, args->dt, args->A, args->B,
      args->C, args->D, args->z, args->dt_bias, args->dt_softplus,
      args->state_indices, args->pad_slot_id, args->y, args->stream);
}

} // extern "C"
