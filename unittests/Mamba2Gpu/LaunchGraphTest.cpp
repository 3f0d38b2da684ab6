//===- LaunchGraphTest.cpp - the forward as one CUDA graph -----*- C++ -*-===//
//
// forwardGpu enqueues its kernels as a launch group of the runtime, which
// replays them as one cached CUDA graph (made on the second call of a
// sequence of launches) and updates the kernel nodes whose parameters
// changed (lib/Runtime/LaunchGroup.cpp). Against the same call
// with the graphs turned off (tilec_set_launch_graphs: one cuLaunchKernel
// per kernel): bitwise the same outputs (the kernels are deterministic: the
// same launches in the same order), on the first call (the graph is built)
// and on later ones (the cached graph), and no stale arguments when the
// tensors move or the shape changes, with the grids (another graph) or
// without (the same graph, updated). Every output also matches the f64
// recurrence. Fresh random inputs per run (the seed is printed).
//
//===----------------------------------------------------------------------===//

#include "GpuTesting.h"

#include "../Support/TestSeed.h"
#include "tilec/Runtime/Runtime.h"

#include <cstring>
#include <vector>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

class LaunchGraphTest : public GpuStreamTest {
protected:
  void TearDown() override {
    tilec_set_launch_graphs(true);
    GpuStreamTest::TearDown();
  }

  /// y and the final state of one forward call on `device` (poisoned
  /// first), with the graphs of launch groups on or off; checked against
  /// the f64 recurrence.
  void run(const Problem &p, HostProblem &host, DeviceProblem &device,
           bool graphs, std::vector<float> &y,
           std::vector<float> &finalState) {
    SCOPED_TRACE(graphs ? "as one graph" : "one launch per kernel");
    tilec_set_launch_graphs(graphs);
    ASSERT_TRUE(device.poisonOutputs());
    Status status = forwardGpu(p, device.inputs(true), device.outputs(),
                               GpuOptions{}, stream);
    ASSERT_TRUE(status.ok()) << status.message();
    TILEC_CU_ASSERT(cu().streamSynchronize(stream));
    ASSERT_TRUE(device.checkGuards());
    ASSERT_TRUE(device.download());
    ASSERT_TRUE(matchesReference(host, true));
    y = host.y;
    finalState = host.finalState;
  }

  /// Runs `p` on fresh inputs with the graphs off, then twice with them on
  /// (a sequence of launches becomes a graph on its second call, unless its
  /// graph is cached already), and expects the same bits each time.
  void expectGraphMatchesPlain(const Problem &p, const char *what) {
    SCOPED_TRACE(what);
    const uint64_t seed = tilec::testing::testSeed();
    SCOPED_TRACE(tilec::testing::seedTrace(seed));
    HostProblem host = HostProblem::random(p, seed);
    DeviceProblem device(cu(), host);
    ASSERT_TRUE(device.ok());
    ASSERT_TRUE(device.upload());
    std::vector<float> plainY, plainFinal, graphY, graphFinal;
    run(p, host, device, false, plainY, plainFinal);
    ASSERT_FALSE(HasFatalFailure());
    for (int call = 0; call < 2; ++call) {
      SCOPED_TRACE("call " + std::to_string(call));
      run(p, host, device, true, graphY, graphFinal);
      ASSERT_FALSE(HasFatalFailure());
      expectSameBits(plainY, graphY, "y");
      expectSameBits(plainFinal, graphFinal, "final state");
    }
  }

  static void expectSameBits(const std::vector<float> &a,
                             const std::vector<float> &b, const char *name) {
    ASSERT_EQ(a.size(), b.size()) << name;
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0)
        << name << " differs between the graph and the plain launches";
  }
};

const Problem kProblem = Shape{2, 300, 2, 4, 48, 32, 64}.problem();

TEST_F(LaunchGraphTest, FirstAndCachedGraphMatchPlainLaunches) {
  // The first run of the shape builds its graph, the next ones replay it:
  // with the same tensors (no update) and with new ones (updated nodes).
  expectGraphMatchesPlain(kProblem, "first");
  expectGraphMatchesPlain(kProblem, "cached, new tensors");
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(kProblem, seed);
  DeviceProblem device(cu(), host);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload());
  std::vector<float> y[4], finalState[4];
  run(kProblem, host, device, false, y[0], finalState[0]);
  ASSERT_FALSE(HasFatalFailure());
  for (int i = 1; i < 4; ++i) {
    SCOPED_TRACE("replay " + std::to_string(i));
    run(kProblem, host, device, true, y[i], finalState[i]);
    ASSERT_FALSE(HasFatalFailure());
    expectSameBits(y[0], y[i], "y");
    expectSameBits(finalState[0], finalState[i], "final state");
  }
}

// Two sets of tensors of one shape, called alternately: each call runs on
// its own tensors, never on those the cached graph held before.
TEST_F(LaunchGraphTest, MovedTensorsAreNotServedAStaleGraph) {
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem first = HostProblem::random(kProblem, seed);
  HostProblem second = HostProblem::random(kProblem, seed + 1);
  DeviceProblem firstDevice(cu(), first), secondDevice(cu(), second);
  ASSERT_TRUE(firstDevice.ok() && secondDevice.ok());
  ASSERT_TRUE(firstDevice.upload());
  ASSERT_TRUE(secondDevice.upload());
  std::vector<float> plain[2][2], graph[2][2];
  run(kProblem, first, firstDevice, false, plain[0][0], plain[0][1]);
  ASSERT_FALSE(HasFatalFailure());
  run(kProblem, second, secondDevice, false, plain[1][0], plain[1][1]);
  ASSERT_FALSE(HasFatalFailure());
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    run(kProblem, first, firstDevice, true, graph[0][0], graph[0][1]);
    ASSERT_FALSE(HasFatalFailure());
    run(kProblem, second, secondDevice, true, graph[1][0], graph[1][1]);
    ASSERT_FALSE(HasFatalFailure());
    for (int set = 0; set < 2; ++set) {
      SCOPED_TRACE(set ? "second tensors" : "first tensors");
      expectSameBits(plain[set][0], graph[set][0], "y");
      expectSameBits(plain[set][1], graph[set][1], "final state");
    }
  }
}

// seqlen 300 and 290 at chunk 64 have the same five chunks, so the same
// grids and the same cached graph: the second call updates its nodes'
// shapes. 600 has other grids: another graph. Back to 300: the first graph,
// updated again.
TEST_F(LaunchGraphTest, ChangedShapesAreNotServedAStaleGraph) {
  for (int64_t seqlen : {300, 290, 600, 300}) {
    Problem p = kProblem;
    p.seqlen = seqlen;
    expectGraphMatchesPlain(p, ("seqlen " + std::to_string(seqlen)).c_str());
    ASSERT_FALSE(HasFatalFailure());
  }
}

} // namespace
