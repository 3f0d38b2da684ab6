//===- ValidationTest.cpp - every argument rule gives an error ------------===//

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/Reference.h"

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
    for (const std::vector<float> *buffer : {&data.y, &data.finalState})
      for (size_t i = 0; i < buffer->size(); ++i)
        ASSERT_TRUE(std::isnan((*buffer)[i])) << "output element " << i;
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
  inputs.x.dtype = DType::I32;
  expectError({"x (batch, seqlen, heads, headdim) is i32",
               "only bf16, f16 and f32"});
  // B, C and z in x's dtype (bf16 here).
  inputs.x.dtype = DType::BF16;
  inputs.C.dtype = DType::F16;
  expectError({"C (batch, seqlen, groups, dstate) is f16",
               "only x's dtype (bf16)"});
}

TEST_F(ValidationTest, OutputDtypesAreSupported) {
  outputs.y.dtype = DType::F16;
  expectError({"y ", "is f16", "only f32 and x's dtype (bf16) are supported"});
}

TEST_F(ValidationTest, RanksAgree) {
  inputs.D.shape = {4, 1, 1};
  inputs.D.strides = {1, 1, 1};
  expectError({"D (heads) or (heads, headdim) has rank 3, not 1"});
}

// mamba_ssm's options: each new argument's shape, dtype and pointer.
TEST_F(ValidationTest, DPerChannelHasHeaddimColumns) {
  inputs.D.shape = {4, 1};
  inputs.D.strides = {1, 1};
  expectError({"D (heads, headdim) has shape (4, 1)", "needs (4, 16)"});
}

TEST_F(ValidationTest, DtBiasIsChecked) {
  std::vector<float> bias(5);
  inputs.dtBias = Tensor::contiguous(bias.data(), DType::F32, {5});
  expectError({"dt bias (heads) has shape (5)", "needs (4)"});
  inputs.dtBias = Tensor::contiguous(bias.data(), DType::BF16, {4});
  expectError({"dt bias (heads) is bf16", "only f32"});
  inputs.dtBias = Tensor::contiguous(nullptr, DType::F32, {4});
  expectError({"dt bias (heads)", "null"});
}

TEST_F(ValidationTest, ZIsChecked) {
  std::vector<uint16_t> z(2 * 100 * 4 * 16);
  inputs.z = Tensor::contiguous(z.data(), DType::BF16, {2, 100, 4, 8});
  expectError({"z (batch, seqlen, heads, headdim) has shape (2, 100, 4, 8)",
               "needs (2, 100, 4, 16)"});
  inputs.z = Tensor::contiguous(z.data(), DType::F32, {2, 100, 4, 16});
  expectError({"z (batch, seqlen, heads, headdim) is f32",
               "only x's dtype (bf16)"});
  inputs.z = Tensor::contiguous(z.data(), DType::BF16, {2, 100, 4, 16});
  inputs.z->strides[3] = -1;
  expectError({"z", "negative stride -1 in dimension 3"});
}

TEST_F(ValidationTest, ChunkStatesAreChecked) {
  // Two chunks of 64 for seqlen 100.
  std::vector<float> states(2 * 3 * 4 * 16 * 8);
  outputs.chunkStates =
      Tensor::contiguous(states.data(), DType::F32, {2, 3, 4, 16, 8});
  expectError({"chunk states (batch, nchunks, heads, headdim, dstate) has "
               "shape (2, 3, 4, 16, 8)",
               "needs (2, 2, 4, 16, 8)"});
  outputs.chunkStates =
      Tensor::contiguous(states.data(), DType::F32, {2, 2, 4, 16, 8});
  outputs.chunkStates->strides[1] = 0;
  expectError({"chunk states", "stride 0 in dimension 1",
               "written twice"});
  outputs.chunkStates->strides[1] = 4 * 16 * 8;
  outputs.chunkStates->dtype = DType::BF16;
  expectError({"chunk states", "is bf16", "only f32"});
}

