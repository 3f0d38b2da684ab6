//===- PackedSequencesTest.cpp - seq_idx on the GPU -----------------------===//
//
// Packed sequences (mamba_ssm's seq_idx) on the GPU against the f64
// recurrence that restarts the state at every boundary, as on the CPU
// (unittests/Mamba2/PackedSequencesTest.cpp): fresh random inputs and
// boundaries (one at a chunk edge, three at random steps; odd rows start
// at sequence 1, so their initial state is not used), ragged lengths,
// every chunk size, with and without an initial state, every option at
// once, and seq_idx through the C ABI's options (version 2) on a strided
// slice. Outputs are poisoned before each run and their guard zones
// checked after it.
//
//===----------------------------------------------------------------------===//

#include "GpuTesting.h"

#include "CApiTesting.h"
#include "../Mamba2/ForwardCheck.h"
#include "../Support/TestSeed.h"
#include "tilec/Mamba2/tilec_mamba2.h"

#include <string>
#include <vector>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

using PackedGpuTest = GpuStreamTest;

class PackedShapesGpu
    : public PackedGpuTest,
      public ::testing::WithParamInterface<std::tuple<Shape, bool>> {};

TEST_P(PackedShapesGpu, MatchesTheF64Reference) {
  auto [shape, withInitialState] = GetParam();
  EXPECT_TRUE(gpuForwardMatchesReference(cu(), shape.problem(),
                                         withInitialState, stream, {}, {},
                                         packedFeatures()));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, PackedShapesGpu,
    ::testing::Combine(::testing::ValuesIn(withLargeShape(
                           packedShapes(), {4, 2049, 2, 8, 128, 64, 128})),
                       ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<Shape, bool>> &info) {
      return shapeName(std::get<0>(info.param), std::get<1>(info.param));
    });

TEST_F(PackedGpuTest, EveryOptionAtOnce) {
  for (const Shape &shape : featureShapes())
    EXPECT_TRUE(gpuForwardMatchesReference(cu(), shape.problem(), true,
                                           stream, {}, {},
                                           everyOptionPacked(false)))
        << shapeName(shape, true);
}

// The check rejects a pass without the boundaries on these inputs.
TEST_F(PackedGpuTest, IgnoringSeqIdxFails) {
  const Problem p{2, 600, 4, 2, 64, 64, 256};
  const ForwardRun run = gpuRun(cu(), stream);
  const ForwardRun ignoring = [&](HostProblem &host, bool withInitialState) {
    HostFeatures features = host.features;
    host.features.packedSequences = false;
    ::testing::AssertionResult result = run(host, withInitialState);
    host.features = features;
    return result;
  };
  EXPECT_FALSE(forwardMatchesReference(p, true, ignoring, {}, packedFeatures()));
}

// seq_idx through tilec_mamba2_forward_with_options, as every 2nd column of
// a (batch, 2 * seqlen) i32 buffer (a strided slice).
TEST_F(PackedGpuTest, CApiSeqIdxSlice) {
  const Problem p{2, 300, 4, 2, 64, 64, 128};
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(p, seed, packedFeatures());
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload());
  ASSERT_TRUE(device.poisonOutputs());
  std::vector<int32_t> wide(p.batch * p.seqlen * 2, -7);
  for (int64_t i = 0; i < p.batch * p.seqlen; ++i)
    wide[2 * i] = host.seqIdx[i];
  DeviceBuffer seqIdx(cu(), wide.size() * sizeof(int32_t));
  ASSERT_TRUE(seqIdx.ok());
  TILEC_CU_ASSERT(cu().memcpyHtoD(seqIdx.address(), wide.data(),
                                  wide.size() * sizeof(int32_t)));
  CArguments args = deviceArguments(device, p);
  args.seqIdx = CTensor(seqIdx.get(), TILEC_MAMBA2_I32, {p.batch, p.seqlen});
  args.seqIdx.strides = {2 * p.seqlen, 2};
  args.withSeqIdx = true;
  args.stream = stream;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(), TILEC_MAMBA2_SUCCESS);
  TILEC_CU_ASSERT(cu().streamSynchronize(stream));
  ASSERT_TRUE(device.checkGuards());
  ASSERT_TRUE(device.download());
  EXPECT_TRUE(matchesReference(host, true));
}

TEST_F(PackedGpuTest, ThreeKernelStructureRefuses) {
  const Problem p{2, 100, 4, 1, 32, 16, 64};
  HostProblem host = HostProblem::random(p, 3, packedFeatures());
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  GpuOptions options;
  options.structure = ForwardStructure::ThreeKernels;
  Status status =
      forwardGpu(p, device.inputs(true), device.outputs(), options, stream);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("four-kernel structure"), std::string::npos)
      << status.message();
}

} // namespace
