//===- LaunchGroup.cpp - one library call's launches as one group ---------===//

#include "LaunchGroup.h"

#include "tilec/Runtime/Runtime.h"

using namespace tilec::mamba2;

namespace {

thread_local unsigned long long opens = 0;

} // namespace

unsigned long long gpu::groupsOpened() { return opens; }

gpu::LaunchGroup::~LaunchGroup() {
  if (opened)
    tilec_cancel_launch_group();
}

tilec_mamba2_status gpu::LaunchGroup::open(CUstream stream,
                                           unsigned long long &contextId,
                                           std::string &message) {
  if (tilec_status status = tilec_begin_launch_group(stream, &contextId)) {
    // A group already open on the thread: the caller's own, around this
    // call.
    if (status == TILEC_ERROR_INVALID_ARGUMENT) {
      message = tilec_last_error();
      return TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
    }
    message = "no current CUDA context on this thread (make one current, "
              "e.g. cudaSetDevice or cuCtxSetCurrent)";
    if (status != TILEC_ERROR_NO_CONTEXT)
      message += std::string(": ") + tilec_last_error();
    return TILEC_MAMBA2_ERROR_NO_CONTEXT;
  }
  opened = true;
  ++opens;
  return TILEC_MAMBA2_SUCCESS;
}

tilec_mamba2_status gpu::LaunchGroup::end(std::string &message) {
  opened = false;
  if (tilec_status status = tilec_end_launch_group()) {
    message = std::string("launching the kernels (") +
              tilec_status_name(status) + "): " + tilec_last_error();
    return TILEC_MAMBA2_ERROR_LAUNCH_FAILURE;
  }
  return TILEC_MAMBA2_SUCCESS;
}
