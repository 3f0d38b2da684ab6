//===- DeviceGpuTest.cpp - the runtime on a real device ---------*- C++ -*-===//
//
// What only a device shows: every launcher argument type the other kernels
// do not use (test/gpu/kernels/abi_types.mlir: f16, i8, i16, i64 views; f16,
// bf16, i1, i8, i16 scalars) compiled into a launcher and launched; and the
// runtime's failures, each with its status and message: a fatbin with no
// image for the device, shared memory above the device's opt-in limit, and
// tilec_forget_fatbin dropping a cached module; and the PTX JIT path, run
// with CUDA_FORCE_PTX_JIT=1 by scripts/gpu-run. Every test skips without a
// driver or device and fails on any other setup failure.
//
// scale_raw.cpp is the generated launcher source of kernels/examples/
// scale.mlir (BLOCK=256, suffix _raw); it is included, not linked, for its
// fatbin and tilec_kernel, which the launcher keeps in an anonymous
// namespace: the tests launch that image with other shared memory sizes and
// from a copy they then overwrite.
//
//===----------------------------------------------------------------------===//

#include "GpuFixture.h"
#include "abi_types.h"
#include "scale_raw.cpp"
#include "scale_sm100a.h"
#include "scale_sm90a.h"

#include <cstdlib>

#include <string>

namespace {

using namespace tilec::runtime::testing;
// The descriptor of scale_raw.cpp's kernel (tilec_kernel_scale_raw) is in
// the generated source's own namespace.
using namespace tilec_generated_scale_raw_h;
using DeviceGpu = RuntimeGpuTest;

TEST_F(DeviceGpu, EveryLauncherArgumentType) {
  const int64_t n = 3 * 64 + 17; // a partial last tile
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> real(-4.0f, 4.0f);
  std::uniform_int_distribution<int> integer(-30000, 30000);
  std::vector<_Float16> h(n);
  std::vector<int8_t> b8(n);
  std::vector<int16_t> b16(n);
  std::vector<int64_t> b64(n);
  for (int64_t i = 0; i < n; ++i) {
    h[i] = static_cast<_Float16>(real(rng));
    b8[i] = static_cast<int8_t>(integer(rng));
    b16[i] = static_cast<int16_t>(integer(rng));
    b64[i] = (int64_t(integer(rng)) << 33) + integer(rng);
  }
  const _Float16 sh = static_cast<_Float16>(real(rng));
  const float sbValue = -2.75f; // exact in bf16
  const int8_t s8 = static_cast<int8_t>(integer(rng));
  const int16_t s16 = static_cast<int16_t>(integer(rng));
  const bool s1 = true;
  tilec_f16 shBits;
  std::memcpy(&shBits.bits, &sh, 2);
  uint32_t sbWord;
  std::memcpy(&sbWord, &sbValue, 4);
  const tilec_bf16 sbBits{static_cast<uint16_t>(sbWord >> 16)};

  auto *dh = reinterpret_cast<tilec_f16 *>(uploadBytes(h.data(), n * 2));
  auto *d8 = reinterpret_cast<int8_t *>(uploadBytes(b8.data(), n));
  auto *d16 = reinterpret_cast<int16_t *>(uploadBytes(b16.data(), n * 2));
  auto *d64 = reinterpret_cast<int64_t *>(uploadBytes(b64.data(), n * 8));
  float *dout = upload(poisoned(8));
  CHECK_TILEC(tile_abi_types({dh, {n}, {1}}, {d8, {n}, {1}}, {d16, {n}, {1}},
                             {d64, {n}, {1}}, {dout, {8}, {1}}, shBits, sbBits,
                             s1, s8, s16, {(n + 63) / 64, 1, 1}, stream));
  CHECK_CU(cu.streamSynchronize(stream));

  const auto gotH = downloadAs<_Float16>(dh, n);
  const auto got8 = downloadAs<int8_t>(d8, n);
  const auto got16 = downloadAs<int16_t>(d16, n);
  const auto got64 = downloadAs<int64_t>(d64, n);
  for (int64_t i = 0; i < n; ++i) {
    // f16 + f16 is exact in f32 here (|values| < 8), so one rounding.
    const _Float16 wantH = static_cast<_Float16>(float(h[i]) + float(sh));
    ASSERT_EQ(std::memcmp(&gotH[i], &wantH, 2), 0)
        << "h[" << i << "]: " << float(gotH[i]) << " vs " << float(wantH);
    ASSERT_EQ(got8[i], static_cast<int8_t>(b8[i] + s8)) << "b8[" << i << "]";
    ASSERT_EQ(got16[i], static_cast<int16_t>(b16[i] + s16)) << "b16[" << i
                                                            << "]";
    ASSERT_EQ(got64[i], b64[i] + s16) << "b64[" << i << "]";
  }
  const std::vector<float> out = download(dout, 8);
  const float want[8] = {float(sh), sbValue, 1.0f, float(s8), float(s16),
                         float(sh), float(sh), float(sh)};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(out[i], want[i]) << "out[" << i << "]";
}

/// The kernel parameters of scale_raw(x, y, s) on n contiguous floats.
struct ScaleParams {
  ScaleParams(float *x, float *y, int64_t n, float s)
      : x(x), y(y), n(n), s(s) {}
  float *x, *y;
  int64_t n, one = 1;
  float s;
  void *args[7] = {&x, &n, &one, &y, &n, &one, &s};
};

TEST_F(DeviceGpu, NoImageForTheDevice) {
  int major = 0;
  PFN_cuDeviceGetAttribute_v2000 getAttribute;
  ASSERT_NO_FATAL_FAILURE(
      resolve(getAttribute, "cuDeviceGetAttribute", 2000));
  CHECK_CU(getAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                        device));
  if (major >= 10)
    GTEST_SKIP() << "an sm_100a image runs here";
  float *x = upload(randomFloats(256, 1));
  tilec_status status =
      tile_scale_sm100a({x, {256}, {1}}, {x, {256}, {1}}, 2.0f, {1, 1, 1},
                        stream);
  EXPECT_EQ(status, TILEC_ERROR_NO_KERNEL_IMAGE) << tilec_status_name(status);
  EXPECT_NE(std::string(tilec_last_error()).find("scale_sm100a"),
            std::string::npos)
      << tilec_last_error();
}

