//===- RuntimeInternal.h - what Runtime.cpp shares with LaunchGroup.cpp ---===//
//
// The driver entry points, the error reporting and the function cache of
// Runtime.cpp, for the launch groups of LaunchGroup.cpp (one CUDA graph per
// group of launches). Private to lib/Runtime: nothing here is installed.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_RUNTIME_RUNTIMEINTERNAL_H
#define TILEC_LIB_RUNTIME_RUNTIMEINTERNAL_H

#include "tilec/Runtime/Runtime.h"

#include <cudaTypedefs.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace tilec::runtime::detail {

/// The driver entry points the runtime uses, each at an explicit ABI
/// version: a newer driver returns the newest ABI of a name unless asked for
/// an older one, and that need not be cuda.h's prototype.
struct Driver {
  PFN_cuGetProcAddress_v12000 getProcAddress = nullptr;
  PFN_cuInit_v2000 init = nullptr;
  PFN_cuGetErrorName_v6000 getErrorName = nullptr;
  PFN_cuGetErrorString_v6000 getErrorString = nullptr;
  PFN_cuDeviceGetCount_v2000 deviceGetCount = nullptr;
  PFN_cuDeviceGetAttribute_v2000 deviceGetAttribute = nullptr;
  PFN_cuCtxGetCurrent_v4000 ctxGetCurrent = nullptr;
  PFN_cuCtxGetDevice_v2000 ctxGetDevice = nullptr;
  PFN_cuCtxGetId_v12000 ctxGetId = nullptr;
  PFN_cuModuleLoadData_v2000 moduleLoadData = nullptr;
  PFN_cuModuleGetFunction_v2000 moduleGetFunction = nullptr;
  PFN_cuModuleUnload_v2000 moduleUnload = nullptr;
  PFN_cuFuncGetAttribute_v2020 funcGetAttribute = nullptr;
  PFN_cuFuncSetAttribute_v9000 funcSetAttribute = nullptr;
  // The legacy-stream ABI: stream 0 is the legacy default stream.
  PFN_cuLaunchKernel_v4000 launchKernel = nullptr;

  // What launch groups replay their launches with. All or none: a driver
  // older than 12.4 has no cuFuncGetParamInfo, and its groups launch one
  // kernel at a time.
  PFN_cuFuncGetParamInfo_v12040 funcGetParamInfo = nullptr;
  PFN_cuStreamIsCapturing_v10000 streamIsCapturing = nullptr;
  PFN_cuGraphCreate_v10000 graphCreate = nullptr;
  PFN_cuGraphAddKernelNode_v12000 graphAddKernelNode = nullptr;
  PFN_cuGraphInstantiateWithFlags_v11040 graphInstantiate = nullptr;
  PFN_cuGraphExecKernelNodeSetParams_v12000 graphExecKernelNodeSetParams =
      nullptr;
  PFN_cuGraphLaunch_v10000 graphLaunch = nullptr;
  PFN_cuGraphDestroy_v10000 graphDestroy = nullptr;
  PFN_cuGraphExecDestroy_v10000 graphExecDestroy = nullptr;
  bool hasGraphs = false;
};

/// Resolved by tilec_init; valid once it succeeded.
extern Driver driver;

/// Sets the thread's tilec_last_error and returns `status`.
tilec_status fail(tilec_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// A driver failure of `what` (for `kernel`, when not null).
tilec_status failDriver(CUresult result, const char *what, const char *kernel);

/// The id of the calling thread's current context (the driver never reuses
/// one); NO_CONTEXT without one. `kernel` (may be null) names the caller in
/// the error.
tilec_status currentContextId(const char *kernel, unsigned long long &id);

/// Where each kernel parameter lies in the packed parameter buffer the
/// kernel takes (cuFuncGetParamInfo), so that a launch's parameters can be
/// copied and compared; unknown (known false) where the driver cannot say.
struct ParamLayout {
  bool known = false;
  /// (offset, size) of each parameter, in bytes.
  std::vector<std::pair<uint32_t, uint32_t>> params;
  /// The end of the last parameter.
  size_t bytes = 0;
};

/// The kernel's function in the context `contextId` (the current one),
/// loaded on first use, and its parameter layout. The layout lives as long
/// as the kernel's image is not forgotten (tilec_forget_fatbin).
tilec_status functionIn(const tilec_kernel &kernel,
                        unsigned long long contextId, CUfunction &function,
                        const ParamLayout *&layout);

/// Records `kernel` as the thread's tilec_last_launched.
void setLastLaunched(const tilec_kernel *kernel);

// LaunchGroup.cpp

/// Whether the calling thread is inside tilec_begin_launch_group.
bool inLaunchGroup();

/// tilec_launch inside the thread's launch group: recorded for the group's
/// graph, or launched at once when the group cannot be replayed as one.
/// The grid is checked.
tilec_status launchInGroup(const tilec_kernel &kernel, tilec_grid grid,
                           CUstream stream, void **args);

/// Drops the cached graphs that launch kernels of `fatbin` (destroying
/// those of the current context, whose id is `current` when `hasCurrent`).
void forgetGraphsOf(const void *fatbin, bool hasCurrent,
                    unsigned long long current);

} // namespace tilec::runtime::detail

#endif // TILEC_LIB_RUNTIME_RUNTIMEINTERNAL_H