TEST_F(ValidationTest, DtLimitIsAnInterval) {
  inputs.dtLimit = DtLimit{0.5f, 0.25f};
  expectError({"dt limit", "low <= high"});
  inputs.dtLimit = DtLimit{NAN, 1.0f};
  expectError({"dt limit", "no NaN"});
}

TEST_F(ValidationTest, OptionsMayBeGiven) {
  std::vector<float> bias(4), d(4 * 16);
  std::vector<uint16_t> z(2 * 100 * 4 * 16), y(2 * 100 * 4 * 16);
  inputs.dtBias = Tensor::contiguous(bias.data(), DType::F32, {4});
  inputs.dtSoftplus = true;
  inputs.dtLimit = DtLimit{0.0f, 0.0f};
  inputs.D = Tensor::contiguous(d.data(), DType::F32, {4, 16});
  inputs.z = Tensor::contiguous(z.data(), DType::BF16, {2, 100, 4, 16});
  outputs.y = Tensor::contiguous(y.data(), DType::BF16, {2, 100, 4, 16});
  Status status = validate(data.problem, inputs, outputs);
  EXPECT_TRUE(status.ok()) << status.message();
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
  tiles.blockM = 0;
  tiles.chunkStateBlockK = 128;
  status = validateTileConfig(data.problem, tiles);
  EXPECT_NE(
      status.message().find("chunkStateBlockK (128) must divide the chunk (64)"),
      std::string::npos)
      << status.message();
}

TEST_F(ValidationTest, StructureIsOneOfTheTwo) {
  EXPECT_TRUE(validateStructure(ForwardStructure::FourKernels).ok());
  EXPECT_TRUE(validateStructure(ForwardStructure::ThreeKernels).ok());
  CpuOptions options;
  options.structure = static_cast<ForwardStructure>(7);
  Status status = forwardCpu(data.problem, inputs, outputs, options);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "options: structure is 7; it must be "
                              "ForwardStructure::FourKernels or "
                              "ForwardStructure::ThreeKernels");
  EXPECT_EQ(status.message(), validateStructure(options.structure).message());
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

// Many steps from an initial state, several heads sharing a group: the
// recurrence against its closed form, computed independently here,
//   h_T = prod_t a_t h_0 + sum_s (prod_{t > s} a_t) dt_s x_s B_s^T,
//   y_t = h_t C_t + D x_t,  a_t = exp(A dt_t),
// and the error scales against the root-sum-square of the same terms.
TEST(Reference, ClosedFormFromAnInitialState) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  const Problem p{2, 9, 4, 2, 3, 5, 64};
  HostProblem data = HostProblem::random(p, 11);
  ReferenceResult result;
  ASSERT_TRUE(referenceForward(p, data.inputs(true), result).ok());
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.heads; ++h) {
      const int64_t g = h / 2;
      auto decayAfter = [&](int64_t s, int64_t t) { // prod over (s, t]
        double sum = 0;
        for (int64_t r = s + 1; r <= t; ++r)
          sum += double(data.A[h]) * data.dt[(b * p.seqlen + r) * p.heads + h];
        return std::exp(sum);
      };
      for (int64_t t = 0; t < p.seqlen; ++t)
        for (int64_t i = 0; i < p.headdim; ++i) {
          const double x =
              fromBF16(data.x[((b * p.seqlen + t) * p.heads + h) * p.headdim + i]);
          double y = data.D[h] * x, squares = 0;
          for (int64_t j = 0; j < p.dstate; ++j) {
            const double c =
                fromBF16(data.C[((b * p.seqlen + t) * p.groups + g) * p.dstate + j]);
            const double h0 =
                data.initialState[((b * p.heads + h) * p.headdim + i) * p.dstate + j];
            double term = decayAfter(-1, t) * h0 * c;
            y += term;
            squares += term * term;
            for (int64_t s = 0; s <= t; ++s) {
              const double dt = data.dt[(b * p.seqlen + s) * p.heads + h];
              const double xs = fromBF16(
                  data.x[((b * p.seqlen + s) * p.heads + h) * p.headdim + i]);
              const double bs = fromBF16(
                  data.B[((b * p.seqlen + s) * p.groups + g) * p.dstate + j]);
              term = decayAfter(s, t) * dt * xs * bs * c;
              y += term;
              squares += term * term;
            }
          }
          const int64_t at = ((b * p.seqlen + t) * p.heads + h) * p.headdim + i;
          EXPECT_NEAR(result.y[at], y, 1e-12 * (1 + std::fabs(y))) << at;
          EXPECT_NEAR(result.yScale[at], std::sqrt(squares),
                      1e-12 * (1 + std::sqrt(squares)))
              << at;
        }
      for (int64_t i = 0; i < p.headdim; ++i)
        for (int64_t j = 0; j < p.dstate; ++j) {
          const int64_t at = ((b * p.heads + h) * p.headdim + i) * p.dstate + j;
          double state = decayAfter(-1, p.seqlen - 1) * data.initialState[at];
          for (int64_t s = 0; s < p.seqlen; ++s)
            state += decayAfter(s, p.seqlen - 1) *
                     data.dt[(b * p.seqlen + s) * p.heads + h] *
                     fromBF16(data.x[((b * p.seqlen + s) * p.heads + h) *
                                         p.headdim + i]) *
                     fromBF16(data.B[((b * p.seqlen + s) * p.groups + g) *
                                         p.dstate + j]);
          EXPECT_NEAR(result.finalState[at], state,
                      1e-12 * (1 + std::fabs(state)))
              << at;
        }
    }
}

