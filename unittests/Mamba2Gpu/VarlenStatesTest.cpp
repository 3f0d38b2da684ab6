//===- VarlenStatesTest.cpp - cu_seqlens on the GPU -----------------------===//
//
// The state at the end of each sequence of cu_seqlens (mamba_ssm's
// return_varlen_states) on the GPU against the f64 recurrence, as on the CPU
// (unittests/Mamba2/VarlenStatesTest.cpp): fresh random inputs and
// boundaries, ragged lengths, every chunk size, with and without an initial
// state, chosen boundaries (one-step sequences, chunk edges, several
// chunks), every option at once, and through the C ABI's options (version
// 3) with cu_seqlens a strided slice of device memory. The offsets stay in
// device memory: a pass captured in a CUDA graph reads the offsets of the
// moment at each replay, and bad offsets give NaN states for the sequences
// they concern (the rest as with good ones). Outputs are poisoned before
// each run and their guard zones checked after it.
//
//===----------------------------------------------------------------------===//

#include "GpuTesting.h"

#include "../Mamba2/ForwardCheck.h"
#include "../Support/TestSeed.h"
#include "CApiTesting.h"
#include "tilec/Mamba2/tilec_mamba2.h"

#include <algorithm>
#include <cmath>
#include <cstring>
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
    ::testing::Combine(::testing::ValuesIn(withLargeShape(
                           oneRow(packedShapes()),
                           {1, 4099, 1, 8, 128, 64, 128})),
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
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  for (const Shape &shape : oneRow(featureShapes())) {
    HostProblem host =
        HostProblem::random(shape.problem(), seed, everyOptionPacked(true));
    ASSERT_TRUE(gpuRun(cu(), stream)(host, true));
    EXPECT_TRUE(matchesReference(host, true)) << shapeName(shape, true);
    EXPECT_TRUE(varlenStatesMatchReference(host, true))
        << shapeName(shape, true);
  }
}

// cu_seqlens through tilec_mamba2_forward_with_options as every 2nd entry
// of a device array, the varlen states into a guarded device buffer.
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
  DeviceBuffer wideOnDevice(cu(), wide.size() * 4);
  ASSERT_TRUE(wideOnDevice.ok());
  TILEC_CU_ASSERT(
      cu().memcpyHtoD(wideOnDevice.address(), wide.data(), wide.size() * 4));
  const int64_t nseq = int64_t(host.cuSeqlens.size()) - 1;
  CArguments args = deviceArguments(device, p);
  args.seqIdx = CTensor(device.inputs(true).seqIdx->data, TILEC_MAMBA2_I32,
                        {p.batch, p.seqlen});
  args.withSeqIdx = true;
  args.cuSeqlens =
      CTensor(wideOnDevice.get(), TILEC_MAMBA2_I32, {nseq + 1});
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


// Captured once in a CUDA graph (global mode: a host read of the offsets,
// or anything else unsafe during capture, fails it) and replayed on new
// boundaries: each replay reads the offsets and seq_idx of the moment.
TEST_F(VarlenGpuTest, GraphCaptureReadsTheOffsetsOfEachReplay) {
  const Problem p{1, 600, 4, 2, 64, 64, 128};
  ASSERT_TRUE(prepareGpu().ok());
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(p, seed, sequenceOffsetFeatures());
  setSequenceOffsets(host, {0, 1, 128, 129, 300, 600});
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload());
  // The workspace allocated on the stream: a memory node of the graph.
  CapturedForward graph(cu());
  ASSERT_TRUE(
      graph.capture(stream, p, device.inputs(true), device.outputs(), {}));
  const std::vector<int32_t> boundaries[] = {
      {0, 1, 128, 129, 300, 600},
      {0, 200, 255, 256, 599, 600},
      {0, 64, 65, 66, 400, 600}};
  for (const std::vector<int32_t> &offsets : boundaries) {
    SCOPED_TRACE("offsets ending " + std::to_string(offsets[4]));
    setSequenceOffsets(host, offsets);
    ASSERT_TRUE(device.upload());
    ASSERT_TRUE(device.poisonOutputs());
    ASSERT_TRUE(graph.replay(stream));
    ASSERT_TRUE(device.checkGuards());
    ASSERT_TRUE(device.download());
    EXPECT_TRUE(matchesReference(host, true));
    EXPECT_TRUE(varlenStatesMatchReference(host, true));
  }
}

// Offsets that break the rules, which the host does not read: the pass
// succeeds, y is bit for bit as with good offsets (seq_idx alone decides
// it), the state of the sequence they concern is NaN and the others are bit
// for bit as with good offsets (which match the recurrence).
TEST_F(VarlenGpuTest, BadOffsetsGiveNaNStates) {
  const Problem p{1, 300, 4, 2, 32, 32, 64};
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(p, seed, sequenceOffsetFeatures());
  setSequenceOffsets(host, {0, 40, 64, 65, 200, 300});
  ASSERT_TRUE(gpuRun(cu(), stream)(host, true));
  ASSERT_TRUE(varlenStatesMatchReference(host, true));
  const std::vector<float> goodY = host.y, good = host.varlenStates;
  // The last offset short of seqlen: sequence 4 breaks the rules.
  host.cuSeqlens.back() = 299;
  ASSERT_TRUE(gpuRun(cu(), stream)(host, true));
  EXPECT_EQ(goodY, host.y);
  const size_t row = good.size() / 5;
  for (size_t i = 0; i < good.size(); ++i) {
    if (i < 4 * row) {
      ASSERT_EQ(0, std::memcmp(&good[i], &host.varlenStates[i], 4))
          << "element " << i << ": " << host.varlenStates[i]
          << " with the bad offsets, " << good[i] << " with good ones";
    } else {
      ASSERT_TRUE(std::isnan(host.varlenStates[i])) << "element " << i;
    }
  }
}


// cu_seqlens in host memory, where the library used to read it: refused as
// any other tensor outside device memory, with the outputs untouched.
TEST_F(VarlenGpuTest, HostOffsetsAreNotDevicePointers) {
  const Problem p{1, 100, 4, 2, 32, 32, 64};
  HostProblem host = HostProblem::random(p, 3, sequenceOffsetFeatures());
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload());
  Inputs in = device.inputs(true);
  in.cuSeqlens->data = host.cuSeqlens.data();
  Status status = forwardGpu(p, in, device.outputs(), {}, stream);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("cu seqlens"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("device memory"), std::string::npos)
      << status.message();
}

} // namespace
