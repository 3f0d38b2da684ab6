//===- LaunchGroup.cpp - a group of launches as one CUDA graph ------------===//
//
// A cuLaunchKernel costs the host about 4 µs on the H200 machine whatever
// the kernel's parameters; a four-kernel CUDA graph costs about 1.3 µs per
// cuGraphLaunch (bench/launch_cost). So a group records its launches (the
// function, grid, block, shared memory and a copy of the parameters, packed
// as the kernel takes them: cuFuncGetParamInfo), finds the executable graph
// of that sequence of kernels in the cache, updates the kernel nodes whose
// parameters differ from those the graph holds, and launches it. A sequence
// seen for the first time is built into a graph (a chain of kernel nodes)
// and instantiated when it comes the second time (the first time its
// kernels are launched one by one).
//
// The cache is keyed by context, stream and the kernels with their launch
// shapes: a graph launched on two streams would order them behind each
// other ("each launch is ordered behind ... any previous launches of
// hGraphExec"). Parameters are not part of the key: the node updates make
// any parameters right, and they only affect later launches of the graph,
// not those already enqueued. But an update costs about as much as a
// launch, so one sequence of shapes may have up to kVariants graphs, one
// per set of parameters that came back (a caller alternating between
// argument sets, as a model's layers do, finds each set's graph as it left
// it); parameters seen once update the least recently used one. One mutex
// guards the cache and is held from lookup to cuGraphLaunch, so that two
// threads never update one graph between the other's update and launch.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

using namespace tilec::runtime::detail;

