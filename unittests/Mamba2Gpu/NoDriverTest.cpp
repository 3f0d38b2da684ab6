//===- NoDriverTest.cpp - the C ABI without a CUDA driver -------*- C++ -*-===//
//
// Points the runtime at a driver library that does not exist, before
// anything loads the driver in this process, so the status is the same on
// every machine: valid arguments get TILEC_MAMBA2_ERROR_NO_DRIVER.
//
//===----------------------------------------------------------------------===//

#include "CApiTesting.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace tilec::mamba2::testing;

namespace {

TEST(NoDriver, ValidArgumentsReportNoDriver) {
  ASSERT_EQ(setenv("TILEC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1), 0);
  CArguments args = CArguments::fake({1, 64, 4, 1, 32, 16, 64});
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_NO_DRIVER);
  EXPECT_NE(std::string(tilec_mamba2_last_error()).find("/nonexistent"),
            std::string::npos)
      << tilec_mamba2_last_error();
  EXPECT_MAMBA2_STATUS(tilec_mamba2_prepare(), TILEC_MAMBA2_ERROR_NO_DRIVER);
  // Invalid arguments are still reported as such: they come first.
  args.problem.chunk = 32;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_UNSUPPORTED_CHUNK);
}

} // namespace
