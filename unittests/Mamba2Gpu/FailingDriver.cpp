//===- FailingDriver.cpp - a CUDA driver whose cuInit fails -----*- C++ -*-===//
//
// A stand-in for libcuda.so.1 that BrokenDriverTest points the runtime at:
// it has every entry point the runtime asks for, and cuInit fails with
// CUDA_ERROR_OPERATING_SYSTEM, as a broken installation's does. Everything
// else fails with CUDA_ERROR_NOT_INITIALIZED.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <cstring>

namespace {

CUresult failingInit(unsigned) { return CUDA_ERROR_OPERATING_SYSTEM; }

CUresult errorName(CUresult result, const char **name) {
  *name = result == CUDA_ERROR_OPERATING_SYSTEM ? "CUDA_ERROR_OPERATING_SYSTEM"
                                                : "CUDA_ERROR_NOT_INITIALIZED";
  return CUDA_SUCCESS;
}

CUresult errorString(CUresult, const char **text) {
  *text = "the failing test driver";
  return CUDA_SUCCESS;
}

CUresult notInitialized() { return CUDA_ERROR_NOT_INITIALIZED; }

} // namespace

extern "C" __attribute__((visibility("default"))) CUresult
cuGetProcAddress_v2(const char *symbol, void **function, int, cuuint64_t,
                    CUdriverProcAddressQueryResult *found) {
  if (!std::strcmp(symbol, "cuInit"))
    *function = reinterpret_cast<void *>(&failingInit);
  else if (!std::strcmp(symbol, "cuGetErrorName"))
    *function = reinterpret_cast<void *>(&errorName);
  else if (!std::strcmp(symbol, "cuGetErrorString"))
    *function = reinterpret_cast<void *>(&errorString);
  else
    *function = reinterpret_cast<void *>(&notInitialized);
  if (found)
    *found = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}
