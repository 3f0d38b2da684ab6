//===- ForwardTest.cpp - the Mamba-2 forward pass on the GPU ----*- C++ -*-===//
//
// forwardGpu against the f64 recurrence on the shapes the CPU tests run
// (forwardShapes()), with and without an initial state, in both structures
// (the four-kernel default and the three-kernel option), and the two
// structures against each other, on fresh random
// inputs per run (the seed is printed; TILEC_TEST_SEED repeats a run),
// checked element by element and norm-wise (ForwardCheck.h) with guard zones
// around the outputs; capture in a CUDA graph and replay; the C ABI on
// strided tensors and with null strides; determinism over ten runs; and the
// errors that need a device: host pointers, no context, a failing launch, no
// memory for the workspace. Every test skips without a driver or a device
// and fails on any other setup failure.
//
//===----------------------------------------------------------------------===//

#include "CApiTesting.h"
#include "DevicePointers.h"
#include "GpuTesting.h"

#include "../Support/TestSeed.h"
#include "tilec/Mamba2/tilec_mamba2.h"
#include "tilec/Runtime/Runtime.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <thread>
#include <vector>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

using ForwardGpuTest = GpuStreamTest;

const std::vector<Shape> &kShapes = forwardShapes();

class ForwardShapes : public ForwardGpuTest,
                      public ::testing::WithParamInterface<
                          std::tuple<Shape, bool, ForwardStructure>> {};

TEST_P(ForwardShapes, MatchesTheF64Reference) {
  auto [shape, withInitialState, structure] = GetParam();
  GpuOptions options;
  options.structure = structure;
  EXPECT_TRUE(gpuForwardMatchesReference(cu(), shape.problem(),
                                         withInitialState, stream, options));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ForwardShapes,
    ::testing::Combine(::testing::ValuesIn(forwardShapes()), ::testing::Bool(),
                       ::testing::ValuesIn(forwardStructures())),
    [](const ::testing::TestParamInfo<
        std::tuple<Shape, bool, ForwardStructure>> &info) {
      return shapeName(std::get<0>(info.param), std::get<1>(info.param)) +
             "_" + structureName(std::get<2>(info.param));
    });

// Both structures on the same inputs: each passes the f64 check, and they
// agree with each other as on the CPU (structuresAgree, ForwardCheck.h: the
// same products, added in another order), on ragged sequences with several
// groups and an initial state.
class StructuresAgree : public ForwardGpuTest,
                        public ::testing::WithParamInterface<Shape> {};

TEST_P(StructuresAgree, FourAndThreeKernels) {
  const Problem p = GetParam().problem();
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(p, seed);
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload());
  std::vector<float> y[2], finalState[2];
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(structureName(forwardStructures()[i]));
    ASSERT_TRUE(device.poisonOutputs());
    GpuOptions options;
    options.structure = forwardStructures()[i];
    Status status = forwardGpu(p, device.inputs(true), device.outputs(),
                               options, stream);
    ASSERT_TRUE(status.ok()) << status.message();
    TILEC_CU_ASSERT(cu().streamSynchronize(stream));
    ASSERT_TRUE(device.checkGuards());
    ASSERT_TRUE(device.download());
    ASSERT_TRUE(matchesReference(host, true));
    y[i] = host.y;
    finalState[i] = host.finalState;
  }
  EXPECT_TRUE(structuresAgree(y[0], finalState[0], y[1], finalState[1]));
}

// (batch, seqlen, groups, heads, dstate, headdim, chunk): ragged last chunks
// at every chunk size, several groups, sizes off the tiles, and the large
// test's shape cut to 2049 steps.
INSTANTIATE_TEST_SUITE_P(
    Shapes, StructuresAgree,
    ::testing::Values(Shape{2, 300, 2, 4, 48, 32, 64},
                      Shape{1, 1000, 3, 6, 64, 64, 128},
                      Shape{2, 600, 2, 4, 32, 40, 256},
                      Shape{4, 2049, 1, 8, 128, 64, 128}),
    [](const ::testing::TestParamInfo<Shape> &info) {
      return shapeName(info.param, true);
    });

