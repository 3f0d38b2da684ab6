//===- VarlenStatesTest.cpp - cu_seqlens on the CPU path ------------------===//
//
// Sequences packed into one row and given by offsets (mamba_ssm's cu_seqlens
// with return_varlen_states): forwardCpu's state at the end of each
// sequence, y and the final state against the f64 recurrence with its reset
// at every boundary, on fresh random boundaries (HostFeatures::
// sequenceOffsets: one at a chunk edge, three at random steps) and on chosen
// ones (sequences of one step, ending at a chunk's last step, starting at a
// chunk's first, spanning several chunks, sequence 0 ending inside chunk 0
// with an initial state). The check rejects the states of the wrong
// sequence, so it has power. Then the validation of both arguments.
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/Reference.h"

#include "../Support/TestSeed.h"
#include "CpuRun.h"
#include "ForwardCheck.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

/// Runs `host` and checks y, the final state and the varlen states.
void expectMatches(HostProblem &host, bool withInitialState,
                   const TileConfig &tiles = {}) {
  ASSERT_TRUE(cpuRun(tiles)(host, withInitialState));
  EXPECT_TRUE(matchesReference(host, withInitialState));
  EXPECT_TRUE(varlenStatesMatchReference(host, withInitialState));
}

class VarlenStates : public ::testing::TestWithParam<std::tuple<Shape, bool>> {
};

TEST_P(VarlenStates, MatchesRecurrence) {
  auto [shape, withInitialState] = GetParam();
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host =
      HostProblem::random(shape.problem(), seed, sequenceOffsetFeatures());
  expectMatches(host, withInitialState);
}

// 16-step tiles: varlen_state walks a chunk in several, with the sequence's
// first and last steps inside tiles.
TEST_P(VarlenStates, SmallTiles) {
  auto [shape, withInitialState] = GetParam();
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host =
      HostProblem::random(shape.problem(), seed, sequenceOffsetFeatures());
  TileConfig tiles;
  tiles.blockP = tiles.blockN = tiles.blockM = tiles.blockK = 16;
  tiles.chunkStateBlockP = 8;
  tiles.chunkStateBlockN = tiles.chunkStateBlockK = 16;
  expectMatches(host, withInitialState, tiles);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, VarlenStates,
    ::testing::Combine(::testing::ValuesIn(oneRow(packedShapes())), ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<Shape, bool>> &info) {
      return shapeName(std::get<0>(info.param), std::get<1>(info.param));
    });

// Every case varlen_state distinguishes, at chunk 64: sequence 0 of one
// step (inside chunk 0, from the initial state), a sequence ending at chunk
// 0's last step, one of one step at chunk 1's first, one ending one step
// before chunk 1's end, a one-step sequence at its last step, and one
// spanning three chunks to a ragged end.
TEST(VarlenStatesCases, ChosenBoundaries) {
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  for (bool withInitialState : {true, false}) {
    HostProblem host = HostProblem::random({1, 300, 4, 2, 32, 16, 64}, seed,
                                           sequenceOffsetFeatures());
    setSequenceOffsets(host, {0, 1, 64, 65, 127, 128, 300});
    expectMatches(host, withInitialState);
  }
}

// One sequence: its varlen state is the final state.
TEST(VarlenStatesCases, OneSequence) {
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random({1, 200, 2, 1, 16, 16, 128}, seed,
                                         sequenceOffsetFeatures());
  setSequenceOffsets(host, {0, 200});
  expectMatches(host, true);
}

// Every option at once, on the feature shapes made batch 1.
TEST(VarlenStatesCases, EveryOptionAtOnce) {
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  for (const Shape &shape : oneRow(featureShapes())) {
    HostProblem host =
        HostProblem::random(shape.problem(), seed, everyOptionPacked(true));
    expectMatches(host, true);
  }
}