// Under CUDA_FORCE_PTX_JIT=1 the driver ignores cubins and compiles the
// fatbin's PTX: an image with only an sm_90a cubin then has nothing to load,
// which shows the variable took effect, while the default image (sm_80,
// sm_90 and sm_90a cubins and sm_80 PTX) still runs, from its PTX, and gives
// the right result. Without the variable, both run from their cubins.
TEST_F(DeviceGpu, PtxJitIsTakenWhenForced) {
  int major = 0, minor = 0;
  PFN_cuDeviceGetAttribute_v2000 getAttribute;
  ASSERT_NO_FATAL_FAILURE(
      resolve(getAttribute, "cuDeviceGetAttribute", 2000));
  CHECK_CU(getAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                        device));
  CHECK_CU(getAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                        device));
  if (major != 9 || minor != 0)
    GTEST_SKIP() << "an sm_90a cubin needs an sm_90 device";
  const char *jit = std::getenv("CUDA_FORCE_PTX_JIT");
  const bool forced = jit && std::string(jit) == "1";
  std::printf("CUDA_FORCE_PTX_JIT %s\n", forced ? "=1: PTX" : "unset: cubins");
  const int64_t n = 1000;
  std::vector<float> host = randomFloats(n, 4);
  float *x = upload(host), *y = upload(poisoned(n));

  tilec_status status = tile_scale_sm90a({x, {n}, {1}}, {y, {n}, {1}}, 2.0f,
                                         {(n + 255) / 256, 1, 1}, stream);
  if (forced) {
    EXPECT_EQ(status, TILEC_ERROR_NO_KERNEL_IMAGE) << tilec_status_name(status);
  } else {
    EXPECT_EQ(status, TILEC_SUCCESS) << tilec_last_error();
  }
  CHECK_CU(cu.streamSynchronize(stream));

  ScaleParams params(x, y, n, 3.0f);
  CHECK_TILEC(tilec_launch(&tilec_kernel_scale_raw, {(n + 255) / 256, 1, 1},
                           stream, params.args));
  CHECK_CU(cu.streamSynchronize(stream));
  std::vector<float> got = download(y, n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], host[i] * 3.0f) << i;
}

