//===- StructureTest.cpp - the four-kernel and three-kernel passes agree --===//
//
// Both structures of forwardCpu (docs/mamba2.md) on the same fresh random
// inputs, with initial states, ragged sequences and several groups: each must
// pass the f64 check of ForwardCheck.h, and the two must agree with each
// other far more closely than that check's tf32 bounds (structuresAgree:
// the same products added in another order; ForwardCheck.cpp derives the
// bounds).
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/Reference.h"

#include "../Support/TestSeed.h"
#include "ForwardCheck.h"

#include "gtest/gtest.h"

#include <vector>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

class StructureTest : public ::testing::TestWithParam<Shape> {};

TEST_P(StructureTest, FourAndThreeKernelsAgree) {
  const Problem p = GetParam().problem();
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(p, seed);
  std::vector<float> y[2], finalState[2];
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(structureName(forwardStructures()[i]));
    host.poisonOutputs();
    CpuOptions options;
    options.structure = forwardStructures()[i];
    Status status = forwardCpu(p, host.inputs(true), host.outputs(), options);
    ASSERT_TRUE(status.ok()) << status.message();
    ASSERT_TRUE(matchesReference(host, true));
    y[i] = host.y;
    finalState[i] = host.finalState;
  }
  EXPECT_TRUE(structuresAgree(y[0], finalState[0], y[1], finalState[1]));
}

// (batch, seqlen, groups, heads, dstate, headdim, chunk): ragged last chunks
// (300 = 4 * 64 + 44, 1000 = 7 * 128 + 104, 77 < 128, 600 = 2 * 256 + 88),
// several groups, heads sharing them, sizes off the tiles.
const Shape kShapes[] = {{2, 300, 2, 4, 48, 32, 64},
                         {1, 1000, 3, 6, 64, 64, 128},
                         {2, 77, 2, 2, 24, 16, 128},
                         {1, 600, 2, 4, 32, 40, 256}};

INSTANTIATE_TEST_SUITE_P(Shapes, StructureTest, ::testing::ValuesIn(kShapes),
                         [](const ::testing::TestParamInfo<Shape> &info) {
                           return shapeName(info.param, true);
                         });

} // namespace
