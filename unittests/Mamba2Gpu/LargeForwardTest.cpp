//===- LargeForwardTest.cpp - the Mamba-2 forward pass, large ---*- C++ -*-===//
//
// The problems whose sizes pass 32-bit element counts in the intermediates
// and outputs, against the f64 recurrence (run on every core: minutes on
// one): (batch 4, seqlen 16384, 1 group, 8 heads, dstate 128, headdim 64,
// chunk 128) and one sequence of 300,000 tokens (8 heads, headdim 64,
// dstate 128, 1 group) in chunks of 256 and 128, with and without an initial
// state, in both structures (docs/mamba2.md). Its own executable, so that it can be run, or left out, alone.
//
// TILEC_LARGE_TESTS_DIVISOR=<d> divides every seqlen by d (rounded up to
// whole chunks, plus one step so that the last chunk is ragged):
// scripts/gpu-run runs the sanitizers on the same problems at a size they
// finish.
//
//===----------------------------------------------------------------------===//

#include "GpuTesting.h"

#include <cstdlib>
#include <string>
#include <tuple>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

class LargeForward
    : public GpuStreamTest,
      public ::testing::WithParamInterface<std::tuple<bool, ForwardStructure>> {
protected:
  bool withInitialState() const { return std::get<0>(GetParam()); }
  GpuOptions options() const {
    GpuOptions options;
    options.structure = std::get<1>(GetParam());
    return options;
  }
};

/// `p` with its seqlen divided by TILEC_LARGE_TESTS_DIVISOR.
Problem scaled(Problem p) {
  if (const char *text = std::getenv("TILEC_LARGE_TESTS_DIVISOR")) {
    const int64_t divisor = std::max<int64_t>(1, std::atoll(text));
    p.seqlen = (p.seqlen / divisor + p.chunk - 1) / p.chunk * p.chunk + 1;
  }
  return p;
}

TEST_P(LargeForward, Batch4Seqlen16384) {
  const Problem p = scaled({/*batch=*/4,  /*seqlen=*/16384, /*heads=*/8,
                            /*groups=*/1, /*headdim=*/64,   /*dstate=*/128,
                            /*chunk=*/128});
  EXPECT_TRUE(gpuForwardMatchesReference(cu(), p, withInitialState(), stream,
                                         options()));
}

TEST_P(LargeForward, Tokens300000Chunk256) {
  const Problem p = scaled({1, 300000, 8, 1, 64, 128, 256});
  EXPECT_TRUE(gpuForwardMatchesReference(cu(), p, withInitialState(), stream,
                                         options()));
}

TEST_P(LargeForward, Tokens300000Chunk128) {
  const Problem p = scaled({1, 300000, 8, 1, 64, 128, 128});
  EXPECT_TRUE(gpuForwardMatchesReference(cu(), p, withInitialState(), stream,
                                         options()));
}

INSTANTIATE_TEST_SUITE_P(
    InitialState, LargeForward,
    ::testing::Combine(::testing::Bool(),
                       ::testing::ValuesIn(forwardStructures())),
    [](const ::testing::TestParamInfo<std::tuple<bool, ForwardStructure>>
           &info) {
      return std::string(std::get<0>(info.param) ? "with_" : "without_") +
             structureName(std::get<1>(info.param));
    });

} // namespace
