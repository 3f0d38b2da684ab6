//===- ForwardTest.cpp - forwardCpu against the f64 recurrence ------------===//
//
// Each case draws fresh random inputs (HostProblem::random: slow and fast
// decaying heads; the seed is printed, TILEC_TEST_SEED=<seed> replays it),
// poisons the outputs with NaN, runs the kernels in the interpreter and
// compares every element of y and of the final state with the sequential
// recurrence in f64 (ForwardCheck.h: per element within 8 sigma of the
// kernels' tf32 roundings, norm-wise within their mean; derivation in
// ForwardCheck.cpp and docs/testing.md), once in each structure (the
// four-kernel default and the three-kernel option). PowerTest.cpp shows that
// the same check rejects a broken state passing, a lost initial state, a
// shifted chunk and a bf16 state. StructureTest.cpp compares the two
// structures with each other.
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/Reference.h"

#include "../Support/TestSeed.h"
#include "CpuRun.h"
#include "ForwardCheck.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

class ForwardTest : public ::testing::TestWithParam<
                        std::tuple<Shape, bool, ForwardStructure>> {};

TEST_P(ForwardTest, MatchesRecurrence) {
  auto [shape, withInitialState, structure] = GetParam();
  EXPECT_TRUE(forwardMatchesReference(shape.problem(), withInitialState,
                                      cpuRun({}, structure)));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ForwardTest,
    ::testing::Combine(::testing::ValuesIn(forwardShapes()), ::testing::Bool(),
                       ::testing::ValuesIn(forwardStructures())),
    [](const ::testing::TestParamInfo<
        std::tuple<Shape, bool, ForwardStructure>> &info) {
      return shapeName(std::get<0>(info.param), std::get<1>(info.param)) +
             "_" + structureName(std::get<2>(info.param));
    });

// mamba_ssm's options (featureCases(): dt bias, softplus, a limit that
// clamps, D per channel, z with and without D per channel, bf16 y, all at
// once) against the recurrence with the same options, on ragged shapes with
// several chunks, a short one, and per-group B and C.
class ForwardFeatures
    : public ::testing::TestWithParam<
          std::tuple<FeatureCase, Shape, ForwardStructure>> {};

TEST_P(ForwardFeatures, MatchesRecurrence) {
  auto [feature, shape, structure] = GetParam();
  EXPECT_TRUE(forwardMatchesReference(shape.problem(), true, cpuRun({}, structure),
                                      {}, feature.features));
}

INSTANTIATE_TEST_SUITE_P(
    Options, ForwardFeatures,
    ::testing::Combine(::testing::ValuesIn(featureCases()),
                       ::testing::ValuesIn(featureShapes()),
                       ::testing::ValuesIn(forwardStructures())),
    [](const ::testing::TestParamInfo<
        std::tuple<FeatureCase, Shape, ForwardStructure>> &info) {
      return std::string(std::get<0>(info.param).name) + "_" +
             shapeName(std::get<1>(info.param), true) + "_" +
             structureName(std::get<2>(info.param));
    });

// The limit of the feature cases clamps steps at both ends: the clamp is
// exercised, not only passed through.
TEST(ForwardFeatureInputs, DtLimitClampsBothEnds) {
  for (const FeatureCase &feature : featureCases()) {
    if (feature.features.dtLimit.low == DtLimit{}.low)
      continue;
    SCOPED_TRACE(feature.name);
    HostProblem host = HostProblem::random(featureShapes()[0].problem(),
                                           tilec::testing::testSeed(),
                                           feature.features);
    auto [below, above] = clampedSteps(host);
    const int64_t steps = static_cast<int64_t>(host.dt.size());
    EXPECT_GT(below, steps / 50) << "steps clamped up to the low limit";
    EXPECT_GT(above, steps / 100) << "steps clamped down to the high limit";
  }
}

// A bf16 y is the f32 y rounded once: the same inputs give y_bf16 =
// bf16(y_f32) bit for bit on the CPU, where both runs compute the same f32.
TEST(ForwardFeatureInputs, Bf16YIsTheRoundedF32Y) {
  const Problem problem = featureShapes()[1].problem();
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostFeatures features = featureCases().back().features;
  HostProblem host = HostProblem::random(problem, seed, features);
  features.yInXType = false;
  HostProblem f32 = HostProblem::random(problem, seed, features);
  host.poisonOutputs();
  f32.poisonOutputs();
  ASSERT_TRUE(forwardCpu(problem, host.inputs(true), host.outputs()).ok());
  ASSERT_TRUE(forwardCpu(problem, f32.inputs(true), f32.outputs()).ok());
  ASSERT_EQ(host.yHalf.size(), f32.y.size());
  for (size_t i = 0; i < f32.y.size(); ++i)
    ASSERT_EQ(host.yHalf[i], toBF16(f32.y[i])) << "element " << i;
}

// The states entering each chunk on request, in the caller's memory (with
// options, which change the states through dt): each against the
// recurrence over the chunk's prefix; y and the final state unchanged. In
// both structures (the states come from state_passing or fwd_pass_state).
class ForwardChunkStates : public ::testing::TestWithParam<ForwardStructure> {
};

TEST_P(ForwardChunkStates, OnRequest) {
  const Problem problem = featureShapes()[1].problem();
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host =
      HostProblem::random(problem, seed, featureCases().front().features);
  host.poisonOutputs();
  std::vector<float> states(problem.batch * problem.numChunks() *
                                problem.heads * problem.headdim *
                                problem.dstate,
                            NAN);
  Outputs outputs = host.outputs();
  outputs.chunkStates = Tensor::contiguous(
      states.data(), DType::F32,
      {problem.batch, problem.numChunks(), problem.heads, problem.headdim,
       problem.dstate});
  CpuOptions options;
  options.structure = GetParam();
  Status status = forwardCpu(problem, host.inputs(true), outputs, options);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(chunkStatesMatchReference(host, true, states));
  EXPECT_TRUE(matchesReference(host, true));
}

