//===- ScaleGpuTest.cpp - kernels/examples/scale.mlir on a GPU ------------===//
//
// Runs the generated tile_scale launcher end to end. Without a CUDA driver
// or device every test reports SKIPPED. The driver is reached through the
// runtime's entry points, so this program starts on any machine.
//
//===----------------------------------------------------------------------===//

#include "GpuFixture.h"
#include "scale.h"
#include "scale_split.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
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

// The same data through aligned views and through views one element off
// 16-byte alignment: the launcher runs scale_vec for the first and the
// generic scale for the second, and both give x * s bit for bit, leaving
// the poison around the views.
TEST_F(ScaleGpu, VecVariantForAlignedViewsGenericOtherwise) {
  const int64_t n = 40 * kBlock + 12, slack = 8; // n: a multiple of 4
  const float s = 3.25f;
  std::vector<float> x = randomFloats(n + 1, 5);
  float *dx = upload(x);
  for (int64_t offset : {0, 1}) {
    float *dy = upload(poisoned(n + slack));
    tilec_view_f32_1d vx = {dx + offset, {n}, {1}};
    tilec_view_f32_1d vy = {dy + offset, {n}, {1}};
    CHECK_TILEC(
        tile_scale(vx, vy, s, {(n + kBlock - 1) / kBlock, 1, 1}, stream));
    const tilec_kernel *ran = tilec_last_launched();
    ASSERT_NE(ran, nullptr);
    EXPECT_STREQ(ran->name, offset ? "scale" : "scale_vec");
    CHECK_CU(cu.streamSynchronize(stream));
    std::vector<float> y = download(dy, n + slack);
    for (int64_t i = 0; i < n + slack; ++i) {
      const bool inView = i >= offset && i < offset + n;
      ASSERT_EQ(bits(y[i]), inView ? bits(x[i] * s) : kPoison)
          << "offset " << offset << ", element " << i;
    }
  }
}

// An empty view has the vectorize facts whatever its pointer and strides
// (docs/codegen-layouts.md): the launcher runs scale_vec, whose accesses are
// all predicated on the view's bounds, so the null pointer is never
// dereferenced (a fault would fail the synchronize). With x empty every load
// reads the padding, 0, and y gets 0 * s = -0 for a negative s; with y
// empty nothing is written.
TEST_F(ScaleGpu, EmptyViewsRunTheVecVariant) {
  const int64_t n = 8 * kBlock, slack = 8;
  const float s = -1.5f;
  float *dy = upload(poisoned(n + slack));
  const tilec_view_f32_1d absent = {nullptr, {0}, {0}};
  CHECK_TILEC(tile_scale(absent, {dy, {n}, {1}}, s, {n / kBlock, 1, 1},
                         stream));
  const tilec_kernel *ran = tilec_last_launched();
  ASSERT_NE(ran, nullptr);
  EXPECT_STREQ(ran->name, "scale_vec");
  CHECK_CU(cu.streamSynchronize(stream));
  std::vector<float> y = download(dy, n + slack);
  for (int64_t i = 0; i < n + slack; ++i)
    ASSERT_EQ(bits(y[i]), i < n ? bits(-0.0f) : kPoison) << "element " << i;

  std::vector<float> x = randomFloats(n, 6);
  float *dx = upload(x);
  CHECK_TILEC(tile_scale({dx, {n}, {1}}, absent, s, {n / kBlock, 1, 1},
                         stream));
  ran = tilec_last_launched();
  ASSERT_NE(ran, nullptr);
  EXPECT_STREQ(ran->name, "scale_vec");
  CHECK_CU(cu.streamSynchronize(stream));
}

/// The device's compute capability and what the driver runs there.
struct DeviceImages {
  int major = 0, minor = 0;
  /// Whether the driver JIT compiles the PTX whatever cubins there are:
  /// CUDA_FORCE_PTX_JIT=1, or a device newer than every cubin (10.0 on).
  bool fromPTX = false;

  /// The target of the code that runs from a fatbin with the sm_80 cubin and
  /// PTX and, when `withSm90a`, the sm_90a cubin, as tilec_image_info says.
  const char *target(bool withSm90a) const {
    if (fromPTX)
      return "sm_80";
    if (major == 9 && minor == 0)
      return withSm90a ? "sm_90a" : "sm_80"; // sm_80: the JIT compiled PTX
    return major == 8 ? "sm_80" : "none";
  }
  /// Its binary version: the device's for JIT compiled PTX and 9.0 cubins.
  int binaryVersion() const {
    return fromPTX || major == 9 ? 10 * major + minor : 80;
  }
};

