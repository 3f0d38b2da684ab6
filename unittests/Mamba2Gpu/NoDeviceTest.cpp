//===- NoDeviceTest.cpp - the C ABI with a driver but no device -*- C++ -*-===//
//
// Hides every device from the driver (CUDA_VISIBLE_DEVICES empty) before
// anything initializes it in this process: with a driver, valid arguments
// get TILEC_MAMBA2_ERROR_NO_DEVICE. Without a driver there is nothing to
// hide, and the test is skipped.
//
//===----------------------------------------------------------------------===//

#include "CApiTesting.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace tilec::mamba2::testing;

namespace {

TEST(NoDevice, ValidArgumentsReportNoDevice) {
  ASSERT_EQ(setenv("CUDA_VISIBLE_DEVICES", "", 1), 0);
  CArguments args = CArguments::fake({1, 64, 4, 1, 32, 16, 64});
  int status = args.forward();
  if (status == TILEC_MAMBA2_ERROR_NO_DRIVER)
    GTEST_SKIP() << "no CUDA driver: " << tilec_mamba2_last_error();
  EXPECT_MAMBA2_STATUS(status, TILEC_MAMBA2_ERROR_NO_DEVICE);
}

} // namespace
