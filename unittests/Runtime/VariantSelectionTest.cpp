//===- VariantSelectionTest.cpp - which variant a launcher launches -------===//
//
// The generated tile_scale launcher on the CPU, with the runtime pointed at
// the counting stand-in driver (unittests/Mamba2Gpu/CountingDriver.cpp,
// whose launches do nothing): for each pair of views it must launch the
// scale_vec variant exactly when both have the vectorize facts, and the
// generic scale otherwise. tilec_last_launched says which one it launched.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Runtime.h"
#include "scale.h"

#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

const bool countingDriver =
    setenv("TILEC_CUDA_DRIVER", TILEC_COUNTING_DRIVER, 1) == 0;

// Device addresses of the stand-in driver, which it never dereferences.
float *const aligned = reinterpret_cast<float *>(uintptr_t(1) << 40);
float *const other = reinterpret_cast<float *>((uintptr_t(1) << 40) + 4096);

/// The kernel name tile_scale launched for views x and y.
std::string launched(const tilec_view_f32_1d &x, const tilec_view_f32_1d &y) {
  tilec_status status = tile_scale(x, y, 2.0f, {1, 1, 1}, nullptr);
  if (status != TILEC_SUCCESS)
    return std::string("failed: ") + tilec_last_error();
  const tilec_kernel *kernel = tilec_last_launched();
  return kernel ? kernel->name : "nothing";
}

TEST(VariantSelection, VecOnlyWhenEveryViewHasTheFacts) {
  ASSERT_TRUE(countingDriver);
  ASSERT_EQ(tilec_init(), TILEC_SUCCESS) << tilec_last_error();
  EXPECT_EQ(tilec_last_launched(), nullptr);
  const int64_t n = 1024;
  EXPECT_EQ(launched({aligned, {n}, {1}}, {other, {n}, {1}}), "scale_vec");
  // One element off 16-byte alignment, in either view.
  EXPECT_EQ(launched({aligned + 1, {n}, {1}}, {other, {n}, {1}}), "scale");
  EXPECT_EQ(launched({aligned, {n}, {1}}, {other + 1, {n}, {1}}), "scale");
  // Four f32 elements are one vector: an offset of four keeps the facts.
  EXPECT_EQ(launched({aligned + 4, {n}, {1}}, {other + 4, {n}, {1}}),
            "scale_vec");
  // A size that ends inside a vector, a strided view.
  EXPECT_EQ(launched({aligned, {n - 1}, {1}}, {other, {n - 1}, {1}}), "scale");
  EXPECT_EQ(launched({aligned, {n / 2}, {2}}, {other, {n / 2}, {1}}), "scale");
  // Empty views have the facts whatever their pointer and strides: an
  // absent view ({nullptr, {0}, {0}}) beside an aligned one.
  EXPECT_EQ(launched({nullptr, {0}, {0}}, {other, {n}, {1}}), "scale_vec");
  EXPECT_EQ(launched({aligned, {n}, {1}}, {other + 1, {0}, {3}}),
            "scale_vec");
  EXPECT_EQ(launched({nullptr, {0}, {0}}, {other + 1, {n}, {1}}), "scale");
  // The choice is made per launch, not remembered.
  EXPECT_EQ(launched({aligned, {n}, {1}}, {other, {n}, {1}}), "scale_vec");
}