TEST_F(DeviceGpu, SharedMemoryAboveTheOptInLimit) {
  PFN_cuDeviceGetAttribute_v2000 getAttribute;
  ASSERT_NO_FATAL_FAILURE(
      resolve(getAttribute, "cuDeviceGetAttribute", 2000));
  int limit = 0;
  CHECK_CU(getAttribute(&limit,
                        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                        device));
  const int64_t n = 256;
  std::vector<float> host = randomFloats(n, 2);
  float *x = upload(host), *y = upload(poisoned(n));
  ScaleParams params(x, y, n, 3.0f);

  // Above the default 48 KiB and within the opt-in limit: the runtime opts
  // in, and the launch runs.
  tilec_kernel within = tilec_kernel_scale_raw;
  within.shared_bytes = size_t(limit) - 1024;
  CHECK_TILEC(tilec_launch(&within, {1, 1, 1}, stream, params.args));
  CHECK_CU(cu.streamSynchronize(stream));
  std::vector<float> got = download(y, n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], host[i] * 3.0f) << i;

  tilec_kernel above = tilec_kernel_scale_raw;
  above.shared_bytes = size_t(limit) + 1;
  tilec_status status = tilec_launch(&above, {1, 1, 1}, stream, params.args);
  EXPECT_EQ(status, TILEC_ERROR_OUT_OF_RESOURCES) << tilec_status_name(status);
  const std::string message = tilec_last_error();
  EXPECT_NE(message.find("the device allows " + std::to_string(limit)),
            std::string::npos)
      << message;
}

TEST_F(DeviceGpu, ForgetFatbinDropsTheCachedModule) {
  // The image in memory of the test's own, 16-byte aligned.
  std::vector<uint64_t> copy((sizeof(tilec_fatbin) + 7) / 8);
  std::memcpy(copy.data(), tilec_fatbin, sizeof(tilec_fatbin));
  tilec_kernel kernel = tilec_kernel_scale_raw;
  kernel.fatbin = copy.data();
  const int64_t n = 256;
  std::vector<float> host = randomFloats(n, 3);
  float *x = upload(host), *y = upload(poisoned(n));
  ScaleParams params(x, y, n, 0.5f);
  CHECK_TILEC(tilec_launch(&kernel, {1, 1, 1}, stream, params.args));

  // The runtime knows images by address: a cached module outlives the
  // bytes it was loaded from...
  std::memset(copy.data(), 0, sizeof(tilec_fatbin));
  CHECK_TILEC(tilec_launch(&kernel, {1, 1, 1}, stream, params.args));
  CHECK_CU(cu.streamSynchronize(stream));
  // ...until it is forgotten: then the next launch loads the (now invalid)
  // bytes again.
  CHECK_TILEC(tilec_forget_fatbin(copy.data()));
  // (Zero bytes are no image; which error the driver names for them is its
  // own business.)
  tilec_status status = tilec_launch(&kernel, {1, 1, 1}, stream, params.args);
  EXPECT_TRUE(status == TILEC_ERROR_NO_KERNEL_IMAGE ||
              status == TILEC_ERROR_DRIVER)
      << tilec_status_name(status);
  EXPECT_NE(std::string(tilec_last_error()).find("scale_raw"),
            std::string::npos)
      << tilec_last_error();
  // A valid image at the same address loads and runs.
  std::memcpy(copy.data(), tilec_fatbin, sizeof(tilec_fatbin));
  params.s = 4.0f;
  CHECK_TILEC(tilec_launch(&kernel, {1, 1, 1}, stream, params.args));
  CHECK_CU(cu.streamSynchronize(stream));
  std::vector<float> got = download(y, n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], host[i] * 4.0f) << i;
  CHECK_TILEC(tilec_forget_fatbin(copy.data()));

  EXPECT_EQ(tilec_forget_fatbin(nullptr), TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tilec_last_error()).find("needs an image"),
            std::string::npos);
}

} // namespace