// mamba_ssm's options on the GPU, as on the CPU (featureCases()), and on a
// long sequence with every chunk of 256.
class ForwardFeaturesGpu
    : public ForwardGpuTest,
      public ::testing::WithParamInterface<std::tuple<FeatureCase, Shape>> {};

TEST_P(ForwardFeaturesGpu, MatchesTheF64Reference) {
  auto [feature, shape] = GetParam();
  EXPECT_TRUE(gpuForwardMatchesReference(cu(), shape.problem(), true, stream,
                                         {}, {}, feature.features));
}

std::vector<Shape> gpuFeatureShapes() {
  std::vector<Shape> shapes = featureShapes();
  shapes.push_back({2, 600, 2, 4, 64, 64, 256});
  return shapes;
}

INSTANTIATE_TEST_SUITE_P(
    Options, ForwardFeaturesGpu,
    ::testing::Combine(::testing::ValuesIn(featureCases()),
                       ::testing::ValuesIn(gpuFeatureShapes())),
    [](const ::testing::TestParamInfo<std::tuple<FeatureCase, Shape>> &info) {
      return std::string(std::get<0>(info.param).name) + "_" +
             shapeName(std::get<1>(info.param), true);
    });

// The launchers run the vec variants (docs/codegen-layouts.md, "Vectorised
// global access and view facts") on what the library passes when options
// are absent (empty views) and for a D per head (a stride-0 view compute_out
// marks tile.any_strides): the last launch of a forward, compute_out, is
// compute_out_c<chunk>_vec, and the results match the f64 reference. Also
// with D per channel, z, a dt bias and packed sequences (seqlen a multiple
// of 4, so seq_idx has the facts too). HostCost (the counting stand-in
// driver) checks every kernel's variant on the CPU.
TEST_F(ForwardGpuTest, RunsTheVecVariants) {
  const Problem p{2, 256, 4, 2, 64, 64, 128};
  EXPECT_TRUE(gpuForwardMatchesReference(cu(), p, /*withInitialState=*/false,
                                         stream));
  const tilec_kernel *last = tilec_last_launched();
  ASSERT_NE(last, nullptr);
  EXPECT_STREQ(last->name, "compute_out_c128_vec");

  HostFeatures features;
  features.dPerChannel = features.z = features.dtBias =
      features.packedSequences = true;
  EXPECT_TRUE(gpuForwardMatchesReference(cu(), p, /*withInitialState=*/true,
                                         stream, {}, {}, features));
  last = tilec_last_launched();
  ASSERT_NE(last, nullptr);
  EXPECT_STREQ(last->name, "compute_out_c128_vec");
}

TEST_F(ForwardGpuTest, DefaultStream) {
  EXPECT_TRUE(
      gpuForwardMatchesReference(cu(), kShapes[3].problem(), true, nullptr));
}

TEST_F(ForwardGpuTest, CallerWorkspaceAndNoFinalState) {
  const Problem p = kShapes[7].problem();
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(p, seed);
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload());
  ASSERT_TRUE(device.poisonOutputs());
  size_t bytes = 0;
  ASSERT_TRUE(gpuWorkspaceSize(p, bytes).ok());
  DeviceBuffer workspace(cu(), bytes);
  ASSERT_TRUE(workspace.ok());
  GpuOptions options;
  options.workspace = workspace.get();
  options.workspaceBytes = bytes;
  options.tiles = gpuTileConfig(p.chunk); // the compiled sizes, spelled out
  Outputs out = device.outputs();
  out.finalState.reset();
  Status status = forwardGpu(p, device.inputs(true), out, options, stream);
  ASSERT_TRUE(status.ok()) << status.message();
  TILEC_CU_ASSERT(cu().streamSynchronize(stream));
  ASSERT_TRUE(device.checkGuards());
  ASSERT_TRUE(device.download());
  // The final state was not asked for: its buffer keeps its NaNs.
  for (float v : host.finalState)
    ASSERT_TRUE(std::isnan(v));
  EXPECT_TRUE(matchesReference(host, true, /*withFinalState=*/false));
}

