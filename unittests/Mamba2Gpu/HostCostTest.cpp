//===- HostCostTest.cpp - the driver calls of a forward pass ----*- C++ -*-===//
//
// Points the runtime at CountingDriver.cpp's library before anything loads
// the driver in this process, then counts the driver calls of forward
// passes through the C ABI: the first call of a process loads the kernels
// and asks about each allocation range once; every later call makes one
// launch per kernel and the context queries, and asks about no pointer
// whose range it has seen. Host memory is still refused, on every call.
//
// The stand-in also counts launches by kernel name, which says which variant
// of each kernel a launcher chose (EmptyOptionsAndDPerHeadRunTheVecVariants).
// The *Cpp* tests call the C++ API (forwardGpu, stateUpdateGpu), which
// replays a repeated call as the C ABI does (RepeatedCall.h).
//
// ctest also runs the executable with TILEC_MAMBA2_POINTER_CHECK=call (the
// PerCall tests, which skip without it) and =bogus (the BadMode test).
//
//===----------------------------------------------------------------------===//

#include "CApiTesting.h"
#include "DevicePointers.h"
#include "RepeatedCall.h"

#include "tilec/Mamba2/Mamba2Gpu.h"
#include "tilec/Runtime/Runtime.h"

#include <cuda.h>

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <vector>
#include <string>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

using Counter = unsigned long long (*)(const char *);

/// The counting driver, loaded by the runtime from TILEC_CUDA_DRIVER.
Counter counter() {
  static Counter found = [] {
    setenv("TILEC_CUDA_DRIVER", TILEC_COUNTING_DRIVER, 1);
    if (tilec_init() != TILEC_SUCCESS)
      return Counter(nullptr);
    void *handle = dlopen(TILEC_COUNTING_DRIVER, RTLD_NOW | RTLD_NOLOAD);
    return handle ? reinterpret_cast<Counter>(
                        dlsym(handle, "tilec_counting_driver_calls"))
                  : nullptr;
  }();
  return found;
}

const char *const kSymbols[] = {"cuCtxGetCurrent",
                                "cuCtxGetId",
                                "cuLaunchKernel",
                                "cuStreamIsCapturing",
                                "cuGraphLaunch",
                                "cuGraphExecKernelNodeSetParams",
                                "cuGraphCreate",
                                "cuGraphAddKernelNode",
                                "cuGraphInstantiateWithFlags",
                                "cuGraphExecDestroy",
                                "cuPointerGetAttributes",
                                "cuModuleLoadData",
                                "cuModuleGetFunction",
                                "cuFuncGetAttribute",
                                "cuFuncSetAttribute",
                                "cuDeviceGetAttribute",
                                "cuMemAllocAsync",
                                "cuMemFreeAsync",
                                ""};

/// The calls of each symbol ("" for all) that `work` makes.
template <typename Work> std::map<std::string, unsigned long long>
callsOf(Work work) {
  std::map<std::string, unsigned long long> before, after;
  for (const char *symbol : kSymbols)
    before[symbol] = counter()(symbol);
  work();
  for (const char *symbol : kSymbols)
    after[symbol] = counter()(symbol) - before[symbol];
  return after;
}

const char *mode() {
  const char *value = std::getenv("TILEC_MAMBA2_POINTER_CHECK");
  return value ? value : "";
}

class HostCost : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_NE(counter(), nullptr) << tilec_last_error();
    tilec::mamba2::gpu::forgetDeviceRanges();
  }

  /// Arguments at CArguments::fake's device addresses, with a workspace in
  /// a range of its own.
  static CArguments arguments() {
    const tilec_mamba2_problem p{2, 300, 8, 2, 64, 32, 128};
    CArguments args = CArguments::fake(p);
    EXPECT_EQ(tilec_mamba2_workspace_size(&args.problem, &args.workspaceBytes),
              TILEC_MAMBA2_SUCCESS);
    args.workspace = reinterpret_cast<void *>(uintptr_t(1) << 44);
    return args;
  }
};

/// The tests whose calls must succeed, skipped where
/// TILEC_MAMBA2_POINTER_CHECK=bogus refuses every call.
class HostCostSucceeding : public HostCost {
protected:
  void SetUp() override {
    HostCost::SetUp();
    if (!std::strcmp(mode(), "bogus"))
      GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK=bogus refuses every call";
  }
};

/// The kernels the C ABI launches: those of the four-kernel structure
/// (docs/mamba2.md), the only one it runs: chunk_cumsum, chunk_state,
/// state_passing, bmm_chunk, compute_out.
constexpr unsigned long long kKernels = 5;

/// Two calls of `forward`: the second makes the kernels' graph if no earlier
/// call did (a sequence of launches becomes a graph the second time it
/// comes), so that later calls find it cached.
template <typename Forward> void makeGraph(Forward forward) {
  for (int call = 0; call < 2; ++call)
    EXPECT_MAMBA2_STATUS(forward(), TILEC_MAMBA2_SUCCESS);
}

/// The calls every forward pass makes once its kernels' graph is cached:
/// cuCtxGetCurrent and cuCtxGetId once for the call (the launch group's),
/// whether the stream is being captured, and one graph launch of the five
/// kernels, whose parameters are those the graph holds.
void expectSteadyState(const std::map<std::string, unsigned long long> &calls,
                       unsigned long long pointerQueries) {
  EXPECT_EQ(calls.at("cuGraphLaunch"), 1u);
  EXPECT_EQ(calls.at("cuLaunchKernel"), 0u);
  EXPECT_EQ(calls.at("cuCtxGetCurrent"), 1u);
  EXPECT_EQ(calls.at("cuCtxGetId"), 1u);
  EXPECT_EQ(calls.at("cuStreamIsCapturing"), 1u);
  EXPECT_EQ(calls.at("cuPointerGetAttributes"), pointerQueries);
  for (const char *loading :
       {"cuModuleLoadData", "cuModuleGetFunction", "cuFuncGetAttribute",
        "cuFuncSetAttribute", "cuDeviceGetAttribute", "cuMemAllocAsync",
        "cuMemFreeAsync", "cuGraphExecKernelNodeSetParams", "cuGraphCreate",
        "cuGraphAddKernelNode", "cuGraphInstantiateWithFlags",
        "cuGraphExecDestroy"})
    EXPECT_EQ(calls.at(loading), 0u) << loading;
  EXPECT_EQ(calls.at(""), 4 + pointerQueries);
}

