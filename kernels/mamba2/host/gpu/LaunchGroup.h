//===- LaunchGroup.h - one library call's launches as one group -*- C++ -*-===//
//
// The forward pass and the decode step enqueue their kernels as a launch
// group of the runtime (Runtime.h: one cached CUDA graph launch for the
// call), which also asks for the current context once for the call: its id
// keys the device-pointer checks.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2GPU_LAUNCHGROUP_H
#define TILEC_LIB_MAMBA2GPU_LAUNCHGROUP_H

#include "tilec/Mamba2/tilec_mamba2.h"

#include <cuda.h>

#include <string>

namespace tilec::mamba2::gpu {

/// The calling thread's launch group for one call; dropped on destruction
/// unless end() enqueued it (an error path enqueues nothing of it).
class LaunchGroup {
public:
  LaunchGroup() = default;
  LaunchGroup(const LaunchGroup &) = delete;
  LaunchGroup &operator=(const LaunchGroup &) = delete;
  ~LaunchGroup();

  /// Opens the group on `stream`; `contextId` is the current context's.
  /// NO_CONTEXT without one, `message` says why.
  tilec_mamba2_status open(CUstream stream, unsigned long long &contextId,
                           std::string &message);

  /// Enqueues the launches made since open(); LAUNCH_FAILURE when the
  /// driver refuses, `message` names the kernels.
  tilec_mamba2_status end(std::string &message);

private:
  bool opened = false;
};

/// How many launch groups open() opened on the calling thread: a call that
/// compares it before and after knows whether it opened one itself.
unsigned long long groupsOpened();

} // namespace tilec::mamba2::gpu

#endif // TILEC_LIB_MAMBA2GPU_LAUNCHGROUP_H