TEST_F(ForwardGpuTest, GraphCaptureAndReplay) {
  // Both ways to get the workspace: allocated on the stream (a memory node
  // of the graph) and given by the caller.
  const Problem p = kShapes[5].problem();
  ASSERT_TRUE(prepareGpu().ok());
  size_t bytes = 0;
  ASSERT_TRUE(gpuWorkspaceSize(p, bytes).ok());
  DeviceBuffer workspace(cu(), bytes);
  ASSERT_TRUE(workspace.ok());
  for (bool callerWorkspace : {false, true}) {
    SCOPED_TRACE(callerWorkspace ? "caller workspace" : "stream-ordered");
    const uint64_t seed = tilec::testing::testSeed();
    SCOPED_TRACE(tilec::testing::seedTrace(seed));
    HostProblem host = HostProblem::random(p, seed);
    DeviceProblem device(cu(), host);
    ASSERT_TRUE(device.ok());
    GpuOptions options;
    if (callerWorkspace) {
      options.workspace = workspace.get();
      options.workspaceBytes = bytes;
    }
    CapturedForward graph(cu());
    ASSERT_TRUE(graph.capture(stream, p, device.inputs(true),
                              device.outputs(), options));
    // Replays see the inputs of the moment: new ones each time.
    for (int replay = 0; replay < 3; ++replay) {
      SCOPED_TRACE("replay " + std::to_string(replay));
      const uint64_t replaySeed = tilec::testing::testSeed();
      SCOPED_TRACE(tilec::testing::seedTrace(replaySeed));
      HostProblem fresh = HostProblem::random(p, replaySeed);
      host.x = fresh.x;
      host.dt = fresh.dt;
      host.A = fresh.A;
      host.B = fresh.B;
      host.C = fresh.C;
      host.D = fresh.D;
      host.initialState = fresh.initialState;
      ASSERT_TRUE(device.upload());
      ASSERT_TRUE(device.poisonOutputs());
      ASSERT_TRUE(graph.replay(stream));
      ASSERT_TRUE(device.checkGuards());
      ASSERT_TRUE(device.download());
      EXPECT_TRUE(matchesReference(host, true));
    }
  }
}

TEST_F(ForwardGpuTest, CApiOnStridedTensors) {
  // x and y inside buffers with room between heads (a slice of a wider
  // tensor): the kernels follow the strides, and leave the gaps alone.
  const Problem p = kShapes[6].problem();
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(p, seed);
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload());
  ASSERT_TRUE(device.poisonOutputs());
  CArguments args = deviceArguments(device, p);

  const int64_t pitch = p.headdim + 8; // elements between heads
  const int64_t rows = p.batch * p.seqlen * p.heads;
  std::vector<uint16_t> xWide(rows * pitch, 0);
  for (int64_t r = 0; r < rows; ++r)
    std::copy_n(&host.x[r * p.headdim], p.headdim, &xWide[r * pitch]);
  DeviceBuffer x(cu(), xWide.size() * 2), y(cu(), rows * pitch * 4);
  ASSERT_TRUE(x.ok() && y.ok());
  TILEC_CU_ASSERT(cu().memcpyHtoD(x.address(), xWide.data(), x.size()));
  const unsigned int sentinel = 0x7fc0dead; // a NaN the pass must not touch
  TILEC_CU_ASSERT(cu().memsetD32(y.address(), sentinel, rows * pitch));
  for (CTensor *t : {&args.x, &args.y}) {
    t->strides = {p.seqlen * p.heads * pitch, p.heads * pitch, pitch, 1};
  }
  args.x.descriptor.data = x.get();
  args.y.descriptor.data = y.get();
  args.stream = stream;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  TILEC_CU_ASSERT(cu().streamSynchronize(stream));

  std::vector<float> yWide(rows * pitch);
  TILEC_CU_ASSERT(cu().memcpyDtoH(yWide.data(), y.address(), y.size()));
  for (int64_t r = 0; r < rows; ++r) {
    std::copy_n(&yWide[r * pitch], p.headdim, &host.y[r * p.headdim]);
    for (int64_t i = p.headdim; i < pitch; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &yWide[r * pitch + i], 4);
      ASSERT_EQ(bits, sentinel) << "row " << r << " gap element " << i;
    }
  }
  ASSERT_TRUE(device.download());
  // download() overwrote y with the untouched dense buffer: take the
  // strided result again.
  for (int64_t r = 0; r < rows; ++r)
    std::copy_n(&yWide[r * pitch], p.headdim, &host.y[r * p.headdim]);
  EXPECT_TRUE(matchesReference(host, true));
}

