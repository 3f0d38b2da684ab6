//===- ValidationTest.cpp - every argument rule gives an error ------------===//

#include "tilec/mamba2/Mamba2.h"
#include "tilec/mamba2/Reference.h"

#include "gtest/gtest.h"

#include <cmath>
#include <functional>

using namespace tilec::mamba2;

namespace {

/// A valid small problem whose arguments each test breaks in one way.
class ValidationTest : public ::testing::Test {
protected:
  ValidationTest()
      : data(HostProblem::random(Problem{2, 100, 4, 2, 16, 8, 64}, 1)),
        inputs(data.inputs(true)), outputs(data.outputs()) {}

  /// validate() fails with a message containing each of `parts`, and so does
  /// forwardCpu(), which leaves y untouched.
  void expectError(std::initializer_list<const char *> parts) {
    Status status = validate(data.problem, inputs, outputs);
    ASSERT_FALSE(status.ok());
    for (const char *part : parts)
      EXPECT_NE(status.message().find(part), std::string::npos)
          << "'" << part << "' is not in: " << status.message();
    data.poisonOutputs();
    Status cpu = forwardCpu(data.problem, inputs, outputs);
    EXPECT_EQ(cpu.message(), status.message());
    EXPECT_TRUE(std::isnan(data.y[0]));
  }

  HostProblem data;
  Inputs inputs;
  Outputs outputs;
};

TEST_F(ValidationTest, ValidArgumentsPass) {
  Status status = validate(data.problem, inputs, outputs);
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(status.message().empty());
}

TEST_F(ValidationTest, SizesArePositive) {
  data.problem.seqlen = 0;
  expectError({"seqlen", "positive"});
}

TEST_F(ValidationTest, HeadsAreAMultipleOfGroups) {
  data.problem.groups = 3;
  expectError({"heads (4)", "multiple of groups (3)"});
}

TEST_F(ValidationTest, ChunkIsSupported) {
  data.problem.chunk = 32;
  expectError({"chunk is 32", "64, 128 and 256"});
}

TEST_F(ValidationTest, PointersAreNotNull) {
  inputs.C.data = nullptr;
  expectError({"C (batch, seqlen, groups, dstate)", "null"});
}

TEST_F(ValidationTest, InputDtypesAreSupported) {
  inputs.x.dtype = DType::F16;
  expectError({"x (batch, seqlen, heads, headdim) is f16", "only bf16"});
}

TEST_F(ValidationTest, OutputDtypesAreSupported) {
  outputs.y.dtype = DType::BF16;
  expectError({"y ", "is bf16", "only f32"});
}

TEST_F(ValidationTest, RanksAgree) {
  inputs.D.shape = {4, 1};
  inputs.D.strides = {1, 1};
  expectError({"D (heads) has rank 2, not 1"});
}

TEST_F(ValidationTest, ShapesAgree) {
  inputs.dt.shape[1] = 99;
  expectError({"dt", "shape (2, 99, 4)", "needs (2, 100, 4)"});
}

TEST_F(ValidationTest, GroupsOfBAndCAgree) {
  inputs.B.shape[2] = 1;
  expectError({"B (batch, seqlen, groups, dstate)", "(2, 100, 1, 8)"});
}

TEST_F(ValidationTest, StridesMatchTheRank) {
  inputs.A.strides = {};
  expectError({"A (heads) has 0 strides for 1 dimensions"});
}

TEST_F(ValidationTest, StridesAreNonNegative) {
  inputs.x.strides[1] = -1;
  expectError({"x", "negative stride -1 in dimension 1"});
}

TEST_F(ValidationTest, InputsMayBroadcast) {
  inputs.A.strides = {0};
  Status status = validate(data.problem, inputs, outputs);
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST_F(ValidationTest, OutputsDoNotAlias) {
  outputs.y.strides[2] = 0;
  expectError({"y", "stride 0 in dimension 2", "written twice"});
}

TEST_F(ValidationTest, InitialStateIsChecked) {
  inputs.initialState->shape[3] = 16;
  expectError({"initial state (batch, heads, headdim, dstate)",
               "(2, 4, 16, 16)", "needs (2, 4, 16, 8)"});
}

TEST_F(ValidationTest, FinalStateIsChecked) {
  outputs.finalState->data = nullptr;
  expectError({"final state", "null"});
}

TEST_F(ValidationTest, OptionalStatesMayBeAbsent) {
  inputs.initialState.reset();
  outputs.finalState.reset();
  Status status = validate(data.problem, inputs, outputs);
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST_F(ValidationTest, TileSizesArePowersOfTwo) {
  TileConfig tiles;
  tiles.blockP = 24;
  Status status = validateTileConfig(data.problem, tiles);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("blockP is 24"), std::string::npos);
  CpuOptions options;
  options.tiles = tiles;
  EXPECT_EQ(forwardCpu(data.problem, inputs, outputs, options).message(),
            status.message());
}

TEST_F(ValidationTest, RowTilesDivideTheChunk) {
  TileConfig tiles;
  tiles.blockM = 128;
  Status status = validateTileConfig(data.problem, tiles);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("blockM (128) must divide the chunk (64)"),
            std::string::npos)
      << status.message();
}

TEST(Reference, RejectsInvalidInputs) {
  HostProblem data = HostProblem::random(Problem{1, 8, 2, 1, 4, 4, 64}, 2);
  Inputs inputs = data.inputs(false);
  inputs.B.shape[3] = 5;
  ReferenceResult result;
  Status status = referenceForward(data.problem, inputs, result);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("B "), std::string::npos);
}

// One time step from a zero state: h = dt x B^T, y = h C + D x.
TEST(Reference, OneStep) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  HostProblem data = HostProblem::random(Problem{1, 1, 1, 1, 2, 3, 64}, 3);
  ReferenceResult result;
  ASSERT_TRUE(referenceForward(data.problem, data.inputs(false), result).ok());
  for (int i = 0; i < 2; ++i) {
    double x = fromBF16(data.x[i]), y = data.D[0] * x;
    for (int j = 0; j < 3; ++j) {
      double h = data.dt[0] * x * fromBF16(data.B[j]);
      EXPECT_DOUBLE_EQ(result.finalState[i * 3 + j], h);
      y += h * fromBF16(data.C[j]);
    }
    EXPECT_NEAR(result.y[i], y, 1e-12 * (1 + std::fabs(y)));
  }
}

} // namespace
