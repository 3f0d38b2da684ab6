//===- CApiValidationTest.cpp - argument checks of the C ABI ----*- C++ -*-===//
//
// One test per rule of tilec_mamba2_forward: each breaks the rule in an
// otherwise valid call and expects the status that names it. These checks
// come before any use of the driver, so the tests run (and pass) on a
// machine without a GPU; the data pointers are fake and never dereferenced.
//
//===----------------------------------------------------------------------===//

#include "CApiTesting.h"

#include "tilec/Mamba2/Mamba2Gpu.h"
#include "tilec/Mamba2/Reference.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

const tilec_mamba2_problem kProblem = {/*batch=*/2,    /*seqlen=*/100,
                                       /*heads=*/4,    /*groups=*/2,
                                       /*headdim=*/32, /*dstate=*/16,
                                       /*chunk=*/64};

class CApiValidation : public ::testing::Test {
protected:
  CArguments args = CArguments::fake(kProblem);
  /// The tensors in the order they are checked.
  std::vector<std::pair<const char *, CTensor *>> tensors() {
    return {{"x", &args.x},
            {"dt", &args.dt},
            {"A", &args.A},
            {"B", &args.B},
            {"C", &args.C},
            {"D", &args.D},
            {"initial state", &args.initialState},
            {"y", &args.y},
            {"final state", &args.finalState}};
  }
};

bool reachedTheDriver(int status) {
  return status == TILEC_MAMBA2_ERROR_NO_DRIVER ||
         status == TILEC_MAMBA2_ERROR_NO_DEVICE ||
         status == TILEC_MAMBA2_ERROR_NO_CONTEXT;
}

TEST_F(CApiValidation, ValidArgumentsPassValidationAndReachTheDriver) {
  // No current context in this program: with a driver, NO_CONTEXT; without,
  // NO_DRIVER or NO_DEVICE. Either way, validation accepted the call.
  int status = args.forward();
  EXPECT_TRUE(reachedTheDriver(status))
      << statusName(status) << ": " << tilec_mamba2_last_error();
  args.withInitialState = false;
  args.withFinalState = false;
  status = args.forward();
  EXPECT_TRUE(reachedTheDriver(status))
      << statusName(status) << ": " << tilec_mamba2_last_error();
}

TEST_F(CApiValidation, NullProblem) {
  EXPECT_MAMBA2_STATUS(
      tilec_mamba2_forward(nullptr, args.x.get(), args.dt.get(), args.A.get(),
                           args.B.get(), args.C.get(), args.D.get(), nullptr,
                           args.y.get(), nullptr, nullptr, 0, nullptr),
      TILEC_MAMBA2_ERROR_NULL_POINTER);
}

TEST_F(CApiValidation, NullRequiredTensorDescriptor) {
  const tilec_mamba2_tensor *t[7];
  for (int missing = 0; missing < 7; ++missing) {
    CArguments a = CArguments::fake(kProblem);
    CTensor *all[7] = {&a.x, &a.dt, &a.A, &a.B, &a.C, &a.D, &a.y};
    for (int i = 0; i < 7; ++i)
      t[i] = i == missing ? nullptr : all[i]->get();
    EXPECT_MAMBA2_STATUS(tilec_mamba2_forward(&a.problem, t[0], t[1], t[2],
                                              t[3], t[4], t[5], nullptr, t[6],
                                              nullptr, nullptr, 0, nullptr),
                         TILEC_MAMBA2_ERROR_NULL_POINTER);
  }
}

TEST_F(CApiValidation, NullDataPointer) {
  for (auto [name, tensor] : tensors()) {
    CArguments saved = args;
    tensor->descriptor.data = nullptr;
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_NULL_POINTER);
    EXPECT_NE(std::string(tilec_mamba2_last_error()).find(name),
              std::string::npos)
        << tilec_mamba2_last_error();
    args = saved;
  }
}

TEST_F(CApiValidation, NullShapeArray) {
  tilec_mamba2_tensor x = *args.x.get();
  x.shape = nullptr;
  EXPECT_MAMBA2_STATUS(
      tilec_mamba2_forward(&args.problem, &x, args.dt.get(), args.A.get(),
                           args.B.get(), args.C.get(), args.D.get(), nullptr,
                           args.y.get(), nullptr, nullptr, 0, nullptr),
      TILEC_MAMBA2_ERROR_NULL_POINTER);
}

TEST_F(CApiValidation, NonPositiveProblemSize) {
  int64_t tilec_mamba2_problem::*sizes[] = {
      &tilec_mamba2_problem::batch,   &tilec_mamba2_problem::seqlen,
      &tilec_mamba2_problem::heads,   &tilec_mamba2_problem::groups,
      &tilec_mamba2_problem::headdim, &tilec_mamba2_problem::dstate,
      &tilec_mamba2_problem::chunk};
  for (auto size : sizes)
    for (int64_t value : {int64_t(0), int64_t(-1)}) {
      CArguments a = CArguments::fake(kProblem);
      a.problem.*size = value;
      EXPECT_MAMBA2_STATUS(a.forward(), TILEC_MAMBA2_ERROR_INVALID_SHAPE);
    }
}

TEST_F(CApiValidation, GroupsDoNotDivideHeads) {
  tilec_mamba2_problem p = kProblem;
  p.heads = 6;
  p.groups = 4;
  CArguments a = CArguments::fake(p);
  EXPECT_MAMBA2_STATUS(a.forward(),
                       TILEC_MAMBA2_ERROR_GROUPS_DO_NOT_DIVIDE_HEADS);
}