// Every option through tilec_mamba2_forward_with_options: z, dt bias,
// softplus, a limit that clamps, D per channel, a bf16 y.
TEST_F(ForwardGpuTest, CApiWithEveryOption) {
  const Problem p = featureShapes()[1].problem();
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host =
      HostProblem::random(p, seed, featureCases().back().features);
  ASSERT_TRUE(host.features.z && host.features.yInXType &&
              host.features.dPerChannel && host.features.dtSoftplus);
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload());
  ASSERT_TRUE(device.poisonOutputs());
  CArguments args = deviceArguments(device, p);
  const Inputs in = device.inputs(true);
  args.D = CTensor(in.D.data, TILEC_MAMBA2_F32, {p.heads, p.headdim});
  args.y.descriptor.dtype = TILEC_MAMBA2_BF16;
  args.z.descriptor.data = in.z->data;
  args.dtBias.descriptor.data = in.dtBias->data;
  args.withZ = args.withDtBias = true;
  args.options.dt_softplus = 1;
  args.options.dt_limit = 1;
  args.options.dt_min = host.features.dtLimit.low;
  args.options.dt_max = host.features.dtLimit.high;
  args.stream = stream;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(), TILEC_MAMBA2_SUCCESS);
  TILEC_CU_ASSERT(cu().streamSynchronize(stream));
  ASSERT_TRUE(device.checkGuards());
  ASSERT_TRUE(device.download());
  EXPECT_TRUE(matchesReference(host, true));
}

TEST_F(ForwardGpuTest, CApiNullStridesAreRowMajor) {
  const Problem p = kShapes[7].problem();
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(p, seed);
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload());
  ASSERT_TRUE(device.poisonOutputs());
  CArguments args = deviceArguments(device, p);
  for (CTensor *t : {&args.x, &args.dt, &args.A, &args.B, &args.C, &args.D,
                     &args.initialState, &args.y, &args.finalState})
    t->nullStrides = true;
  args.stream = stream;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  TILEC_CU_ASSERT(cu().streamSynchronize(stream));
  ASSERT_TRUE(device.checkGuards());
  ASSERT_TRUE(device.download());
  EXPECT_TRUE(matchesReference(host, true));
}

TEST_F(ForwardGpuTest, HostPointersAreNotDevicePointers) {
  const Problem p = kShapes[0].problem();
  HostProblem host = HostProblem::random(p, 1);
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());

  // Pageable host memory, which the driver does not know.
  CArguments args = deviceArguments(device, p);
  args.y.descriptor.data = host.y.data();
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER);
  EXPECT_NE(std::string(tilec_mamba2_last_error()).find("y"),
            std::string::npos);

  // Pinned host memory, which it does. On driver 580 cuMemAllocHost can
  // hand out addresses of a device range freed earlier in this context,
  // which the range cache still vouches for (docs/mamba2-gpu.md): forget
  // the ranges so that the pointer is asked about.
  void *pinned = nullptr;
  TILEC_CU_ASSERT(cu().memAllocHost(&pinned, host.x.size() * 2));
  gpu::forgetDeviceRanges();
  args = deviceArguments(device, p);
  args.x.descriptor.data = pinned;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER);
  EXPECT_NE(std::string(tilec_mamba2_last_error()).find("host memory"),
            std::string::npos)
      << tilec_mamba2_last_error();

  // A host workspace.
  size_t bytes = 0;
  ASSERT_EQ(tilec_mamba2_workspace_size(&args.problem, &bytes),
            TILEC_MAMBA2_SUCCESS);
  std::vector<float> hostWorkspace(bytes / 4 + 4);
  args = deviceArguments(device, p);
  args.workspace = reinterpret_cast<void *>(
      (reinterpret_cast<uintptr_t>(hostWorkspace.data()) + 15) / 16 * 16);
  args.workspaceBytes = bytes;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER);
  cu().memFreeHost(pinned);

  // The C++ API says the same.
  Inputs in = host.inputs(false);
  Status status = forwardGpu(p, in, host.outputs(), {}, stream);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("device memory"), std::string::npos)
      << status.message();
}

