//===- HugeForwardTest.cpp - past 2^31 elements and 2^32 bytes --*- C++ -*-===//
//
// One problem whose x and y have more than 2^31 elements and y more than
// 2^32 bytes: batch 3 x 2^20 tokens x 16 heads x headdim 64 (3.2e9
// elements; y is 12.9 GB of f32, x 6.4 GB of bf16), dstate 64, chunk 256,
// with an initial state. Any 32-bit element count, offset or byte offset
// in the kernels, the launchers or the library wraps here.
//
// The f64 recurrence of all 48 heads would take minutes on 16 cores, so
// the check compares the heads sampleBatchHeads picks (heads 0, 1, 14 and
// 15 of every batch: slow and fast decay, the first and the last rows of
// the buffers, 12 of 48, 8e8 elements) with the recurrence, with the
// checker of every forward test; every element of y and the final state
// must be finite (outputs start as NaN) and the guard zones around both
// intact; in both structures (docs/mamba2.md: the four-kernel default and
// the three-kernel option). About 30 s each on an H200 machine; needs ~22 GB of GPU memory
// besides the workspace and ~40 GB of host memory. Its own executable, so
// that it runs alone: ctest -R Mamba2GpuHugeTests.
//
//===----------------------------------------------------------------------===//

#include "GpuTesting.h"

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

class HugeForward : public GpuStreamTest,
                    public ::testing::WithParamInterface<ForwardStructure> {};

TEST_P(HugeForward, Past2To31ElementsAnd2To32Bytes) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  const Problem p{3, int64_t(1) << 20, 16, 1, 64, 64, 256};
  const int64_t yElements = p.batch * p.seqlen * p.heads * p.headdim;
  ASSERT_GT(yElements, int64_t(1) << 31);
  ASSERT_GT(yElements * 4, int64_t(1) << 32);
  GpuOptions options;
  options.structure = GetParam();
  EXPECT_TRUE(gpuForwardMatchesReference(cu(), p, /*withInitialState=*/true,
                                         stream, options,
                                         sampleBatchHeads(p)));
}

INSTANTIATE_TEST_SUITE_P(
    Structures, HugeForward, ::testing::ValuesIn(forwardStructures()),
    [](const ::testing::TestParamInfo<ForwardStructure> &info) {
      return structureName(info.param);
    });

} // namespace
