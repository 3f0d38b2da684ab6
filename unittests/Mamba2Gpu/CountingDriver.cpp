//===- CountingDriver.cpp - a CUDA driver that counts its calls -*- C++ -*-===//
//
// A stand-in for libcuda.so.1 that HostCostTest points the runtime at: it
// answers every entry point the runtime and the Mamba-2 library resolve
// without a GPU, and counts each call, so that a test on the CPU can check
// how many driver calls a forward pass makes (bench/mamba2_host_cost runs on
// it too, timing the library without a driver). tilec_counting_driver_calls
// (found with dlsym) reads a count, also of the launches of one kernel by
// name (which variant a launcher chose).
//
// Its memory: addresses in [2^40, 2^45) are device memory (below where
// Linux puts a process's heap, mappings and stack), in allocation
// ranges of 4 GiB aligned on 4 GiB (CArguments::fake puts each tensor in
// its own); cuMemAllocHost hands out pinned host memory; every other
// address is memory the driver does not know. Modules, functions,
// contexts (any pointer cuCtxSetCurrent is given; its id is its value),
// streams and graphs are tokens; launches do nothing. A graph launch counts
// as a launch of each of its kernels (by name), not as cuLaunchKernel.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

std::mutex countsMutex;
std::map<std::string, unsigned long long> counts;
std::set<uintptr_t> pinned; // cuMemAllocHost's allocations, 4 KiB each

void count(const char *symbol) {
  std::lock_guard<std::mutex> lock(countsMutex);
  ++counts[symbol];
}

constexpr uintptr_t kDeviceStart = uintptr_t(1) << 40;
constexpr uintptr_t kDeviceEnd = uintptr_t(1) << 45;
constexpr uintptr_t kRangeSize = uintptr_t(1) << 32;
constexpr size_t kPinnedSize = 4096;

/// Where cuMemAllocAsync's next allocation goes, past CArguments::fake's.
uintptr_t nextDevice = uintptr_t(3) << 43;

