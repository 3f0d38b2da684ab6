//===- ScaleGpuTest.cpp - kernels/examples/scale.mlir on a GPU ------------===//
//
// Runs the generated tile_scale launcher end to end. Without a CUDA driver
// or device every test reports SKIPPED. The driver is reached through the
// runtime's entry points, so this program starts on any machine.
//
//===----------------------------------------------------------------------===//

#include "GpuFixture.h"
#include "scale.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace {

using ScaleGpu = tilec::runtime::testing::RuntimeGpuTest;
using tilec::runtime::testing::kPoison;

constexpr int64_t kBlock = 256; // the BLOCK scale.mlir is built with

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
