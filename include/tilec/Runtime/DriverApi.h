//===- DriverApi.h - driver calls for programs that use tilec ---*- C++ -*-===//
//
// The CUDA driver functions a host program around tilec kernels needs
// (memory, copies, events, device 0's primary context), resolved through the
// runtime's dlopen'd driver so the program starts, and reports an error,
// where there is none. Header-only; needs only cuda.h and Runtime.h.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_DRIVERAPI_H
#define TILEC_RUNTIME_DRIVERAPI_H

#include "tilec/Runtime/Runtime.h"

#include <string>

namespace tilec::runtime {

struct DriverApi {
  decltype(&::cuGetErrorName) getErrorName = nullptr;
  decltype(&::cuDeviceGet) deviceGet = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primaryCtxRetain = nullptr;
  decltype(&::cuCtxSetCurrent) ctxSetCurrent = nullptr;
  decltype(&::cuMemAlloc) memAlloc = nullptr;
  decltype(&::cuMemFree) memFree = nullptr;
  decltype(&::cuMemcpyHtoD) memcpyHtoD = nullptr;
  decltype(&::cuMemcpyDtoH) memcpyDtoH = nullptr;
  // Not cuCtxSynchronize: its newest ABI, which the runtime resolves by
  // default, takes a context.
  decltype(&::cuStreamSynchronize) streamSynchronize = nullptr;
  decltype(&::cuEventCreate) eventCreate = nullptr;
  decltype(&::cuEventRecord) eventRecord = nullptr;
  decltype(&::cuEventSynchronize) eventSynchronize = nullptr;
  decltype(&::cuEventElapsedTime) eventElapsedTime = nullptr;

  /// Initializes the driver, resolves every function above and makes device
  /// 0's primary context current on the calling thread. On failure returns
  /// the status; error() says why.
  tilec_status load() {
    if (tilec_status status = tilec_init())
      return status;
    failedStep = nullptr;
    bool ok = entry("cuGetErrorName", getErrorName) &&
              entry("cuDeviceGet", deviceGet) &&
              entry("cuDevicePrimaryCtxRetain", primaryCtxRetain) &&
              entry("cuCtxSetCurrent", ctxSetCurrent) &&
              entry("cuMemAlloc", memAlloc) && entry("cuMemFree", memFree) &&
              entry("cuMemcpyHtoD", memcpyHtoD) &&
              entry("cuMemcpyDtoH", memcpyDtoH) &&
              entry("cuStreamSynchronize", streamSynchronize) &&
              entry("cuEventCreate", eventCreate) &&
              entry("cuEventRecord", eventRecord) &&
              entry("cuEventSynchronize", eventSynchronize) &&
              entry("cuEventElapsedTime", eventElapsedTime);
    if (!ok)
      return TILEC_ERROR_NO_DRIVER;
    CUdevice device;
    CUcontext context;
    if ((failedResult = deviceGet(&device, 0)) != CUDA_SUCCESS)
      failedStep = "cuDeviceGet";
    else if ((failedResult = primaryCtxRetain(&context, device)) !=
             CUDA_SUCCESS)
      failedStep = "cuDevicePrimaryCtxRetain";
    else if ((failedResult = ctxSetCurrent(context)) != CUDA_SUCCESS)
      failedStep = "cuCtxSetCurrent";
    return failedStep ? TILEC_ERROR_DRIVER : TILEC_SUCCESS;
  }

  /// Why the last load() failed.
  std::string error() const {
    if (!failedStep)
      return tilec_last_error();
    return std::string(failedStep) + " failed: " + errorName(failedResult);
  }

  /// "CUDA_ERROR_..." for a driver result.
  const char *errorName(CUresult result) const {
    const char *name = "unknown CUDA error";
    if (getErrorName)
      getErrorName(result, &name);
    return name;
  }

private:
  // At the version of the cuda.h this file is compiled with, which gave the
  // prototypes above, whatever the runtime library was built with.
  template <typename F> static bool entry(const char *name, F &function) {
    void *p = nullptr;
    if (tilec_driver_entry_point_version(name, CUDA_VERSION, &p) !=
        TILEC_SUCCESS)
      return false;
    function = reinterpret_cast<F>(p);
    return true;
  }

  const char *failedStep = nullptr;
  CUresult failedResult = CUDA_SUCCESS;
};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_DRIVERAPI_H