CUresult init(unsigned) { return count("cuInit"), CUDA_SUCCESS; }
CUresult errorName(CUresult result, const char **name) {
  count("cuGetErrorName");
  *name = result == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
CUresult errorString(CUresult, const char **text) {
  count("cuGetErrorString");
  *text = "the counting test driver";
  return CUDA_SUCCESS;
}
CUresult deviceGetCount(int *n) {
  count("cuDeviceGetCount");
  *n = 1;
  return CUDA_SUCCESS;
}
CUresult deviceGetAttribute(int *value, CUdevice_attribute, CUdevice) {
  count("cuDeviceGetAttribute");
  *value = 227 * 1024; // an H100's or H200's opt-in shared memory
  return CUDA_SUCCESS;
}
/// The thread's current context: kContextValue until cuCtxSetCurrent. An
/// integer, so that it is constant-initialized (a thread_local that needs
/// dynamic initialization makes the module need a TLS init symbol).
constexpr uintptr_t kContextValue = 0x1000;
thread_local uintptr_t current = kContextValue;

CUresult ctxGetCurrent(CUcontext *context) {
  count("cuCtxGetCurrent");
  *context = reinterpret_cast<CUcontext>(current);
  return CUDA_SUCCESS;
}
CUresult ctxGetDevice(CUdevice *device) {
  count("cuCtxGetDevice");
  *device = 0;
  return CUDA_SUCCESS;
}
CUresult ctxGetId(CUcontext context, unsigned long long *id) {
  count("cuCtxGetId");
  *id = reinterpret_cast<uintptr_t>(context);
  return CUDA_SUCCESS;
}
CUresult moduleLoadData(CUmodule *module, const void *) {
  count("cuModuleLoadData");
  *module = reinterpret_cast<CUmodule>(0x2000);
  return CUDA_SUCCESS;
}
/// Function tokens by kernel name, and the launches of each token, so that
/// launches can be counted by kernel name too (without building a string
/// per launch: the stand-in times the library in mamba2_host_cost).
std::map<std::string, uintptr_t> functionTokens;
std::map<uintptr_t, unsigned long long> launchesOf;

CUresult moduleGetFunction(CUfunction *function, CUmodule, const char *name) {
  count("cuModuleGetFunction");
  std::lock_guard<std::mutex> lock(countsMutex);
  auto [entry, added] =
      functionTokens.emplace(name, 0x3000 + 16 * functionTokens.size());
  if (added)
    launchesOf[entry->second] = 0;
  *function = reinterpret_cast<CUfunction>(entry->second);
  return CUDA_SUCCESS;
}
CUresult moduleUnload(CUmodule) { return count("cuModuleUnload"), CUDA_SUCCESS; }
CUresult funcGetAttribute(int *value, CUfunction_attribute, CUfunction) {
  count("cuFuncGetAttribute");
  *value = 0;
  return CUDA_SUCCESS;
}
CUresult funcSetAttribute(CUfunction, CUfunction_attribute, int) {
  return count("cuFuncSetAttribute"), CUDA_SUCCESS;
}
CUresult launchKernel(CUfunction function, unsigned, unsigned, unsigned,
                      unsigned, unsigned, unsigned, unsigned, CUstream,
                      void **, void **) {
  count("cuLaunchKernel");
  std::lock_guard<std::mutex> lock(countsMutex);
  auto launches = launchesOf.find(reinterpret_cast<uintptr_t>(function));
  if (launches == launchesOf.end())
    return CUDA_ERROR_INVALID_HANDLE;
  ++launches->second;
  return CUDA_SUCCESS;
}
/// Every kernel reports one 8-byte parameter: a stand-in cannot know a
/// kernel's signature, and every tilec kernel's first parameter is a view's
/// data pointer. So a launch group's graph sees a change of that pointer
/// (and of nothing else) as a parameter update.
CUresult funcGetParamInfo(CUfunction, size_t index, size_t *offset,
                          size_t *size) {
  count("cuFuncGetParamInfo");
  if (index > 0)
    return CUDA_ERROR_INVALID_VALUE;
  *offset = 0;
  *size = 8;
  return CUDA_SUCCESS;
}
/// kCapturingStream is being captured (HostCostTest's stand-in for a user's
/// capture); every other stream is not.
constexpr uintptr_t kCapturingStream = 0x6000;
CUresult streamIsCapturing(CUstream stream, CUstreamCaptureStatus *status) {
  count("cuStreamIsCapturing");
  *status = reinterpret_cast<uintptr_t>(stream) == kCapturingStream
                ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
/// Graphs and executable graphs are tokens of the kernel functions of their
/// nodes, in order; a graph launch counts a launch of each.
std::map<uintptr_t, std::vector<uintptr_t>> graphNodes, execNodes;
uintptr_t nextGraph = 0x7000;

CUresult graphCreate(CUgraph *graph, unsigned) {
  count("cuGraphCreate");
  std::lock_guard<std::mutex> lock(countsMutex);
  graphNodes[nextGraph];
  *graph = reinterpret_cast<CUgraph>(nextGraph);
  nextGraph += 16;
  return CUDA_SUCCESS;
}
CUresult graphAddKernelNode(CUgraphNode *node, CUgraph graph,
                            const CUgraphNode *, size_t,
                            const CUDA_KERNEL_NODE_PARAMS_v2 *params) {
  count("cuGraphAddKernelNode");
  std::lock_guard<std::mutex> lock(countsMutex);
  auto nodes = graphNodes.find(reinterpret_cast<uintptr_t>(graph));
  if (nodes == graphNodes.end() ||
      !launchesOf.count(reinterpret_cast<uintptr_t>(params->func)))
    return CUDA_ERROR_INVALID_HANDLE;
  nodes->second.push_back(reinterpret_cast<uintptr_t>(params->func));
  *node = reinterpret_cast<CUgraphNode>(nodes->second.size());
  return CUDA_SUCCESS;
}
CUresult graphInstantiate(CUgraphExec *exec, CUgraph graph,
                          unsigned long long) {
  count("cuGraphInstantiateWithFlags");
  std::lock_guard<std::mutex> lock(countsMutex);
  auto nodes = graphNodes.find(reinterpret_cast<uintptr_t>(graph));
  if (nodes == graphNodes.end())
    return CUDA_ERROR_INVALID_HANDLE;
  execNodes[nextGraph] = nodes->second;
  *exec = reinterpret_cast<CUgraphExec>(nextGraph);
  nextGraph += 16;
  return CUDA_SUCCESS;
}
CUresult graphExecKernelNodeSetParams(CUgraphExec, CUgraphNode,
                                      const CUDA_KERNEL_NODE_PARAMS_v2 *) {
  return count("cuGraphExecKernelNodeSetParams"), CUDA_SUCCESS;
}
CUresult graphLaunch(CUgraphExec exec, CUstream) {
  count("cuGraphLaunch");
  std::lock_guard<std::mutex> lock(countsMutex);
  auto nodes = execNodes.find(reinterpret_cast<uintptr_t>(exec));
  if (nodes == execNodes.end())
    return CUDA_ERROR_INVALID_HANDLE;
  for (uintptr_t function : nodes->second)
    ++launchesOf[function];
  return CUDA_SUCCESS;
}
CUresult graphDestroy(CUgraph graph) {
  count("cuGraphDestroy");
  std::lock_guard<std::mutex> lock(countsMutex);
  return graphNodes.erase(reinterpret_cast<uintptr_t>(graph))
             ? CUDA_SUCCESS
             : CUDA_ERROR_INVALID_HANDLE;
}
CUresult graphExecDestroy(CUgraphExec exec) {
  count("cuGraphExecDestroy");
  std::lock_guard<std::mutex> lock(countsMutex);
  return execNodes.erase(reinterpret_cast<uintptr_t>(exec))
             ? CUDA_SUCCESS
             : CUDA_ERROR_INVALID_HANDLE;
}
CUresult pointerGetAttributes(unsigned n, CUpointer_attribute *attributes,
                              void **data, CUdeviceptr pointer) {
  count("cuPointerGetAttributes");
  const auto address = uintptr_t(pointer);
  unsigned type = 0;
  uintptr_t start = 0, size = 0;
  if (address >= kDeviceStart && address < kDeviceEnd) {
    type = CU_MEMORYTYPE_DEVICE;
    start = address & ~(kRangeSize - 1);
    size = kRangeSize;
  } else {
    std::lock_guard<std::mutex> lock(countsMutex);
    auto it = pinned.upper_bound(address);
    if (it != pinned.begin() && address < *std::prev(it) + kPinnedSize) {
      type = CU_MEMORYTYPE_HOST;
      start = *std::prev(it);
      size = kPinnedSize;
    }
  }
  for (unsigned i = 0; i < n; ++i)
    switch (attributes[i]) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned *>(data[i]) = type;
      break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      *static_cast<CUdeviceptr *>(data[i]) = start;
      break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      *static_cast<size_t *>(data[i]) = size;
      break;
    default:
      return CUDA_ERROR_NOT_SUPPORTED;
    }
  return CUDA_SUCCESS;
}
CUresult memAllocAsync(CUdeviceptr *pointer, size_t bytes, CUstream) {
  count("cuMemAllocAsync");
  std::lock_guard<std::mutex> lock(countsMutex);
  const uintptr_t size = (bytes + kRangeSize - 1) / kRangeSize * kRangeSize;
  if (size > kDeviceEnd - nextDevice)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *pointer = nextDevice;
  nextDevice += size;
  return CUDA_SUCCESS;
}
CUresult memFreeAsync(CUdeviceptr, CUstream) {
  return count("cuMemFreeAsync"), CUDA_SUCCESS;
}
CUresult memAllocHost(void **pointer, size_t bytes) {
  count("cuMemAllocHost");
  if (bytes > kPinnedSize)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *pointer = std::aligned_alloc(kPinnedSize, kPinnedSize);
  std::lock_guard<std::mutex> lock(countsMutex);
  pinned.insert(reinterpret_cast<uintptr_t>(*pointer));
  return CUDA_SUCCESS;
}
// What a host program around the kernels uses (tilec::runtime::DriverApi,
// for bench/mamba2_host_cost): device 0's primary context, memory in the
// device range (never touched: copies do nothing), streams and events that
// are done at once.
CUresult deviceGet(CUdevice *device, int) {
  count("cuDeviceGet");
  *device = 0;
  return CUDA_SUCCESS;
}
CUresult primaryCtxRetain(CUcontext *context, CUdevice) {
  count("cuDevicePrimaryCtxRetain");
  *context = reinterpret_cast<CUcontext>(kContextValue);
  return CUDA_SUCCESS;
}
CUresult ctxSetCurrent(CUcontext context) {
  count("cuCtxSetCurrent");
  current = reinterpret_cast<uintptr_t>(context);
  return CUDA_SUCCESS;
}
CUresult memAlloc(CUdeviceptr *pointer, size_t bytes) {
  return memAllocAsync(pointer, bytes, nullptr);
}
CUresult memFree(CUdeviceptr) { return count("cuMemFree"), CUDA_SUCCESS; }
CUresult memcpyHtoD(CUdeviceptr, const void *, size_t) {
  return count("cuMemcpyHtoD"), CUDA_SUCCESS;
}
CUresult memcpyDtoH(void *, CUdeviceptr, size_t) {
  return count("cuMemcpyDtoH"), CUDA_SUCCESS;
}
CUresult memcpyDtoDAsync(CUdeviceptr, CUdeviceptr, size_t, CUstream) {
  return count("cuMemcpyDtoDAsync"), CUDA_SUCCESS;
}
CUresult streamCreate(CUstream *stream, unsigned) {
  count("cuStreamCreate");
  *stream = reinterpret_cast<CUstream>(0x5000);
  return CUDA_SUCCESS;
}
CUresult streamSynchronize(CUstream) {
  return count("cuStreamSynchronize"), CUDA_SUCCESS;
}
CUresult eventCreate(CUevent *event, unsigned) {
  count("cuEventCreate");
  *event = reinterpret_cast<CUevent>(0x4000);
  return CUDA_SUCCESS;
}
CUresult eventRecord(CUevent, CUstream) {
  return count("cuEventRecord"), CUDA_SUCCESS;
}
CUresult eventSynchronize(CUevent) {
  return count("cuEventSynchronize"), CUDA_SUCCESS;
}
CUresult eventElapsedTime(float *ms, CUevent, CUevent) {
  count("cuEventElapsedTime");
  *ms = 0;
  return CUDA_SUCCESS;
}

struct Entry {
  const char *symbol;
  void *function;
};
#define TILEC_ENTRY(symbol, function)                                          \
  { symbol, reinterpret_cast<void *>(&function) }
const Entry kEntries[] = {
    TILEC_ENTRY("cuInit", init),
    TILEC_ENTRY("cuGetErrorName", errorName),
    TILEC_ENTRY("cuGetErrorString", errorString),
    TILEC_ENTRY("cuDeviceGetCount", deviceGetCount),
    TILEC_ENTRY("cuDeviceGetAttribute", deviceGetAttribute),
    TILEC_ENTRY("cuCtxGetCurrent", ctxGetCurrent),
    TILEC_ENTRY("cuCtxGetDevice", ctxGetDevice),
    TILEC_ENTRY("cuCtxGetId", ctxGetId),
    TILEC_ENTRY("cuModuleLoadData", moduleLoadData),
    TILEC_ENTRY("cuModuleGetFunction", moduleGetFunction),
    TILEC_ENTRY("cuModuleUnload", moduleUnload),
    TILEC_ENTRY("cuFuncGetAttribute", funcGetAttribute),
    TILEC_ENTRY("cuFuncSetAttribute", funcSetAttribute),
    TILEC_ENTRY("cuLaunchKernel", launchKernel),
    TILEC_ENTRY("cuFuncGetParamInfo", funcGetParamInfo),
    TILEC_ENTRY("cuStreamIsCapturing", streamIsCapturing),
    TILEC_ENTRY("cuGraphCreate", graphCreate),
    TILEC_ENTRY("cuGraphAddKernelNode", graphAddKernelNode),
    TILEC_ENTRY("cuGraphInstantiateWithFlags", graphInstantiate),
    TILEC_ENTRY("cuGraphExecKernelNodeSetParams",
                graphExecKernelNodeSetParams),
    TILEC_ENTRY("cuGraphLaunch", graphLaunch),
    TILEC_ENTRY("cuGraphDestroy", graphDestroy),
    TILEC_ENTRY("cuGraphExecDestroy", graphExecDestroy),
    TILEC_ENTRY("cuPointerGetAttributes", pointerGetAttributes),
    TILEC_ENTRY("cuMemAllocAsync", memAllocAsync),
    TILEC_ENTRY("cuMemFreeAsync", memFreeAsync),
    TILEC_ENTRY("cuMemAllocHost", memAllocHost),
    TILEC_ENTRY("cuDeviceGet", deviceGet),
    TILEC_ENTRY("cuDevicePrimaryCtxRetain", primaryCtxRetain),
    TILEC_ENTRY("cuCtxSetCurrent", ctxSetCurrent),
    TILEC_ENTRY("cuMemAlloc", memAlloc),
    TILEC_ENTRY("cuMemFree", memFree),
    TILEC_ENTRY("cuMemcpyHtoD", memcpyHtoD),
    TILEC_ENTRY("cuMemcpyDtoH", memcpyDtoH),
    TILEC_ENTRY("cuMemcpyDtoDAsync", memcpyDtoDAsync),
    TILEC_ENTRY("cuStreamCreate", streamCreate),
    TILEC_ENTRY("cuStreamSynchronize", streamSynchronize),
    TILEC_ENTRY("cuEventCreate", eventCreate),
    TILEC_ENTRY("cuEventRecord", eventRecord),
    TILEC_ENTRY("cuEventSynchronize", eventSynchronize),
    TILEC_ENTRY("cuEventElapsedTime", eventElapsedTime),
};
#undef TILEC_ENTRY

} // namespace

