//===- DTypesTest.cpp - every dtype combination on the CPU path -----------===//
//
// x, B, C and z in bf16, f16 or f32 (one dtype for the four), dt in f32,
// bf16 or f16, y in x's dtype or f32: every combination against the f64
// recurrence on the same (rounded) inputs, with z, D per channel, dt bias,
// softplus and an initial state on, on ragged shapes of two chunk sizes.
// Each input dtype is shown to matter (the check fails when the kernels
// read the inputs as another dtype's values), and each dtype rule of the
// validation has its error.
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/Reference.h"

#include "../Support/TestSeed.h"
#include "CpuRun.h"
#include "ForwardCheck.h"

#include "gtest/gtest.h"

#include <string>
#include <tuple>
#include <vector>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

class DTypes : public ::testing::TestWithParam<DTypeCombination> {};

TEST_P(DTypes, MatchRecurrence) {
  for (const Shape &shape : {featureShapes()[0], featureShapes()[2]})
    EXPECT_TRUE(forwardMatchesReference(shape.problem(), true, cpuRun(), {},
                                        dtypeFeatures(GetParam())))
        << shapeName(shape, true);
}

INSTANTIATE_TEST_SUITE_P(Combinations, DTypes,
                         ::testing::ValuesIn(dtypeCombinations()),
                         dtypeCombinationName);

// The dtype matters on these inputs: the same bits read as another dtype's
// values (f16 as bf16) miss the recurrence by far.
TEST(DTypesPower, InputsReadAsAnotherDTypeFail) {
  const ForwardRun asBf16 = [](HostProblem &host, bool withInitialState) {
    Inputs in = host.inputs(withInitialState);
    for (Tensor *t : {&in.x, &in.B, &in.C, &*in.z})
      t->dtype = DType::BF16;
    Outputs out = host.outputs();
    Status status = forwardCpu(host.problem, in, out);
    if (!status.ok())
      return ::testing::AssertionFailure() << status.message();
    return ::testing::AssertionSuccess();
  };
  HostFeatures f = dtypeFeatures({DType::F16, DType::F32, false});
  EXPECT_FALSE(forwardMatchesReference(featureShapes()[0].problem(), true,
                                       asBf16, {}, f));
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

class DTypeValidation : public ::testing::Test {
protected:
  DTypeValidation()
      : host(HostProblem::random(
            {1, 100, 4, 2, 16, 32, 64}, 7,
            dtypeFeatures({DType::F16, DType::F32, true}))) {}

  void expectError(const Inputs &in, const Outputs &out,
                   std::vector<const char *> parts) {
    EXPECT_TRUE(refusedUntouched(host, in, out, parts));
  }

  HostProblem host;
};

TEST_F(DTypeValidation, XInAnotherDType) {
  Inputs in = host.inputs(true);
  in.x.dtype = DType::I32;
  expectError(in, host.outputs(),
              {"x (batch, seqlen, heads, headdim) is i32",
               "only bf16, f16 and f32 are supported"});
}

TEST_F(DTypeValidation, BCAndZShareXsDType) {
  for (Tensor *(*pick)(Inputs &) :
       {+[](Inputs &in) { return &in.B; }, +[](Inputs &in) { return &in.C; },
        +[](Inputs &in) { return &*in.z; }}) {
    Inputs in = host.inputs(true);
    pick(in)->dtype = DType::BF16;
    expectError(in, host.outputs(),
                {"is bf16; only x's dtype (f16) is supported"});
  }
}

TEST_F(DTypeValidation, YInF32OrXsDType) {
  Outputs out = host.outputs();
  out.y.dtype = DType::BF16;
  expectError(host.inputs(true), out,
              {"y (batch, seqlen, heads, headdim) is bf16",
               "only f32 and x's dtype (f16) are supported"});
}

} // namespace
