//===- StateDtypeTest.cpp - bf16 states between chunks on the CPU ---------===//
//
// Inputs::stateDtype = BF16 (mamba_ssm's state_dtype) in forwardCpu, both
// structures, on fresh random inputs with initial states, ragged last
// chunks and several groups: the chunk states are the f32 run's rounded to
// nearest even, the final state is the f32 run's, and y is within the bf16
// states' bound of the f32 run's, which itself passes the f64 check
// (StateDtypeCheck.cpp derives the bounds). Then the state dtypes refused.
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/Reference.h"

#include "../Support/TestSeed.h"
#include "CpuRun.h"
#include "StateDtypeCheck.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <tuple>
#include <vector>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

/// forwardCpu with the states between chunks in the dtype asked for, kept
/// in `chunkStates`.
StateDtypeRun cpuStatesRun(ForwardStructure structure) {
  return [structure](HostProblem &host, DType stateDtype,
                     std::vector<uint8_t> &chunkStates) {
    const Problem &p = host.problem;
    Inputs in = host.inputs(true);
    in.stateDtype = stateDtype;
    Outputs out = host.outputs();
    out.chunkStates = Tensor::contiguous(
        chunkStates.data(), stateDtype,
        {p.batch, p.numChunks(), p.heads, p.headdim, p.dstate});
    CpuOptions options;
    options.structure = structure;
    Status status = forwardCpu(p, in, out, options);
    if (!status.ok())
      return ::testing::AssertionFailure()
             << "forwardCpu: " << status.message();
    return ::testing::AssertionSuccess();
  };
}

class StateDtype
    : public ::testing::TestWithParam<std::tuple<Shape, ForwardStructure>> {};

TEST_P(StateDtype, Bf16StatesAreTheRoundedF32Ones) {
  auto [shape, structure] = GetParam();
  EXPECT_TRUE(bf16StatesMatch(shape.problem(), cpuStatesRun(structure)));
}

// (batch, seqlen, groups, heads, dstate, headdim, chunk): ragged last chunks
// (300 = 4 * 64 + 44, 1000 = 7 * 128 + 104, 600 = 2 * 256 + 88), several
// groups, sizes off the tiles.
const Shape kShapes[] = {{2, 300, 2, 4, 48, 32, 64},
                         {1, 1000, 1, 2, 64, 64, 128},
                         {1, 600, 2, 4, 32, 40, 256}};

INSTANTIATE_TEST_SUITE_P(
    Shapes, StateDtype,
    ::testing::Combine(::testing::ValuesIn(kShapes),
                       ::testing::ValuesIn(forwardStructures())),
    [](const ::testing::TestParamInfo<std::tuple<Shape, ForwardStructure>>
           &info) {
      return shapeName(std::get<0>(info.param), true) + "_" +
             structureName(std::get<1>(info.param));
    });

// The states at the end of each sequence of cu_seqlens (varlen_state's
// _sbf16 instance reads the bf16 states): the f32 run's pass the f64 check,
// and the bf16 run's differ from them only by the rounding of the state the
// sequence brought into its last chunk, exp(G_e) h_c with exp(G_e) <= 1: at
// most 2^-8 |h_c| per element (varlen_state multiplies it in f32), plus f32
// sums (2^-20 of the magnitudes). Sequences that start in their last chunk
// take no state and must agree exactly; some sequence must take one.
TEST(StateDtypeVarlen, VarlenStatesReadTheBf16States) {
  const Problem p = Shape{1, 1000, 2, 4, 32, 40, 128}.problem();
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(p, seed, sequenceOffsetFeatures());
  const size_t numStates =
      size_t(p.batch * p.numChunks() * p.heads * p.headdim * p.dstate);
  std::vector<uint8_t> states32(numStates * 4), states16(numStates * 2);
  host.poisonOutputs();
  ASSERT_TRUE(cpuStatesRun(ForwardStructure::FourKernels)(host, DType::F32,
                                                          states32));
  ASSERT_TRUE(varlenStatesMatchReference(host, true));
  const std::vector<float> varlen32 = host.varlenStates;
  host.poisonOutputs();
  ASSERT_TRUE(cpuStatesRun(ForwardStructure::FourKernels)(host, DType::BF16,
                                                          states16));
  const int64_t state = p.heads * p.headdim * p.dstate;
  double moved = 0;
  for (size_t s = 0; s + 1 < host.cuSeqlens.size(); ++s) {
    const int64_t c = (host.cuSeqlens[s + 1] - 1) / p.chunk;
    for (int64_t k = 0; k < state; ++k) {
      float entering;
      std::memcpy(&entering, &states32[4 * size_t(c * state + k)], 4);
      const double want = varlen32[s * state + k];
      const double got = host.varlenStates[s * state + k];
      const double bound =
          0x1p-8 * std::fabs(entering) +
          0x1p-20 * (std::fabs(want) + std::fabs(entering));
      ASSERT_LE(std::fabs(got - want), bound)
          << "sequence " << s << ", element " << k << ": " << got
          << " with bf16 states, " << want << " with f32 ones";
      moved += std::fabs(got - want);
    }
  }
  EXPECT_GT(moved, 0) << "no sequence took a state into its last chunk";
}

class StateDtypeValidation : public ::testing::Test {
protected:
  Problem p{1, 70, 2, 1, 16, 8, 64};
  HostProblem host = HostProblem::random(p, tilec::testing::testSeed());
};

TEST_F(StateDtypeValidation, RefusesF16States) {
  Inputs in = host.inputs(false);
  in.stateDtype = DType::F16;
  EXPECT_TRUE(refusedUntouched(host, in, host.outputs(),
                               {"state dtype: f16", "f32, or bf16"}));
}

TEST_F(StateDtypeValidation, RefusesAnIntegerStateDtype) {
  Inputs in = host.inputs(false);
  in.stateDtype = DType::I32;
  EXPECT_TRUE(refusedUntouched(host, in, host.outputs(),
                               {"state dtype: i32", "not supported"}));
}

TEST_F(StateDtypeValidation, RefusesBf16StatesWithAnotherX) {
  HostFeatures features;
  features.inputDType = DType::F16;
  HostProblem f16 = HostProblem::random(p, tilec::testing::testSeed(),
                                        features);
  Inputs in = f16.inputs(false);
  in.stateDtype = DType::BF16;
  EXPECT_TRUE(refusedUntouched(f16, in, f16.outputs(),
                               {"state dtype: bf16 with x in f16",
                                "bf16 with x in bf16"}));
}

TEST_F(StateDtypeValidation, RefusesChunkStatesOfAnotherDtype) {
  std::vector<float> states(
      size_t(p.batch * p.numChunks() * p.heads * p.headdim * p.dstate));
  Inputs in = host.inputs(false);
  in.stateDtype = DType::BF16;
  Outputs out = host.outputs();
  out.chunkStates = Tensor::contiguous(
      states.data(), DType::F32,
      {p.batch, p.numChunks(), p.heads, p.headdim, p.dstate});
  EXPECT_TRUE(refusedUntouched(
      host, in, out,
      {"chunk states", "is f32", "the state dtype (bf16) is supported"}));
}

} // namespace