TEST_F(HostCost, EachRangeIsAskedAboutOnce) {
  if (*mode())
    GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK is set";
  CArguments args = arguments();
  ASSERT_EQ(tilec_mamba2_prepare(), TILEC_MAMBA2_SUCCESS)
      << tilec_mamba2_last_error();
  // Nine tensors and the workspace, each in a range of its own.
  auto first = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(first.at("cuPointerGetAttributes"), 10u);
  makeGraph([&] { return args.forward(); });
  for (int call = 0; call < 3; ++call) {
    auto later = callsOf([&] {
      EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
    });
    SCOPED_TRACE("call " + std::to_string(call + 2));
    expectSteadyState(later, 0);
  }
}

// mamba_ssm's options cost no driver call of their own: z and dt_bias are
// two more ranges asked about once, then the same eleven calls.
TEST_F(HostCost, OptionsAddOnlyTheirRanges) {
  if (*mode())
    GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK is set";
  CArguments args = arguments();
  args.withZ = args.withDtBias = true;
  args.options.dt_softplus = 1;
  args.options.dt_limit = 1;
  args.options.dt_max = 1.0f;
  args.y.descriptor.dtype = TILEC_MAMBA2_BF16;
  ASSERT_EQ(tilec_mamba2_prepare(), TILEC_MAMBA2_SUCCESS)
      << tilec_mamba2_last_error();
  auto first = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forwardWithOptions(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(first.at("cuPointerGetAttributes"), 12u);
  makeGraph([&] { return args.forwardWithOptions(); });
  auto later = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forwardWithOptions(), TILEC_MAMBA2_SUCCESS);
  });
  expectSteadyState(later, 0);
}

TEST_F(HostCost, TensorsOfOneAllocationNeedOneQuery) {
  if (*mode())
    GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK is set";
  CArguments args = arguments();
  // Every tensor and the workspace inside one 4 GiB range, as a caching
  // allocator's segment holds many tensors.
  char *base = reinterpret_cast<char *>(uintptr_t(1) << 43);
  size_t offset = 0;
  for (CTensor *t : {&args.x, &args.dt, &args.A, &args.B, &args.C, &args.D,
                     &args.initialState, &args.y, &args.finalState}) {
    t->descriptor.data = base + offset;
    offset += size_t(1) << 24;
  }
  args.workspace = base + offset;
  auto calls = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(calls.at("cuPointerGetAttributes"), 1u);
}

TEST_F(HostCost, RangesAreRememberedPerContext) {
  if (*mode())
    GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK is set";
  CArguments args = arguments();
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  void *entry = nullptr;
  ASSERT_EQ(tilec_driver_entry_point("cuCtxSetCurrent", &entry),
            TILEC_SUCCESS);
  auto setCurrent = reinterpret_cast<CUresult (*)(CUcontext)>(entry);
  CUcontext first = nullptr;
  ASSERT_EQ(tilec_driver_entry_point("cuCtxGetCurrent", &entry),
            TILEC_SUCCESS);
  ASSERT_EQ(reinterpret_cast<CUresult (*)(CUcontext *)>(entry)(&first),
            CUDA_SUCCESS);
  // Another context: the same addresses are asked about again there.
  ASSERT_EQ(setCurrent(reinterpret_cast<CUcontext>(0x1100)), CUDA_SUCCESS);
  auto other = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(other.at("cuPointerGetAttributes"), 10u);
  ASSERT_EQ(setCurrent(first), CUDA_SUCCESS);
  auto back = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(back.at("cuPointerGetAttributes"), 0u);
}

TEST_F(HostCost, HostMemoryIsRefusedOnEveryCall) {
  if (*mode())
    GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK is set";
  CArguments args = arguments();
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  // Pageable memory, unknown to the driver, among ranges already known.
  std::vector<float> pageable(64);
  args.y.descriptor.data = pageable.data();
  ASSERT_GE(reinterpret_cast<uintptr_t>(pageable.data()), uintptr_t(1) << 45);
  for (int call = 0; call < 2; ++call) {
    auto calls = callsOf([&] {
      EXPECT_MAMBA2_STATUS(args.forward(),
                           TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER);
    });
    EXPECT_NE(std::string(tilec_mamba2_last_error()).find("y:"),
              std::string::npos)
        << tilec_mamba2_last_error();
    EXPECT_EQ(calls.at("cuLaunchKernel"), 0u);
    // The known ranges are not asked about again; y is, every time.
    EXPECT_EQ(calls.at("cuPointerGetAttributes"), 1u);
  }
  // Pinned host memory, which the driver knows.
  args = arguments();
  void *pinned = nullptr;
  void *entry = nullptr;
  ASSERT_EQ(tilec_driver_entry_point("cuMemAllocHost", &entry), TILEC_SUCCESS);
  ASSERT_EQ(reinterpret_cast<CUresult (*)(void **, size_t)>(entry)(&pinned,
                                                                   4096),
            CUDA_SUCCESS);
  args.x.descriptor.data = pinned;
  ASSERT_GE(reinterpret_cast<uintptr_t>(pinned), uintptr_t(1) << 45);
  for (int call = 0; call < 2; ++call) {
    EXPECT_MAMBA2_STATUS(args.forward(),
                         TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER);
    EXPECT_NE(std::string(tilec_mamba2_last_error()).find("x: data pointer "
                                                          "is host memory"),
              std::string::npos)
        << tilec_mamba2_last_error();
  }
}

