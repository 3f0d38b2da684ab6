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

// The fields of `args`, in the order of the header's argument lists.
#define FIELD_OF_ARGS(type, name) args->name,
#define TENSOR_OF_ARGS(name) args->name,

extern "C" {

int tilec_mamba2_forward_call(const tilec_mamba2_forward_args *args) {
  if (!args)
    return gpu::failCall(TILEC_MAMBA2_ERROR_NULL_POINTER,
                         "tilec_mamba2_forward_call: the arguments are null");
  return tilec_mamba2_forward_with_options(
      TILEC_MAMBA2_FORWARD_ARGUMENTS(FIELD_OF_ARGS, TENSOR_OF_ARGS)
          args->stream);
}

int tilec_mamba2_state_update_call(const tilec_mamba2_state_update_args *args) {
  if (!args)
    return gpu::failCall(
        TILEC_MAMBA2_ERROR_NULL_POINTER,
        "tilec_mamba2_state_update_call: the arguments are null");
  return tilec_mamba2_state_update(
      TILEC_MAMBA2_STATE_UPDATE_ARGUMENTS(FIELD_OF_ARGS, TENSOR_OF_ARGS)
          args->stream);
}

} // extern "C"