TEST_F(CApiValidation, UnsupportedChunk) {
  for (int64_t chunk : {32, 96, 100, 512}) {
    tilec_mamba2_problem p = kProblem;
    p.chunk = chunk;
    CArguments a = CArguments::fake(p);
    EXPECT_MAMBA2_STATUS(a.forward(), TILEC_MAMBA2_ERROR_UNSUPPORTED_CHUNK);
  }
}

TEST_F(CApiValidation, WrongRank) {
  for (auto [name, tensor] : tensors()) {
    CArguments saved = args;
    tensor->shape.push_back(1);
    tensor->strides.push_back(1);
    tensor->descriptor.rank += 1;
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_INVALID_SHAPE);
    args = saved;
  }
}

TEST_F(CApiValidation, RankOutOfRange) {
  for (int32_t rank : {-1, TILEC_MAMBA2_MAX_RANK + 1}) {
    CArguments saved = args;
    args.dt.descriptor.rank = rank;
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_INVALID_SHAPE);
    args = saved;
  }
}

TEST_F(CApiValidation, WrongShape) {
  for (auto [name, tensor] : tensors()) {
    CArguments saved = args;
    tensor->shape.back() += 1;
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_INVALID_SHAPE);
    args = saved;
  }
}

TEST_F(CApiValidation, DtypeValueOutOfRange) {
  args.A.descriptor.dtype = 7;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_INVALID_DTYPE);
  args.A.descriptor.dtype = -1;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_INVALID_DTYPE);
}

TEST_F(CApiValidation, UnsupportedDtype) {
  for (auto [name, tensor] : tensors()) {
    const int32_t supported = tensor->descriptor.dtype;
    for (int32_t dtype :
         {TILEC_MAMBA2_F32, TILEC_MAMBA2_F16, TILEC_MAMBA2_BF16}) {
      // y may also be bf16 (OptionsValidation.DPerChannelAndBf16Y), dt any
      // of the three.
      if (dtype == supported || tensor == &args.dt ||
          (tensor == &args.y && dtype == TILEC_MAMBA2_BF16))
        continue;
      tensor->descriptor.dtype = dtype;
      EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_INVALID_DTYPE);
    }
    tensor->descriptor.dtype = supported;
  }
}

TEST_F(CApiValidation, NegativeStride) {
  for (auto [name, tensor] : tensors()) {
    CArguments saved = args;
    tensor->strides.front() = -tensor->strides.front();
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_INVALID_STRIDE);
    args = saved;
  }
}

TEST_F(CApiValidation, OutputStrideZero) {
  // Two elements of an output at one address.
  args.y.strides[1] = 0;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_INVALID_STRIDE);
  args.y.strides[1] = args.y.strides[2] * args.y.shape[2];
  args.finalState.strides[2] = 0;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_INVALID_STRIDE);
}

TEST_F(CApiValidation, InputStrideZeroBroadcastsAndPasses) {
  // A broadcast input (stride 0) is valid: the call gets to the driver.
  args.B.strides = {0, 0, 0, 1};
  args.A.strides = {0};
  int status = args.forward();
  EXPECT_TRUE(reachedTheDriver(status))
      << statusName(status) << ": " << tilec_mamba2_last_error();
}

TEST_F(CApiValidation, NullStridesMeanRowMajor) {
  // Strides that would be rejected, left unread: null means row-major (the
  // GPU test ForwardGpuTest.CApiNullStridesAreRowMajor checks the results).
  for (auto [name, tensor] : tensors()) {
    tensor->nullStrides = true;
    tensor->strides[0] = int64_t(1) << 62;
  }
  int status = args.forward();
  EXPECT_TRUE(reachedTheDriver(status))
      << statusName(status) << ": " << tilec_mamba2_last_error();
}

TEST_F(CApiValidation, SpanBeyond64BitOffsets) {
  args.x.strides[0] = int64_t(1) << 62;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_INVALID_SHAPE);
}

TEST_F(CApiValidation, SeqlenNearInt64Max) {
  // The chunk count, ceil(seqlen / chunk), is computed without overflow
  // (found by tilec-fuzz-capi under UBSan); the workspace for it does not
  // fit in 64 bits.
  for (int64_t seqlen : {std::numeric_limits<int64_t>::max(),
                         std::numeric_limits<int64_t>::max() - 63}) {
    tilec_mamba2_problem p = kProblem;
    p.seqlen = seqlen;
    size_t bytes = 0;
    EXPECT_MAMBA2_STATUS(tilec_mamba2_workspace_size(&p, &bytes),
                         TILEC_MAMBA2_ERROR_INVALID_SHAPE);
  }
}

TEST_F(CApiValidation, GridLimits) {
  // batch and heads are grid dimensions y or z: at most 65535.
  for (auto [batch, heads] : {std::pair{int64_t(65536), int64_t(4)},
                              std::pair{int64_t(1), int64_t(65536)}}) {
    tilec_mamba2_problem p = kProblem;
    p.batch = batch;
    p.heads = heads;
    p.groups = 1;
    CArguments a = CArguments::fake(p);
    EXPECT_MAMBA2_STATUS(a.forward(), TILEC_MAMBA2_ERROR_INVALID_SHAPE);
  }
}