// The check has power: the states of the sequences shifted by one miss the
// recurrence's.
TEST(VarlenStatesCases, ShiftedStatesFail) {
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random({1, 300, 4, 2, 32, 16, 64}, seed,
                                         sequenceOffsetFeatures());
  setSequenceOffsets(host, {0, 40, 64, 65, 200, 300});
  ASSERT_TRUE(cpuRun()(host, true));
  ASSERT_TRUE(varlenStatesMatchReference(host, true));
  const size_t row = host.varlenStates.size() / (host.cuSeqlens.size() - 1);
  std::rotate(host.varlenStates.begin(), host.varlenStates.begin() + row,
              host.varlenStates.end());
  EXPECT_FALSE(varlenStatesMatchReference(host, true));
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

class VarlenValidation : public ::testing::Test {
protected:
  VarlenValidation()
      : host(HostProblem::random({1, 100, 4, 2, 16, 32, 64}, 7,
                                 sequenceOffsetFeatures())) {
    setSequenceOffsets(host, {0, 30, 64, 100});
  }

  void expectError(const Inputs &in, const Outputs &out,
                   std::vector<const char *> parts) {
    EXPECT_TRUE(refusedUntouched(host, in, out, parts));
  }
  void expectError(const Inputs &in, std::vector<const char *> parts) {
    expectError(in, host.outputs(), std::move(parts));
  }

  HostProblem host;
};

TEST_F(VarlenValidation, NotIncreasing) {
  host.cuSeqlens[2] = 30;
  expectError(host.inputs(true),
              {"cu seqlens is not increasing", "offset 2 is 30 after 30"});
  host.cuSeqlens[2] = 20;
  expectError(host.inputs(true), {"offset 2 is 20 after 30"});
}

TEST_F(VarlenValidation, FirstAndLastOffsets) {
  host.cuSeqlens[0] = 1;
  expectError(host.inputs(true), {"cu seqlens starts at 1", "must be 0"});
  host.cuSeqlens[0] = 0;
  host.cuSeqlens[3] = 99;
  expectError(host.inputs(true),
              {"cu seqlens ends at 99", "must be seqlen (100)"});
}

TEST_F(VarlenValidation, InconsistentWithSeqIdx) {
  host.seqIdx[64] = 1;
  expectError(host.inputs(true), {"seq idx (batch, seqlen) is 1 at step 64",
                                  "cu seqlens puts in sequence 2"});
}

TEST_F(VarlenValidation, NeedsSeqIdxAndBatchOne) {
  Inputs in = host.inputs(true);
  in.seqIdx.reset();
  expectError(in, {"cu seqlens: needs seq idx"});
  HostProblem two = HostProblem::random({2, 100, 4, 2, 16, 32, 64}, 7,
                                        sequenceOffsetFeatures());
  Inputs twoIn = two.inputs(true);
  twoIn.cuSeqlens = host.inputs(true).cuSeqlens;
  Status status = forwardCpu(two.problem, twoIn, two.outputs());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("one row (batch 1)"), std::string::npos)
      << status.message();
}

TEST_F(VarlenValidation, Descriptor) {
  Inputs in = host.inputs(true);
  in.cuSeqlens->dtype = DType::F32;
  expectError(in, {"cu seqlens (nseq + 1) is f32", "only i32"});
  in = host.inputs(true);
  in.cuSeqlens->shape = {2, 2};
  in.cuSeqlens->strides = {2, 1};
  expectError(in, {"cu seqlens", "rank 2, not 1"});
  in = host.inputs(true);
  in.cuSeqlens->shape = {1};
  expectError(in, {"cu seqlens (nseq + 1) has shape (1)", "two offsets"});
  in = host.inputs(true);
  in.cuSeqlens->strides = {-1};
  expectError(in, {"cu seqlens", "negative stride"});
  in.cuSeqlens->data = nullptr;
  expectError(in, {"cu seqlens", "null"});
}

TEST_F(VarlenValidation, VarlenStatesOutput) {
  Inputs in = host.inputs(true);
  in.cuSeqlens.reset();
  expectError(in, {"varlen states", "need cu seqlens"});
  Outputs out = host.outputs();
  out.varlenStates->shape[0] = 2;
  expectError(host.inputs(true), out,
              {"varlen states (nseq, heads, headdim, dstate) has shape "
               "(2, 4, 16, 32)",
               "needs (3, 4, 16, 32)"});
  out = host.outputs();
  out.varlenStates->strides[0] = 0;
  expectError(host.inputs(true), out, {"varlen states", "stride 0"});
  out = host.outputs();
  out.varlenStates->dtype = DType::BF16;
  expectError(host.inputs(true), out, {"varlen states", "is bf16"});
}

// cu_seqlens without varlen states asked for is checked all the same, and
// otherwise changes nothing: the same bits as seq_idx alone.
TEST_F(VarlenValidation, OffsetsAloneChangeNothing) {
  Inputs in = host.inputs(true);
  Outputs out = host.outputs();
  out.varlenStates.reset();
  host.poisonOutputs();
  ASSERT_TRUE(forwardCpu(host.problem, in, out).ok());
  const std::vector<float> y = host.y;
  in.cuSeqlens.reset();
  host.poisonOutputs();
  ASSERT_TRUE(forwardCpu(host.problem, in, out).ok());
  EXPECT_EQ(y, host.y);
}

} // namespace
