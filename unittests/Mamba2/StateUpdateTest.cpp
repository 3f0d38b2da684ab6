//===- StateUpdateTest.cpp - the decode step in the interpreter -----------===//
//
// stateUpdateCpu against the f64 recurrence (DecodeCheck.h): 1000
// consecutive steps from a random state, each option alone and all
// together, tiles smaller than the problem, bitwise-stable states, indices
// outside the state (padding entries), and every argument rule.
//
//===----------------------------------------------------------------------===//

#include "DecodeCheck.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <tuple>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

using D = DecodeOptions::D;

/// headdim and dstate off the tile sizes, two groups of two heads.
DecodeProblem smallProblem(int64_t stateRows = 3) {
  return DecodeProblem{3, 4, 2, 12, 20, stateRows};
}

/// `steps` steps of the kernel beside the reference, each checked; y is
/// poisoned before each.
void runSteps(DecodeData &data, int steps,
              const StateUpdateCpuOptions &cpu = {}) {
  ReferenceDecodeState reference = startReference(data);
  for (int step = 0; step < steps; ++step) {
    if (step)
      data.drawStep();
    StateUpdateArgs args = data.args();
    ASSERT_TRUE(referenceStateUpdate(data.problem, args, reference).ok());
    data.poisonY();
    Status status = stateUpdateCpu(data.problem, args, cpu);
    ASSERT_TRUE(status.ok()) << status.message();
    ::testing::AssertionResult match = matchesReference(data, reference);
    ASSERT_TRUE(match) << "step " << step;
    if (step == steps - 1)
      std::printf("after %d steps: %s\n", steps, match.message());
  }
}

TEST(StateUpdateCpu, ThousandStepsWithEveryOption) {
  DecodeOptions options{true, true, true, D::PerChannel, true};
  DecodeData data = DecodeData::random(smallProblem(7), options, 11);
  runSteps(data, 1000);
}

TEST(StateUpdateCpu, ThousandStepsWithoutOptions) {
  DecodeData data = DecodeData::random(smallProblem(), {}, 12);
  runSteps(data, 1000);
}

// The state in f32, bf16 or f16 (mamba_ssm's inference cache is in the
// model's dtype), x, B, C, z and y in bf16 or f16.
class StateUpdateDTypes
    : public ::testing::TestWithParam<std::tuple<DType, DType>> {};

TEST_P(StateUpdateDTypes, ThousandStepsWithEveryOption) {
  auto [stateType, xType] = GetParam();
  DecodeOptions options{true, true, true, D::PerChannel, true, stateType,
                        xType};
  DecodeData data = DecodeData::random(smallProblem(7), options, 13);
  runSteps(data, 1000);
}

INSTANTIATE_TEST_SUITE_P(
    Combinations, StateUpdateDTypes,
    ::testing::Values(std::tuple{DType::BF16, DType::BF16},
                      std::tuple{DType::F16, DType::BF16},
                      std::tuple{DType::F32, DType::F16},
                      std::tuple{DType::BF16, DType::F16},
                      std::tuple{DType::F16, DType::F16}),
    [](const ::testing::TestParamInfo<std::tuple<DType, DType>> &info) {
      return std::string("state_") + dtypeName(std::get<0>(info.param)) +
             "_x_" + dtypeName(std::get<1>(info.param));
    });

class StateUpdateStateDType : public ::testing::TestWithParam<DType> {};

// The kernel computes in f32 whatever the state's dtype and rounds the new
// state once: one step from the same state is the f32 state's step rounded,
// bit for bit, and the same y.
TEST_P(StateUpdateStateDType, OneStepIsTheF32StepRounded) {
  DecodeOptions options{true, true, true, D::PerChannel, true, GetParam()};
  DecodeData half = DecodeData::random(smallProblem(7), options, 14);
  options.stateDType = DType::F32;
  DecodeData full = DecodeData::random(smallProblem(7), options, 14);
  // The same draws after the state's (as many of them): the same inputs.
  ASSERT_EQ(half.x, full.x);
  for (size_t i = 0; i < full.state.size(); ++i)
    full.state[i] = float(half.stateValue(i));
  ASSERT_TRUE(stateUpdateCpu(half.problem, half.args()).ok());
  ASSERT_TRUE(stateUpdateCpu(full.problem, full.args()).ok());
  for (size_t i = 0; i < full.state.size(); ++i) {
    const uint16_t want = GetParam() == DType::BF16 ? toBF16(full.state[i])
                                                    : toF16(full.state[i]);
    ASSERT_EQ(half.stateHalf[i], want)
        << "element " << i << ": " << half.stateValue(i) << ", want "
        << full.state[i] << " rounded";
  }
  EXPECT_EQ(half.y, full.y);
}

