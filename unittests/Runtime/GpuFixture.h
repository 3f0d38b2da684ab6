//===- GpuFixture.h - the runtime's GPU tests' fixture ----------*- C++ -*-===//
//
// The driver functions the runtime's GPU tests use, reached through the
// runtime's entry points so that the programs start on any machine, and
// the fixture they share.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_UNITTESTS_RUNTIME_GPUFIXTURE_H
#define TILEC_UNITTESTS_RUNTIME_GPUFIXTURE_H

#include "tilec/Runtime/DriverApi.h"
#include "tilec/Runtime/Runtime.h"

#include <cudaTypedefs.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace tilec::runtime::testing {

/// The driver functions the tests need: DriverApi's (memory, copies, the
/// primary context, stream synchronization), and the few it has not, at
/// the ABI versions cuda.h names.
struct Driver : DriverApi {
  PFN_cuDevicePrimaryCtxRelease_v11000 primaryCtxRelease = nullptr;
  PFN_cuStreamCreate_v2000 streamCreate = nullptr;
  PFN_cuStreamDestroy_v4000 streamDestroy = nullptr;
};

template <typename F> void resolve(F &entry, const char *symbol, int version) {
  void *fn = nullptr;
  ASSERT_EQ(tilec_driver_entry_point_version(symbol, version, &fn),
            TILEC_SUCCESS)
      << tilec_last_error();
  entry = reinterpret_cast<F>(fn);
}

#define CHECK_CU(call) ASSERT_EQ((call), CUDA_SUCCESS) << #call
#define CHECK_TILEC(call) ASSERT_EQ((call), TILEC_SUCCESS) << tilec_last_error()

// A NaN with a payload no arithmetic produces: elements the kernel must not
// write keep it.
constexpr uint32_t kPoison = 0x7fbadbadu;

/// Device 0's primary context current and a stream, for every test; skipped
/// only without a driver or a device, failed on any other setup failure.
/// Buffers allocated through it are freed after the test.
class RuntimeGpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    tilec_status status = tilec_init();
    if (status == TILEC_ERROR_NO_DRIVER || status == TILEC_ERROR_NO_DEVICE)
      GTEST_SKIP() << tilec_last_error();
    CHECK_TILEC(status);
    // Makes device 0's primary context current; TearDown releases it.
    ASSERT_EQ(cu.load(), TILEC_SUCCESS) << cu.error();
    CHECK_CU(cu.deviceGet(&device, 0));
    retained = true;
    resolve(cu.primaryCtxRelease, "cuDevicePrimaryCtxRelease", 11000);
    resolve(cu.streamCreate, "cuStreamCreate", 2000);
    resolve(cu.streamDestroy, "cuStreamDestroy", 4000);
    CHECK_CU(cu.streamCreate(&stream, CU_STREAM_NON_BLOCKING));
  }

  void TearDown() override {
    if (!retained)
      return;
    for (CUdeviceptr buffer : buffers)
      EXPECT_EQ(cu.memFree(buffer), CUDA_SUCCESS);
    if (stream) {
      EXPECT_EQ(cu.streamDestroy(stream), CUDA_SUCCESS);
    }
    if (cu.primaryCtxRelease) {
      EXPECT_EQ(cu.primaryCtxRelease(device), CUDA_SUCCESS);
    }
  }

  /// A device copy of `bytes` bytes at `host`.
  CUdeviceptr uploadBytes(const void *host, size_t bytes) {
    CUdeviceptr buffer = 0;
    EXPECT_EQ(cu.memAlloc(&buffer, bytes), CUDA_SUCCESS);
    buffers.push_back(buffer);
    EXPECT_EQ(cu.memcpyHtoD(buffer, host, bytes), CUDA_SUCCESS);
    return buffer;
  }

  template <typename T> std::vector<T> downloadAs(const void *buffer,
                                                  size_t count) {
    std::vector<T> host(count);
    EXPECT_EQ(cu.memcpyDtoH(host.data(), reinterpret_cast<CUdeviceptr>(buffer),
                            count * sizeof(T)),
              CUDA_SUCCESS);
    return host;
  }

  /// A device copy of `host`.
  float *upload(const std::vector<float> &host) {
    CUdeviceptr buffer = 0;
    EXPECT_EQ(cu.memAlloc(&buffer, host.size() * sizeof(float)), CUDA_SUCCESS);
    buffers.push_back(buffer);
    EXPECT_EQ(cu.memcpyHtoD(buffer, host.data(), host.size() * sizeof(float)),
              CUDA_SUCCESS);
    return reinterpret_cast<float *>(buffer);
  }

  std::vector<float> download(const float *buffer, size_t count) {
    std::vector<float> host(count);
    EXPECT_EQ(cu.memcpyDtoH(host.data(), reinterpret_cast<CUdeviceptr>(buffer),
                            count * sizeof(float)),
              CUDA_SUCCESS);
    return host;
  }

  static std::vector<float> randomFloats(size_t count, unsigned seed) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> uniform(-100.0f, 100.0f);
    std::vector<float> values(count);
    for (float &value : values)
      value = uniform(generator);
    return values;
  }

  static std::vector<float> poisoned(size_t count) {
    std::vector<float> values(count);
    for (float &value : values)
      std::memcpy(&value, &kPoison, sizeof(value));
    return values;
  }

  static uint32_t bits(float value) {
    uint32_t b;
    std::memcpy(&b, &value, sizeof(b));
    return b;
  }

  Driver cu{};
  CUdevice device = 0;
  bool retained = false;
  CUstream stream = nullptr;
  std::vector<CUdeviceptr> buffers;
};

} // namespace tilec::runtime::testing

#endif // TILEC_UNITTESTS_RUNTIME_GPUFIXTURE_H
