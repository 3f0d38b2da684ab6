//===- ForwardTest.cpp - forwardCpu against the f64 recurrence ------------===//
//
// Each case draws fresh random inputs (the seed is printed on failure;
// TILEC_TEST_SEED=<seed> replays it), poisons the outputs with NaN, runs the
// three kernels in the interpreter and compares every element of y and of the
// final state with the sequential recurrence in f64.
//
// Why a norm-wise relative error of 1e-2. x, B and C are bf16 and the
// reference uses exactly those values, so the error is the rounding inside
// the kernels, not the inputs'. Products of two bf16 values are exact in the
// C B^T mma; the f32 factors (B * dt * decay, the state, the weights of X)
// are rounded to tf32, relative error u = 2^-11 ~ 4.9e-4, and summed in f32
// (2^-24, negligible). An output is a sum of n terms t_k (n ~ chunk +
// dstate, plus the state's own history) each off by a factor (1 + d_k), |d_k|
// <= 2u, so its error is sum t_k d_k:
//   - worst case 2u * sum |t_k|; for terms of random sign sum |t_k| is about
//     sqrt(n) |sum t_k|, so the bound is 2u sqrt(n) ~ 2e-2 for n ~ 400;
//   - the d_k are independent roundings, so the error is a random walk of
//     size u sqrt(sum t_k^2) ~ u |sum t_k|: about 5e-4, and the norm over
//     many outputs averages the rest.
// Measured errors are ~1e-4 to 1e-3. 1e-2 is about 2.5 bf16 unit roundoffs
// (2^-8 ~ 3.9e-3), the precision of the inputs themselves: no user of bf16
// data can ask for more, it leaves room for the random-walk growth of bf16-
// level intermediates, and every algorithmic mistake (a wrong mask or decay,
// a dropped state, a wrong group) is off by far more, typically O(1).
//
//===----------------------------------------------------------------------===//

#include "tilec/mamba2/Mamba2.h"
#include "tilec/mamba2/Reference.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <random>
#include <string>

using namespace tilec::mamba2;

namespace {

constexpr double kTolerance = 1e-2;

/// A seed from TILEC_TEST_SEED, else a fresh random one.
uint64_t testSeed() {
  if (const char *fixed = std::getenv("TILEC_TEST_SEED"))
    return std::strtoull(fixed, nullptr, 10);
  return std::random_device{}() * 0x100000000ull + std::random_device{}();
}

/// Every element is written (none is left NaN) and within kTolerance of the
/// largest reference value: a norm over many elements could hide a few wrong
/// ones, such as one row of a ragged chunk.
void expectElementsClose(const char *name, const std::vector<float> &got,
                         const std::vector<double> &want) {
  ASSERT_EQ(got.size(), want.size());
  double largest = 0.0;
  for (double w : want)
    largest = std::max(largest, std::fabs(w));
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= kTolerance * largest) && !bad++)
      first = i;
  EXPECT_EQ(bad, 0u) << bad << " elements of " << name << " are off, the "
                     << "first at " << first << ": " << got[first]
                     << " instead of " << want[first];
}

/// Runs forwardCpu on fresh random inputs and checks y and the final state.
void checkForward(const Problem &problem, bool withInitialState,
                  const TileConfig &tiles = {}) {
  uint64_t seed = testSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) +
               " (replay with TILEC_TEST_SEED=" + std::to_string(seed) + ")");
  HostProblem data = HostProblem::random(problem, seed);
  Inputs inputs = data.inputs(withInitialState);
  data.poisonOutputs();
  Outputs outputs = data.outputs();

  ReferenceResult want;
  Status reference = referenceForward(problem, inputs, want);
  ASSERT_TRUE(reference.ok()) << reference.message();
  CpuOptions options;
  options.tiles = tiles;
  Status status = forwardCpu(problem, inputs, outputs, options);
  ASSERT_TRUE(status.ok()) << status.message();

  expectElementsClose("y", data.y, want.y);
  expectElementsClose("final state", data.finalState, want.finalState);
  double yError = normwiseRelativeError(outputs.y, want.y);
  double stateError =
      normwiseRelativeError(*outputs.finalState, want.finalState);
  EXPECT_LE(yError, kTolerance);
  EXPECT_LE(stateError, kTolerance);
  std::printf("    y error %.2e, final state error %.2e\n", yError,
              stateError);
}

struct Shape {
  int64_t batch, seqlen, groups, heads, dstate, headdim, chunk;
};

/// How gtest shows a shape in the name of a failing case.
void PrintTo(const Shape &s, std::ostream *os) {
  *os << "(batch " << s.batch << ", seqlen " << s.seqlen << ", groups "
      << s.groups << ", heads " << s.heads << ", dstate " << s.dstate
      << ", headdim " << s.headdim << ", chunk " << s.chunk << ")";
}

class ForwardTest
    : public ::testing::TestWithParam<std::tuple<Shape, bool>> {};

TEST_P(ForwardTest, MatchesRecurrence) {
  auto [s, withInitialState] = GetParam();
  Problem problem;
  problem.batch = s.batch;
  problem.seqlen = s.seqlen;
  problem.groups = s.groups;
  problem.heads = s.heads;
  problem.dstate = s.dstate;
  problem.headdim = s.headdim;
  problem.chunk = s.chunk;
  checkForward(problem, withInitialState);
}