// The options' tensors are checked like the others: host memory for z or
// dt_bias is refused, naming it, and nothing is launched.
TEST_F(ForwardGpuTest, OptionTensorsInHostMemoryAreRefused) {
  const Problem p = featureShapes()[0].problem();
  HostProblem host =
      HostProblem::random(p, 1, featureCases().back().features);
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  const Inputs in = device.inputs(true);
  for (const char *name : {"z", "dt bias"}) {
    SCOPED_TRACE(name);
    CArguments args = deviceArguments(device, p);
    args.D = CTensor(in.D.data, TILEC_MAMBA2_F32, {p.heads, p.headdim});
    args.y.descriptor.dtype = TILEC_MAMBA2_BF16;
    args.z.descriptor.data = in.z->data;
    args.dtBias.descriptor.data = in.dtBias->data;
    args.withZ = args.withDtBias = true;
    if (std::string(name) == "z")
      args.z.descriptor.data = host.z.data();
    else
      args.dtBias.descriptor.data = host.dtBias.data();
    args.stream = stream;
    EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                         TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER);
    EXPECT_EQ(std::string(tilec_mamba2_last_error()).find(name), 0u)
        << tilec_mamba2_last_error();
  }
}

// The states entering each chunk on request, written into the caller's
// buffer (guard zones around it), each against the recurrence over the
// chunk's prefix.
TEST_F(ForwardGpuTest, ChunkStatesOnRequest) {
  const Problem p = featureShapes()[1].problem();
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host =
      HostProblem::random(p, seed, featureCases().front().features);
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload());
  ASSERT_TRUE(device.poisonOutputs());
  const std::vector<int64_t> shape = {p.batch, p.numChunks(), p.heads,
                                      p.headdim, p.dstate};
  std::vector<float> states(p.batch * p.numChunks() * p.heads * p.headdim *
                            p.dstate);
  DeviceBuffer buffer(cu(), states.size() * 4, kOutputGuard);
  ASSERT_TRUE(buffer.ok());
  TILEC_CU_ASSERT(
      cu().memsetD32(buffer.address(), 0x7fc00000u, states.size()));
  ASSERT_TRUE(buffer.fillGuards());
  Outputs out = device.outputs();
  out.chunkStates = Tensor::contiguous(buffer.get(), DType::F32, shape);
  Status status = forwardGpu(p, device.inputs(true), out, {}, stream);
  ASSERT_TRUE(status.ok()) << status.message();
  TILEC_CU_ASSERT(cu().streamSynchronize(stream));
  ASSERT_TRUE(buffer.checkGuards("chunk states"));
  ASSERT_TRUE(device.checkGuards());
  TILEC_CU_ASSERT(
      cu().memcpyDtoH(states.data(), buffer.address(), states.size() * 4));
  ASSERT_TRUE(device.download());
  EXPECT_TRUE(chunkStatesMatchReference(host, true, states));
  EXPECT_TRUE(matchesReference(host, true));
}

TEST_F(ForwardGpuTest, NoCurrentContext) {
  const Problem p = kShapes[0].problem();
  HostProblem host = HostProblem::random(p, 1);
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  CArguments args = deviceArguments(device, p);
  int status = -1;
  std::string message;
  // A new thread has no current context.
  std::thread([&] {
    status = args.forward();
    message = tilec_mamba2_last_error();
  }).join();
  EXPECT_EQ(statusName(status), statusName(TILEC_MAMBA2_ERROR_NO_CONTEXT))
      << message;
}

TEST_F(ForwardGpuTest, LaunchFailure) {
  // A stream of another context: the arguments are fine, the launch is not.
  const Problem p = kShapes[0].problem();
  HostProblem host = HostProblem::random(p, 1);
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  CUdevice dev;
  TILEC_CU_ASSERT(cu().deviceGet(&dev, 0));
  CUcontext other = nullptr;
  TILEC_CU_ASSERT(cu().ctxCreate(&other, nullptr, 0, dev));
  CUstream foreign = nullptr;
  TILEC_CU_ASSERT(cu().streamCreate(&foreign, CU_STREAM_NON_BLOCKING));
  makeCurrent();

  size_t bytes = 0;
  CArguments args = deviceArguments(device, p);
  ASSERT_EQ(tilec_mamba2_workspace_size(&args.problem, &bytes),
            TILEC_MAMBA2_SUCCESS);
  DeviceBuffer workspace(cu(), bytes);
  args.workspace = workspace.get();
  args.workspaceBytes = bytes;
  args.stream = foreign;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_LAUNCH_FAILURE);
  EXPECT_NE(std::string(tilec_mamba2_last_error()).find("chunk_cumsum"),
            std::string::npos)
      << tilec_mamba2_last_error();

  cu().streamDestroy(foreign);
  cu().ctxDestroy(other);
  makeCurrent();
}