TEST_F(HostCost, WithoutWorkspaceEachCallAllocatesOnTheStream) {
  if (*mode())
    GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK is set";
  CArguments args = arguments();
  args.workspace = nullptr;
  args.workspaceBytes = 0;
  makeGraph([&] { return args.forward(); });
  auto calls = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(calls.at("cuMemAllocAsync"), 1u);
  EXPECT_EQ(calls.at("cuMemFreeAsync"), 1u);
  EXPECT_EQ(calls.at("cuPointerGetAttributes"), 0u);
  // A new workspace each call: the node of state_passing, whose first
  // parameter (the counting driver's one) is in it, is updated.
  EXPECT_EQ(calls.at("cuGraphLaunch"), 1u);
  EXPECT_EQ(calls.at("cuGraphExecKernelNodeSetParams"), 1u);
  EXPECT_EQ(calls.at("cuGraphInstantiateWithFlags"), 0u);
}

/// The launches of each kernel of the four-kernel structure, for chunk 128,
/// by variant: e.g. "compute_out_c128_vec 1".
std::string launchedVariants(const std::function<void()> &work) {
  const char *const kernels[] = {"chunk_cumsum_c128", "chunk_state_c128",
                                 "state_passing_c128", "bmm_chunk_c128",
                                 "compute_out_c128"};
  std::map<std::string, unsigned long long> before;
  for (const char *kernel : kernels)
    for (const char *suffix : {"", "_vec"}) {
      std::string name = std::string("launch ") + kernel + suffix;
      before[name] = counter()(name.c_str());
    }
  work();
  std::string launched;
  for (const auto &[name, count] : before)
    if (unsigned long long n = counter()(name.c_str()) - count)
      launched += (launched.empty() ? "" : ", ") + name.substr(7) + " " +
                  std::to_string(n);
  return launched;
}

// The launchers run a kernel's vec variant when every view it checks has the
// facts. The library passes absent options (no initial state, z, dt bias,
// seq_idx; y_bf16 beside an f32 y) as empty views, which have them, and a D
// per head as a (heads, headdim) view with stride 0, which compute_out marks
// tile.any_strides: so the default call runs every kernel's vec variant.
TEST_F(HostCostSucceeding, EmptyOptionsAndDPerHeadRunTheVecVariants) {
  CArguments args = arguments();
  args.problem.chunk = 128;
  args.withInitialState = args.withFinalState = false;
  ASSERT_EQ(tilec_mamba2_workspace_size(&args.problem, &args.workspaceBytes),
            TILEC_MAMBA2_SUCCESS);
  ASSERT_EQ(args.D.descriptor.rank, 1);
  const std::string allVec = "bmm_chunk_c128_vec 1, chunk_cumsum_c128_vec 1, "
                             "chunk_state_c128_vec 1, compute_out_c128_vec "
                             "1, state_passing_c128_vec 1";
  EXPECT_EQ(launchedVariants([&] {
              EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
            }),
            allVec);
  // With every option present, D per channel, a bf16 y.
  CArguments full = arguments();
  full.problem.chunk = 128;
  ASSERT_EQ(tilec_mamba2_workspace_size(&full.problem, &full.workspaceBytes),
            TILEC_MAMBA2_SUCCESS);
  full.D = CTensor(full.D.descriptor.data, TILEC_MAMBA2_F32,
                   {full.problem.heads, full.problem.headdim});
  full.withZ = full.withDtBias = full.withSeqIdx = full.withChunkStates = true;
  full.y.descriptor.dtype = TILEC_MAMBA2_BF16;
  EXPECT_EQ(launchedVariants([&] {
              EXPECT_MAMBA2_STATUS(full.forwardWithOptions(),
                                   TILEC_MAMBA2_SUCCESS);
            }),
            allVec);
}

// A view without the facts still falls back, kernel by kernel: seq_idx of a
// seqlen that is not a multiple of 4 i32 elements (16 bytes) sends the two
// kernels that read it (chunk_state, state_passing, compute_out) to their
// generic variants.
TEST_F(HostCostSucceeding, AViewWithoutTheFactsFallsBack) {
  CArguments args = arguments();
  args.problem.chunk = 128;
  args.problem.seqlen = 301;
  args = CArguments::fake(args.problem);
  ASSERT_EQ(tilec_mamba2_workspace_size(&args.problem, &args.workspaceBytes),
            TILEC_MAMBA2_SUCCESS);
  args.workspace = reinterpret_cast<void *>(uintptr_t(1) << 44);
  args.withSeqIdx = true;
  // x, B, C and y have seqlen outside their innermost dim: still vec; the
  // seq_idx row stride 301 is no multiple of 4.
  EXPECT_EQ(launchedVariants([&] {
              EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                                   TILEC_MAMBA2_SUCCESS);
            }),
            "bmm_chunk_c128_vec 1, chunk_cumsum_c128_vec 1, chunk_state_c128 1, "
            "compute_out_c128 1, state_passing_c128 1");
}

TEST_F(HostCost, PerCallChecksEveryPointerOnEveryCall) {
  if (std::strcmp(mode(), "call"))
    GTEST_SKIP() << "run with TILEC_MAMBA2_POINTER_CHECK=call (ctest does)";
  CArguments args = arguments();
  // The first call of the process may load kernels.
  makeGraph([&] { return args.forward(); });
  for (int call = 0; call < 3; ++call) {
    auto calls = callsOf([&] {
      EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
    });
    SCOPED_TRACE("call " + std::to_string(call + 1));
    expectSteadyState(calls, 10);
  }
}

TEST_F(HostCost, BadModeIsRefused) {
  if (std::strcmp(mode(), "bogus"))
    GTEST_SKIP() << "run with TILEC_MAMBA2_POINTER_CHECK=bogus (ctest does)";
  CArguments args = arguments();
  auto calls = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_INVALID_ARGUMENT);
  });
  EXPECT_NE(std::string(tilec_mamba2_last_error())
                .find("TILEC_MAMBA2_POINTER_CHECK is 'bogus'"),
            std::string::npos)
      << tilec_mamba2_last_error();
  EXPECT_EQ(calls.at("cuLaunchKernel"), 0u);
}

