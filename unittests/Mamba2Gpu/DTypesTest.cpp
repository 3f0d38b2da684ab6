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


using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

class DTypesGpu : public GpuStreamTest,
                  public ::testing::WithParamInterface<DTypeCombination> {};

TEST_P(DTypesGpu, MatchTheF64Reference) {
  for (const Shape &shape : featureShapes())
    EXPECT_TRUE(gpuForwardMatchesReference(cu(), shape.problem(), true,
                                           stream, {}, {},
                                           dtypeFeatures(GetParam())))
        << shapeName(shape, true);
}

INSTANTIATE_TEST_SUITE_P(Combinations, DTypesGpu,
                         ::testing::ValuesIn(dtypeCombinations()),
                         dtypeCombinationName);

} // namespace
