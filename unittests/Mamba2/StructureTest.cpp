//===- StructureTest.cpp - the four-kernel and three-kernel passes agree --===//
//
// Both structures of forwardCpu (docs/mamba2.md) on the same fresh random
// inputs, with initial states, ragged sequences and several groups: each must
// pass the f64 check of ForwardCheck.h, and the two must agree with each
// other far more closely than that check's tf32 bounds.
//
// Why they agree closely: chunk_state and fwd_pass_state form the same
// products (the same x, the same B * dt * exp2(...) rounded to tf32, in the
// same order along the chunk); they differ only in where the decayed state
// is added, before the chunk's products (fwd_pass_state accumulates onto it)
// or after them (state_passing adds chunk_state's sum). That is an f32
// reassociation: each chunk's state differs by a few f32 roundings of its
// own magnitude, 2^-24 relative, and those add up over the chunks, so the
// final states differ by about nchunks * 2^-24 relative, norm-wise
// (measured: 1e-7 to 5e-7). The bound is kStateAgreement = 2^-16 (1.5e-5,
// against the tf32 check's 2e-4 to 8e-4): a state that lost a chunk's term
// or a decay misses it by orders of magnitude, one that gained a tf32
// rounding (2^-11) by 30x. y passes the states through a tf32 rounding (the
// operand of C h^T), where a state one f32 ulp apart lands on the other tf32
// neighbour now and then, a 2^-11 change in one term of one element
// (measured: 4e-6 to 1.5e-5 norm-wise): y agrees within kOutputAgreement =
// 2^-12, half of one tf32 rounding of every term, where the two checks
// against f64 together would allow three.
//
//===----------------------------------------------------------------------===//

#include "tilec/mamba2/Mamba2.h"
#include "tilec/mamba2/Reference.h"

#include "../Support/TestSeed.h"
#include "ForwardCheck.h"

#include "gtest/gtest.h"

#include <cmath>
#include <vector>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

constexpr double kStateAgreement = 0x1p-16;
constexpr double kOutputAgreement = 0x1p-12;

/// ||a - b|| / ||b||, both finite.
double relativeDifference(const std::vector<float> &a,
                          const std::vector<float> &b) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    norm += double(b[i]) * b[i];
  }
  return std::sqrt(diff / norm);
}

class StructureTest : public ::testing::TestWithParam<Shape> {};

TEST_P(StructureTest, FourAndThreeKernelsAgree) {
  const Problem p = GetParam().problem();
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(p, seed);

  auto runAndCheck = [&](ForwardStructure structure) {
    host.poisonOutputs();
    CpuOptions options;
    options.structure = structure;
    Status status = forwardCpu(p, host.inputs(true), host.outputs(), options);
    EXPECT_TRUE(status.ok()) << status.message();
    EXPECT_TRUE(matchesReference(host, true));
  };
  runAndCheck(ForwardStructure::FourKernels);
  const std::vector<float> y4 = host.y, final4 = host.finalState;
  runAndCheck(ForwardStructure::ThreeKernels);
  if (HasFailure())
    return;

  const double stateDifference = relativeDifference(final4, host.finalState);
  const double outputDifference = relativeDifference(y4, host.y);
  EXPECT_LE(stateDifference, kStateAgreement);
  EXPECT_LE(outputDifference, kOutputAgreement);
  RecordProperty("state_difference", std::to_string(stateDifference));
  RecordProperty("output_difference", std::to_string(outputDifference));
  std::printf("final state %.3g (bound %.3g), y %.3g (bound %.3g)\n",
              stateDifference, kStateAgreement, outputDifference,
              kOutputAgreement);
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