namespace {

/// At most this many graphs per context; the least recently used goes.
constexpr size_t kGraphsPerContext = 64;

/// At most this many graphs of one sequence of launch shapes (with other
/// parameters each).
constexpr size_t kVariants = 4;

/// A sequence is built into a graph the second time it comes: building one
/// costs tens of µs, more than launching its kernels one by one, so
/// sequences that do not repeat (a new shape each call) must not pay it.
/// The sequences seen once, as hashes, the last kSeenOnce of them.
constexpr size_t kSeenOnce = 256;

/// A kernel launch's shape: what a graph's kernel node is built with and
/// cannot change by a parameter update.
struct LaunchShape {
  CUfunction function = nullptr;
  unsigned grid[3] = {1, 1, 1};
  unsigned block = 1;
  unsigned sharedBytes = 0;
  size_t paramBytes = 0;
  bool operator==(const LaunchShape &other) const {
    return function == other.function && grid[0] == other.grid[0] &&
           grid[1] == other.grid[1] && grid[2] == other.grid[2] &&
           block == other.block && sharedBytes == other.sharedBytes &&
           paramBytes == other.paramBytes;
  }
};

/// A launch recorded by a group: its parameters are bytes
/// [paramsBegin, paramsBegin + shape.paramBytes) of Group::params, laid out
/// as `layout` says.
struct RecordedLaunch {
  const tilec_kernel *kernel;
  LaunchShape shape;
  const ParamLayout *layout;
  size_t paramsBegin;
};

/// The calling thread's open group. Its vectors keep their capacity from
/// one group to the next: a group in the steady state allocates nothing.
struct Group {
  /// This thread's groups, numbered from 1.
  unsigned long long id = 0;
  /// `id` once the group ended with its launches recorded and enqueued as
  /// a graph (tilec_last_launch_group), 0 before.
  unsigned long long replayable = 0;
  /// forgottenImages when the group began.
  unsigned long long forgotten = 0;
  bool open = false;
  /// Whether launches are recorded for a graph; false: launched as they come.
  bool recording = false;
  CUstream stream = nullptr;
  unsigned long long context = 0;
  std::vector<RecordedLaunch> launches;
  std::vector<unsigned char> params;
  /// kernelParams for the driver: pointers into `params`.
  std::vector<void *> pointers;
};
thread_local Group group;

/// A kernel node of a cached graph and the parameters it holds.
struct CachedNode {
  LaunchShape shape;
  const void *fatbin;
  CUgraphNode node;
  std::vector<unsigned char> params;
};

struct CachedGraph {
  unsigned long long context;
  CUstream stream;
  CUgraph graph;
  CUgraphExec exec;
  std::vector<CachedNode> nodes;
  unsigned long long lastUse;
};

std::mutex graphsMutex;
std::vector<CachedGraph> graphs;
unsigned long long useClock = 0;
std::vector<size_t> seenOnce;
size_t nextSeen = 0;

/// Counts tilec_forget_fatbin calls: a group recorded before one may hold
/// unloaded functions, and is not replayed.
std::atomic<unsigned long long> forgottenImages{0};

/// Graphs on unless TILEC_LAUNCH_GRAPHS=0 (read once) or turned off.
std::atomic<int> graphsEnabled{-1};

bool graphsOn() {
  int enabled = graphsEnabled.load(std::memory_order_relaxed);
  if (enabled < 0) {
    const char *value = std::getenv("TILEC_LAUNCH_GRAPHS");
    enabled = value && !std::strcmp(value, "0") ? 0 : 1;
    int unset = -1;
    graphsEnabled.compare_exchange_strong(unset, enabled);
    enabled = graphsEnabled.load(std::memory_order_relaxed);
  }
  return enabled == 1 && driver.hasGraphs;
}

/// The kernels of the group, "a, b, c", for errors.
std::string groupKernels() {
  std::string names;
  for (const RecordedLaunch &launch : group.launches)
    names += (names.empty() ? "" : ", ") + std::string(launch.kernel->name);
  return names;
}

/// Points group.pointers at each parameter of `launch` in group.params.
void **kernelParams(const RecordedLaunch &launch) {
  group.pointers.clear();
  for (auto [offset, size] : launch.layout->params)
    group.pointers.push_back(group.params.data() + launch.paramsBegin +
                             offset);
  return group.pointers.data();
}

CUDA_KERNEL_NODE_PARAMS_v2 nodeParams(const LaunchShape &shape,
                                      void **params) {
  CUDA_KERNEL_NODE_PARAMS_v2 p{};
  p.func = shape.function;
  p.gridDimX = shape.grid[0];
  p.gridDimY = shape.grid[1];
  p.gridDimZ = shape.grid[2];
  p.blockDimX = shape.block;
  p.blockDimY = 1;
  p.blockDimZ = 1;
  p.sharedMemBytes = shape.sharedBytes;
  p.kernelParams = params;
  return p;
}

CUresult launchOne(const LaunchShape &shape, CUstream stream, void **params) {
  return driver.launchKernel(shape.function, shape.grid[0], shape.grid[1],
                             shape.grid[2], shape.block, 1, 1,
                             shape.sharedBytes, stream, params, nullptr);
}

/// Launches the recorded launches one by one (a graph could not be made).
tilec_status launchRecorded() {
  for (const RecordedLaunch &launch : group.launches)
    if (CUresult result =
            launchOne(launch.shape, group.stream, kernelParams(launch)))
      return failDriver(result, "cuLaunchKernel", launch.kernel->name);
  return TILEC_SUCCESS;
}

void destroy(CachedGraph &cached) {
  driver.graphExecDestroy(cached.exec);
  driver.graphDestroy(cached.graph);
}

/// Whether `cached` is a graph of the group's context, stream and launch
/// shapes.
bool sameShapes(const CachedGraph &cached) {
  if (cached.context != group.context || cached.stream != group.stream ||
      cached.nodes.size() != group.launches.size())
    return false;
  for (size_t i = 0; i < cached.nodes.size(); ++i)
    if (!(cached.nodes[i].shape == group.launches[i].shape))
      return false;
  return true;
}

/// Whether every node of `cached` (of the group's shapes) holds the
/// group's parameters.
bool sameParams(const CachedGraph &cached) {
  for (size_t i = 0; i < cached.nodes.size(); ++i)
    if (std::memcmp(cached.nodes[i].params.data(),
                    group.params.data() + group.launches[i].paramsBegin,
                    group.launches[i].shape.paramBytes))
      return false;
  return true;
}

/// The cached graphs of the group's launch shapes: the one holding its
/// parameters, if any, the least recently used one, and how many there are.
/// graphsMutex held.
struct Candidates {
  CachedGraph *exact = nullptr, *oldest = nullptr;
  size_t count = 0;
};
Candidates findGraphs() {
  Candidates found;
  for (CachedGraph &cached : graphs) {
    if (!sameShapes(cached))
      continue;
    ++found.count;
    if (!found.exact && sameParams(cached))
      found.exact = &cached;
    if (!found.oldest || cached.lastUse < found.oldest->lastUse)
      found.oldest = &cached;
  }
  return found;
}

/// The hash of the group's context, stream and launch shapes.
size_t groupHash() {
  std::hash<unsigned long long> hashWord;
  size_t h = hashWord(group.context) * 31 +
             hashWord(reinterpret_cast<uintptr_t>(group.stream));
  for (const RecordedLaunch &launch : group.launches) {
    const LaunchShape &shape = launch.shape;
    for (unsigned long long word :
         {(unsigned long long)reinterpret_cast<uintptr_t>(shape.function),
          (unsigned long long)shape.grid[0], (unsigned long long)shape.grid[1],
          (unsigned long long)shape.grid[2], (unsigned long long)shape.block,
          (unsigned long long)shape.sharedBytes,
          (unsigned long long)shape.paramBytes})
      h = h * 31 + hashWord(word);
  }
  return h;
}

/// The hash of the group's launch shapes and parameters.
size_t paramsHash() {
  size_t h = groupHash();
  std::hash<std::string_view> hashBytes;
  return h * 31 +
         hashBytes(std::string_view(
             reinterpret_cast<const char *>(group.params.data()),
             group.params.size()));
}

/// Whether `hash` came before (a sequence, or a sequence with its
/// parameters: worth a graph); remembers it otherwise. graphsMutex held.
bool seenBefore(size_t hash) {
  for (size_t seen : seenOnce)
    if (seen == hash)
      return true;
  if (seenOnce.size() < kSeenOnce)
    seenOnce.push_back(hash);
  else
    seenOnce[nextSeen++ % kSeenOnce] = hash;
  return false;
}

/// Builds and instantiates the graph of the group's launches, evicting the
/// context's least recently used graph when it has kGraphsPerContext; null
/// when the driver refuses (the group then launches one by one).
/// graphsMutex held.
CachedGraph *buildGraph() {
  CachedGraph made{group.context, group.stream, nullptr, nullptr, {}, 0};
  if (driver.graphCreate(&made.graph, 0) != CUDA_SUCCESS)
    return nullptr;
  CUgraphNode previous = nullptr;
  for (const RecordedLaunch &launch : group.launches) {
    CUDA_KERNEL_NODE_PARAMS_v2 params =
        nodeParams(launch.shape, kernelParams(launch));
    CUgraphNode node = nullptr;
    if (driver.graphAddKernelNode(&node, made.graph, previous ? &previous
                                                              : nullptr,
                                  previous ? 1 : 0, &params) != CUDA_SUCCESS) {
      driver.graphDestroy(made.graph);
      return nullptr;
    }
    const unsigned char *bytes = group.params.data() + launch.paramsBegin;
    made.nodes.push_back({launch.shape, launch.kernel->fatbin, node,
                          {bytes, bytes + launch.shape.paramBytes}});
    previous = node;
  }
  if (driver.graphInstantiate(&made.exec, made.graph, 0) != CUDA_SUCCESS) {
    driver.graphDestroy(made.graph);
    return nullptr;
  }
  size_t inContext = 0;
  CachedGraph *oldest = nullptr;
  for (CachedGraph &cached : graphs)
    if (cached.context == group.context) {
      ++inContext;
      if (!oldest || cached.lastUse < oldest->lastUse)
        oldest = &cached;
    }
  if (inContext >= kGraphsPerContext) {
    // An evicted graph still running is freed when it completes.
    destroy(*oldest);
    *oldest = std::move(made);
    return oldest;
  }
  graphs.push_back(std::move(made));
  return &graphs.back();
}

/// Replays the recorded launches through a cached graph: the one that
/// holds their parameters; else a new one, when these parameters came
/// before and the shapes have fewer than kVariants graphs (callers that
/// alternate between argument sets, a model's layers, get a graph each);
/// else the least recently used one of the shapes, its nodes updated.
tilec_status replayGroup() {
  std::lock_guard<std::mutex> lock(graphsMutex);
  const Candidates found = findGraphs();
  CachedGraph *cached = found.exact;
  if (!cached) {
    // Both remembered, so that parameters seen once come back as repeats.
    const bool shapesBefore = seenBefore(groupHash());
    const bool paramsBefore = seenBefore(paramsHash());
    if (found.count == 0 ? shapesBefore
                         : paramsBefore && found.count < kVariants)
      cached = buildGraph();
    else
      cached = found.oldest;
  }
  if (!cached)
    return launchRecorded();
  cached->lastUse = ++useClock;
  for (size_t i = 0; i < cached->nodes.size(); ++i) {
    const RecordedLaunch &launch = group.launches[i];
    CachedNode &node = cached->nodes[i];
    const unsigned char *bytes = group.params.data() + launch.paramsBegin;
    if (!std::memcmp(node.params.data(), bytes, launch.shape.paramBytes))
      continue;
    CUDA_KERNEL_NODE_PARAMS_v2 params =
        nodeParams(launch.shape, kernelParams(launch));
    if (driver.graphExecKernelNodeSetParams(cached->exec, node.node,
                                            &params) != CUDA_SUCCESS) {
      // Nodes updated before this one already hold the new parameters: the
      // graph no longer matches what `nodes` says. Drop it.
      destroy(*cached);
      graphs.erase(graphs.begin() + (cached - graphs.data()));
      return launchRecorded();
    }
    std::memcpy(node.params.data(), bytes, launch.shape.paramBytes);
  }
  if (CUresult result = driver.graphLaunch(cached->exec, group.stream))
    return failDriver(result,
                      ("cuGraphLaunch of " + groupKernels()).c_str(),
                      nullptr);
  return TILEC_SUCCESS;
}

/// Launches what was recorded so far one by one and stops recording: a
/// kernel whose parameters cannot be copied joined the group.
tilec_status stopRecording() {
  group.recording = false;
  tilec_status status = launchRecorded();
  group.launches.clear();
  return status;
}

} // namespace

