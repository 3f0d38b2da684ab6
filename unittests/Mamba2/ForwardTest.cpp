//===- ForwardTest.cpp - forwardCpu against the f64 recurrence ------------===//
//
// Each case draws fresh random inputs (HostProblem::random: slow and fast
// decaying heads; the seed is printed, TILEC_TEST_SEED=<seed> replays it),
// poisons the outputs with NaN, runs the three kernels in the interpreter and
// compares every element of y and of the final state with the sequential
// recurrence in f64 (ForwardCheck.h: per element within 8 sigma of the
// kernels' tf32 roundings, norm-wise within their mean; derivation in
// ForwardCheck.cpp and docs/testing.md). PowerTest.cpp shows that the same
// check rejects a broken state passing, a lost initial state, a shifted
// chunk and a bf16 state.
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/Reference.h"

#include "../Support/TestSeed.h"
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

/// forwardCpu as the forward run of the shared check.
ForwardRun cpuRun(const TileConfig &tiles = {}) {
  return [tiles](HostProblem &host, bool withInitialState) {
    CpuOptions options;
    options.tiles = tiles;
    Status status = forwardCpu(host.problem, host.inputs(withInitialState),
                               host.outputs(), options);
    if (!status.ok())
      return ::testing::AssertionFailure() << "forwardCpu: " << status.message();
    return ::testing::AssertionSuccess();
  };
}

class ForwardTest
    : public ::testing::TestWithParam<std::tuple<Shape, bool>> {};

TEST_P(ForwardTest, MatchesRecurrence) {
  auto [shape, withInitialState] = GetParam();
  EXPECT_TRUE(
      forwardMatchesReference(shape.problem(), withInitialState, cpuRun()));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ForwardTest,
    ::testing::Combine(::testing::ValuesIn(forwardShapes()),
                       ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<Shape, bool>> &info) {
      return shapeName(std::get<0>(info.param), std::get<1>(info.param));
    });

// Tiles smaller than the problem: several head and state tiles per head,
// compute_out's walk over dstate and over column tiles below the diagonal,
// row tiles inside a chunk, and heads split over chunk_cumsum programs.
TEST(ForwardTiles, SmallTiles) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  Problem problem{2, 200, 6, 2, 40, 48, 128};
  TileConfig tiles;
  tiles.blockH = 4;
  tiles.blockP = 16;
  tiles.blockN = 16;
  tiles.blockM = 32;
  tiles.blockK = 16;
  EXPECT_TRUE(forwardMatchesReference(problem, /*withInitialState=*/true,
                                      cpuRun(tiles)));
}

// Inputs in the memory layout mamba_ssm hands over: x, B and C are slices of
// one (batch, seqlen, channels) activation, so their token strides exceed
// their row sizes.
TEST(ForwardStrides, SlicesOfOneActivation) {
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
    Status status = forwardCpu(problem, inputs, host.outputs());
    if (!status.ok())
      return ::testing::AssertionFailure() << status.message();
    return ::testing::AssertionSuccess();
  };
  EXPECT_TRUE(forwardMatchesReference(problem, false, run));
}

// The final state is optional; y does not depend on asking for it, and the
// final state's buffer is left alone.
TEST(ForwardOutputs, WithoutFinalState) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  Problem problem{1, 130, 4, 2, 32, 16, 64};
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(problem, seed);
  host.poisonOutputs();
  Outputs outputs = host.outputs();
  outputs.finalState.reset();
  Status status = forwardCpu(problem, host.inputs(true), outputs);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(matchesReference(host, true, /*withFinalState=*/false));
  for (size_t i = 0; i < host.finalState.size(); ++i)
    ASSERT_TRUE(std::isnan(host.finalState[i])) << "final state " << i;
}

// Programs write disjoint outputs, so the result does not depend on how many
// threads run them: one thread and many give the same bits. The outputs are
// poisoned before each run, so an element the threaded run leaves unwritten
// shows as NaN rather than as the one-thread run's value.
TEST(ForwardThreads, ResultIsIndependentOfThreads) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  Problem problem{2, 200, 4, 1, 32, 32, 64};
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(problem, seed);
  host.poisonOutputs();
  CpuOptions oneThread;
  oneThread.numThreads = 1;
  ASSERT_TRUE(
      forwardCpu(problem, host.inputs(true), host.outputs(), oneThread).ok());
  ASSERT_TRUE(matchesReference(host, true));
  const std::vector<float> y = host.y, finalState = host.finalState;
  host.poisonOutputs();
  CpuOptions manyThreads;
  manyThreads.numThreads = 4;
  ASSERT_TRUE(
      forwardCpu(problem, host.inputs(true), host.outputs(), manyThreads).ok());
  EXPECT_EQ(std::memcmp(y.data(), host.y.data(), y.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(finalState.data(), host.finalState.data(),
                        finalState.size() * sizeof(float)),
            0);
}

} // namespace