TEST_F(CApiValidation, UnalignedData) {
  for (auto [name, tensor] : tensors()) {
    CArguments saved = args;
    // One byte past an aligned address: no element size divides it.
    tensor->descriptor.data = static_cast<char *>(tensor->descriptor.data) + 1;
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_UNALIGNED);
    args = saved;
  }
  // Two bytes: aligned for bf16, not for f32.
  args.dt.descriptor.data = static_cast<char *>(args.dt.descriptor.data) + 2;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_UNALIGNED);
}

TEST_F(CApiValidation, UnalignedWorkspace) {
  size_t bytes = 0;
  ASSERT_EQ(tilec_mamba2_workspace_size(&args.problem, &bytes),
            TILEC_MAMBA2_SUCCESS);
  args.workspace = reinterpret_cast<void *>((uintptr_t(1) << 41) + 8);
  args.workspaceBytes = bytes;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_UNALIGNED);
}

TEST_F(CApiValidation, WorkspaceTooSmall) {
  size_t bytes = 0;
  ASSERT_EQ(tilec_mamba2_workspace_size(&args.problem, &bytes),
            TILEC_MAMBA2_SUCCESS);
  args.workspace = reinterpret_cast<void *>(uintptr_t(1) << 41);
  args.workspaceBytes = bytes - 1;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_WORKSPACE_TOO_SMALL);
  args.workspaceBytes = bytes;
  int status = args.forward();
  EXPECT_TRUE(reachedTheDriver(status))
      << statusName(status) << ": " << tilec_mamba2_last_error();
}

TEST_F(CApiValidation, ChecksComeInTheDocumentedOrder) {
  // The descriptors before the problem; the problem before the tensors;
  // the tensors in order; dtype before shape before strides within one;
  // validation before alignment.
  CArguments a = args;
  a.problem.chunk = 100;
  a.y.descriptor.dtype = 42;
  EXPECT_MAMBA2_STATUS(a.forward(), TILEC_MAMBA2_ERROR_INVALID_DTYPE);
  a.y.descriptor.dtype = TILEC_MAMBA2_F32;
  a.x.shape[0] = 3;
  EXPECT_MAMBA2_STATUS(a.forward(), TILEC_MAMBA2_ERROR_UNSUPPORTED_CHUNK);
  a.problem.chunk = 64;
  a.B.strides[0] = -1;
  EXPECT_MAMBA2_STATUS(a.forward(), TILEC_MAMBA2_ERROR_INVALID_SHAPE);
  a.x.shape[0] = 2;
  a.B.descriptor.dtype = TILEC_MAMBA2_F32;
  EXPECT_MAMBA2_STATUS(a.forward(), TILEC_MAMBA2_ERROR_INVALID_DTYPE);
  a.B.descriptor.dtype = TILEC_MAMBA2_BF16;
  a.x.descriptor.data = static_cast<char *>(a.x.descriptor.data) + 1;
  EXPECT_MAMBA2_STATUS(a.forward(), TILEC_MAMBA2_ERROR_INVALID_STRIDE);
}

TEST_F(CApiValidation, WorkspaceSizeQuery) {
  size_t bytes = 0;
  ASSERT_EQ(tilec_mamba2_workspace_size(&args.problem, &bytes),
            TILEC_MAMBA2_SUCCESS);
  // dt_chunks and G: 2 * 4 * 2 chunks * 64 each; states: 2 * 2 * 4 * 32 *
  // 16, and as many chunk-local states (the four-kernel structure's); final
  // state: 2 * 4 * 32 * 16; C B^T: 2 * 2 chunks * 2 groups * 64 * 64; f32,
  // each buffer starting on 256 bytes.
  const size_t g = 2 * 4 * 2 * 64 * 4, states = 2 * 2 * 4 * 32 * 16 * 4,
               final = 2 * 4 * 32 * 16 * 4, cb = 2 * 2 * 2 * 64 * 64 * 4;
  auto align = [](size_t v) { return (v + 255) / 256 * 256; };
  EXPECT_EQ(bytes,
            align(align(align(align(align(g) + g) + states) + states) +
                  final) +
                cb);

  Problem p{2, 100, 4, 2, 32, 16, 64};
  size_t cppBytes = 0;
  ASSERT_TRUE(gpuWorkspaceSize(p, cppBytes).ok());
  EXPECT_EQ(cppBytes, bytes);

  EXPECT_MAMBA2_STATUS(tilec_mamba2_workspace_size(nullptr, &bytes),
                       TILEC_MAMBA2_ERROR_NULL_POINTER);
  EXPECT_MAMBA2_STATUS(tilec_mamba2_workspace_size(&args.problem, nullptr),
                       TILEC_MAMBA2_ERROR_NULL_POINTER);
  tilec_mamba2_problem bad = args.problem;
  bad.chunk = 32;
  EXPECT_MAMBA2_STATUS(tilec_mamba2_workspace_size(&bad, &bytes),
                       TILEC_MAMBA2_ERROR_UNSUPPORTED_CHUNK);
  bad = args.problem;
  bad.groups = 3;
  EXPECT_MAMBA2_STATUS(tilec_mamba2_workspace_size(&bad, &bytes),
                       TILEC_MAMBA2_ERROR_GROUPS_DO_NOT_DIVIDE_HEADS);
  bad = args.problem;
  bad.dstate = 0;
  EXPECT_MAMBA2_STATUS(tilec_mamba2_workspace_size(&bad, &bytes),
                       TILEC_MAMBA2_ERROR_INVALID_SHAPE);
  bad = args.problem;
  bad.dstate = int64_t(1) << 60;
  EXPECT_MAMBA2_STATUS(tilec_mamba2_workspace_size(&bad, &bytes),
                       TILEC_MAMBA2_ERROR_INVALID_SHAPE);
}