bool tilec::runtime::detail::inLaunchGroup() { return group.open; }

tilec_status tilec::runtime::detail::launchInGroup(const tilec_kernel &kernel,
                                                   tilec_grid grid,
                                                   CUstream stream,
                                                   void **args) {
  // A failed launch ends the group, as documented in Runtime.h.
  auto failed = [](tilec_status status) {
    group.open = false;
    return status;
  };
  if (stream != group.stream)
    return failed(fail(TILEC_ERROR_INVALID_ARGUMENT,
                       "tilec: %s: launched on another stream than its launch "
                       "group's",
                       kernel.name));
  CUfunction function = nullptr;
  const ParamLayout *layout = nullptr;
  if (tilec_status status =
          functionIn(kernel, group.context, function, layout))
    return failed(status);
  LaunchShape shape;
  shape.function = function;
  shape.grid[0] = unsigned(grid.x);
  shape.grid[1] = unsigned(grid.y);
  shape.grid[2] = unsigned(grid.z);
  shape.block = kernel.block_threads;
  shape.sharedBytes = unsigned(kernel.shared_bytes);
  if (group.recording && (!layout->known || (!args && !layout->params.empty())))
    if (tilec_status status = stopRecording())
      return failed(status);
  if (!group.recording) {
    if (CUresult result = launchOne(shape, stream, args))
      return failed(failDriver(result, "cuLaunchKernel", kernel.name));
    setLastLaunched(&kernel);
    return TILEC_SUCCESS;
  }
  shape.paramBytes = layout->bytes;
  const size_t begin = group.params.size();
  group.params.resize(begin + layout->bytes);
  for (size_t i = 0; i < layout->params.size(); ++i)
    std::memcpy(group.params.data() + begin + layout->params[i].first,
                args[i], layout->params[i].second);
  group.launches.push_back({&kernel, shape, layout, begin});
  setLastLaunched(&kernel);
  return TILEC_SUCCESS;
}