INSTANTIATE_TEST_SUITE_P(StateDTypes, StateUpdateStateDType,
                         ::testing::Values(DType::BF16, DType::F16),
                         [](const ::testing::TestParamInfo<DType> &info) {
                           return std::string(dtypeName(info.param));
                         });

struct OptionCase {
  const char *name;
  DecodeOptions options;
};

class StateUpdateOption : public ::testing::TestWithParam<OptionCase> {};

TEST_P(StateUpdateOption, MatchesTheRecurrence) {
  const DecodeOptions &options = GetParam().options;
  DecodeData data =
      DecodeData::random(smallProblem(options.indices ? 6 : 3), options, 21);
  runSteps(data, 20);
}

// The option changes the result beyond the bound: a kernel ignoring it
// would fail the check above.
TEST_P(StateUpdateOption, IsNotANoOp) {
  const DecodeOptions &options = GetParam().options;
  DecodeData data =
      DecodeData::random(smallProblem(options.indices ? 6 : 3), options, 22);
  StateUpdateArgs args = data.args();
  ReferenceDecodeState reference = startReference(data);
  ASSERT_TRUE(stateUpdateCpu(data.problem, args).ok());
  StateUpdateArgs without = args;
  without.dtBias.reset();
  without.dtSoftplus = false;
  without.z.reset();
  without.D.reset();
  // Without indices' effect: entry b on row b.
  std::vector<int64_t> identity(size_t(data.problem.batch));
  std::iota(identity.begin(), identity.end(), 0);
  if (options.indices)
    without.stateIndices = identity.data();
  ASSERT_TRUE(referenceStateUpdate(data.problem, without, reference).ok());
  EXPECT_FALSE(matchesReference(data, reference));
}

INSTANTIATE_TEST_SUITE_P(
    Options, StateUpdateOption,
    ::testing::Values(
        OptionCase{"dt_bias", {true, false, false, D::None, false}},
        OptionCase{"dt_softplus", {false, true, false, D::None, false}},
        OptionCase{"z", {false, false, true, D::None, false}},
        OptionCase{"D_per_head", {false, false, false, D::PerHead, false}},
        OptionCase{"D_per_channel",
                   {false, false, false, D::PerChannel, false}},
        OptionCase{"state_indices", {false, false, false, D::None, true}}),
    [](const ::testing::TestParamInfo<OptionCase> &info) {
      return std::string(info.param.name);
    });

TEST(StateUpdateCpu, TilesSmallerThanTheProblem) {
  DecodeOptions options{true, true, true, D::PerHead, true};
  DecodeData data =
      DecodeData::random(DecodeProblem{2, 4, 1, 24, 40, 5}, options, 31);
  StateUpdateCpuOptions cpu;
  cpu.tiles = {8, 16};
  runSteps(data, 10, cpu);
}

TEST(StateUpdateCpu, GroupsPickTheirBAndC) {
  // Four groups of one head each: a head reading another group's B or C
  // is far outside the bound.
  DecodeData data =
      DecodeData::random(DecodeProblem{2, 4, 4, 8, 16, 2}, {}, 32);
  runSteps(data, 5);
}

TEST(StateUpdateCpu, StateIsBitwiseStable) {
  DecodeOptions options{true, true, true, D::PerChannel, true};
  DecodeData one = DecodeData::random(smallProblem(6), options, 41);
  DecodeData four = one;
  StateUpdateCpuOptions single, threads;
  single.numThreads = 1;
  threads.numThreads = 4;
  for (int step = 0; step < 50; ++step) {
    if (step) {
      one.drawStep();
      four.drawStep();
    }
    one.poisonY();
    four.poisonY();
    ASSERT_TRUE(stateUpdateCpu(one.problem, one.args(), single).ok());
    ASSERT_TRUE(stateUpdateCpu(four.problem, four.args(), threads).ok());
    ASSERT_EQ(0, std::memcmp(one.state.data(), four.state.data(),
                             one.state.size() * sizeof(float)))
        << "step " << step;
    ASSERT_EQ(one.y, four.y) << "step " << step;
  }
}

TEST(StateUpdateCpu, EvenlySteppedRowsOfALargerState) {
  // Rows 1, 4, 7 of nine; the rows between keep their bits (checked by the
  // bound, scale 0).
  DecodeOptions options{true, true, true, D::PerHead, true};
  DecodeData data =
      DecodeData::random(DecodeProblem{3, 4, 2, 12, 20, 9}, options, 33);
  data.indices = {1, 4, 7};
  runSteps(data, 10);
}