TEST_F(CApiValidation, WorkspaceSizeOfTheLargeProblems) {
  // 64-bit sizes: (4, 16384, 8 heads, 64, 128) in chunks of 128 needs
  // 128 MiB of chunk states (and as many chunk-local ones) and 32 MiB of
  // C B^T; 300,000 tokens in chunks of 256 about 300 MB.
  size_t bytes = 0;
  tilec_mamba2_problem p = {4, 16384, 8, 1, 64, 128, 128};
  ASSERT_EQ(tilec_mamba2_workspace_size(&p, &bytes), TILEC_MAMBA2_SUCCESS);
  EXPECT_GT(bytes, size_t(2) * 4 * 128 * 8 * 64 * 128 * 4 +
                       size_t(4) * 128 * 1 * 128 * 128 * 4);
  p = {1, 300000, 8, 1, 64, 128, 256};
  ASSERT_EQ(tilec_mamba2_workspace_size(&p, &bytes), TILEC_MAMBA2_SUCCESS);
  EXPECT_GT(bytes, size_t(1172) * 8 * 64 * 128 * 4);
}

TEST(CApiStatus, EveryStatusHasItsOwnName) {
  std::set<std::string> names;
  for (int status = TILEC_MAMBA2_SUCCESS;
       status <= TILEC_MAMBA2_ERROR_INVALID_ARGUMENT; ++status) {
    std::string name = tilec_mamba2_status_name(status);
    EXPECT_EQ(name.rfind("TILEC_MAMBA2_", 0), 0u) << name;
    EXPECT_NE(name, "TILEC_MAMBA2_ERROR_UNKNOWN") << status;
    EXPECT_TRUE(names.insert(name).second) << name;
  }
  EXPECT_STREQ(tilec_mamba2_status_name(-1), "TILEC_MAMBA2_ERROR_UNKNOWN");
}

/// C++ descriptors of CArguments::fake(kProblem)'s tensors (no initial or
/// final state).
void cppArguments(CArguments &a, Problem &p, Inputs &in, Outputs &out) {
  auto tensor = [](CTensor &t, DType dtype) {
    Tensor out;
    out.data = t.descriptor.data;
    out.dtype = dtype;
    out.shape = t.shape;
    out.strides = t.strides;
    return out;
  };
  p = Problem{2, 100, 4, 2, 32, 16, 64};
  in.x = tensor(a.x, DType::BF16);
  in.dt = tensor(a.dt, DType::F32);
  in.A = tensor(a.A, DType::F32);
  in.B = tensor(a.B, DType::BF16);
  in.C = tensor(a.C, DType::BF16);
  in.D = tensor(a.D, DType::F32);
  out.y = tensor(a.y, DType::F32);
}

// The three-kernel structure has no chunk-local states: it takes the
// workspace without them, which the four-kernel default refuses.
TEST(CppApi, WorkspaceOfTheStructure) {
  CArguments a = CArguments::fake(kProblem);
  Problem p;
  Inputs in;
  Outputs out;
  cppArguments(a, p, in, out);
  size_t bytes = 0, threeKernelBytes = 0;
  ASSERT_TRUE(gpuWorkspaceSize(p, bytes).ok());
  ASSERT_TRUE(
      gpuWorkspaceSize(p, threeKernelBytes, ForwardStructure::ThreeKernels)
          .ok());
  // The chunk-local states: 2 * 2 * 4 * 32 * 16 f32, a multiple of 256.
  const size_t local = 2 * 2 * 4 * 32 * 16 * 4;
  EXPECT_EQ(threeKernelBytes, bytes - local);
  EXPECT_EQ(gpuWorkspaceSize(p, bytes, static_cast<ForwardStructure>(2))
                .message(),
            validateStructure(static_cast<ForwardStructure>(2)).message());
  GpuOptions options;
  options.workspace = reinterpret_cast<void *>(uintptr_t(1) << 40);
  options.workspaceBytes = bytes - local;
  Status status = forwardGpu(p, in, out, options);
  EXPECT_EQ(status.message(),
            "workspace: " + std::to_string(bytes - local) +
                " bytes given; the problem needs " + std::to_string(bytes));
  // Past the workspace check: the next failure is the driver's or the
  // fake pointers'.
  options.structure = ForwardStructure::ThreeKernels;
  status = forwardGpu(p, in, out, options);
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.message().find("workspace:"), std::string::npos)
      << status.message();
}