void tilec::runtime::detail::forgetGraphsOf(const void *fatbin,
                                            bool hasCurrent,
                                            unsigned long long current) {
  forgottenImages.fetch_add(1, std::memory_order_acq_rel);
  std::lock_guard<std::mutex> lock(graphsMutex);
  for (size_t i = 0; i < graphs.size();) {
    bool uses = false;
    for (const CachedNode &node : graphs[i].nodes)
      uses |= node.fatbin == fatbin;
    if (!uses) {
      ++i;
      continue;
    }
    // Another context's graph may outlive its context: only the current
    // one's handles are known to be alive.
    if (hasCurrent && graphs[i].context == current)
      destroy(graphs[i]);
    graphs.erase(graphs.begin() + i);
  }
}

extern "C" {

tilec_status tilec_begin_launch_group(CUstream stream,
                                      unsigned long long *context_id) {
  if (group.open)
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec: a launch group is already open on this thread");
  unsigned long long context = 0;
  if (tilec_status status = currentContextId(nullptr, context))
    return status;
  group.open = true;
  ++group.id;
  group.replayable = 0;
  group.forgotten = forgottenImages.load(std::memory_order_acquire);
  group.stream = stream;
  group.context = context;
  group.launches.clear();
  group.params.clear();
  // Kernels launched into a stream being captured become nodes of the
  // user's graph, as they would without the group.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  group.recording = graphsOn() &&
                    driver.streamIsCapturing(stream, &capture) ==
                        CUDA_SUCCESS &&
                    capture == CU_STREAM_CAPTURE_STATUS_NONE;
  if (context_id)
    *context_id = context;
  return TILEC_SUCCESS;
}

tilec_status tilec_end_launch_group(void) {
  if (!group.open)
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec: tilec_end_launch_group without an open launch group "
                "on this thread");
  group.open = false;
  if (!group.recording || group.launches.empty())
    return TILEC_SUCCESS;
  tilec_status status = replayGroup();
  if (status == TILEC_SUCCESS)
    group.replayable = group.id;
  return status;
}

void tilec_cancel_launch_group(void) { group.open = false; }

unsigned long long tilec_last_launch_group(void) { return group.replayable; }

tilec_status tilec_replay_launch_group(CUstream stream,
                                       unsigned long long group_id,
                                       bool *replayed) {
  if (!replayed)
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec: tilec_replay_launch_group needs a result");
  *replayed = false;
  if (group.open || !group_id || group.replayable != group_id ||
      stream != group.stream || !graphsOn() ||
      forgottenImages.load(std::memory_order_acquire) != group.forgotten)
    return TILEC_SUCCESS;
  unsigned long long context = 0;
  if (tilec_status status = currentContextId(nullptr, context))
    return status;
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (context != group.context ||
      driver.streamIsCapturing(stream, &capture) != CUDA_SUCCESS ||
      capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return TILEC_SUCCESS;
  *replayed = true;
  group.replayable = 0;
  tilec_status status = replayGroup();
  if (status == TILEC_SUCCESS) {
    group.replayable = group_id;
    setLastLaunched(group.launches.back().kernel);
  }
  return status;
}

void tilec_set_launch_graphs(bool enabled) {
  graphsEnabled.store(enabled ? 1 : 0, std::memory_order_relaxed);
}

} // extern "C"
