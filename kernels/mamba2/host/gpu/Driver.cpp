//===- Driver.cpp - the CUDA driver entry points of the library ----------===//

#include "Driver.h"

#include "tilec/Runtime/Runtime.h"

#include <mutex>
#include <type_traits>

using namespace tilec::mamba2;

namespace {

tilec_mamba2_status fromRuntimeInit(tilec_status status) {
  switch (status) {
  case TILEC_SUCCESS:
    return TILEC_MAMBA2_SUCCESS;
  case TILEC_ERROR_NO_DEVICE:
    return TILEC_MAMBA2_ERROR_NO_DEVICE;
  default:
    // The runtime could not load or initialize the driver.
    return TILEC_MAMBA2_ERROR_NO_DRIVER;
  }
}

} // namespace

/// The entry points, resolved once per process through the tilec runtime,
/// which loads and initializes the driver on first use.
const gpu::DriverLoad &gpu::driver() {
  static DriverLoad load;
  static std::once_flag once;
  std::call_once(once, [] {
    auto need = [&](auto &entry, const char *symbol) {
      if (load.code != TILEC_MAMBA2_SUCCESS)
        return;
      void *function = nullptr;
      tilec_status status = tilec_driver_entry_point(symbol, &function);
      if (status != TILEC_SUCCESS) {
        load.code = fromRuntimeInit(status);
        load.message = tilec_last_error();
        return;
      }
      entry =
          reinterpret_cast<std::remove_reference_t<decltype(entry)>>(function);
    };
    need(load.api.getErrorName, "cuGetErrorName");
    need(load.api.ctxGetCurrent, "cuCtxGetCurrent");
    need(load.api.ctxGetId, "cuCtxGetId");
    need(load.api.pointerGetAttributes, "cuPointerGetAttributes");
    need(load.api.memAllocAsync, "cuMemAllocAsync");
    need(load.api.memFreeAsync, "cuMemFreeAsync");
  });
  return load;
}

std::string gpu::describe(const DriverApi &api, CUresult result) {
  const char *name = nullptr;
  if (api.getErrorName(result, &name) != CUDA_SUCCESS || !name)
    return "CUDA error " + std::to_string(result);
  return name;
}

tilec_mamba2_status gpu::fromKernelPrepare(tilec_status status) {
  switch (status) {
  case TILEC_ERROR_NO_DRIVER:
    return TILEC_MAMBA2_ERROR_NO_DRIVER;
  case TILEC_ERROR_NO_DEVICE:
    return TILEC_MAMBA2_ERROR_NO_DEVICE;
  case TILEC_ERROR_NO_CONTEXT:
    return TILEC_MAMBA2_ERROR_NO_CONTEXT;
  default:
    return TILEC_MAMBA2_ERROR_LAUNCH_FAILURE;
  }
}