TEST(CppApi, TileConfigMustBeTheCompiledOne) {
  for (int64_t chunk : {64, 128, 256}) {
    TileConfig tiles = gpuTileConfig(chunk);
    EXPECT_GT(tiles.blockH, 0);
    EXPECT_GT(tiles.blockP, 0);
    EXPECT_GT(tiles.blockN, 0);
    EXPECT_EQ(chunk % tiles.blockM, 0);
    EXPECT_EQ(chunk % tiles.blockK, 0);
    EXPECT_GT(tiles.chunkStateBlockP, 0);
    EXPECT_GT(tiles.chunkStateBlockN, 0);
    EXPECT_EQ(chunk % tiles.chunkStateBlockK, 0);
    EXPECT_GT(tiles.statePassingBlockP, 0);
    EXPECT_GT(tiles.statePassingBlockN, 0);
  }
  EXPECT_EQ(gpuTileConfig(32).blockP, 0);

  CArguments a = CArguments::fake(kProblem);
  Problem p;
  Inputs in;
  Outputs out;
  cppArguments(a, p, in, out);
  GpuOptions options;
  options.tiles.blockP = gpuTileConfig(64).blockP * 2;
  Status status = forwardGpu(p, in, out, options);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("compiled"), std::string::npos)
      << status.message();
  for (int64_t TileConfig::*size :
       {&TileConfig::chunkStateBlockP, &TileConfig::chunkStateBlockK,
        &TileConfig::statePassingBlockN}) {
    options.tiles = {};
    options.tiles.*size = gpuTileConfig(64).*size / 2;
    status = forwardGpu(p, in, out, options);
    EXPECT_NE(status.message().find("compiled"), std::string::npos)
        << status.message();
  }
  options.tiles.blockP = 3;
  status = forwardGpu(p, in, out, options);
  EXPECT_NE(status.message().find("power of two"), std::string::npos)
      << status.message();
  // A structure that is neither of the two, in the words forwardCpu uses.
  options.tiles = {};
  options.structure = static_cast<ForwardStructure>(-1);
  status = forwardGpu(p, in, out, options);
  EXPECT_EQ(status.message(), validateStructure(options.structure).message());
  options.structure = ForwardStructure::FourKernels;
  // The shared validation's words, as forwardCpu reports them.
  options.tiles = {};
  in.x.shape[3] = 33;
  status = forwardGpu(p, in, out, options);
  EXPECT_EQ(status.message(), validate(p, in, out).message());
}

//===----------------------------------------------------------------------===//
// tilec_mamba2_forward_with_options: mamba_ssm's options
//===----------------------------------------------------------------------===//

class OptionsValidation : public CApiValidation {
protected:
  OptionsValidation() {
    args.withZ = args.withDtBias = true;
    args.options.dt_softplus = 1;
    args.options.dt_limit = 1;
    args.options.dt_min = 0.0f;
    args.options.dt_max = std::numeric_limits<float>::infinity();
  }
};

TEST_F(OptionsValidation, ValidOptionsReachTheDriver) {
  int status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status))
      << statusName(status) << ": " << tilec_mamba2_last_error();
  // No options at all, and a zero-filled struct: tilec_mamba2_forward's.
  status = args.forwardWithOptions(/*withOptions=*/false);
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
  tilec_mamba2_options none{};
  none.size = sizeof none;
  args.options = none;
  args.withZ = args.withDtBias = false;
  status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
}

TEST_F(OptionsValidation, DPerChannelAndBf16Y) {
  CTensor d(args.D.descriptor.data, TILEC_MAMBA2_F32,
            {kProblem.heads, kProblem.headdim});
  args.D = d;
  args.y.descriptor.dtype = TILEC_MAMBA2_BF16;
  int status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
  // Both are rules of the shared validation, so the first function takes
  // them too.
  status = args.forward();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
  args.D.shape[1] = kProblem.headdim + 1;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_SHAPE);
  EXPECT_NE(std::string(tilec_mamba2_last_error()).find("D (heads, headdim)"),
            std::string::npos);
  args.D = d;
  args.y.descriptor.dtype = TILEC_MAMBA2_F16;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_DTYPE);
  EXPECT_NE(std::string(tilec_mamba2_last_error()).find("f32 and x's dtype (bf16)"),
            std::string::npos);
}

TEST_F(OptionsValidation, OptionsTensorsAreChecked) {
  struct Case {
    const char *name;
    CTensor *tensor;
  };
  for (Case c : {Case{"z", &args.z}, Case{"dt bias", &args.dtBias}}) {
    SCOPED_TRACE(c.name);
    const CTensor saved = *c.tensor;
    c.tensor->shape[0] += 1;
    EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                         TILEC_MAMBA2_ERROR_INVALID_SHAPE);
    EXPECT_EQ(std::string(tilec_mamba2_last_error()).find(c.name), 0u)
        << tilec_mamba2_last_error();
    *c.tensor = saved;
    c.tensor->descriptor.dtype = TILEC_MAMBA2_F16;
    EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                         TILEC_MAMBA2_ERROR_INVALID_DTYPE);
    *c.tensor = saved;
    c.tensor->descriptor.data = nullptr;
    EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                         TILEC_MAMBA2_ERROR_NULL_POINTER);
    *c.tensor = saved;
    c.tensor->strides[0] = -1;
    EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                         TILEC_MAMBA2_ERROR_INVALID_STRIDE);
    *c.tensor = saved;
    c.tensor->descriptor.rank = TILEC_MAMBA2_MAX_RANK + 1;
    EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                         TILEC_MAMBA2_ERROR_INVALID_SHAPE);
    *c.tensor = saved;
    c.tensor->descriptor.data =
        static_cast<char *>(c.tensor->descriptor.data) + 1;
    EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                         TILEC_MAMBA2_ERROR_UNALIGNED);
    *c.tensor = saved;
  }
}

