//===- Driver.h - the CUDA driver entry points of the library ---*- C++ -*-===//
//
// The driver functions the forward pass and the decode step call directly
// (the launches go through the tilec runtime), resolved once per process
// through the runtime, which loads and initializes the driver on first use.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2GPU_DRIVER_H
#define TILEC_LIB_MAMBA2GPU_DRIVER_H

#include "tilec/Mamba2/tilec_mamba2.h"
#include "tilec/Runtime/Runtime.h"

#include <cuda.h>

#include <string>

namespace tilec::mamba2::gpu {

struct DriverApi {
  decltype(&::cuGetErrorName) getErrorName = nullptr;
  decltype(&::cuCtxGetCurrent) ctxGetCurrent = nullptr;
  decltype(&::cuCtxGetId) ctxGetId = nullptr;
  decltype(&::cuPointerGetAttributes) pointerGetAttributes = nullptr;
  decltype(&::cuMemAllocAsync) memAllocAsync = nullptr;
  decltype(&::cuMemFreeAsync) memFreeAsync = nullptr;
};

/// The entry points, or why they are not there (NO_DRIVER, NO_DEVICE).
struct DriverLoad {
  DriverApi api;
  tilec_mamba2_status code = TILEC_MAMBA2_SUCCESS;
  std::string message;
};

/// Resolved on the first call, then the same for the process.
const DriverLoad &driver();

/// The driver's name for `result`, e.g. "CUDA_ERROR_INVALID_VALUE".
std::string describe(const DriverApi &api, CUresult result);

/// The library's status for the failure of a kernel library's prepare
/// (loading its image): no driver, device or context as such, anything else
/// a launch failure.
tilec_mamba2_status fromKernelPrepare(tilec_status status);

} // namespace tilec::mamba2::gpu

#endif // TILEC_LIB_MAMBA2GPU_DRIVER_H
