//===- launch_cost.cpp - host time of one kernel launch --------*- C++ -*-===//
//
// launch_cost [--calls N] [--batches K]
//
// Where a Mamba-2 forward's host time goes on the GPU machine: the library
// itself costs 1-2 µs (mamba2_host_cost on the counting stand-in driver),
// the rest is its four cuLaunchKernel. This times launches of an empty
// kernel (PTX JIT compiled here, so no kernel library is needed) with what
// may make a launch cost more: the parameter count (1, and 95 eight-byte
// parameters, compute_out's 11 views and 2 scalars as the kernel ABI passes
// them: pointer, sizes and strides per view), passing them as an array of
// pointers (kernelParams, what tilec_launch does) or as one packed buffer
// (CU_LAUNCH_PARAM_BUFFER_POINTER), the legacy default stream against a
// non-blocking one, tilec_launch against the bare driver call, and four
// launches replayed as one CUDA graph (cuGraphLaunch), the forward's
// structure, also with one or all four of its nodes' parameters set before
// each launch (cuGraphExecKernelNodeSetParams), and four tilec_launch calls
// with and without a launch group of the runtime (which records them and
// replays its cached graph, updating nodes whose parameters changed).
// Batches of N launches with no synchronization inside (the stream is
// synchronized between batches, outside the timed loop); µs per launch (per
// graph or group of four for the rows of four), median over K batches.
//
// Exits 77 without a driver or device.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/DriverApi.h"
#include "tilec/Runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

/// compute_out's parameters as they were before bmm_chunk took C B^T out of
/// it (now CB, rank 5, in B's place: 2 words more): its 11 views (x, B, C,
/// dt, G, z, y, y_bf16 of rank 4, D and seq_idx of rank 2, states of rank 5)
/// are a pointer, the sizes and the strides each, 93 words, and its 2
/// scalars (4 bytes each, widened here to 8).
constexpr int kManyParams = 95;

/// Driver entry points beyond DriverApi's, at the ABI of this cuda.h.
struct Entries {
  decltype(&::cuModuleLoadData) moduleLoadData = nullptr;
  decltype(&::cuModuleGetFunction) moduleGetFunction = nullptr;
  decltype(&::cuLaunchKernel) launchKernel = nullptr;
  decltype(&::cuStreamCreate) streamCreate = nullptr;
  decltype(&::cuStreamBeginCapture) beginCapture = nullptr;
  decltype(&::cuStreamEndCapture) endCapture = nullptr;
  decltype(&::cuGraphInstantiateWithFlags) graphInstantiate = nullptr;
  decltype(&::cuGraphLaunch) graphLaunch = nullptr;
  decltype(&::cuGraphCreate) graphCreate = nullptr;
  decltype(&::cuGraphAddKernelNode) graphAddKernelNode = nullptr;
  decltype(&::cuGraphExecKernelNodeSetParams) graphExecKernelNodeSetParams =
      nullptr;

  bool load() {
    return entry("cuModuleLoadData", moduleLoadData) &&
           entry("cuModuleGetFunction", moduleGetFunction) &&
           entry("cuLaunchKernel", launchKernel) &&
           entry("cuStreamCreate", streamCreate) &&
           entry("cuStreamBeginCapture", beginCapture) &&
           entry("cuStreamEndCapture", endCapture) &&
           entry("cuGraphInstantiateWithFlags", graphInstantiate) &&
           entry("cuGraphLaunch", graphLaunch) &&
           entry("cuGraphCreate", graphCreate) &&
           entry("cuGraphAddKernelNode", graphAddKernelNode) &&
           entry("cuGraphExecKernelNodeSetParams",
                 graphExecKernelNodeSetParams);
  }

private:
  template <typename F> static bool entry(const char *name, F &function) {
    void *p = nullptr;
    if (tilec_driver_entry_point(name, &p) != TILEC_SUCCESS)
      return false;
    function = reinterpret_cast<F>(p);
    return true;
  }
};

/// An empty kernel `name` with `params` .u64 parameters.
std::string emptyKernel(const std::string &name, int params) {
  std::string ptx = ".visible .entry " + name + "(";
  for (int i = 0; i < params; ++i)
    ptx += (i ? ", .param .u64 p" : ".param .u64 p") + std::to_string(i);
  return ptx + ")\n{\n  ret;\n}\n";
}

