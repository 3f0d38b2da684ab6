//===- DTypesTest.cpp - every dtype combination on the GPU ----------------===//
//
// x, B, C and z in bf16, f16 or f32, dt in f32, bf16 or f16, y in x's dtype
// or f32: every combination on the GPU against the f64 recurrence, as on the
// CPU (unittests/Mamba2/DTypesTest.cpp), with z, D per channel, dt bias,
// softplus and an initial state, on the feature shapes (ragged, two chunk
// sizes, shared and per-group B and C). Outputs are poisoned before each run
// and their guard zones checked after it.
//
//===----------------------------------------------------------------------===//

#include "GpuTesting.h"

#include "../Mamba2/ForwardCheck.h"

#include <string>
#include <tuple>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

/// (x's dtype, dt's dtype, y in x's dtype).
using Combination = std::tuple<DType, DType, bool>;

class DTypesGpu : public GpuStreamTest,
                  public ::testing::WithParamInterface<Combination> {};

TEST_P(DTypesGpu, MatchTheF64Reference) {
  HostFeatures f;
  std::tie(f.inputDType, f.dtDType, f.yInXType) = GetParam();
  f.z = f.dPerChannel = f.dtBias = f.dtSoftplus = true;
  for (const Shape &shape : featureShapes())
    EXPECT_TRUE(gpuForwardMatchesReference(cu(), shape.problem(), true,
                                           stream, {}, {}, f))
        << shapeName(shape, true);
}

INSTANTIATE_TEST_SUITE_P(
    Combinations, DTypesGpu,
    ::testing::Combine(::testing::Values(DType::BF16, DType::F16, DType::F32),
                       ::testing::Values(DType::F32, DType::BF16, DType::F16),
                       ::testing::Bool()),
    [](const ::testing::TestParamInfo<Combination> &info) {
      return std::string("x") + dtypeName(std::get<0>(info.param)) + "_dt" +
             dtypeName(std::get<1>(info.param)) +
             (std::get<2>(info.param) ? "_yx" : "_yf32");
    });

} // namespace