TEST(StateUpdateCpu, IndicesOutsideTheStateArePadding) {
  // The kernel reads the indices (on the GPU, from device memory the host
  // never reads): a row outside [0, stateRows), negative or not, is a
  // padding entry, as the padding slot is. Only row 2 changes.
  DecodeOptions options{true, true, true, D::PerChannel, true};
  DecodeData data = DecodeData::random(smallProblem(6), options, 34);
  data.indices = {6, 2, -2};
  const std::vector<float> before = data.state;
  runSteps(data, 3);
  const size_t row = data.state.size() / 6;
  for (size_t i = 0; i < data.state.size(); ++i) {
    if (i / row != 2) {
      ASSERT_EQ(data.state[i], before[i]) << "element " << i;
    }
  }
  EXPECT_NE(0, std::memcmp(data.state.data() + 2 * row, before.data() + 2 * row,
                           row * sizeof(float)));
}

//===----------------------------------------------------------------------===//
// Bad input
//===----------------------------------------------------------------------===//

class StateUpdateValidation : public ::testing::Test {
protected:
  StateUpdateValidation()
      : data(DecodeData::random(smallProblem(6),
                                {true, true, true, D::PerHead, true}, 51)),
        args(data.args()), stateBefore(data.state) {}

  /// validateStateUpdate and stateUpdateCpu fail with each of `parts` in
  /// the message, touching neither the state nor y.
  void expectError(std::initializer_list<const char *> parts) {
    Status status = validateStateUpdate(data.problem, args);
    ASSERT_FALSE(status.ok());
    for (const char *part : parts)
      EXPECT_NE(status.message().find(part), std::string::npos)
          << "'" << part << "' is not in: " << status.message();
    data.poisonY();
    Status cpu = stateUpdateCpu(data.problem, args);
    EXPECT_EQ(cpu.message(), status.message());
    EXPECT_EQ(0, std::memcmp(data.state.data(), stateBefore.data(),
                             stateBefore.size() * sizeof(float)));
    for (uint16_t v : data.y)
      ASSERT_TRUE(std::isnan(fromBF16(v)));
  }

  DecodeData data;
  StateUpdateArgs args;
  std::vector<float> stateBefore;
};

TEST_F(StateUpdateValidation, ValidArgumentsPass) {
  Status status = validateStateUpdate(data.problem, args);
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST_F(StateUpdateValidation, SizesArePositive) {
  data.problem.dstate = 0;
  expectError({"dstate is 0", "positive"});
}

TEST_F(StateUpdateValidation, HeadsAreAMultipleOfGroups) {
  data.problem.groups = 3;
  expectError({"heads (4)", "multiple of groups (3)"});
}

TEST_F(StateUpdateValidation, StateRowsAreTheBatchWithoutIndices) {
  args.stateIndices = nullptr;
  expectError({"stateRows (6)", "batch (3)"});
}

TEST_F(StateUpdateValidation, ShapesAreTheProblems) {
  args.B.shape[2] = 19;
  args.B.strides = {38, 19, 1};
  expectError({"B (batch, groups, dstate)", "(3, 2, 19)", "(3, 2, 20)"});
}

TEST_F(StateUpdateValidation, DtypesAreChecked) {
  args.x.dtype = DType::F32;
  expectError({"x (batch, heads, headdim) is f32",
               "only bf16 and f16 are supported"});
  args = data.args();
  args.B.dtype = DType::F16;
  expectError({"B (batch, groups, dstate) is f16",
               "only x's dtype (bf16) is supported"});
  args = data.args();
  args.state.dtype = DType::I32;
  expectError({"state (stateRows, heads, headdim, dstate) is i32",
               "only f32, bf16 and f16 are supported"});
}

TEST_F(StateUpdateValidation, YIsBF16) {
  args.y.dtype = DType::F16;
  expectError({"y (batch, heads, headdim) is f16"});
}

TEST_F(StateUpdateValidation, DHasRankOneOrTwo) {
  args.D->shape = {4, 12, 1};
  args.D->strides = {12, 1, 1};
  expectError({"D (heads)", "rank 3"});
}

TEST_F(StateUpdateValidation, NullPointers) {
  args.state.data = nullptr;
  expectError({"state", "null"});
}

TEST_F(StateUpdateValidation, NegativeStrides) {
  args.dt.strides[1] = -1;
  expectError({"dt", "negative stride"});
}

TEST_F(StateUpdateValidation, WrittenTensorsHaveNoStrideZero) {
  args.state.strides[3] = 0;
  expectError({"state", "stride 0 in dimension 3", "written twice"});
}

TEST_F(StateUpdateValidation, StateDoesNotOverlapY) {
  // y inside the state's bytes.
  args.y.data = data.state.data();
  expectError({"state overlaps y"});
}

TEST_F(StateUpdateValidation, YDoesNotOverlapAnInput) {
  args.y.data = data.x.data();
  expectError({"overlaps", "x"});
}

TEST_F(StateUpdateValidation, TileSizesArePowersOfTwo) {
  StateUpdateCpuOptions cpu;
  cpu.tiles.blockN = 24;
  Status status = stateUpdateCpu(data.problem, args, cpu);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("blockN is 24"), std::string::npos);
}

} // namespace