/// Makes the counting driver's context `id` current on this thread (its
/// id is its value).
void makeContextCurrent(uintptr_t id) {
  void *entry = nullptr;
  ASSERT_EQ(tilec_driver_entry_point("cuCtxSetCurrent", &entry),
            TILEC_SUCCESS);
  ASSERT_EQ(reinterpret_cast<CUresult (*)(CUcontext)>(entry)(
                reinterpret_cast<CUcontext>(id)),
            CUDA_SUCCESS);
}

/// The counting driver's context of every other test.
constexpr uintptr_t kDefaultContext = 0x1000;

/// A context of the test's own while it lives: no graph of other tests
/// (graphs are cached per context, up to four per sequence of kernels, one
/// per set of parameters that came back).
struct OwnContext {
  explicit OwnContext(uintptr_t id) { makeContextCurrent(id); }
  ~OwnContext() { makeContextCurrent(kDefaultContext); }
};

// The graph of a call is found by its kernels and their grids; a parameter
// that differs from the one the graph holds is updated before it runs, node
// by node. The counting driver shows each kernel's first parameter to the
// runtime, a view's data pointer: x's is chunk_state's and compute_out's,
// dt's chunk_cumsum's.
TEST_F(HostCostSucceeding, ChangedPointersUpdateTheirNodesOnly) {
  OwnContext own(0x1400);
  CArguments args = arguments();
  makeGraph([&] { return args.forward(); });
  void *const firstX = args.x.descriptor.data;
  // In a range of its own, past CArguments::fake's and the workspace's.
  args.x.descriptor.data =
      reinterpret_cast<void *>((uintptr_t(1) << 44) + (uintptr_t(8) << 32));
  auto calls = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(calls.at("cuGraphExecKernelNodeSetParams"), 2u);
  EXPECT_EQ(calls.at("cuGraphInstantiateWithFlags"), 0u);
  EXPECT_EQ(calls.at("cuGraphLaunch"), 1u);
  calls = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(calls.at("cuGraphExecKernelNodeSetParams"), 0u);
  args.dt.descriptor.data =
      reinterpret_cast<void *>((uintptr_t(1) << 44) + (uintptr_t(9) << 32));
  calls = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(calls.at("cuGraphExecKernelNodeSetParams"), 1u);
  args.x.descriptor.data = firstX;
  calls = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(calls.at("cuGraphExecKernelNodeSetParams"), 2u);
  EXPECT_EQ(calls.at("cuGraphLaunch"), 1u);
}

// A call identical to the thread's last successful one is its launch group
// enqueued again (RepeatedCall.h): the same driver calls, no check or
// launcher run. Any change to what the call reads, even inside a
// descriptor at the same address, is a call checked and launched as usual.
TEST_F(HostCostSucceeding, IdenticalCallsReplayTheirLaunches) {
  CArguments args = arguments();
  makeGraph([&] { return args.forwardWithOptions(); });
  const unsigned long long before = tilec::mamba2::gpu::replayedCalls();
  for (int call = 0; call < 3; ++call) {
    auto calls = callsOf([&] {
      EXPECT_MAMBA2_STATUS(args.forwardWithOptions(), TILEC_MAMBA2_SUCCESS);
    });
    expectSteadyState(calls, *mode() ? 10 : 0);
  }
  // With a pointer query per call ("call") nothing is replayed.
  EXPECT_EQ(tilec::mamba2::gpu::replayedCalls() - before, *mode() ? 0u : 3u);
}

/// After a change to its arguments, `forward` is checked and launched
/// (nothing replayed), then replayed once it repeats; a call that found a
/// new allocation range (`newRange`) is replayed from the call after the
/// next (the one that found the range cache as it left it).
template <typename Forward>
void expectCheckedThenReplayed(Forward forward, const char *what,
                               bool newRange) {
  using tilec::mamba2::gpu::replayedCalls;
  SCOPED_TRACE(what);
  const unsigned long long before = replayedCalls();
  for (int checked = 0; checked < (newRange ? 2 : 1); ++checked)
    EXPECT_MAMBA2_STATUS(forward(), TILEC_MAMBA2_SUCCESS);
  EXPECT_EQ(replayedCalls(), before);
  EXPECT_MAMBA2_STATUS(forward(), TILEC_MAMBA2_SUCCESS);
  EXPECT_EQ(replayedCalls(), before + 1);
}

TEST_F(HostCost, ChangedArgumentsAreNotReplayed) {
  if (*mode())
    GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK is set";
  OwnContext own(0x1500);
  CArguments args = arguments();
  makeGraph([&] { return args.forwardWithOptions(); });
  using tilec::mamba2::gpu::replayedCalls;
  auto expectChecked = [&](const char *what, bool newRange = false) {
    expectCheckedThenReplayed([&] { return args.forwardWithOptions(); }, what,
                              newRange);
  };
  // x's pointer: its kernels' nodes are updated (the stand-in shows the
  // runtime each kernel's first parameter).
  void *const firstX = args.x.descriptor.data;
  args.x.descriptor.data =
      reinterpret_cast<void *>((uintptr_t(1) << 44) + (uintptr_t(8) << 32));
  auto calls = callsOf([&] { expectChecked("x's data", true); });
  EXPECT_EQ(calls.at("cuGraphExecKernelNodeSetParams"), 2u);
  args.x.descriptor.data = firstX;
  expectChecked("x's data back");
  args.y.descriptor.data =
      reinterpret_cast<void *>((uintptr_t(1) << 44) + (uintptr_t(10) << 32));
  expectChecked("y's data", true);
  // The same descriptor and array addresses, another content.
  args.options.dt_softplus = 1;
  expectChecked("dt_softplus");
  args.options.dt_limit = 1;
  args.options.dt_max = 1.0f;
  expectChecked("dt_limit");
  args.options.dt_max = 2.0f;
  expectChecked("dt_max");
  args.withDtBias = true;
  expectChecked("dt_bias given", true);
  args.dtBias.descriptor.data =
      reinterpret_cast<void *>((uintptr_t(1) << 44) + (uintptr_t(11) << 32));
  expectChecked("dt_bias's data", true);
  args.withInitialState = false;
  expectChecked("no initial state");
  // A scalar option of a later version (bf16 states, x in bf16).
  args.options.state_dtype = TILEC_MAMBA2_BF16;
  expectChecked("state_dtype");
  // A refused call between two identical ones: the second is checked.
  args.y.descriptor.dtype = TILEC_MAMBA2_I32;
  const unsigned long long before = replayedCalls();
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(),
                       TILEC_MAMBA2_ERROR_INVALID_DTYPE);
  args.y.descriptor.dtype = TILEC_MAMBA2_F32;
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(), TILEC_MAMBA2_SUCCESS);
  EXPECT_EQ(replayedCalls(), before);
}

