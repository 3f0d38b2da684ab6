//===- ScaleGpuTest.cpp - kernels/examples/scale.mlir on a GPU ------------===//
//
// Runs the generated tile_scale launcher end to end. Without a CUDA driver
// or device every test reports SKIPPED. The driver is reached through the
// runtime's entry points, so this program starts on any machine.
//
//===----------------------------------------------------------------------===//

#include "scale.h"
#include "tilec/runtime/Runtime.h"

#include <cudaTypedefs.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace {

/// The driver functions the test needs, at the ABI versions cuda.h names.
struct Driver {
  PFN_cuDeviceGet_v2000 deviceGet;
  PFN_cuDevicePrimaryCtxRetain_v7000 primaryCtxRetain;
  PFN_cuDevicePrimaryCtxRelease_v11000 primaryCtxRelease;
  PFN_cuCtxSetCurrent_v4000 ctxSetCurrent;
  PFN_cuMemAlloc_v3020 memAlloc;
  PFN_cuMemFree_v3020 memFree;
  PFN_cuMemcpyHtoD_v3020 memcpyHtoD;
  PFN_cuMemcpyDtoH_v3020 memcpyDtoH;
  PFN_cuStreamCreate_v2000 streamCreate;
  PFN_cuStreamDestroy_v4000 streamDestroy;
  PFN_cuStreamSynchronize_v2000 streamSynchronize;
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

constexpr int64_t kBlock = 256; // the BLOCK scale.mlir is built with

class ScaleGpu : public ::testing::Test {
protected:
  void SetUp() override {
    tilec_status status = tilec_init();
    if (status == TILEC_ERROR_NO_DRIVER || status == TILEC_ERROR_NO_DEVICE)
      GTEST_SKIP() << tilec_last_error();
    CHECK_TILEC(status);
    resolve(cu.deviceGet, "cuDeviceGet", 2000);
    resolve(cu.primaryCtxRetain, "cuDevicePrimaryCtxRetain", 7000);
    resolve(cu.primaryCtxRelease, "cuDevicePrimaryCtxRelease", 11000);
    resolve(cu.ctxSetCurrent, "cuCtxSetCurrent", 4000);
    resolve(cu.memAlloc, "cuMemAlloc", 3020);
    resolve(cu.memFree, "cuMemFree", 3020);
    resolve(cu.memcpyHtoD, "cuMemcpyHtoD", 3020);
    resolve(cu.memcpyDtoH, "cuMemcpyDtoH", 3020);
    resolve(cu.streamCreate, "cuStreamCreate", 2000);
    resolve(cu.streamDestroy, "cuStreamDestroy", 4000);
    resolve(cu.streamSynchronize, "cuStreamSynchronize", 2000);
    CHECK_CU(cu.deviceGet(&device, 0));
    CHECK_CU(cu.primaryCtxRetain(&context, device));
    CHECK_CU(cu.ctxSetCurrent(context));
    CHECK_CU(cu.streamCreate(&stream, CU_STREAM_NON_BLOCKING));
  }

  void TearDown() override {
    if (!context)
      return;
    for (CUdeviceptr buffer : buffers)
      EXPECT_EQ(cu.memFree(buffer), CUDA_SUCCESS);
    if (stream) {
      EXPECT_EQ(cu.streamDestroy(stream), CUDA_SUCCESS);
    }
    EXPECT_EQ(cu.primaryCtxRelease(device), CUDA_SUCCESS);
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
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  std::vector<CUdeviceptr> buffers;
};

TEST_F(ScaleGpu, ScalesRandomInputAndMasksTheTail) {
  // Not a multiple of the block, so the last tile is partial; y has room
  // past its shape that the kernel must leave alone.
  const int64_t n = 100 * kBlock + 37, slack = 2 * kBlock;
  const float s = 1.75f;
  std::vector<float> x = randomFloats(n, 1);
  float *dx = upload(x);
  float *dy = upload(poisoned(n + slack));

  tilec_view_f32_1d vx = {dx, {n}, {1}};
  tilec_view_f32_1d vy = {dy, {n}, {1}};
  tilec_grid grid = {(n + kBlock - 1) / kBlock, 1, 1};
  CHECK_TILEC(tile_scale(vx, vy, s, grid, stream));
  CHECK_CU(cu.streamSynchronize(stream));

  std::vector<float> y = download(dy, n + slack);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(bits(y[i]), bits(x[i] * s)) << "element " << i;
  for (int64_t i = n; i < n + slack; ++i)
    ASSERT_EQ(bits(y[i]), kPoison) << "element " << i << " past the view";
}

TEST_F(ScaleGpu, ReadsAStridedView) {
  const int64_t n = 10 * kBlock + 5, stride = 3;
  const float s = -0.5f;
  std::vector<float> x = randomFloats(n * stride, 2);
  float *dx = upload(x);
  float *dy = upload(poisoned(n));

  tilec_view_f32_1d vx = {dx, {n}, {stride}};
  tilec_view_f32_1d vy = {dy, {n}, {1}};
  CHECK_TILEC(tile_scale(vx, vy, s, {(n + kBlock - 1) / kBlock, 1, 1}, stream));
  CHECK_CU(cu.streamSynchronize(stream));

  std::vector<float> y = download(dy, n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(bits(y[i]), bits(x[i * stride] * s)) << "element " << i;
}

TEST_F(ScaleGpu, BlocksPastTheEndWriteNothing) {
  const int64_t n = 3 * kBlock, slack = 4 * kBlock;
  std::vector<float> x = randomFloats(n, 3);
  float *dx = upload(x);
  float *dy = upload(poisoned(n + slack));

  tilec_view_f32_1d vx = {dx, {n}, {1}};
  tilec_view_f32_1d vy = {dy, {n}, {1}};
  // Twice the blocks the views need; launched twice to use the cached
  // module.
  for (int repeat = 0; repeat < 2; ++repeat)
    CHECK_TILEC(tile_scale(vx, vy, 2.0f, {2 * n / kBlock, 1, 1}, stream));
  CHECK_CU(cu.streamSynchronize(stream));

  std::vector<float> y = download(dy, n + slack);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(bits(y[i]), bits(x[i] * 2.0f)) << "element " << i;
  for (int64_t i = n; i < n + slack; ++i)
    ASSERT_EQ(bits(y[i]), kPoison) << "element " << i << " past the view";
}

TEST_F(ScaleGpu, AThreadWithoutAContextGetsAnError) {
  float *dx = upload(randomFloats(kBlock, 4));
  tilec_view_f32_1d view = {dx, {kBlock}, {1}};
  tilec_status status = TILEC_SUCCESS;
  std::string message;
  std::thread thread([&] {
    status = tile_scale(view, view, 1.0f, {1, 1, 1}, nullptr);
    message = tilec_last_error();
  });
  thread.join();
  EXPECT_EQ(status, TILEC_ERROR_NO_CONTEXT) << message;
  EXPECT_NE(message.find("no current CUDA context"), std::string::npos)
      << message;
}

} // namespace
