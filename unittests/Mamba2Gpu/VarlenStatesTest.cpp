//===- VarlenStatesTest.cpp - cu_seqlens on the GPU -----------------------===//
//
// The state at the end of each sequence of cu_seqlens (mamba_ssm's
// return_varlen_states) on the GPU against the f64 recurrence, as on the CPU
// (unittests/Mamba2/VarlenStatesTest.cpp): fresh random inputs and
// boundaries, ragged lengths, every chunk size, with and without an initial
// state, chosen boundaries (one-step sequences, chunk edges, several
// chunks), every option at once, and through the C ABI's options (version
// 3) with cu_seqlens a strided slice of host memory. Outputs are poisoned
// before each run and their guard zones checked after it.
//
//===----------------------------------------------------------------------===//

#include "GpuTesting.h"

#include "../Mamba2/ForwardCheck.h"
#include "../Support/TestSeed.h"
#include "CApiTesting.h"
#include "tilec/Mamba2/tilec_mamba2.h"

#include <algorithm>
#include <vector>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

using VarlenGpuTest = GpuStreamTest;

class VarlenShapesGpu
    : public VarlenGpuTest,
      public ::testing::WithParamInterface<std::tuple<Shape, bool>> {};

TEST_P(VarlenShapesGpu, MatchesTheF64Reference) {
  auto [shape, withInitialState] = GetParam();
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host =
      HostProblem::random(shape.problem(), seed, sequenceOffsetFeatures());
  ASSERT_TRUE(gpuRun(cu(), stream)(host, withInitialState));
  EXPECT_TRUE(matchesReference(host, withInitialState));
  EXPECT_TRUE(varlenStatesMatchReference(host, withInitialState));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, VarlenShapesGpu,
    ::testing::Combine(::testing::Values(Shape{1, 100, 1, 4, 16, 32, 64},
                                         Shape{1, 300, 2, 4, 64, 64, 128},
                                         Shape{1, 77, 1, 2, 24, 40, 128},
                                         Shape{1, 600, 2, 4, 64, 64, 256},
                                         Shape{1, 10, 1, 2, 16, 16, 64},
                                         Shape{1, 4099, 1, 8, 128, 64, 128}),
                       ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<Shape, bool>> &info) {
      return shapeName(std::get<0>(info.param), std::get<1>(info.param));
    });

TEST_F(VarlenGpuTest, ChosenBoundaries) {
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  for (int64_t chunk : {64, 128, 256}) {
    HostProblem host = HostProblem::random({1, 600, 4, 2, 64, 64, chunk}, seed,
                                           sequenceOffsetFeatures());
    setSequenceOffsets(host, {0, 1, int32_t(chunk), int32_t(chunk) + 1,
                              int32_t(2 * chunk) - 1, int32_t(2 * chunk), 600});
    ASSERT_TRUE(gpuRun(cu(), stream)(host, true));
    EXPECT_TRUE(matchesReference(host, true));
    EXPECT_TRUE(varlenStatesMatchReference(host, true)) << "chunk " << chunk;
  }
}

TEST_F(VarlenGpuTest, EveryOptionAtOnce) {
  HostFeatures features = featureCases().back().features;
  features.packedSequences = features.sequenceOffsets = true;
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  for (Shape shape : featureShapes()) {
    shape.batch = 1;
    HostProblem host = HostProblem::random(shape.problem(), seed, features);
    ASSERT_TRUE(gpuRun(cu(), stream)(host, true));
    EXPECT_TRUE(matchesReference(host, true)) << shapeName(shape, true);
    EXPECT_TRUE(varlenStatesMatchReference(host, true))
        << shapeName(shape, true);
  }
}

// cu_seqlens through tilec_mamba2_forward_with_options as every 2nd entry
// of a host array, the varlen states into a guarded device buffer.
TEST_F(VarlenGpuTest, CApiOffsetsSlice) {
  const Problem p{1, 300, 4, 2, 64, 64, 128};
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(p, seed, sequenceOffsetFeatures());
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload());
  ASSERT_TRUE(device.poisonOutputs());
  const Outputs outputs = device.outputs();
  std::vector<int32_t> wide(host.cuSeqlens.size() * 2, -7);
  for (size_t i = 0; i < host.cuSeqlens.size(); ++i)
    wide[2 * i] = host.cuSeqlens[i];
  const int64_t nseq = int64_t(host.cuSeqlens.size()) - 1;
  CArguments args = deviceArguments(device, p);
  args.seqIdx = CTensor(device.inputs(true).seqIdx->data, TILEC_MAMBA2_I32,
                        {p.batch, p.seqlen});
  args.withSeqIdx = true;
  args.cuSeqlens = CTensor(wide.data(), TILEC_MAMBA2_I32, {nseq + 1});
  args.cuSeqlens.strides = {2};
  args.withCuSeqlens = true;
  args.varlenStates = CTensor(outputs.varlenStates->data, TILEC_MAMBA2_F32,
                              {nseq, p.heads, p.headdim, p.dstate});
  args.withVarlenStates = true;
  args.stream = stream;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(), TILEC_MAMBA2_SUCCESS);
  TILEC_CU_ASSERT(cu().streamSynchronize(stream));
  ASSERT_TRUE(device.checkGuards());
  ASSERT_TRUE(device.download());
  EXPECT_TRUE(matchesReference(host, true));
  EXPECT_TRUE(varlenStatesMatchReference(host, true));
}

} // namespace
