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

// The states at the end of each sequence of cu_seqlens, read by
// varlen_state's _sbf16 instance from the bf16 states (StateDtypeCheck.h).
TEST(StateDtypeVarlen, VarlenStatesReadTheBf16States) {
  EXPECT_TRUE(
      bf16VarlenStatesMatch(Shape{1, 1000, 2, 4, 32, 40, 128}.problem(),
                            cpuStatesRun(ForwardStructure::FourKernels)));
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
  HostProblem f16 =
      HostProblem::random(p, tilec::testing::testSeed(), features);
  Inputs in = f16.inputs(false);
  in.stateDtype = DType::BF16;
  EXPECT_TRUE(refusedUntouched(
      f16, in, f16.outputs(),
      {"state dtype: bf16 with x in f16", "bf16 with x in bf16"}));
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