// The inputs: both decay regimes (even heads slow, odd heads fast) in their
// documented ranges, and the same values for the same seed.
TEST(Reference, InputDistribution) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  const Problem p{2, 300, 6, 2, 4, 4, 64};
  HostProblem data = HostProblem::random(p, 5);
  for (int64_t h = 0; h < p.heads; ++h) {
    const bool slow = h % 2 == 0;
    EXPECT_LE(data.A[h], slow ? -0.01f : -1.0f) << h;
    EXPECT_GE(data.A[h], slow ? -1.0f : -16.0f) << h;
    EXPECT_GE(data.D[h], 0.5f);
    EXPECT_LT(data.D[h], 1.5f);
    for (int64_t t = 0; t < p.batch * p.seqlen; ++t) {
      const float dt = data.dt[t * p.heads + h];
      if (slow) {
        EXPECT_GE(dt, 1e-3f) << h;
        EXPECT_LE(dt, 1e-1f) << h;
      } else {
        EXPECT_GT(dt, 0.0f) << h;
      }
    }
  }
  HostProblem again = HostProblem::random(p, 5);
  EXPECT_EQ(again.x, data.x);
  EXPECT_EQ(again.dt, data.dt);
  EXPECT_EQ(again.A, data.A);
  EXPECT_EQ(again.initialState, data.initialState);
  EXPECT_NE(HostProblem::random(p, 6).x, data.x);
}

} // namespace

namespace {

// The host f16 helpers the tests' 16-bit dt goes through: known encodings,
// ties to even, subnormals, overflow; and every f16 value round-trips.
TEST(Reference, F16Encoding) {
  const std::pair<float, uint16_t> known[] = {
      {1.0f, 0x3c00},       {-2.0f, 0xc000},        {65504.0f, 0x7bff},
      {65520.0f, 0x7c00},   {0x1p-24f, 0x0001},     {0x1p-14f, 0x0400},
      {1.0f + 0x1p-11f, 0x3c00}, {1.0f + 3 * 0x1p-11f, 0x3c02},
      {0.0f, 0x0000},       {-0.0f, 0x8000},        {0x1p-26f, 0x0000}};
  for (auto [value, bits] : known)
    EXPECT_EQ(toF16(value), bits) << value;
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    if ((bits & 0x7c00) == 0x7c00 && (bits & 0x3ff))
      continue; // NaN payloads are not kept
    EXPECT_EQ(toF16(fromF16(uint16_t(bits))), bits) << bits;
  }
  EXPECT_TRUE(std::isnan(fromF16(toF16(NAN))));
}

} // namespace
