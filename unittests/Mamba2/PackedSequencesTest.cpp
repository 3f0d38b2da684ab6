//===- PackedSequencesTest.cpp - seq_idx on the CPU path ------------------===//
//
// Several sequences packed into each row (mamba_ssm's seq_idx): forwardCpu
// against the f64 recurrence that restarts the state at every boundary
// (referenceForward), on fresh random inputs and boundaries
// (HostFeatures::packedSequences: one at a chunk edge, three at random
// steps, odd rows starting at sequence 1 so that their initial state is not
// used), ragged lengths, tiles smaller than a chunk (boundaries inside row
// and column tiles) and every option at once. The same check rejects a pass
// that ignores seq_idx, so the boundaries matter on these inputs. Then the
// argument's validation.
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/Reference.h"

#include "../Support/TestSeed.h"
#include "CpuRun.h"
#include "ForwardCheck.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>
#include <vector>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

class PackedSequences
    : public ::testing::TestWithParam<std::tuple<Shape, bool>> {};

TEST_P(PackedSequences, MatchesRecurrence) {
  auto [shape, withInitialState] = GetParam();
  EXPECT_TRUE(forwardMatchesReference(shape.problem(), withInitialState,
                                      cpuRun(), {}, packedFeatures()));
}

// 16-step row and column tiles: a chunk spans several of each, so
// boundaries fall inside tiles, between them and on the diagonal ones.
TEST_P(PackedSequences, SmallTiles) {
  auto [shape, withInitialState] = GetParam();
  TileConfig tiles;
  tiles.blockH = 2;
  tiles.blockP = tiles.blockN = tiles.blockM = tiles.blockK = 16;
  tiles.chunkStateBlockP = tiles.chunkStateBlockN = 16;
  tiles.chunkStateBlockK = 16;
  tiles.statePassingBlockP = 8;
  tiles.statePassingBlockN = 16;
  EXPECT_TRUE(forwardMatchesReference(shape.problem(), withInitialState,
                                      cpuRun(tiles), {}, packedFeatures()));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, PackedSequences,
    ::testing::Combine(::testing::ValuesIn(packedShapes()), ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<Shape, bool>> &info) {
      return shapeName(std::get<0>(info.param), std::get<1>(info.param));
    });

TEST(PackedSequencesOptions, EveryOptionAtOnce) {
  for (const Shape &shape : featureShapes())
    EXPECT_TRUE(forwardMatchesReference(shape.problem(), true, cpuRun(), {},
                                        everyOptionPacked(false)))
        << shapeName(shape, true);
}

// A row of one sequence numbered 0 is no packing at all: the same bits as
// without seq_idx.
TEST(PackedSequencesOptions, OneSequenceIsNoSeqIdx) {
  const Problem p{2, 300, 4, 2, 64, 64, 128};
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(p, seed);
  host.poisonOutputs();
  ASSERT_TRUE(cpuRun()(host, true));
  const std::vector<float> y = host.y, finalState = host.finalState;
  std::vector<int32_t> zeros(p.batch * p.seqlen, 0);
  Inputs in = host.inputs(true);
  in.seqIdx = Tensor::contiguous(zeros.data(), DType::I32, {p.batch, p.seqlen});
  host.poisonOutputs();
  Status status = forwardCpu(p, in, host.outputs());
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(0, std::memcmp(y.data(), host.y.data(), y.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(finalState.data(), host.finalState.data(),
                           finalState.size() * sizeof(float)));
}

// The check has power here: a pass that ignores the boundaries misses the
// recurrence with them by far.
TEST(PackedSequencesOptions, IgnoringSeqIdxFails) {
  for (const Shape &shape : packedShapes()) {
    if (shape.seqlen < 64)
      continue;
    const ForwardRun ignoring = [](HostProblem &host, bool withInitialState) {
      Inputs in = host.inputs(withInitialState);
      in.seqIdx.reset();
      Status status = forwardCpu(host.problem, in, host.outputs());
      if (!status.ok())
        return ::testing::AssertionFailure() << status.message();
      return ::testing::AssertionSuccess();
    };
    EXPECT_FALSE(forwardMatchesReference(shape.problem(), true, ignoring, {},
                                         packedFeatures()))
        << shapeName(shape, true);
  }
}

/// The reference restarts at boundaries: a packed row's y and final state
/// are those of its last sequence run alone from zero.
TEST(PackedSequencesReference, LastSequenceAlone) {
  const Problem p{1, 200, 2, 1, 8, 8, 64};
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(p, seed, packedFeatures());
  int64_t start = p.seqlen - 1;
  while (start > 0 && host.seqIdx[start - 1] == host.seqIdx[p.seqlen - 1])
    --start;
  ASSERT_GT(start, 0) << "the row has one sequence";
  ReferenceResult packedResult;
  ASSERT_TRUE(referenceForward(p, host.inputs(true), packedResult).ok());
  for (int64_t h = 0; h < p.heads; ++h) {
    Problem one;
    Inputs in = headInputs(host, false, {0, h}, start, p.seqlen, one);
    in.seqIdx.reset();
    ReferenceResult alone;
    ASSERT_TRUE(referenceForward(one, in, alone).ok());
    for (int64_t i = 0; i < p.headdim * p.dstate; ++i)
      ASSERT_EQ(alone.finalState[i],
                packedResult.finalState[h * p.headdim * p.dstate + i]);
    for (int64_t t = start; t < p.seqlen; ++t)
      for (int64_t i = 0; i < p.headdim; ++i)
        ASSERT_EQ(alone.y[(t - start) * p.headdim + i],
                  packedResult.y[(t * p.heads + h) * p.headdim + i]);
  }
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

class PackedValidation : public ::testing::Test {
protected:
  PackedValidation()
      : host(HostProblem::random({2, 100, 4, 2, 16, 32, 64}, 7,
                                 packedFeatures())) {}

  void expectError(const Inputs &in, const CpuOptions &options,
                   std::vector<const char *> parts) {
    EXPECT_TRUE(refusedUntouched(host, in, host.outputs(), parts, options));
  }

  HostProblem host;
};

TEST_F(PackedValidation, Decreasing) {
  host.seqIdx[100 + 40] = host.seqIdx[100 + 39] - 1;
  expectError(host.inputs(true), {},
              {"seq idx", "decreases in row 1 at step 40",
               "non-decreasing"});
}

TEST_F(PackedValidation, WrongDtype) {
  Inputs in = host.inputs(true);
  in.seqIdx->dtype = DType::F32;
  expectError(in, {}, {"seq idx (batch, seqlen) is f32", "only i32"});
}

TEST_F(PackedValidation, WrongShape) {
  Inputs in = host.inputs(true);
  in.seqIdx->shape = {2, 99};
  expectError(in, {}, {"seq idx (batch, seqlen) has shape (2, 99)",
                       "needs (2, 100)"});
  in.seqIdx->shape = {200};
  in.seqIdx->strides = {1};
  expectError(in, {}, {"seq idx", "rank 1, not 2"});
}

TEST_F(PackedValidation, NullAndNegativeStride) {
  Inputs in = host.inputs(true);
  in.seqIdx->strides = {100, -1};
  expectError(in, {}, {"seq idx", "negative stride"});
  in.seqIdx->data = nullptr;
  expectError(in, {}, {"seq idx", "null"});
}

TEST_F(PackedValidation, ThreeKernelStructureRefuses) {
  CpuOptions options;
  options.structure = ForwardStructure::ThreeKernels;
  expectError(host.inputs(true), options,
              {"seq idx", "four-kernel structure"});
}

} // namespace