// Two argument sets in turn (two layers of a model, two buffers): the
// second set's graph is built when it comes back, and from then on each
// call finds its set's graph with no node update.
TEST_F(HostCostSucceeding, AlternatingArgumentSetsGetAGraphEach) {
  OwnContext own(0x1600);
  CArguments first = arguments(), second = arguments();
  second.x.descriptor.data =
      reinterpret_cast<void *>((uintptr_t(1) << 44) + (uintptr_t(12) << 32));
  second.dt.descriptor.data =
      reinterpret_cast<void *>((uintptr_t(1) << 44) + (uintptr_t(13) << 32));
  makeGraph([&] { return first.forward(); });
  // The second set, new: the graph's nodes updated to it; the first set,
  // back: a graph of its own.
  auto calls = callsOf([&] {
    EXPECT_MAMBA2_STATUS(second.forward(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(calls.at("cuGraphExecKernelNodeSetParams"), 3u);
  calls = callsOf([&] {
    EXPECT_MAMBA2_STATUS(first.forward(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(calls.at("cuGraphInstantiateWithFlags"), 1u);
  EXPECT_EQ(calls.at("cuGraphExecKernelNodeSetParams"), 0u);
  for (int call = 0; call < 6; ++call) {
    SCOPED_TRACE("call " + std::to_string(call));
    calls = callsOf([&] {
      EXPECT_MAMBA2_STATUS((call % 2 ? first : second).forward(),
                           TILEC_MAMBA2_SUCCESS);
    });
    EXPECT_EQ(calls.at("cuGraphExecKernelNodeSetParams"), 0u);
    EXPECT_EQ(calls.at("cuGraphInstantiateWithFlags"), 0u);
    EXPECT_EQ(calls.at("cuGraphLaunch"), 1u);
  }
}

TEST_F(HostCost, AShapeChangedInPlaceIsNotReplayed) {
  if (*mode())
    GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK is set";
  CArguments args = arguments();
  makeGraph([&] { return args.forward(); });
  using tilec::mamba2::gpu::replayedCalls;
  // y's strides, rewritten in their array (the descriptor points at the
  // same one): a stride 0 is refused.
  std::vector<int64_t> &strides = args.y.strides;
  ASSERT_FALSE(strides.empty());
  const int64_t kept = strides[0];
  strides[0] = 0;
  const unsigned long long before = replayedCalls();
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_ERROR_INVALID_STRIDE);
  strides[0] = kept;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  EXPECT_EQ(replayedCalls(), before + 1);
}

TEST_F(HostCost, NoReplayWithoutGraphsOrAWorkspace) {
  if (*mode())
    GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK is set";
  CArguments args = arguments();
  makeGraph([&] { return args.forward(); });
  using tilec::mamba2::gpu::replayedCalls;
  const unsigned long long before = replayedCalls();
  tilec_set_launch_graphs(false);
  auto calls = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  });
  tilec_set_launch_graphs(true);
  EXPECT_EQ(calls.at("cuLaunchKernel"), kKernels);
  EXPECT_EQ(calls.at("cuGraphLaunch"), 0u);
  args.workspace = nullptr;
  for (int call = 0; call < 3; ++call) {
    calls = callsOf([&] {
      EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
    });
    EXPECT_EQ(calls.at("cuMemAllocAsync"), 1u);
  }
  EXPECT_EQ(replayedCalls(), before);
}

// The decode step: a call identical to the last is replayed too, and any
// change (here y's pointer, then dt_softplus) is checked and launched.
TEST_F(HostCostSucceeding, IdenticalDecodeStepsReplayTheirLaunch) {
  const tilec_mamba2_decode_problem p{2, 4, 1, 8, 16, 2};
  uintptr_t next = uintptr_t(1) << 41;
  auto address = [&] {
    next += uintptr_t(1) << 32;
    return reinterpret_cast<void *>(next);
  };
  CTensor state(address(), TILEC_MAMBA2_F32, {2, 4, 8, 16});
  CTensor x(address(), TILEC_MAMBA2_BF16, {2, 4, 8});
  CTensor dt(address(), TILEC_MAMBA2_F32, {2, 4});
  CTensor A(address(), TILEC_MAMBA2_F32, {4});
  CTensor B(address(), TILEC_MAMBA2_BF16, {2, 1, 16});
  CTensor C(address(), TILEC_MAMBA2_BF16, {2, 1, 16});
  CTensor y(address(), TILEC_MAMBA2_BF16, {2, 4, 8});
  int32_t softplus = 0;
  auto step = [&] {
    return tilec_mamba2_state_update(&p, state.get(), x.get(), dt.get(),
                                     A.get(), B.get(), C.get(), nullptr,
                                     nullptr, nullptr, softplus, nullptr, -1,
                                     y.get(), nullptr);
  };
  // New ranges, then the graph: replayed from the third step on.
  for (int call = 0; call < 3; ++call)
    EXPECT_MAMBA2_STATUS(step(), TILEC_MAMBA2_SUCCESS);
  using tilec::mamba2::gpu::replayedCalls;
  const unsigned long long before = replayedCalls();
  auto calls = callsOf([&] {
    for (int call = 0; call < 3; ++call)
      EXPECT_MAMBA2_STATUS(step(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(calls.at("cuGraphLaunch"), 3u);
  EXPECT_EQ(calls.at("cuLaunchKernel"), 0u);
  EXPECT_EQ(calls.at(""), 12u + (*mode() ? 3 * 7 : 0));
  EXPECT_EQ(replayedCalls() - before, *mode() ? 0u : 3u);
  if (*mode())
    return;
  y.descriptor.data = address();
  EXPECT_MAMBA2_STATUS(step(), TILEC_MAMBA2_SUCCESS);
  softplus = 1;
  EXPECT_MAMBA2_STATUS(step(), TILEC_MAMBA2_SUCCESS);
  EXPECT_EQ(replayedCalls() - before, 3u);
  EXPECT_MAMBA2_STATUS(step(), TILEC_MAMBA2_SUCCESS);
  EXPECT_EQ(replayedCalls() - before, 4u);
}

// stateUpdateGpu (the C++ API) replays an identical step too; a changed
// field (dtSoftplus, then the indices' pointer) is checked and launched.
TEST_F(HostCost, IdenticalCppDecodeStepsReplayTheirLaunch) {
  if (*mode())
    GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK is set";
  const DecodeProblem p{2, 4, 1, 8, 16, 2};
  uintptr_t next = uintptr_t(1) << 41;
  auto address = [&] {
    next += uintptr_t(1) << 32;
    return reinterpret_cast<void *>(next);
  };
  StateUpdateArgs args;
  args.state = Tensor::contiguous(address(), DType::F32, {2, 4, 8, 16});
  args.x = Tensor::contiguous(address(), DType::BF16, {2, 4, 8});
  args.dt = Tensor::contiguous(address(), DType::F32, {2, 4});
  args.A = Tensor::contiguous(address(), DType::F32, {4});
  args.B = Tensor::contiguous(address(), DType::BF16, {2, 1, 16});
  args.C = Tensor::contiguous(address(), DType::BF16, {2, 1, 16});
  args.y = Tensor::contiguous(address(), DType::BF16, {2, 4, 8});
  auto step = [&] {
    Status status = stateUpdateGpu(p, args);
    EXPECT_TRUE(status.ok()) << status.message();
  };
  for (int call = 0; call < 3; ++call)
    step();
  using tilec::mamba2::gpu::replayedCalls;
  const unsigned long long before = replayedCalls();
  auto calls = callsOf([&] {
    for (int call = 0; call < 3; ++call)
      step();
  });
  EXPECT_EQ(calls.at("cuGraphLaunch"), 3u);
  EXPECT_EQ(calls.at("cuLaunchKernel"), 0u);
  EXPECT_EQ(replayedCalls() - before, 3u);
  args.dtSoftplus = true;
  step();
  EXPECT_EQ(replayedCalls() - before, 3u);
  step();
  EXPECT_EQ(replayedCalls() - before, 4u);
  const int64_t *indices = static_cast<const int64_t *>(address());
  args.stateIndices = indices;
  for (int call = 0; call < 2; ++call) // a new range: checked twice
    step();
  EXPECT_EQ(replayedCalls() - before, 4u);
  step();
  EXPECT_EQ(replayedCalls() - before, 5u);
}

// The replay's refusals: a forward whose group is no longer the thread's
// last (a decode step's group came between) checks and launches again, and
// is replayed from the next identical call on.
TEST_F(HostCost, AnotherCallBetweenIsNotReplayedOver) {
  if (*mode())
    GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK is set";
  using tilec::mamba2::gpu::replayedCalls;
  CArguments args = arguments();
  makeGraph([&] { return args.forwardWithOptions(); });
  unsigned long long before = replayedCalls();
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(), TILEC_MAMBA2_SUCCESS);
  EXPECT_EQ(replayedCalls(), before + 1);
  const tilec_mamba2_decode_problem p{2, 4, 1, 8, 16, 2};
  uintptr_t next = uintptr_t(1) << 42;
  auto address = [&] {
    next += uintptr_t(1) << 32;
    return reinterpret_cast<void *>(next);
  };
  CTensor state(address(), TILEC_MAMBA2_F32, {2, 4, 8, 16});
  CTensor x(address(), TILEC_MAMBA2_BF16, {2, 4, 8});
  CTensor dt(address(), TILEC_MAMBA2_F32, {2, 4});
  CTensor A(address(), TILEC_MAMBA2_F32, {4});
  CTensor B(address(), TILEC_MAMBA2_BF16, {2, 1, 16});
  CTensor C(address(), TILEC_MAMBA2_BF16, {2, 1, 16});
  CTensor y(address(), TILEC_MAMBA2_BF16, {2, 4, 8});
  EXPECT_MAMBA2_STATUS(
      tilec_mamba2_state_update(&p, state.get(), x.get(), dt.get(), A.get(),
                                B.get(), C.get(), nullptr, nullptr, nullptr,
                                0, nullptr, -1, y.get(), nullptr),
      TILEC_MAMBA2_SUCCESS);
  before = replayedCalls();
  auto calls = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forwardWithOptions(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(replayedCalls(), before);
  // Launched again as a group: its cached graph, one graph launch.
  EXPECT_EQ(calls.at("cuGraphLaunch"), 1u);
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(), TILEC_MAMBA2_SUCCESS);
  EXPECT_EQ(replayedCalls(), before + 1);
}

/// forwardGpu's arguments for HostCost::arguments()' problem, at the same
/// fake addresses (so in the same allocation ranges).
struct CppArguments {
  Problem problem;
  Inputs in;
  Outputs out;
  GpuOptions options;
  CUstream stream = nullptr;

  explicit CppArguments(const CArguments &c) {
    const tilec_mamba2_problem &p = c.problem;
    problem = {p.batch, p.seqlen, p.heads, p.groups, p.headdim, p.dstate,
               p.chunk};
    auto tensor = [](const CTensor &t, DType dtype) {
      return Tensor::contiguous(t.descriptor.data, dtype, t.shape);
    };
    in.x = tensor(c.x, DType::BF16);
    in.dt = tensor(c.dt, DType::F32);
    in.A = tensor(c.A, DType::F32);
    in.B = tensor(c.B, DType::BF16);
    in.C = tensor(c.C, DType::BF16);
    in.D = tensor(c.D, DType::F32);
    in.initialState = tensor(c.initialState, DType::F32);
    in.dtBias = tensor(c.dtBias, DType::F32);
    in.z = tensor(c.z, DType::BF16);
    out.y = tensor(c.y, DType::F32);
    out.finalState = tensor(c.finalState, DType::F32);
    options.workspace = c.workspace;
    options.workspaceBytes = c.workspaceBytes;
  }
  int forward() {
    Status status = forwardGpu(problem, in, out, options, stream);
    if (!status.ok())
      ADD_FAILURE() << status.message();
    return status.ok() ? TILEC_MAMBA2_SUCCESS
                       : TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
  }
};

// forwardGpu (the C++ API) replays an identical call as the C ABI does: the
// same driver calls as any cached call, no checks or launchers.
TEST_F(HostCostSucceeding, IdenticalCppCallsReplayTheirLaunches) {
  CppArguments args(arguments());
  makeGraph([&] { return args.forward(); });
  using tilec::mamba2::gpu::replayedCalls;
  const unsigned long long before = replayedCalls();
  for (int call = 0; call < 3; ++call) {
    auto calls = callsOf([&] {
      EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
    });
    // With a pointer query per call ("call"): eleven tensors and the
    // workspace each time, nothing replayed.
    expectSteadyState(calls, *mode() ? 12 : 0);
  }
  EXPECT_EQ(replayedCalls() - before, *mode() ? 0u : 3u);
}

// Every field forwardGpu reads is part of its key: each change is a call
// checked and launched, replayed from the next identical call on.
TEST_F(HostCost, ChangedCppArgumentsAreNotReplayed) {
  if (*mode())
    GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK is set";
  OwnContext own(0x1700);
  CppArguments args(arguments());
  makeGraph([&] { return args.forward(); });
  using tilec::mamba2::gpu::replayedCalls;
  auto expectChecked = [&](const char *what, bool newRange = false) {
    expectCheckedThenReplayed([&] { return args.forward(); }, what, newRange);
  };
  args.in.x.data =
      reinterpret_cast<void *>((uintptr_t(1) << 44) + (uintptr_t(14) << 32));
  expectChecked("x's data", true);
  // The same vectors, another content: B's row stride, as if padded.
  args.in.B.strides[1] *= 2;
  args.in.B.strides[0] *= 2;
  expectChecked("B's strides");
  args.in.dtSoftplus = true;
  expectChecked("dtSoftplus");
  args.in.dtLimit.high = 1.0f;
  expectChecked("dtLimit");
  args.in.dtBias.reset();
  expectChecked("no dt bias");
  args.in.z.reset();
  expectChecked("no z");
  args.out.finalState.reset();
  expectChecked("no final state");
  args.options.structure = ForwardStructure::ThreeKernels;
  expectChecked("structure");
  args.options.structure = ForwardStructure::FourKernels;
  expectChecked("structure back");
  args.in.stateDtype = DType::BF16;
  expectChecked("stateDtype");
  // The compiled tiles, named: the same kernels, another key.
  args.options.tiles = gpuTileConfig(args.problem.chunk);
  expectChecked("tiles");
  // A refused call between two identical ones: the second is checked.
  args.out.y.dtype = DType::I32;
  const unsigned long long before = replayedCalls();
  EXPECT_FALSE(forwardGpu(args.problem, args.in, args.out, args.options).ok());
  args.out.y.dtype = DType::F32;
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  EXPECT_EQ(replayedCalls(), before);
}

// The C ABI and the C++ API in turn on one thread: each call's group is no
// longer the thread's last when its twin comes, so neither is replayed over
// the other's kernels; each is checked and launched again.
TEST_F(HostCost, CppAndCCallsInTurnAreNotReplayedOverEachOther) {
  if (*mode())
    GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK is set";
  CArguments c = arguments();
  CppArguments cpp(c);
  cpp.out.y.data =
      reinterpret_cast<void *>((uintptr_t(1) << 44) + (uintptr_t(15) << 32));
  makeGraph([&] { return c.forward(); });
  makeGraph([&] { return cpp.forward(); });
  using tilec::mamba2::gpu::replayedCalls;
  const unsigned long long before = replayedCalls();
  for (int call = 0; call < 4; ++call) {
    SCOPED_TRACE("call " + std::to_string(call));
    auto calls = callsOf([&] {
      EXPECT_MAMBA2_STATUS(call % 2 ? cpp.forward() : c.forward(),
                           TILEC_MAMBA2_SUCCESS);
    });
    // Checked and launched as a group: one graph launch.
    EXPECT_EQ(calls.at("cuGraphLaunch"), 1u);
    EXPECT_EQ(calls.at("cuLaunchKernel"), 0u);
  }
  EXPECT_EQ(replayedCalls(), before);
}

// An image forgotten between two identical calls (tilec_forget_fatbin):
// the second is checked and launched again, not replayed.
TEST_F(HostCost, AForgottenImageIsNotReplayed) {
  if (*mode())
    GTEST_SKIP() << "TILEC_MAMBA2_POINTER_CHECK is set";
  using tilec::mamba2::gpu::replayedCalls;
  CArguments args = arguments();
  makeGraph([&] { return args.forwardWithOptions(); });
  unsigned long long before = replayedCalls();
  EXPECT_MAMBA2_STATUS(args.forwardWithOptions(), TILEC_MAMBA2_SUCCESS);
  EXPECT_EQ(replayedCalls(), before + 1);
  const tilec_kernel *kernel = tilec_last_launched();
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(tilec_forget_fatbin(kernel->fatbin), TILEC_SUCCESS)
      << tilec_last_error();
  before = replayedCalls();
  auto calls = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forwardWithOptions(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(replayedCalls(), before);
  // The forgotten image is loaded again.
  EXPECT_GE(calls.at("cuModuleLoadData"), 1u);
}

// Other grids are another graph, built on their second call (the first
// launches the kernels one by one); the first problem's is still cached,
// with the parameters of its last call.
TEST_F(HostCostSucceeding, AnotherGridIsAnotherGraph) {
  CArguments args = arguments();
  makeGraph([&] { return args.forward(); });
  tilec_mamba2_problem longer = args.problem;
  longer.seqlen = 5 * args.problem.seqlen;
  CArguments other = CArguments::fake(longer);
  ASSERT_EQ(tilec_mamba2_workspace_size(&longer, &other.workspaceBytes),
            TILEC_MAMBA2_SUCCESS);
  other.workspace = args.workspace;
  for (int call = 0; call < 3; ++call) {
    SCOPED_TRACE("call " + std::to_string(call));
    auto calls = callsOf([&] {
      EXPECT_MAMBA2_STATUS(other.forward(), TILEC_MAMBA2_SUCCESS);
    });
    EXPECT_EQ(calls.at("cuLaunchKernel"), call == 0 ? kKernels : 0u);
    EXPECT_EQ(calls.at("cuGraphInstantiateWithFlags"), call == 1 ? 1u : 0u);
    EXPECT_EQ(calls.at("cuGraphAddKernelNode"), call == 1 ? kKernels : 0u);
    EXPECT_EQ(calls.at("cuGraphLaunch"), call == 0 ? 0u : 1u);
  }
  auto back = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(back.at("cuGraphInstantiateWithFlags"), 0u);
  EXPECT_EQ(back.at("cuGraphExecKernelNodeSetParams"), 0u);
  EXPECT_EQ(back.at("cuGraphLaunch"), 1u);
}

// A graph per stream: one graph launched on two streams would order each
// stream's work behind the other's.
TEST_F(HostCostSucceeding, AnotherStreamIsAnotherGraph) {
  CArguments args = arguments();
  makeGraph([&] { return args.forward(); });
  args.stream = reinterpret_cast<void *>(0x5000);
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  auto calls = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  });
  EXPECT_EQ(calls.at("cuGraphInstantiateWithFlags"), 1u);
  EXPECT_EQ(calls.at("cuGraphLaunch"), 1u);
}

// While the stream is being captured into the caller's graph, the kernels
// are launched one by one, as without a launch group: they become its
// nodes. The context is still asked for once.
TEST_F(HostCostSucceeding, ACapturedStreamGetsTheKernelsOneByOne) {
  CArguments args = arguments();
  makeGraph([&] { return args.forward(); });
  args.stream = reinterpret_cast<void *>(0x6000); // the driver's "capturing"
  for (int call = 0; call < 2; ++call) {
    auto calls = callsOf([&] {
      EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
    });
    EXPECT_EQ(calls.at("cuLaunchKernel"), kKernels);
    EXPECT_EQ(calls.at("cuGraphLaunch"), 0u);
    EXPECT_EQ(calls.at("cuGraphInstantiateWithFlags"), 0u);
    EXPECT_EQ(calls.at("cuCtxGetCurrent"), 1u);
    EXPECT_EQ(calls.at("cuCtxGetId"), 1u);
  }
}

TEST_F(HostCostSucceeding, WithGraphsOffTheKernelsGoOneByOne) {
  CArguments args = arguments();
  EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  tilec_set_launch_graphs(false);
  auto calls = callsOf([&] {
    EXPECT_MAMBA2_STATUS(args.forward(), TILEC_MAMBA2_SUCCESS);
  });
  tilec_set_launch_graphs(true);
  EXPECT_EQ(calls.at("cuLaunchKernel"), kKernels);
  EXPECT_EQ(calls.at("cuGraphLaunch"), 0u);
  EXPECT_EQ(calls.at("cuStreamIsCapturing"), 0u);
  EXPECT_EQ(calls.at("cuCtxGetCurrent"), 1u);
  EXPECT_EQ(calls.at("cuCtxGetId"), 1u);
  EXPECT_EQ(calls.at(""),
            2 + kKernels + calls.at("cuPointerGetAttributes"));
}

// At most 64 graphs per context: the least recently used one is destroyed
// for the 65th; it is built again when its kernels come back twice.
TEST_F(HostCostSucceeding, GraphsPerContextAreBounded) {
  makeContextCurrent(0x1300); // one of its own: no graph of other tests
  // The calls of two calls with `chunks` chunks.
  auto twice = [&](int64_t chunks) {
    CArguments args = arguments();
    args.problem.seqlen = chunks * args.problem.chunk;
    args = CArguments::fake(args.problem);
    EXPECT_EQ(tilec_mamba2_workspace_size(&args.problem,
                                          &args.workspaceBytes),
              TILEC_MAMBA2_SUCCESS);
    args.workspace = reinterpret_cast<void *>(uintptr_t(1) << 44);
    return callsOf([&] { makeGraph([&] { return args.forward(); }); });
  };
  for (int64_t chunks = 1; chunks <= 64; ++chunks) {
    auto calls = twice(chunks);
    EXPECT_EQ(calls.at("cuGraphInstantiateWithFlags"), 1u) << chunks;
    EXPECT_EQ(calls.at("cuGraphExecDestroy"), 0u) << chunks;
  }
  auto more = twice(65);
  EXPECT_EQ(more.at("cuGraphInstantiateWithFlags"), 1u);
  EXPECT_EQ(more.at("cuGraphExecDestroy"), 1u);
  auto first = twice(1);
  EXPECT_EQ(first.at("cuGraphInstantiateWithFlags"), 1u);
  EXPECT_EQ(first.at("cuGraphExecDestroy"), 1u);
  auto recent = twice(65);
  EXPECT_EQ(recent.at("cuGraphInstantiateWithFlags"), 0u);
  EXPECT_EQ(recent.at("cuGraphLaunch"), 2u);
  makeContextCurrent(kDefaultContext);
}

} // namespace
