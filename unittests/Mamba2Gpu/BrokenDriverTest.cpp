//===- BrokenDriverTest.cpp - a broken driver fails GPU tests ---*- C++ -*-===//
//
// Points the runtime at FailingDriver.cpp's library (a driver that loads and
// whose cuInit fails) before anything loads the driver in this process: the
// GPU fixture must report a failure, not a skip, and say why.
//
//===----------------------------------------------------------------------===//

#include "GpuTesting.h"

#include <gtest/gtest-spi.h>

#include <cstdlib>

using namespace tilec::mamba2::testing;

namespace {

/// GpuTest with its setup callable from a test body.
class ExposedGpuTest : public GpuTest {
public:
  void TestBody() override {}
  void setUp() { SetUp(); }
};

TEST(BrokenDriver, GpuTestsFailInsteadOfSkipping) {
  ASSERT_EQ(setenv("TILEC_CUDA_DRIVER", TILEC_FAILING_DRIVER, 1), 0);
  tilec_status status;
  std::string why;
  EXPECT_EQ(getDriver(status, why), nullptr);
  EXPECT_EQ(status, TILEC_ERROR_DRIVER) << why;
  EXPECT_NE(why.find("CUDA_ERROR_OPERATING_SYSTEM"), std::string::npos) << why;
  EXPECT_EQ(decideOnSetup(status), GpuDecision::Fail);
  EXPECT_FATAL_FAILURE(ExposedGpuTest().setUp(),
                       "the CUDA driver is there but cannot be set up");
}

} // namespace
