//===- RuntimeTest.cpp - the runtime without a GPU ------------------------===//
//
// Every test of this program runs as on a machine without a CUDA driver: the
// runtime loads the driver once per process, from TILEC_CUDA_DRIVER when it
// is set, so it is set before main.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Runtime.h"
#include "scale.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

const bool noDriver =
    setenv("TILEC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1) == 0;

std::string lastError() { return tilec_last_error(); }

alignas(16) const unsigned char image[16] = {};
const tilec_kernel kernel = {image, "k", 128, 0};
const tilec_grid oneBlock = {1, 1, 1};

TEST(Runtime, NoDriverIsAnError) {
  ASSERT_TRUE(noDriver);
  EXPECT_EQ(tilec_init(), TILEC_ERROR_NO_DRIVER);
  EXPECT_NE(lastError().find("no CUDA driver"), std::string::npos)
      << lastError();
  EXPECT_NE(lastError().find("/nonexistent/libcuda.so.1"), std::string::npos)
      << lastError();
  // Initialization is tried once; later calls report the same error.
  EXPECT_EQ(tilec_init(), TILEC_ERROR_NO_DRIVER);
  EXPECT_EQ(tilec_launch(&kernel, oneBlock, nullptr, nullptr),
            TILEC_ERROR_NO_DRIVER);
  EXPECT_EQ(tilec_prepare(&kernel), TILEC_ERROR_NO_DRIVER);
  EXPECT_EQ(tilec_forget_fatbin(image), TILEC_ERROR_NO_DRIVER);
  void *entry = nullptr;
  EXPECT_EQ(tilec_driver_entry_point_version("cuMemAlloc", 3020, &entry),
            TILEC_ERROR_NO_DRIVER);
  EXPECT_EQ(tilec_driver_entry_point("cuMemAlloc", &entry),
            TILEC_ERROR_NO_DRIVER);
}

TEST(Runtime, StatusNames) {
  EXPECT_STREQ(tilec_status_name(TILEC_SUCCESS), "TILEC_SUCCESS");
  EXPECT_STREQ(tilec_status_name(TILEC_ERROR_NO_DEVICE),
               "TILEC_ERROR_NO_DEVICE");
  EXPECT_STREQ(tilec_status_name(tilec_status(99)), "TILEC_ERROR_UNKNOWN");
}

TEST(Runtime, ChecksArgumentsBeforeTheDriver) {
  EXPECT_EQ(tilec_forget_fatbin(nullptr), TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tilec_driver_entry_point_version(nullptr, 3020, nullptr),
            TILEC_ERROR_INVALID_ARGUMENT);
}

TEST(Runtime, LaunchChecksItsArgumentsFirst) {
  EXPECT_EQ(tilec_launch(nullptr, oneBlock, nullptr, nullptr),
            TILEC_ERROR_INVALID_ARGUMENT);
  const tilec_kernel noThreads = {image, "k", 0, 0};
  EXPECT_EQ(tilec_launch(&noThreads, oneBlock, nullptr, nullptr),
            TILEC_ERROR_INVALID_ARGUMENT);
  const tilec_kernel tooManyThreads = {image, "k", 2048, 0};
  EXPECT_EQ(tilec_launch(&tooManyThreads, oneBlock, nullptr, nullptr),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("2048 threads"), std::string::npos) << lastError();
  for (tilec_grid grid :
       {tilec_grid{0, 1, 1}, tilec_grid{1, -1, 1}, tilec_grid{1, 1, 65536},
        tilec_grid{int64_t(1) << 31, 1, 1}}) {
    EXPECT_EQ(tilec_launch(&kernel, grid, nullptr, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(lastError().find("grid"), std::string::npos) << lastError();
  }
}

TEST(Runtime, CheckView) {
  float data[4] = {};
  int64_t shape[2] = {2, 2}, strides[2] = {2, 1};
  EXPECT_EQ(tilec_check_view("k", "x", data, sizeof(float), 2, shape, strides),
            TILEC_SUCCESS);
  EXPECT_EQ(
      tilec_check_view("k", "x", nullptr, sizeof(float), 2, shape, strides),
      TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("k: view x is a null pointer"), std::string::npos)
      << lastError();

  int64_t empty[2] = {0, 2};
  EXPECT_EQ(
      tilec_check_view("k", "x", nullptr, sizeof(float), 2, empty, strides),
      TILEC_SUCCESS);

  int64_t negativeSize[2] = {2, -1};
  EXPECT_EQ(
      tilec_check_view("k", "x", data, sizeof(float), 2, negativeSize, strides),
      TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("negative size (-1) in dimension 1"),
            std::string::npos)
      << lastError();
  int64_t negativeStride[2] = {-2, 1};
  EXPECT_EQ(
      tilec_check_view("k", "x", data, sizeof(float), 2, shape, negativeStride),
      TILEC_ERROR_INVALID_ARGUMENT);

  int64_t huge[2] = {int64_t(1) << 40, int64_t(1) << 40};
  int64_t hugeStrides[2] = {int64_t(1) << 40, 1};
  EXPECT_EQ(
      tilec_check_view("k", "x", data, sizeof(float), 2, huge, hugeStrides),
      TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("64-bit offset"), std::string::npos)
      << lastError();

  // The element offsets fit, but not in bytes.
  int64_t bigBytes[1] = {int64_t(1) << 62};
  int64_t unit[1] = {1};
  EXPECT_EQ(tilec_check_view("k", "x", data, sizeof(float), 1, bigBytes, unit),
            TILEC_ERROR_INVALID_ARGUMENT);

  const char *misaligned = reinterpret_cast<const char *>(data) + 2;
  EXPECT_EQ(
      tilec_check_view("k", "x", misaligned, sizeof(float), 2, shape, strides),
      TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("not aligned to its 4-byte elements"),
            std::string::npos)
      << lastError();
}

// The facts of a _vec variant (16-byte vectors): innermost stride 1, base
// 16-byte aligned, innermost size and the other strides multiples of
// 16 / element size.
TEST(Runtime, ViewIsVectorizable) {
  alignas(16) static float data[64] = {};
  const float *aligned = data;
  const float *offByOne = data + 1;
  int64_t shape[2] = {3, 8}, strides[2] = {12, 1};
  EXPECT_TRUE(tilec_view_is_vectorizable(aligned, 4, 2, shape, strides));
  EXPECT_FALSE(tilec_view_is_vectorizable(offByOne, 4, 2, shape, strides));

  int64_t raggedInner[2] = {3, 6};
  EXPECT_FALSE(tilec_view_is_vectorizable(aligned, 4, 2, raggedInner, strides));
  // The outer size may be anything; the outer stride must keep every row
  // aligned.
  int64_t oddOuter[2] = {5, 8};
  EXPECT_TRUE(tilec_view_is_vectorizable(aligned, 4, 2, oddOuter, strides));
  int64_t misalignedRows[2] = {10, 1};
  EXPECT_FALSE(
      tilec_view_is_vectorizable(aligned, 4, 2, shape, misalignedRows));
  int64_t transposed[2] = {1, 12};
  EXPECT_FALSE(tilec_view_is_vectorizable(aligned, 4, 2, shape, transposed));

  // The vector width counts elements: 8 for 2-byte ones, 2 for 8-byte ones.
  int64_t bf16Shape[1] = {16}, unit[1] = {1};
  EXPECT_TRUE(tilec_view_is_vectorizable(aligned, 2, 1, bf16Shape, unit));
  int64_t bf16Ragged[1] = {12};
  EXPECT_FALSE(tilec_view_is_vectorizable(aligned, 2, 1, bf16Ragged, unit));
  int64_t i64Shape[1] = {2};
  EXPECT_TRUE(tilec_view_is_vectorizable(aligned, 8, 1, i64Shape, unit));
  // 8 bytes off 16 is aligned for f32 elements, not for vectors.
  EXPECT_FALSE(tilec_view_is_vectorizable(data + 2, 4, 1, bf16Shape, unit));
  EXPECT_TRUE(tilec_view_is_vectorizable(data + 4, 4, 1, bf16Shape, unit));

  // An empty view has the facts (it has no vector to misalign), also as the
  // Mamba-2 library passes an absent option: a null pointer, every extent
  // and stride 0; or with any one extent 0 and strides that would fail.
  int64_t empty[1] = {0}, zeroStride[1] = {0};
  EXPECT_TRUE(tilec_view_is_vectorizable(nullptr, 4, 1, empty, unit));
  EXPECT_TRUE(tilec_view_is_vectorizable(nullptr, 4, 1, empty, zeroStride));
  int64_t absent[4] = {0, 0, 0, 0}, absentStrides[4] = {0, 0, 0, 0};
  EXPECT_TRUE(
      tilec_view_is_vectorizable(nullptr, 2, 4, absent, absentStrides));
  int64_t emptyRows[2] = {0, 6};
  EXPECT_TRUE(tilec_view_is_vectorizable(offByOne, 4, 2, emptyRows,
                                         misalignedRows));
  // A stride 0 along a non-empty innermost dim (a broadcast) does not.
  int64_t broadcast[2] = {8, 64}, broadcastStrides[2] = {64, 0};
  EXPECT_FALSE(tilec_view_is_vectorizable(aligned, 4, 2, broadcast,
                                          broadcastStrides));
  // Element sizes that do not divide 16, no shape, rank 0.
  EXPECT_FALSE(tilec_view_is_vectorizable(aligned, 3, 1, bf16Shape, unit));
  EXPECT_FALSE(tilec_view_is_vectorizable(aligned, 32, 1, bf16Shape, unit));
  EXPECT_FALSE(tilec_view_is_vectorizable(aligned, 0, 1, bf16Shape, unit));
  EXPECT_FALSE(tilec_view_is_vectorizable(aligned, 4, 1, nullptr, unit));
  EXPECT_FALSE(tilec_view_is_vectorizable(aligned, 4, 0, shape, strides));
}

TEST(Runtime, ImageInfoWithoutADriver) {
  EXPECT_EQ(tilec_last_launched(), nullptr);
  tilec_image_info info;
  EXPECT_EQ(tilec_kernel_image_info(&kernel, nullptr),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tilec_kernel_image_info(nullptr, &info),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tilec_kernel_image_info(&kernel, &info), TILEC_ERROR_NO_DRIVER);
}

// The generated launcher checks its views before it reaches the driver.
TEST(Runtime, GeneratedLauncherChecksArguments) {
  float data[8] = {};
  tilec_view_f32_1d x = {data, {8}, {1}};
  tilec_view_f32_1d y = {data, {8}, {1}};

  tilec_view_f32_1d nullX = {nullptr, {8}, {1}};
  EXPECT_EQ(tile_scale(nullX, y, 2.0f, oneBlock, nullptr),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("scale: view x is a null pointer"),
            std::string::npos)
      << lastError();

  tilec_view_f32_1d negativeY = {data, {-8}, {1}};
  EXPECT_EQ(tile_scale(x, negativeY, 2.0f, oneBlock, nullptr),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("scale: view y has a negative size"),
            std::string::npos)
      << lastError();

  EXPECT_EQ(tile_scale(x, y, 2.0f, tilec_grid{0, 1, 1}, nullptr),
            TILEC_ERROR_INVALID_ARGUMENT);

  // Valid arguments get as far as the (missing) driver.
  EXPECT_EQ(tile_scale(x, y, 2.0f, oneBlock, nullptr), TILEC_ERROR_NO_DRIVER);
  EXPECT_EQ(tile_scale_prepare(), TILEC_ERROR_NO_DRIVER);
}

} // namespace