// (batch, seqlen, groups, heads, dstate, headdim, chunk): one chunk and
// several, shared and per-group B and C, ragged last chunks (100, 300), a
// sequence shorter than a chunk, and every chunk size.
const Shape kShapes[] = {
    {1, 64, 1, 4, 16, 32, 64},     {2, 128, 1, 4, 16, 32, 64},
    {1, 64, 2, 4, 16, 32, 64},     {2, 128, 2, 8, 32, 64, 64},
    {1, 192, 1, 4, 16, 32, 64},    {1, 256, 4, 4, 128, 64, 128},
    {2, 100, 1, 4, 16, 32, 64},    {1, 300, 2, 4, 64, 64, 128},
    {1, 512, 1, 2, 32, 32, 256},   {1, 10, 1, 2, 16, 16, 64}};

std::string shapeName(const ::testing::TestParamInfo<std::tuple<Shape, bool>> &info) {
  auto [s, withInitialState] = info.param;
  return "b" + std::to_string(s.batch) + "_L" + std::to_string(s.seqlen) +
         "_g" + std::to_string(s.groups) + "_h" + std::to_string(s.heads) +
         "_N" + std::to_string(s.dstate) + "_P" + std::to_string(s.headdim) +
         "_chunk" + std::to_string(s.chunk) +
         (withInitialState ? "_init" : "");
}

INSTANTIATE_TEST_SUITE_P(Shapes, ForwardTest,
                         ::testing::Combine(::testing::ValuesIn(kShapes),
                                            ::testing::Bool()),
                         shapeName);

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
  checkForward(problem, /*withInitialState=*/true, tiles);
}

// Inputs in the memory layout mamba_ssm hands over: x, B and C are slices of
// one (batch, seqlen, channels) activation, so their token strides exceed
// their row sizes.
TEST(ForwardStrides, SlicesOfOneActivation) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  Problem problem{1, 150, 4, 2, 32, 16, 64};
  uint64_t seed = testSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  HostProblem data = HostProblem::random(problem, seed);
  const int64_t xRow = problem.heads * problem.headdim;
  const int64_t bcRow = problem.groups * problem.dstate;
  const int64_t channels = xRow + 2 * bcRow;
  const int64_t tokens = problem.batch * problem.seqlen;
  std::vector<uint16_t> xbc(tokens * channels);
  for (int64_t t = 0; t < tokens; ++t) {
    std::copy_n(&data.x[t * xRow], xRow, &xbc[t * channels]);
    std::copy_n(&data.B[t * bcRow], bcRow, &xbc[t * channels + xRow]);
    std::copy_n(&data.C[t * bcRow], bcRow, &xbc[t * channels + xRow + bcRow]);
  }
  Inputs inputs = data.inputs(false);
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
  data.poisonOutputs();
  Outputs outputs = data.outputs();

  ReferenceResult want;
  ASSERT_TRUE(referenceForward(problem, data.inputs(false), want).ok());
  Status status = forwardCpu(problem, inputs, outputs);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_LE(normwiseRelativeError(outputs.y, want.y), kTolerance);
  EXPECT_LE(normwiseRelativeError(*outputs.finalState, want.finalState),
            kTolerance);
}

// The final state is optional; y does not depend on asking for it.
TEST(ForwardOutputs, WithoutFinalState) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  Problem problem{1, 130, 4, 2, 32, 16, 64};
  uint64_t seed = testSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  HostProblem data = HostProblem::random(problem, seed);
  Inputs inputs = data.inputs(true);
  data.poisonOutputs();
  Outputs outputs = data.outputs();
  outputs.finalState.reset();
  ReferenceResult want;
  ASSERT_TRUE(referenceForward(problem, inputs, want).ok());
  Status status = forwardCpu(problem, inputs, outputs);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_LE(normwiseRelativeError(outputs.y, want.y), kTolerance);
  EXPECT_TRUE(std::isnan(data.finalState[0]));
}

// Programs write disjoint outputs, so the result does not depend on how many
// threads run them: one thread and many give the same bits.
TEST(ForwardThreads, ResultIsIndependentOfThreads) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  Problem problem{2, 200, 4, 1, 32, 32, 64};
  HostProblem data = HostProblem::random(problem, testSeed());
  Inputs inputs = data.inputs(true);
  Outputs outputs = data.outputs();
  CpuOptions oneThread;
  oneThread.numThreads = 1;
  ASSERT_TRUE(forwardCpu(problem, inputs, outputs, oneThread).ok());
  std::vector<float> y = data.y, finalState = data.finalState;
  CpuOptions manyThreads;
  manyThreads.numThreads = 4;
  ASSERT_TRUE(forwardCpu(problem, inputs, outputs, manyThreads).ok());
  EXPECT_EQ(std::memcmp(y.data(), data.y.data(), y.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(finalState.data(), data.finalState.data(),
                        finalState.size() * sizeof(float)),
            0);
}

} // namespace
