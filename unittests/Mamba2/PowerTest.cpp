//===- PowerTest.cpp - the forward tests' checker rejects broken passes ---===//
//
// A unit test of the tests: the checker of the CPU and GPU forward tests
// (ForwardCheck.h), on the inputs those tests draw, fails on each mistake of
// BrokenForward.h wherever the mistake changes anything — on every shape of
// forwardShapes(), with and without an initial state, and on a long
// sequence sampled as the large GPU tests sample theirs. The real passes
// meet the same checker in ForwardTest.cpp and unittests/Mamba2Gpu. Each
// case prints by how much the broken pass misses its bound (error / bound;
// the real passes stay below 1).
//
//===----------------------------------------------------------------------===//

#include "BrokenForward.h"
#include "ForwardCheck.h"

#include "../Support/TestSeed.h"

#include <gtest/gtest.h>

#include <cstdio>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

const Breakage kBreakages[] = {Breakage::StateNotCarried,
                               Breakage::InitialStateIgnored,
                               Breakage::ChunkShifted, Breakage::Bf16State};

/// Every applicable breakage fails the checker on fresh inputs of `problem`.
void expectEveryBreakageFails(const Problem &problem, bool withInitialState,
                              const std::vector<BatchHead> &sample = {}) {
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(problem, seed);
  for (Breakage breakage : kBreakages) {
    if (!breakageApplies(breakage, problem, withInitialState))
      continue;
    SCOPED_TRACE(breakageName(breakage));
    host.poisonOutputs();
    brokenForward(host, withInitialState, breakage);
    ErrorReport report =
        compareWithReference(host, withInitialState, true, sample);
    std::printf("  %-34s misses its bound by %.3g x\n", breakageName(breakage),
                report.missFactor());
    EXPECT_FALSE(report.passed()) << report.describe();
  }
}

class PowerShapes
    : public ::testing::TestWithParam<std::tuple<Shape, bool>> {};

TEST_P(PowerShapes, BrokenPassesFail) {
  auto [shape, withInitialState] = GetParam();
  expectEveryBreakageFails(shape.problem(), withInitialState);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, PowerShapes,
    ::testing::Combine(::testing::ValuesIn(forwardShapes()),
                       ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<Shape, bool>> &info) {
      return shapeName(std::get<0>(info.param), std::get<1>(info.param));
    });

// The large tests' family: a long sequence of many chunks, checked on the
// heads that sampleBatchHeads picks.
TEST(PowerLarge, BrokenPassesFailOnTheSample) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  const Problem problem{2, 2048, 6, 1, 16, 32, 128};
  for (bool withInitialState : {false, true})
    expectEveryBreakageFails(problem, withInitialState,
                             sampleBatchHeads(problem));
}

// The checker itself: the exact reference, rounded to f32, passes; one
// element off by 10 bounds, or left NaN, fails.
TEST(PowerChecker, OneBadElementFails) {
  const Problem problem{1, 130, 4, 2, 32, 16, 64};
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(problem, seed);
  // Without an initial state, ignoring it changes nothing: this is the
  // reference itself.
  brokenForward(host, false, Breakage::InitialStateIgnored);
  ASSERT_TRUE(compareWithReference(host, false, true).passed());
  const BatchHead at{0, 2};
  ReferenceResult want = headReference(host, false, at);
  const int64_t t = 77, i = 5;
  const float saved = host.y[yOffset(problem, at, t) + i];
  host.y[yOffset(problem, at, t) + i] +=
      10 * 8 * 0x1p-11 * want.yScale[t * problem.headdim + i];
  ErrorReport report = compareWithReference(host, false, true);
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.y.violations, 1u);
  EXPECT_EQ(report.y.first, yOffset(problem, at, t) + i);
  host.y[yOffset(problem, at, t) + i] = NAN;
  report = compareWithReference(host, false, true);
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.y.notFinite, 1u);
  host.y[yOffset(problem, at, t) + i] = saved;
  EXPECT_TRUE(compareWithReference(host, false, true).passed());
}

} // namespace
