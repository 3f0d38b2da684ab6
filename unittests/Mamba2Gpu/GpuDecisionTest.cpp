//===- GpuDecisionTest.cpp - when a GPU test may skip -----------*- C++ -*-===//
//
// GPU tests skip only where there is no GPU to test: no driver library or
// no device. Every other status of the runtime's setup fails them, so a
// broken driver or a missing entry point cannot pass as "skipped".
//
//===----------------------------------------------------------------------===//

#include "GpuTesting.h"

using namespace tilec::mamba2::testing;

namespace {

TEST(GpuDecision, SkipsOnlyWithoutDriverOrDevice) {
  EXPECT_EQ(decideOnSetup(TILEC_SUCCESS), GpuDecision::Run);
  EXPECT_EQ(decideOnSetup(TILEC_ERROR_NO_DRIVER), GpuDecision::Skip);
  EXPECT_EQ(decideOnSetup(TILEC_ERROR_NO_DEVICE), GpuDecision::Skip);
  for (tilec_status status :
       {TILEC_ERROR_INVALID_ARGUMENT, TILEC_ERROR_NO_CONTEXT,
        TILEC_ERROR_NO_KERNEL_IMAGE, TILEC_ERROR_OUT_OF_RESOURCES,
        TILEC_ERROR_DRIVER})
    EXPECT_EQ(decideOnSetup(status), GpuDecision::Fail)
        << tilec_status_name(status);
}

} // namespace