TEST_F(OptionsValidation, ChunkStatesAreChecked) {
  args.withChunkStates = true;
  int status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
  const CTensor saved = args.chunkStates;
  args.chunkStates.shape[1] += 1;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_SHAPE);
  EXPECT_EQ(std::string(tilec_mamba2_last_error()).find("chunk states"), 0u);
  args.chunkStates = saved;
  args.chunkStates.strides[2] = 0;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_STRIDE);
  args.chunkStates = saved;
  args.chunkStates.descriptor.dtype = TILEC_MAMBA2_BF16;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_DTYPE);
  args.chunkStates = saved;
  args.chunkStates.descriptor.data =
      static_cast<char *>(args.chunkStates.descriptor.data) + 2;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_UNALIGNED);
}

TEST_F(OptionsValidation, DtLimitIsAnInterval) {
  args.options.dt_min = 1.0f;
  args.options.dt_max = 0.5f;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tilec_mamba2_last_error()).find("dt limit"),
            std::string::npos);
  args.options.dt_min = std::numeric_limits<float>::quiet_NaN();
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_ARGUMENT);
  // Without dt_limit set, the bounds are not read.
  args.options.dt_limit = 0;
  int status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
}

TEST_F(OptionsValidation, ChecksComeInTheDocumentedOrder) {
  // The struct's size before everything; the initial state before dt_bias
  // before z; the dt limit after the inputs and before y.
  args.options.size = 0;
  args.x.shape[0] = 3;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_ARGUMENT);
  args.options.size = sizeof(tilec_mamba2_options);
  args.x.shape[0] = 2;
  args.y.descriptor.dtype = TILEC_MAMBA2_F16;
  args.options.dt_min = 2.0f;
  args.options.dt_max = 1.0f;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tilec_mamba2_last_error()).find("dt limit"),
            std::string::npos);
  args.z.descriptor.dtype = TILEC_MAMBA2_F32;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_DTYPE);
  EXPECT_EQ(std::string(tilec_mamba2_last_error()).find("z "), 0u);
  args.dtBias.shape[0] = 5;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_SHAPE);
  EXPECT_EQ(std::string(tilec_mamba2_last_error()).find("dt bias"), 0u);
  args.initialState.strides[0] = -1;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_STRIDE);
  EXPECT_EQ(std::string(tilec_mamba2_last_error()).find("initial state"), 0u);
}

TEST_F(OptionsValidation, StructSizeIsChecked) {
  args.options.size = TILEC_MAMBA2_OPTIONS_SIZE_V1 - 1;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tilec_mamba2_last_error()).find("size"),
            std::string::npos);
  args.options.size = 0;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_ARGUMENT);
  // A later version's struct: fields past this library's are accepted when
  // zero (they ask for nothing) and refused otherwise.
  struct Later {
    tilec_mamba2_options v1;
    int64_t newOption;
  } later{};
  later.v1 = args.options;
  later.v1.size = sizeof later;
  later.v1.z = args.z.get();
  later.v1.dt_bias = args.dtBias.get();
  auto call = [&] {
    return tilec_mamba2_forward_with_options(
        &args.problem, args.x.get(), args.dt.get(), args.A.get(),
        args.B.get(), args.C.get(), args.D.get(), args.initialState.get(),
        args.y.get(), args.finalState.get(), &later.v1, nullptr, 0, nullptr);
  };
  int status = call();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
  later.newOption = 1;
  EXPECT_MAMBA2_STATUS(call(), TILEC_MAMBA2_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tilec_mamba2_last_error()).find("this library"),
            std::string::npos);
}

TEST_F(OptionsValidation, SeqIdxIsChecked) {
  args.withSeqIdx = true;
  int status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
  const CTensor saved = args.seqIdx;
  auto expectSeqIdx = [&](tilec_mamba2_status want, const char *words) {
    EXPECT_MAMBA2_STATUS(args.forwardWithOptions(), want);
    const std::string error = tilec_mamba2_last_error();
    EXPECT_EQ(error.find("seq idx"), 0u) << error;
    EXPECT_NE(error.find(words), std::string::npos) << error;
    args.seqIdx = saved;
  };
  args.seqIdx.shape[1] += 1;
  expectSeqIdx(TILEC_MAMBA2_ERROR_INVALID_SHAPE, "the problem needs (2, ");
  args.seqIdx.descriptor.dtype = TILEC_MAMBA2_F32;
  expectSeqIdx(TILEC_MAMBA2_ERROR_INVALID_DTYPE, "only i32");
  args.seqIdx.descriptor.rank = 1;
  expectSeqIdx(TILEC_MAMBA2_ERROR_INVALID_SHAPE, "rank 1, not 2");
  args.seqIdx.descriptor.data = nullptr;
  expectSeqIdx(TILEC_MAMBA2_ERROR_NULL_POINTER, "null");
  args.seqIdx.strides[1] = -1;
  expectSeqIdx(TILEC_MAMBA2_ERROR_INVALID_STRIDE, "negative stride");
  args.seqIdx.descriptor.data =
      static_cast<char *>(args.seqIdx.descriptor.data) + 2;
  expectSeqIdx(TILEC_MAMBA2_ERROR_UNALIGNED, "");
  // An i32 tensor anywhere else is refused by its dtype.
  args.x.descriptor.dtype = TILEC_MAMBA2_I32;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_DTYPE);
}

TEST_F(OptionsValidation, SeqIdxComesAfterZAndBeforeTheDtLimit) {
  args.withSeqIdx = true;
  args.seqIdx.descriptor.dtype = TILEC_MAMBA2_F32;
  args.options.dt_min = 2.0f;
  args.options.dt_max = 1.0f;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_DTYPE);
  EXPECT_EQ(std::string(tilec_mamba2_last_error()).find("seq idx"), 0u);
  args.z.descriptor.dtype = TILEC_MAMBA2_F32;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_DTYPE);
  EXPECT_EQ(std::string(tilec_mamba2_last_error()).find("z "), 0u);
}