INSTANTIATE_TEST_SUITE_P(
    Structures, ForwardChunkStates, ::testing::ValuesIn(forwardStructures()),
    [](const ::testing::TestParamInfo<ForwardStructure> &info) {
      return structureName(info.param);
    });

class ForwardStructures : public ::testing::TestWithParam<ForwardStructure> {};

// Tiles smaller than the problem: several head and state tiles per head,
// compute_out's walk over dstate and over column tiles below the diagonal,
// row tiles inside a chunk, heads split over chunk_cumsum programs, and
// several chunk_state tiles and state_passing blocks per head.
TEST_P(ForwardStructures, SmallTiles) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  Problem problem{2, 200, 6, 2, 40, 48, 128};
  TileConfig tiles;
  tiles.blockH = 4;
  tiles.blockP = 16;
  tiles.blockN = 16;
  tiles.blockM = 32;
  tiles.blockK = 16;
  tiles.chunkStateBlockP = 32;
  tiles.chunkStateBlockN = 16;
  tiles.chunkStateBlockK = 32;
  tiles.statePassingBlockP = 8;
  tiles.statePassingBlockN = 32;
  EXPECT_TRUE(forwardMatchesReference(problem, /*withInitialState=*/true,
                                      cpuRun(tiles, GetParam())));
}

// Inputs in the memory layout mamba_ssm hands over: x, B and C are slices of
// one (batch, seqlen, channels) activation, so their token strides exceed
// their row sizes.
TEST_P(ForwardStructures, SlicesOfOneActivation) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  Problem problem{1, 150, 4, 2, 32, 16, 64};
  std::vector<uint16_t> xbc;
  auto run = [&](HostProblem &host, bool withInitialState) {
    const int64_t xRow = problem.heads * problem.headdim;
    const int64_t bcRow = problem.groups * problem.dstate;
    const int64_t channels = xRow + 2 * bcRow;
    const int64_t tokens = problem.batch * problem.seqlen;
    xbc.assign(tokens * channels, 0);
    for (int64_t t = 0; t < tokens; ++t) {
      std::copy_n(&host.x[t * xRow], xRow, &xbc[t * channels]);
      std::copy_n(&host.B[t * bcRow], bcRow, &xbc[t * channels + xRow]);
      std::copy_n(&host.C[t * bcRow], bcRow,
                  &xbc[t * channels + xRow + bcRow]);
    }
    Inputs inputs = host.inputs(withInitialState);
    auto slice = [&](int64_t offset, int64_t dim2, int64_t dim3) {
      Tensor t;
      t.data = &xbc[offset];
      t.dtype = DType::BF16;
      t.shape = {problem.batch, problem.seqlen, dim2, dim3};
      t.strides = {problem.seqlen * channels, channels, dim3, 1};
      return t;
    };
    inputs.x = slice(0, problem.heads, problem.headdim);
    inputs.B = slice(xRow, problem.groups, problem.dstate);
    inputs.C = slice(xRow + bcRow, problem.groups, problem.dstate);
    CpuOptions options;
    options.structure = GetParam();
    Status status = forwardCpu(problem, inputs, host.outputs(), options);
    if (!status.ok())
      return ::testing::AssertionFailure() << status.message();
    return ::testing::AssertionSuccess();
  };
  EXPECT_TRUE(forwardMatchesReference(problem, false, run));
}

// The final state is optional; y does not depend on asking for it, and the
// final state's buffer is left alone.
TEST_P(ForwardStructures, WithoutFinalState) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  Problem problem{1, 130, 4, 2, 32, 16, 64};
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(problem, seed);
  host.poisonOutputs();
  Outputs outputs = host.outputs();
  outputs.finalState.reset();
  CpuOptions options;
  options.structure = GetParam();
  Status status = forwardCpu(problem, host.inputs(true), outputs, options);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(matchesReference(host, true, /*withFinalState=*/false));
  for (size_t i = 0; i < host.finalState.size(); ++i)
    ASSERT_TRUE(std::isnan(host.finalState[i])) << "final state " << i;
}

// Programs write disjoint outputs, so the result does not depend on how many
// threads run them: one thread and many give the same bits. The outputs are
// poisoned before each run, so an element the threaded run leaves unwritten
// shows as NaN rather than as the one-thread run's value.
TEST_P(ForwardStructures, ResultIsIndependentOfThreads) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  Problem problem{2, 200, 4, 1, 32, 32, 64};
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(problem, seed);
  host.poisonOutputs();
  CpuOptions oneThread;
  oneThread.structure = GetParam();
  oneThread.numThreads = 1;
  ASSERT_TRUE(
      forwardCpu(problem, host.inputs(true), host.outputs(), oneThread).ok());
  ASSERT_TRUE(matchesReference(host, true));
  const std::vector<float> y = host.y, finalState = host.finalState;
  host.poisonOutputs();
  CpuOptions manyThreads;
  manyThreads.structure = GetParam();
  manyThreads.numThreads = 4;
  ASSERT_TRUE(
      forwardCpu(problem, host.inputs(true), host.outputs(), manyThreads).ok());
  EXPECT_EQ(std::memcmp(y.data(), host.y.data(), y.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(finalState.data(), host.finalState.data(),
                        finalState.size() * sizeof(float)),
            0);
}

INSTANTIATE_TEST_SUITE_P(
    Structures, ForwardStructures, ::testing::ValuesIn(forwardStructures()),
    [](const ::testing::TestParamInfo<ForwardStructure> &info) {
      return structureName(info.param);
    });

} // namespace