DeviceImages deviceImages(CUdevice device) {
  PFN_cuDeviceGetAttribute_v2000 getAttribute = nullptr;
  DeviceImages images;
  tilec::runtime::testing::resolve(getAttribute, "cuDeviceGetAttribute", 2000);
  if (!getAttribute)
    return images;
  EXPECT_EQ(getAttribute(&images.major,
                         CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
            CUDA_SUCCESS);
  EXPECT_EQ(getAttribute(&images.minor,
                         CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
            CUDA_SUCCESS);
  const char *jit = std::getenv("CUDA_FORCE_PTX_JIT");
  images.fromPTX = (jit && std::string(jit) == "1") || images.major >= 10;
  return images;
}

/// Prints and checks which code of `ran`'s image the driver runs.
void expectImage(const tilec_kernel *ran, const DeviceImages &device,
                 bool withSm90a) {
  ASSERT_NE(ran, nullptr);
  tilec_image_info info;
  CHECK_TILEC(tilec_kernel_image_info(ran, &info));
  std::printf("%s on compute capability %d.%d: the %s image, binary version "
              "%d, PTX version %d\n",
              ran->name, device.major, device.minor, info.target,
              info.binary_version, info.ptx_version);
  EXPECT_STREQ(info.target, device.target(withSm90a)) << ran->name;
  EXPECT_EQ(info.binary_version, device.binaryVersion())
      << ran->name;
}

// Which of the fatbin's images (cubins for sm_80, sm_90 and sm_90a, PTX for
// sm_80) the driver runs, as the image's tilec_image_target string and the
// function's binary version say: the sm_90a cubin on a compute capability
// 9.0 device, the sm_80 cubin on 8.x, the PTX (JIT compiled for the device)
// on newer ones and under CUDA_FORCE_PTX_JIT=1.
TEST_F(ScaleGpu, RunsTheBestCubinForTheDevice) {
  const DeviceImages images = deviceImages(device);
  ASSERT_GT(images.major, 0);
  float *dx = upload(randomFloats(kBlock, 6));
  for (int64_t offset : {0, 1}) {
    tilec_view_f32_1d view = {dx + offset, {kBlock - 4}, {1}};
    CHECK_TILEC(tile_scale(view, view, 1.0f, {1, 1, 1}, stream));
    ASSERT_NO_FATAL_FAILURE(
        expectImage(tilec_last_launched(), images, /*withSm90a=*/true));
  }
  CHECK_CU(cu.streamSynchronize(stream));
}

// scale_split's generic variant is in a fatbin of its own with only the
// sm_80 cubin and PTX (tilec --generic-targets=sm_80, as the Mamba-2
// library), its vec variant in one with the sm_80, sm_90 and sm_90a cubins.
// On a 9.0 device the vec variant runs the sm_90a cubin and the generic one
// the sm_80 PTX, JIT compiled for the device (binary version 90); on 8.x
// both run their sm_80 cubins. Both compute s * x bit for bit and leave the
// poison around y's view.
TEST_F(ScaleGpu, RunsTheGenericVariantFromItsOwnImage) {
  const DeviceImages images = deviceImages(device);
  ASSERT_GT(images.major, 0);
  const int64_t n = 24 * kBlock + 12, slack = 8; // n: a multiple of 4
  const float s = -2.625f;
  std::vector<float> x = randomFloats(n + 1, 7);
  float *dx = upload(x);
  const tilec_kernel *ran[2] = {};
  for (int64_t offset : {0, 1}) {
    float *dy = upload(poisoned(n + slack));
    tilec_view_f32_1d vx = {dx + offset, {n}, {1}};
    tilec_view_f32_1d vy = {dy + offset, {n}, {1}};
    CHECK_TILEC(
        tile_scale_split(vx, vy, s, {(n + kBlock - 1) / kBlock, 1, 1}, stream));
    ran[offset] = tilec_last_launched();
    ASSERT_NE(ran[offset], nullptr);
    EXPECT_STREQ(ran[offset]->name, offset ? "scale_split" : "scale_split_vec");
    CHECK_CU(cu.streamSynchronize(stream));
    std::vector<float> y = download(dy, n + slack);
    for (int64_t i = 0; i < n + slack; ++i) {
      const bool inView = i >= offset && i < offset + n;
      ASSERT_EQ(bits(y[i]), inView ? bits(x[i] * s) : kPoison)
          << "offset " << offset << ", element " << i;
    }
    ASSERT_NO_FATAL_FAILURE(
        expectImage(ran[offset], images, /*withSm90a=*/offset == 0));
  }
  EXPECT_NE(ran[0]->fatbin, ran[1]->fatbin)
      << "the generic variant is not in a fatbin of its own";
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