TEST_F(ForwardGpuTest, OutOfMemoryForTheWorkspace) {
  // Broadcast B and C (stride 0) over a huge dstate: tiny buffers, and a
  // workspace of 2^35 f32 chunk states, as many chunk-local states and as
  // many for the final state (384 GiB), which no device has. (2^35: at
  // 2^36 state_passing's grid, one program per 16 x 32 block of a head's
  // state, would need 2^31 programs along x, one past the driver's limit,
  // and the call would fail the grid check instead.)
  const int64_t dstate = int64_t(1) << 35;
  CArguments args = CArguments::fake({1, 64, 1, 1, 1, dstate, 64});
  DeviceBuffer x(cu(), 64 * 2), dt(cu(), 64 * 4), A(cu(), 4), D(cu(), 4),
      bc(cu(), 2), y(cu(), 64 * 4);
  ASSERT_TRUE(x.ok() && dt.ok() && A.ok() && D.ok() && bc.ok() && y.ok());
  args.x.descriptor.data = x.get();
  args.dt.descriptor.data = dt.get();
  args.A.descriptor.data = A.get();
  args.D.descriptor.data = D.get();
  args.y.descriptor.data = y.get();
  for (CTensor *t : {&args.B, &args.C}) {
    t->descriptor.data = bc.get();
    t->strides = {0, 0, 0, 0};
  }
  args.withInitialState = args.withFinalState = false;
  args.stream = stream;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_OUT_OF_MEMORY);
  EXPECT_NE(std::string(tilec_mamba2_last_error()).find("cuMemAllocAsync"),
            std::string::npos)
      << tilec_mamba2_last_error();
  TILEC_CU_ASSERT(cu().streamSynchronize(stream));
}

/// FNV-1a over the bytes of y and the final state.
uint64_t digest(const HostProblem &host) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const std::vector<float> *buffer : {&host.y, &host.finalState}) {
    const auto *bytes = reinterpret_cast<const uint8_t *>(buffer->data());
    for (size_t i = 0; i < buffer->size() * sizeof(float); ++i)
      hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  }
  return hash;
}

// The forward pass is deterministic: ten runs on the same inputs give the
// same bits (outputs poisoned before each run), and the digest printed
// ("determinism digest: ...") is the same in every process: scripts/gpu-run
// runs this test in two processes and compares the lines. The inputs are
// drawn from a fixed seed (TILEC_TEST_SEED is not read) so that two
// processes see the same ones.
TEST_F(ForwardGpuTest, BitwiseIdenticalAcrossRuns) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk.
  const Problem p{2, 4096, 8, 2, 64, 128, 128};
  HostProblem host = HostProblem::random(p, /*seed=*/20261201);
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload());
  std::vector<float> firstY, firstState;
  for (int run = 0; run < 10; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    ASSERT_TRUE(device.poisonOutputs());
    Status status =
        forwardGpu(p, device.inputs(true), device.outputs(), {}, stream);
    ASSERT_TRUE(status.ok()) << status.message();
    TILEC_CU_ASSERT(cu().streamSynchronize(stream));
    ASSERT_TRUE(device.checkGuards());
    ASSERT_TRUE(device.download());
    if (run == 0) {
      ASSERT_TRUE(matchesReference(host, true));
      firstY = host.y;
      firstState = host.finalState;
      continue;
    }
    ASSERT_EQ(std::memcmp(firstY.data(), host.y.data(), firstY.size() * 4), 0);
    ASSERT_EQ(std::memcmp(firstState.data(), host.finalState.data(),
                          firstState.size() * 4),
              0);
  }
  std::printf("determinism digest: %016llx\n",
              static_cast<unsigned long long>(digest(host)));
}

} // namespace
