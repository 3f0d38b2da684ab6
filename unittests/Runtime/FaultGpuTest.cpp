//===- FaultGpuTest.cpp - an asynchronous fault inside a kernel -*- C++ -*-===//
//
// A kernel that reads an unmapped address: the launch itself succeeds (it
// is asynchronous), the stream reports the fault, and the context is lost
// from then on: the next launch returns TILEC_ERROR_DRIVER with the
// driver's error in its message. The context stays broken for the rest of
// the process, so this test has an executable of its own and is not run
// under the sanitizers (which would report the fault it provokes).
//
//===----------------------------------------------------------------------===//

#include "GpuFixture.h"
#include "scale.h"

#include <string>

namespace {

using namespace tilec::runtime::testing;

/// The fixture without its teardown: after the fault every driver call
/// fails, and the process ends anyway.
class FaultGpu : public RuntimeGpuTest {
protected:
  void TearDown() override {}
};

TEST_F(FaultGpu, AsynchronousFaultIsReported) {
  float *y = upload(poisoned(256));
  // 64 TiB: aligned, not null, and mapped by no allocation.
  auto *unmapped = reinterpret_cast<float *>(uintptr_t(1) << 46);
  CHECK_TILEC(
      tile_scale({unmapped, {256}, {1}}, {y, {256}, {1}}, 2.0f, {1, 1, 1},
                 stream));
  EXPECT_EQ(cu.streamSynchronize(stream), CUDA_ERROR_ILLEGAL_ADDRESS);
  tilec_status status =
      tile_scale({y, {256}, {1}}, {y, {256}, {1}}, 2.0f, {1, 1, 1}, stream);
  EXPECT_EQ(status, TILEC_ERROR_DRIVER) << tilec_status_name(status);
  EXPECT_NE(std::string(tilec_last_error()).find("CUDA_ERROR_ILLEGAL_ADDRESS"),
            std::string::npos)
      << tilec_last_error();
}

} // namespace