// In a context of its own (the stand-in takes any pointer for one, its
// value for its id), so that nothing is cached yet: prepare loads the image
// once and finds both variants' functions in it.
TEST(VariantSelection, PrepareLoadsEveryVariant) {
  ASSERT_EQ(tilec_init(), TILEC_SUCCESS) << tilec_last_error();
  void *setCurrent = nullptr;
  ASSERT_EQ(tilec_driver_entry_point_version("cuCtxSetCurrent", 4000,
                                             &setCurrent),
            TILEC_SUCCESS);
  void *driver = dlopen(TILEC_COUNTING_DRIVER, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(driver, nullptr) << dlerror();
  auto calls = reinterpret_cast<unsigned long long (*)(const char *)>(
      dlsym(driver, "tilec_counting_driver_calls"));
  ASSERT_NE(calls, nullptr);
  auto contextSetCurrent = reinterpret_cast<PFN_cuCtxSetCurrent_v4000>(
      setCurrent);
  CUcontext previous = nullptr;
  void *getCurrent = nullptr;
  ASSERT_EQ(tilec_driver_entry_point_version("cuCtxGetCurrent", 4000,
                                             &getCurrent),
            TILEC_SUCCESS);
  reinterpret_cast<PFN_cuCtxGetCurrent_v4000>(getCurrent)(&previous);
  ASSERT_EQ(contextSetCurrent(reinterpret_cast<CUcontext>(0x5000)),
            CUDA_SUCCESS);
  const unsigned long long loads = calls("cuModuleLoadData");
  const unsigned long long functions = calls("cuModuleGetFunction");
  EXPECT_EQ(tile_scale_prepare(), TILEC_SUCCESS) << tilec_last_error();
  EXPECT_EQ(calls("cuModuleLoadData") - loads, 1u);
  EXPECT_EQ(calls("cuModuleGetFunction") - functions, 2u);
  EXPECT_EQ(contextSetCurrent(previous), CUDA_SUCCESS);
  dlclose(driver);
}

TEST(VariantSelection, AFailedLaunchRecordsNothing) {
  ASSERT_EQ(tilec_init(), TILEC_SUCCESS) << tilec_last_error();
  ASSERT_EQ(launched({aligned, {64}, {1}}, {other, {64}, {1}}), "scale_vec");
  EXPECT_EQ(tile_scale({aligned + 1, {64}, {1}}, {other, {64}, {1}}, 2.0f,
                       {0, 1, 1}, nullptr),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_last_launched()->name, "scale_vec");
}

// The per-thread function table must not know a kernel by its descriptor's
// address alone: a descriptor rewritten in place for another kernel, or
// with more dynamic shared memory, is looked up again (and its shared
// memory limit raised) rather than launching the function remembered for
// the old contents.
TEST(VariantSelection, ARewrittenDescriptorIsLookedUpAgain) {
  ASSERT_EQ(tilec_init(), TILEC_SUCCESS) << tilec_last_error();
  ASSERT_EQ(launched({aligned, {64}, {1}}, {other, {64}, {1}}), "scale_vec");
  tilec_kernel kernel = *tilec_last_launched();
  ASSERT_EQ(launched({aligned + 1, {64}, {1}}, {other, {64}, {1}}), "scale");
  const char *genericName = tilec_last_launched()->name;
  void *driver = dlopen(TILEC_COUNTING_DRIVER, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(driver, nullptr) << dlerror();
  auto calls = reinterpret_cast<unsigned long long (*)(const char *)>(
      dlsym(driver, "tilec_counting_driver_calls"));
  ASSERT_NE(calls, nullptr);
  // The stand-in never reads the arguments.
  void *args[1] = {nullptr};
  const unsigned long long vec = calls("launch scale_vec");
  const unsigned long long generic = calls("launch scale");
  ASSERT_EQ(tilec_launch(&kernel, {1, 1, 1}, nullptr, args), TILEC_SUCCESS)
      << tilec_last_error();
  ASSERT_EQ(tilec_launch(&kernel, {1, 1, 1}, nullptr, args), TILEC_SUCCESS)
      << tilec_last_error();
  EXPECT_EQ(calls("launch scale_vec") - vec, 2u);
  // The same address, another kernel's name.
  kernel.name = genericName;
  ASSERT_EQ(tilec_launch(&kernel, {1, 1, 1}, nullptr, args), TILEC_SUCCESS)
      << tilec_last_error();
  EXPECT_EQ(calls("launch scale_vec") - vec, 2u);
  EXPECT_EQ(calls("launch scale") - generic, 1u);
  // The same kernel with more dynamic shared memory than the default
  // limit: the shared path raises the function's limit.
  const unsigned long long raises = calls("cuFuncSetAttribute");
  kernel.shared_bytes = 64 * 1024;
  ASSERT_EQ(tilec_launch(&kernel, {1, 1, 1}, nullptr, args), TILEC_SUCCESS)
      << tilec_last_error();
  EXPECT_EQ(calls("cuFuncSetAttribute") - raises, 1u);
  EXPECT_EQ(calls("launch scale") - generic, 2u);
  dlclose(driver);
}

} // namespace