double medianMicroseconds(int calls, int batches,
                          const std::function<void()> &launch,
                          const std::function<void()> &synchronize) {
  launch();
  synchronize();
  std::vector<double> times;
  for (int b = 0; b < batches; ++b) {
    Clock::time_point start = Clock::now();
    for (int i = 0; i < calls; ++i)
      launch();
    times.push_back(
        std::chrono::duration<double, std::micro>(Clock::now() - start)
            .count() /
        calls);
    synchronize();
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  int calls = 64, batches = 15;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--calls")
      calls = std::atoi(argv[i + 1]);
    else if (flag == "--batches")
      batches = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: launch_cost [--calls N] [--batches K]\n");
      return 2;
    }
  }
  if (calls < 1 || batches < 1) {
    std::fprintf(stderr, "launch_cost: --calls and --batches must be "
                         "positive\n");
    return 2;
  }
  tilec::runtime::DriverApi d;
  if (tilec_status status = d.load()) {
    std::printf("launch_cost: %s\n", d.error().c_str());
    return status == TILEC_ERROR_NO_DRIVER || status == TILEC_ERROR_NO_DEVICE
               ? 77
               : 1;
  }
  Entries e;
  if (!e.load()) {
    std::printf("launch_cost: %s\n", tilec_last_error());
    return 1;
  }
  auto check = [&](CUresult result, const char *what) {
    if (result != CUDA_SUCCESS) {
      std::fprintf(stderr, "launch_cost: %s failed: %s\n", what,
                   d.errorName(result));
      std::exit(1);
    }
  };

  // Both kernels in one module; tilec_launch loads the same text as its
  // image (cuModuleLoadData takes PTX as well as a fatbin).
  static const std::string ptx =
      ".version 8.0\n.target sm_80\n.address_size 64\n" +
      emptyKernel("empty_1", 1) + emptyKernel("empty_many", kManyParams);
  CUmodule module = nullptr;
  check(e.moduleLoadData(&module, ptx.c_str()), "cuModuleLoadData");
  CUfunction one = nullptr, many = nullptr;
  check(e.moduleGetFunction(&one, module, "empty_1"), "cuModuleGetFunction");
  check(e.moduleGetFunction(&many, module, "empty_many"),
        "cuModuleGetFunction");
  CUstream own = nullptr;
  check(e.streamCreate(&own, CU_STREAM_NON_BLOCKING), "cuStreamCreate");

  std::vector<uint64_t> values(kManyParams);
  for (int i = 0; i < kManyParams; ++i)
    values[i] = uint64_t(i) * 64;
  std::vector<void *> pointers(kManyParams);
  for (int i = 0; i < kManyParams; ++i)
    pointers[i] = &values[i];
  size_t bufferBytes = values.size() * sizeof(uint64_t);
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, values.data(),
                   CU_LAUNCH_PARAM_BUFFER_SIZE, &bufferBytes,
                   CU_LAUNCH_PARAM_END};
  const tilec_kernel descriptor = {ptx.c_str(), "empty_many", 256, 0};

  auto launch = [&](CUfunction f, CUstream stream, void **params,
                    void **extraParams) {
    check(e.launchKernel(f, 1, 1, 1, 256, 1, 1, 0, stream, params,
                         extraParams),
          "cuLaunchKernel");
  };
  auto sync = [&](CUstream stream) {
    return [&d, &check, stream] {
      check(d.streamSynchronize(stream), "cuStreamSynchronize");
    };
  };

  // Four launches of the many-parameter kernel as one graph.
  CUgraphExec graph = nullptr;
  {
    check(e.beginCapture(own, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
          "cuStreamBeginCapture");
    for (int k = 0; k < 4; ++k)
      launch(many, own, pointers.data(), nullptr);
    CUgraph captured = nullptr;
    check(e.endCapture(own, &captured), "cuStreamEndCapture");
    check(e.graphInstantiate(&graph, captured, 0), "cuGraphInstantiate");
  }

  // The same four launches as a graph built node by node, whose nodes'
  // parameters are set before each launch (what a cached graph of the
  // runtime's launch groups does when a call's pointers change): half the
  // calls with one set of values, half with another, so that every update
  // changes them.
  std::vector<uint64_t> otherValues(kManyParams);
  std::vector<void *> otherPointers(kManyParams);
  for (int i = 0; i < kManyParams; ++i) {
    otherValues[i] = uint64_t(i) * 64 + 4096;
    otherPointers[i] = &otherValues[i];
  }
  auto nodeParams = [&](void **params) {
    CUDA_KERNEL_NODE_PARAMS p{};
    p.func = many;
    p.gridDimX = p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = 256;
    p.blockDimY = p.blockDimZ = 1;
    p.kernelParams = params;
    return p;
  };
  CUgraphExec updatable = nullptr;
  CUgraphNode nodes[4] = {};
  {
    CUgraph built = nullptr;
    check(e.graphCreate(&built, 0), "cuGraphCreate");
    for (int k = 0; k < 4; ++k) {
      CUDA_KERNEL_NODE_PARAMS p = nodeParams(pointers.data());
      check(e.graphAddKernelNode(&nodes[k], built, k ? &nodes[k - 1] : nullptr,
                                 k ? 1 : 0, &p),
            "cuGraphAddKernelNode");
    }
    check(e.graphInstantiate(&updatable, built, 0), "cuGraphInstantiate");
  }
  // One launch as a graph: what the decode step's launch group replays.
  CUgraphExec single = nullptr;
  {
    CUgraph built = nullptr;
    CUgraphNode node = nullptr;
    check(e.graphCreate(&built, 0), "cuGraphCreate");
    CUDA_KERNEL_NODE_PARAMS p = nodeParams(pointers.data());
    check(e.graphAddKernelNode(&node, built, nullptr, 0, &p),
          "cuGraphAddKernelNode");
    check(e.graphInstantiate(&single, built, 0), "cuGraphInstantiate");
  }
  bool flip = false;
  auto updatedLaunch = [&](int updatedNodes) {
    flip = !flip;
    CUDA_KERNEL_NODE_PARAMS p =
        nodeParams(flip ? otherPointers.data() : pointers.data());
    for (int k = 0; k < updatedNodes; ++k)
      check(e.graphExecKernelNodeSetParams(updatable, nodes[k], &p),
            "cuGraphExecKernelNodeSetParams");
    check(e.graphLaunch(updatable, own), "cuGraphLaunch");
  };
  // Four tilec_launch calls in a launch group (Runtime.h): the runtime's
  // own cost of recording them and replaying its cached graph.
  auto group = [&](bool changing) {
    flip = !flip;
    void **params =
        changing && flip ? otherPointers.data() : pointers.data();
    if (tilec_begin_launch_group(own, nullptr))
      check(CUDA_ERROR_UNKNOWN, tilec_last_error());
    for (int k = 0; k < 4; ++k)
      if (tilec_launch(&descriptor, {1, 1, 1}, own, params))
        check(CUDA_ERROR_UNKNOWN, tilec_last_error());
    if (tilec_end_launch_group())
      check(CUDA_ERROR_UNKNOWN, tilec_last_error());
  };

  struct Row {
    const char *what;
    std::function<void()> launch;
    std::function<void()> synchronize;
  };
  const tilec_grid grid = {1, 1, 1};
  const Row rows[] = {
      {"1 parameter, default stream",
       [&] { void *p[] = {&values[0]}; launch(one, nullptr, p, nullptr); },
       sync(nullptr)},
      {"1 parameter, own stream",
       [&] { void *p[] = {&values[0]}; launch(one, own, p, nullptr); },
       sync(own)},
      {"95 parameters, kernelParams, default stream",
       [&] { launch(many, nullptr, pointers.data(), nullptr); },
       sync(nullptr)},
      {"95 parameters, kernelParams, own stream",
       [&] { launch(many, own, pointers.data(), nullptr); }, sync(own)},
      {"95 parameters, one buffer (extra), default stream",
       [&] { launch(many, nullptr, nullptr, extra); }, sync(nullptr)},
      {"95 parameters, one buffer (extra), own stream",
       [&] { launch(many, own, nullptr, extra); }, sync(own)},
      {"95 parameters, tilec_launch, default stream",
       [&] {
         if (tilec_launch(&descriptor, grid, nullptr, pointers.data()))
           check(CUDA_ERROR_UNKNOWN, tilec_last_error());
       },
       sync(nullptr)},
      {"4 x 95 parameters as one graph (per graph), own stream",
       [&] { check(e.graphLaunch(graph, own), "cuGraphLaunch"); }, sync(own)},
      {"1 x 95 parameters as a graph (per graph), own stream",
       [&] { check(e.graphLaunch(single, own), "cuGraphLaunch"); }, sync(own)},
      {"the graph, 1 node's parameters set per launch, own stream",
       [&] { updatedLaunch(1); }, sync(own)},
      {"the graph, 4 nodes' parameters set per launch, own stream",
       [&] { updatedLaunch(4); }, sync(own)},
      {"4 x tilec_launch in a launch group, same parameters, own stream",
       [&] { group(false); }, sync(own)},
      {"4 x tilec_launch in a launch group, new parameters, own stream",
       [&] { group(true); }, sync(own)},
      {"4 x tilec_launch without a group, own stream",
       [&] {
         for (int k = 0; k < 4; ++k)
           if (tilec_launch(&descriptor, grid, own, pointers.data()))
             check(CUDA_ERROR_UNKNOWN, tilec_last_error());
       },
       sync(own)},
  };
  std::printf("%d batches of %d launches, no synchronization inside a "
              "batch; µs per launch, median over the batches\n",
              batches, calls);
  for (const Row &row : rows)
    std::printf("  %-66s %8.2f\n", row.what,
                medianMicroseconds(calls, batches, row.launch,
                                   row.synchronize));
  return 0;
}