// A version-1 struct ends before seq_idx: the library does not read it,
// whatever the bytes after the struct hold.
TEST_F(OptionsValidation, VersionOneStructHasNoSeqIdx) {
  args.withSeqIdx = true;
  args.seqIdx.descriptor.dtype = TILEC_MAMBA2_F32;
  args.options.size = TILEC_MAMBA2_OPTIONS_SIZE_V1;
  int status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
  args.options.size = TILEC_MAMBA2_OPTIONS_SIZE_V2;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_DTYPE);
  // The last version's fields end the struct: no padding after reserved.
  EXPECT_EQ(sizeof(tilec_mamba2_options), TILEC_MAMBA2_OPTIONS_SIZE_V4);
  EXPECT_EQ(TILEC_MAMBA2_OPTIONS_SIZE_V4, 80u);
  EXPECT_EQ(offsetof(tilec_mamba2_options, state_dtype), 72u);
  EXPECT_EQ(offsetof(tilec_mamba2_options, reserved), 76u);
}

// The state dtype (version 4): bf16 with a bf16 x, chunk states in it;
// anything else refused with the field named.
TEST_F(OptionsValidation, StateDtypeIsChecked) {
  args.withChunkStates = true;
  args.options.state_dtype = TILEC_MAMBA2_BF16;
  // f32 chunk states for bf16 states between chunks.
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_DTYPE);
  std::string error = tilec_mamba2_last_error();
  EXPECT_EQ(error.find("chunk states"), 0u) << error;
  EXPECT_NE(error.find("the state dtype (bf16)"), std::string::npos) << error;
  args.chunkStates.descriptor.dtype = TILEC_MAMBA2_BF16;
  int status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
  // Their alignment is bf16's.
  args.chunkStates.descriptor.data =
      static_cast<char *>(args.chunkStates.descriptor.data) + 2;
  status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
  args.withChunkStates = false;
  args.options.state_dtype = TILEC_MAMBA2_F16;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_ARGUMENT);
  error = tilec_mamba2_last_error();
  EXPECT_EQ(error.find("state dtype: f16"), 0u) << error;
  args.options.state_dtype = TILEC_MAMBA2_I32;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_DTYPE);
  args.options.state_dtype = 99;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_DTYPE);
  error = tilec_mamba2_last_error();
  EXPECT_EQ(error.find("options: state_dtype 99"), 0u) << error;
  // bf16 states with an f16 x (and B, C, z): no instance for the pair.
  args.options.state_dtype = TILEC_MAMBA2_BF16;
  for (CTensor *t : {&args.x, &args.B, &args.C, &args.z})
    t->descriptor.dtype = TILEC_MAMBA2_F16;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_ARGUMENT);
  error = tilec_mamba2_last_error();
  EXPECT_EQ(error.find("state dtype: bf16 with x in f16"), 0u) << error;
}

// A version-3 struct ends before state_dtype: it is not read, whatever the
// bytes after the struct hold, and the states are f32.
TEST_F(OptionsValidation, VersionThreeStructHasNoStateDtype) {
  args.withChunkStates = true;
  args.options.state_dtype = 99;
  args.options.size = TILEC_MAMBA2_OPTIONS_SIZE_V3;
  int status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
  args.options.size = TILEC_MAMBA2_OPTIONS_SIZE_V4;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_DTYPE);
}

// Version 4's reserved field must be 0; a size that ends inside version 4's
// fields (state_dtype without reserved, the size of the first builds of
// version 4) is refused rather than read in part.
TEST_F(OptionsValidation, ReservedMustBeZero) {
  args.options.reserved = 1;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_ARGUMENT);
  std::string error = tilec_mamba2_last_error();
  EXPECT_EQ(error.find("options: reserved is 1, it must be 0"), 0u) << error;
  // A version-3 struct has no reserved field.
  args.options.size = TILEC_MAMBA2_OPTIONS_SIZE_V3;
  int status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
  args.options.reserved = 0;
  args.options.size = TILEC_MAMBA2_OPTIONS_SIZE_V4;
  status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
  args.options.size = offsetof(tilec_mamba2_options, state_dtype) +
                      sizeof(int32_t);
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_ARGUMENT);
  error = tilec_mamba2_last_error();
  EXPECT_EQ(error.find("options: size 76 ends inside version 4's fields"), 0u)
      << error;
}

// cu_seqlens and the varlen states (version 3), on one packed row of three
// sequences. cu_seqlens is device memory, at a fake address as every tensor
// here: the host checks its descriptor and never reads the offsets (reading
// that address would fault).
class VarlenOptionsValidation : public ::testing::Test {
protected:
  VarlenOptionsValidation()
      : args(CArguments::fake({1, 100, 4, 2, 32, 16, 64})) {
    args.withSeqIdx = true;
    args.withCuSeqlens = true;
    args.withVarlenStates = true;
    args.cuSeqlens = CTensor(offsets, TILEC_MAMBA2_I32, {4});
    args.varlenStates = CTensor(reinterpret_cast<void *>(uintptr_t(1) << 44),
                                TILEC_MAMBA2_F32, {3, 4, 32, 16});
  }