extern "C" __attribute__((visibility("default"))) CUresult
cuGetProcAddress_v2(const char *symbol, void **function, int, cuuint64_t,
                    CUdriverProcAddressQueryResult *found) {
  *function = nullptr;
  for (const Entry &entry : kEntries)
    if (!std::strcmp(symbol, entry.symbol))
      *function = entry.function;
  if (found)
    *found = *function ? CU_GET_PROC_ADDRESS_SUCCESS
                       : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return *function ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

/// How many times `symbol` was called; "" for the calls of every symbol;
/// "launch NAME" for the launches of the kernel called NAME, by cuLaunchKernel
/// or as a node of a launched graph (not counted in "").


extern "C" __attribute__((visibility("default"))) unsigned long long
tilec_counting_driver_calls(const char *symbol) {
  std::lock_guard<std::mutex> lock(countsMutex);
  if (!std::strncmp(symbol, "launch ", 7)) {
    auto token = functionTokens.find(symbol + 7);
    return token == functionTokens.end() ? 0 : launchesOf[token->second];
  }
  if (*symbol) {
    auto it = counts.find(symbol);
    return it == counts.end() ? 0 : it->second;
  }
  unsigned long long total = 0;
  for (const auto &entry : counts)
    total += entry.second;
  return total;
}