  void expectError(tilec_mamba2_status want, const char *name,
                   const char *words) {
    EXPECT_MAMBA2_STATUS(args.forwardWithOptions(), want);
    const std::string error = tilec_mamba2_last_error();
    EXPECT_EQ(error.find(name), 0u) << error;
    EXPECT_NE(error.find(words), std::string::npos) << error;
  }

  void *const offsets = reinterpret_cast<void *>(uintptr_t(3) << 44);
  CArguments args;
};

TEST_F(VarlenOptionsValidation, ValidArgumentsReachTheDriver) {
  int status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
  args.withVarlenStates = false;
  status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
}

TEST_F(VarlenOptionsValidation, Descriptor) {
  const CTensor saved = args.cuSeqlens;
  args.cuSeqlens.descriptor.dtype = TILEC_MAMBA2_F32;
  expectError(TILEC_MAMBA2_ERROR_INVALID_DTYPE, "cu seqlens", "only i32");
  args.cuSeqlens = CTensor(offsets, TILEC_MAMBA2_I32, {2, 2});
  expectError(TILEC_MAMBA2_ERROR_INVALID_SHAPE, "cu seqlens", "rank 2, not 1");
  args.cuSeqlens = CTensor(offsets, TILEC_MAMBA2_I32, {1});
  expectError(TILEC_MAMBA2_ERROR_INVALID_SHAPE, "cu seqlens", "two offsets");
  args.cuSeqlens = saved;
  args.cuSeqlens.descriptor.data = nullptr;
  expectError(TILEC_MAMBA2_ERROR_NULL_POINTER, "cu seqlens", "null");
  args.cuSeqlens = saved;
  args.cuSeqlens.strides[0] = -1;
  expectError(TILEC_MAMBA2_ERROR_INVALID_STRIDE, "cu seqlens",
              "negative stride");
  // Device memory, so aligned as every device tensor.
  args.cuSeqlens = saved;
  args.cuSeqlens.descriptor.data = static_cast<char *>(offsets) + 2;
  expectError(TILEC_MAMBA2_ERROR_UNALIGNED, "cu seqlens", "");
}

// What the offsets need of the other arguments; their values are the
// kernel's to check (ValidArgumentsReachTheDriver: a fake address passes).
TEST_F(VarlenOptionsValidation, Offsets) {
  args.withSeqIdx = false;
  expectError(TILEC_MAMBA2_ERROR_INVALID_ARGUMENT, "cu seqlens",
              "needs seq idx");
  // The outputs come after the offsets' descriptor.
  args.withSeqIdx = true;
  args.y.descriptor.dtype = TILEC_MAMBA2_F16;
  expectError(TILEC_MAMBA2_ERROR_INVALID_DTYPE, "y", "f16");
}

TEST_F(VarlenOptionsValidation, BatchOne) {
  CArguments two = CArguments::fake({2, 100, 4, 2, 32, 16, 64});
  two.withSeqIdx = two.withCuSeqlens = true;
  two.cuSeqlens = args.cuSeqlens;
  EXPECT_MAMBA2_STATUS(two.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tilec_mamba2_last_error()).find("one row (batch 1)"),
            std::string::npos)
      << tilec_mamba2_last_error();
}

TEST_F(VarlenOptionsValidation, VarlenStates) {
  args.withCuSeqlens = false;
  expectError(TILEC_MAMBA2_ERROR_INVALID_ARGUMENT, "varlen states",
              "need cu seqlens");
  args.withCuSeqlens = true;
  const CTensor saved = args.varlenStates;
  args.varlenStates.shape[0] = 4;
  expectError(TILEC_MAMBA2_ERROR_INVALID_SHAPE, "varlen states",
              "the problem needs (3, 4, 32, 16)");
  args.varlenStates = saved;
  args.varlenStates.descriptor.dtype = TILEC_MAMBA2_BF16;
  expectError(TILEC_MAMBA2_ERROR_INVALID_DTYPE, "varlen states", "only f32");
  args.varlenStates = saved;
  args.varlenStates.strides[1] = 0;
  expectError(TILEC_MAMBA2_ERROR_INVALID_STRIDE, "varlen states",
              "written twice");
  args.varlenStates = saved;
  args.varlenStates.descriptor.data =
      static_cast<char *>(args.varlenStates.descriptor.data) + 2;
  expectError(TILEC_MAMBA2_ERROR_UNALIGNED, "varlen states", "");
}

// A version-2 struct ends before cu_seqlens: neither field is read.
TEST_F(VarlenOptionsValidation, VersionTwoStructHasNoOffsets) {
  args.cuSeqlens.descriptor.dtype = TILEC_MAMBA2_F32;
  args.options.size = TILEC_MAMBA2_OPTIONS_SIZE_V2;
  int status = args.forwardWithOptions();
  EXPECT_TRUE(reachedTheDriver(status)) << tilec_mamba2_last_error();
  args.options.size = TILEC_MAMBA2_OPTIONS_SIZE_V3;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_DTYPE);
}

TEST(CppApi, ThreeKernelStructureRefusesSeqIdx) {
  const Problem p{2, 100, 4, 2, 32, 16, 64};
  HostProblem host = HostProblem::random(p, 11, [] {
    HostFeatures features;
    features.packedSequences = true;
    return features;
  }());
  GpuOptions options;
  options.structure = ForwardStructure::ThreeKernels;
  Status status = forwardGpu(p, host.inputs(true), host.outputs(), options);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("four-kernel structure"), std::string::npos)
      << status.message();
}

} // namespace
