//===- Runtime.cpp - launching tilec kernels through the driver API -------===//
//
// The driver is reached only through entry points resolved at run time
// (dlopen + cuGetProcAddress), never linked: a program must start, and report
// an error status, on a machine without one. Nothing here may depend on LLVM
// or MLIR: this library runs on GPU machines that have neither.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include "tilec/Runtime/Runtime.h"
#include "tilec/Support/ViewByteSpan.h"

#include <cudaTypedefs.h>

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>

using namespace tilec::runtime::detail;

tilec::runtime::detail::Driver tilec::runtime::detail::driver;

namespace {

thread_local std::string lastError;
/// tilec_last_launched: a pointer, so that a launch allocates nothing.
thread_local const tilec_kernel *lastLaunched = nullptr;

/// The name of the string every image tilec makes holds: the target its
/// code was compiled for (lib/Target, translateToLLVMIR).
constexpr const char *kImageTargetSymbol = "tilec_image_target";

struct InitResult {
  tilec_status status = TILEC_SUCCESS;
  std::string message;
};

InitResult initResult;
std::once_flag initOnce;

/// A driver error as "CUDA_ERROR_X (description)".
std::string describe(CUresult result) {
  const char *name = nullptr;
  const char *text = nullptr;
  if (driver.getErrorName)
    driver.getErrorName(result, &name);
  if (driver.getErrorString)
    driver.getErrorString(result, &text);
  std::string s = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    s += std::string(" (") + text + ")";
  return s;
}

tilec_status classify(CUresult result) {
  switch (result) {
  case CUDA_SUCCESS:
    return TILEC_SUCCESS;
  case CUDA_ERROR_NO_DEVICE:
    return TILEC_ERROR_NO_DEVICE;
  case CUDA_ERROR_STUB_LIBRARY:
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    return TILEC_ERROR_NO_DRIVER;
  case CUDA_ERROR_INVALID_CONTEXT:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    return TILEC_ERROR_NO_CONTEXT;
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
  case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_INVALID_IMAGE:
    return TILEC_ERROR_NO_KERNEL_IMAGE;
  case CUDA_ERROR_OUT_OF_MEMORY:
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    return TILEC_ERROR_OUT_OF_RESOURCES;
  default:
    return TILEC_ERROR_DRIVER;
  }
}

} // namespace

tilec_status tilec::runtime::detail::fail(tilec_status status,
                                          const char *format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  lastError = buffer;
  return status;
}

tilec_status tilec::runtime::detail::failDriver(CUresult result,
                                                const char *what,
                                                const char *kernel) {
  return fail(classify(result), "tilec: %s%s%s failed: %s",
              kernel ? kernel : "", kernel ? ": " : "", what,
              describe(result).c_str());
}

namespace {

CUresult getEntryPoint(const char *symbol, int version, void **function) {
  CUdriverProcAddressQueryResult found;
  CUresult result = driver.getProcAddress(
      symbol, function, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found);
  if (result == CUDA_SUCCESS &&
      (found != CU_GET_PROC_ADDRESS_SUCCESS || !*function))
    result = CUDA_ERROR_NOT_FOUND;
  return result;
}

InitResult loadDriver() {
  const char *path = std::getenv("TILEC_CUDA_DRIVER");
  if (!path || !*path)
    path = "libcuda.so.1";
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return {TILEC_ERROR_NO_DRIVER,
            std::string("tilec: no CUDA driver: cannot load ") + path + ": " +
                (why ? why : "unknown error")};
  }
  // The handle stays open for the life of the process: modules and
  // functions it made are cached.
  driver.getProcAddress = reinterpret_cast<decltype(driver.getProcAddress)>(
      dlsym(handle, "cuGetProcAddress_v2"));
  if (!driver.getProcAddress)
    return {TILEC_ERROR_NO_DRIVER,
            std::string("tilec: no CUDA driver: ") + path +
                " has no cuGetProcAddress_v2; a CUDA 12.0 or newer driver "
                "is needed"};

  const char *missing = nullptr;
  auto need = [&](auto &entry, const char *symbol, int version) {
    void *function = nullptr;
    if (!missing && getEntryPoint(symbol, version, &function) != CUDA_SUCCESS)
      missing = symbol;
    entry =
        reinterpret_cast<std::remove_reference_t<decltype(entry)>>(function);
  };
  need(driver.init, "cuInit", 2000);
  need(driver.getErrorName, "cuGetErrorName", 6000);
  need(driver.getErrorString, "cuGetErrorString", 6000);
  need(driver.deviceGetCount, "cuDeviceGetCount", 2000);
  need(driver.deviceGetAttribute, "cuDeviceGetAttribute", 2000);
  need(driver.ctxGetCurrent, "cuCtxGetCurrent", 4000);
  need(driver.ctxGetDevice, "cuCtxGetDevice", 2000);
  need(driver.ctxGetId, "cuCtxGetId", 12000);
  need(driver.moduleLoadData, "cuModuleLoadData", 2000);
  need(driver.moduleGetFunction, "cuModuleGetFunction", 2000);
  need(driver.moduleUnload, "cuModuleUnload", 2000);
  need(driver.funcGetAttribute, "cuFuncGetAttribute", 2020);
  need(driver.funcSetAttribute, "cuFuncSetAttribute", 9000);
  need(driver.launchKernel, "cuLaunchKernel", 4000);
  if (missing)
    return {TILEC_ERROR_NO_DRIVER,
            std::string("tilec: no CUDA driver: ") + path + " lacks " +
                missing + "; a CUDA 12.0 or newer driver is needed"};
  // Launch groups replay as CUDA graphs with all of these, else launch one
  // kernel at a time.
  need(driver.funcGetParamInfo, "cuFuncGetParamInfo", 12040);
  need(driver.streamIsCapturing, "cuStreamIsCapturing", 10000);
  need(driver.graphCreate, "cuGraphCreate", 10000);
  need(driver.graphAddKernelNode, "cuGraphAddKernelNode", 12000);
  need(driver.graphInstantiate, "cuGraphInstantiateWithFlags", 11040);
  need(driver.graphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams",
       12000);
  need(driver.graphLaunch, "cuGraphLaunch", 10000);
  need(driver.graphDestroy, "cuGraphDestroy", 10000);
  need(driver.graphExecDestroy, "cuGraphExecDestroy", 10000);
  driver.hasGraphs = !missing;

  CUresult result = driver.init(0);
  if (result != CUDA_SUCCESS) {
    tilec_status status = classify(result);
    const char *what = status == TILEC_ERROR_NO_DEVICE ? "no CUDA device"
                       : status == TILEC_ERROR_NO_DRIVER
                           ? "no usable CUDA driver"
                           : "CUDA driver initialization failed";
    return {status == TILEC_SUCCESS ? TILEC_ERROR_DRIVER : status,
            std::string("tilec: ") + what + ": cuInit: " + describe(result)};
  }
  int count = 0;
  result = driver.deviceGetCount(&count);
  if (result != CUDA_SUCCESS)
    return {classify(result),
            "tilec: cuDeviceGetCount failed: " + describe(result)};
  if (count == 0)
    return {TILEC_ERROR_NO_DEVICE, "tilec: no CUDA device"};
  return {};
}

/// A kernel's function in one context, ready to launch. The name is a view:
/// of the caller's string for a lookup (so that a launch allocates
/// nothing), of the cache entry's own copy for a key in the cache.
struct FunctionKey {
  const void *fatbin;
  std::string_view name;
  unsigned long long context;
  bool operator==(const FunctionKey &other) const {
    return fatbin == other.fatbin && context == other.context &&
           name == other.name;
  }
};
struct FunctionKeyHash {
  size_t operator()(const FunctionKey &key) const {
    size_t h = std::hash<const void *>()(key.fatbin);
    h = h * 31 + std::hash<std::string_view>()(key.name);
    return h * 31 + std::hash<unsigned long long>()(key.context);
  }
};
struct ModuleKey {
  const void *fatbin;
  unsigned long long context;
  bool operator==(const ModuleKey &other) const {
    return fatbin == other.fatbin && context == other.context;
  }
};
struct ModuleKeyHash {
  size_t operator()(const ModuleKey &key) const {
    return std::hash<const void *>()(key.fatbin) * 31 +
           std::hash<unsigned long long>()(key.context);
  }
};

// Keyed by context id, which the driver never reuses, rather than by the
// CUcontext pointer, which a new context may reuse after one is destroyed.
// A kernel library's module stays loaded as long as its context lives;
// tilec_forget_fatbin unloads an image's module in the current context and
// drops its entries for other contexts (those stay loaded until their
// context is destroyed).
std::shared_mutex cacheMutex;
std::unordered_map<ModuleKey, CUmodule, ModuleKeyHash> modules;
/// A function ready to launch with up to `dynamicLimit` bytes of dynamic
/// shared memory.
struct LoadedFunction {
  CUfunction function;
  size_t staticBytes;
  size_t dynamicLimit;
  ParamLayout params;
  /// The kernel's name, which the entry's key views: on the heap, so that
  /// it stays put while the map rehashes.
  std::unique_ptr<std::string> name;
};
std::unordered_map<FunctionKey, LoadedFunction, FunctionKeyHash> functions;
/// Changed (under cacheMutex) whenever entries of `functions` go.
std::atomic<unsigned long long> functionsGeneration{0};

/// The functions this thread looked up last, by kernel descriptor and
/// context, as of `generation`: a library call's few launches find theirs
/// without the lock and the hash of the kernel's name.
struct RecentFunction {
  // The descriptor's address alone does not name a kernel: a caller may
  // reuse one descriptor (or its storage) for another kernel, or change its
  // shared_bytes; an entry answers only while all of these still match.
  const tilec_kernel *kernel;
  const void *fatbin;
  const char *name;
  size_t sharedBytes;
  unsigned long long context;
  CUfunction function;
  const ParamLayout *layout;
};
struct RecentFunctions {
  unsigned long long generation = 0;
  std::array<RecentFunction, 16> entries;
  size_t count = 0, next = 0;
};
thread_local RecentFunctions recentFunctions;

/// The shared memory a block may use without opting in to more.
constexpr size_t kDefaultSharedLimit = 48 * 1024;

/// The parameter layout of `function`, where the driver can tell it (12.4
/// and newer): cuFuncGetParamInfo answers for each index up to the last
/// parameter, then CUDA_ERROR_INVALID_VALUE.
void readParamLayout(CUfunction function, ParamLayout &layout) {
  layout = ParamLayout{};
  if (!driver.hasGraphs)
    return;
  for (size_t index = 0;; ++index) {
    size_t offset = 0, size = 0;
    CUresult result = driver.funcGetParamInfo(function, index, &offset, &size);
    // Past the last parameter. At index 0 it may also mean that the driver
    // cannot tell: a kernel without parameters is launched one at a time.
    if (result == CUDA_ERROR_INVALID_VALUE && index > 0)
      break;
    if (result != CUDA_SUCCESS || offset > UINT32_MAX || size > UINT32_MAX)
      return;
    layout.params.emplace_back(uint32_t(offset), uint32_t(size));
    layout.bytes = std::max(layout.bytes, offset + size);
  }
  layout.known = true;
}

/// Loads the kernel's function in the current context. Called with
/// cacheMutex held exclusively.
tilec_status loadFunction(const tilec_kernel &kernel,
                          unsigned long long contextId,
                          LoadedFunction &loaded) {
  ModuleKey moduleKey{kernel.fatbin, contextId};
  auto module = modules.find(moduleKey);
  if (module == modules.end()) {
    CUmodule handle;
    // The driver picks the best cubin of the fatbin for the device, or JIT
    // compiles its PTX when there is none.
    CUresult result = driver.moduleLoadData(&handle, kernel.fatbin);
    if (result != CUDA_SUCCESS)
      return failDriver(result, "loading the kernel image (cuModuleLoadData)",
                        kernel.name);
    module = modules.emplace(moduleKey, handle).first;
  }
  CUresult result =
      driver.moduleGetFunction(&loaded.function, module->second, kernel.name);
  if (result != CUDA_SUCCESS)
    return failDriver(result, "finding the kernel in its image", kernel.name);
  int staticBytes = 0;
  result = driver.funcGetAttribute(
      &staticBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, loaded.function);
  if (result != CUDA_SUCCESS)
    return failDriver(result, "cuFuncGetAttribute", kernel.name);
  loaded.staticBytes = size_t(staticBytes);
  loaded.dynamicLimit = loaded.staticBytes < kDefaultSharedLimit
                            ? kDefaultSharedLimit - loaded.staticBytes
                            : 0;
  readParamLayout(loaded.function, loaded.params);
  return TILEC_SUCCESS;
}

/// Lets the function use the kernel's dynamic shared memory, beyond the
/// default limit. Called with cacheMutex held exclusively.
tilec_status raiseSharedLimit(const tilec_kernel &kernel,
                              LoadedFunction &loaded) {
  CUdevice device;
  int limit = 0;
  CUresult result = driver.ctxGetDevice(&device);
  if (result == CUDA_SUCCESS)
    result = driver.deviceGetAttribute(
        &limit, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device);
  if (result != CUDA_SUCCESS)
    return failDriver(result, "querying the shared memory limit", kernel.name);
  size_t total = loaded.staticBytes + kernel.shared_bytes;
  if (total > size_t(limit))
    return fail(TILEC_ERROR_OUT_OF_RESOURCES,
                "tilec: %s: needs %zu bytes of shared memory per block "
                "(%zu static + %zu dynamic), the device allows %d",
                kernel.name, total, loaded.staticBytes, kernel.shared_bytes,
                limit);
  result = driver.funcSetAttribute(
      loaded.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
      int(kernel.shared_bytes));
  if (result != CUDA_SUCCESS)
    return failDriver(result, "raising the dynamic shared memory limit",
                      kernel.name);
  loaded.dynamicLimit = kernel.shared_bytes;
  return TILEC_SUCCESS;
}

tilec_status checkKernel(const tilec_kernel *kernel) {
  if (!kernel || !kernel->fatbin || !kernel->name)
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec: a kernel descriptor, its image and its name must not "
                "be null");
  if (kernel->block_threads < 1 || kernel->block_threads > 1024)
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec: %s: %u threads per block is outside [1, 1024]",
                kernel->name, kernel->block_threads);
  if (kernel->shared_bytes > size_t(INT32_MAX))
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec: %s: %zu bytes of shared memory is too many",
                kernel->name, kernel->shared_bytes);
  return TILEC_SUCCESS;
}

} // namespace

tilec_status tilec::runtime::detail::currentContextId(const char *kernel,
                                                      unsigned long long &id) {
  if (tilec_status status = tilec_init())
    return status;
  CUcontext context = nullptr;
  CUresult result = driver.ctxGetCurrent(&context);
  if (result != CUDA_SUCCESS)
    return failDriver(result, "cuCtxGetCurrent", kernel);
  if (!context)
    return fail(TILEC_ERROR_NO_CONTEXT,
                "tilec: %s%sno current CUDA context on this thread (make one "
                "current, e.g. cudaSetDevice or cuCtxSetCurrent)",
                kernel ? kernel : "", kernel ? ": " : "");
  result = driver.ctxGetId(context, &id);
  if (result != CUDA_SUCCESS)
    return failDriver(result, "cuCtxGetId", kernel);
  return TILEC_SUCCESS;
}

tilec_status tilec::runtime::detail::functionIn(const tilec_kernel &kernel,
                                                unsigned long long contextId,
                                                CUfunction &function,
                                                const ParamLayout *&layout) {
  RecentFunctions &recent = recentFunctions;
  const unsigned long long generation =
      functionsGeneration.load(std::memory_order_acquire);
  if (recent.generation != generation) {
    recent.generation = generation;
    recent.count = 0;
  }
  for (size_t i = 0; i < recent.count; ++i) {
    const RecentFunction &entry = recent.entries[i];
    if (entry.kernel == &kernel && entry.fatbin == kernel.fatbin &&
        entry.name == kernel.name && entry.sharedBytes == kernel.shared_bytes &&
        entry.context == contextId) {
      function = entry.function;
      layout = entry.layout;
      return TILEC_SUCCESS;
    }
  }
  // Remembered with the generation read before the lookup: entries gone
  // since then empty the list at the next call.
  auto remember = [&] {
    recent.entries[recent.next] = {&kernel,          kernel.fatbin,
                                   kernel.name,      kernel.shared_bytes,
                                   contextId,        function,
                                   layout};
    recent.next = (recent.next + 1) % recent.entries.size();
    recent.count = std::min(recent.count + 1, recent.entries.size());
  };
  FunctionKey key{kernel.fatbin, kernel.name, contextId};
  {
    std::shared_lock<std::shared_mutex> lock(cacheMutex);
    auto it = functions.find(key);
    if (it != functions.end() &&
        kernel.shared_bytes <= it->second.dynamicLimit) {
      function = it->second.function;
      layout = &it->second.params;
      remember();
      return TILEC_SUCCESS;
    }
  }
  // Loading holds the lock so that one thread loads a module (and JIT
  // compiles it, if it must) while the others wait for it.
  std::unique_lock<std::shared_mutex> lock(cacheMutex);
  auto it = functions.find(key);
  if (it == functions.end()) {
    LoadedFunction loaded;
    if (tilec_status status = loadFunction(kernel, contextId, loaded))
      return status;
    loaded.name = std::make_unique<std::string>(kernel.name);
    key.name = *loaded.name;
    it = functions.emplace(key, std::move(loaded)).first;
  }
  if (kernel.shared_bytes > it->second.dynamicLimit)
    if (tilec_status status = raiseSharedLimit(kernel, it->second))
      return status;
  function = it->second.function;
  layout = &it->second.params;
  remember();
  return TILEC_SUCCESS;
}

void tilec::runtime::detail::setLastLaunched(const tilec_kernel *kernel) {
  lastLaunched = kernel;
}

namespace {

/// The kernel's function in the current context, loaded on first use.
tilec_status getFunction(const tilec_kernel &kernel, CUfunction &function) {
  unsigned long long contextId = 0;
  if (tilec_status status = currentContextId(kernel.name, contextId))
    return status;
  const ParamLayout *layout = nullptr;
  return functionIn(kernel, contextId, function, layout);
}

} // namespace

extern "C" {

const char *tilec_status_name(tilec_status status) {
  switch (status) {
  case TILEC_SUCCESS:
    return "TILEC_SUCCESS";
  case TILEC_ERROR_INVALID_ARGUMENT:
    return "TILEC_ERROR_INVALID_ARGUMENT";
  case TILEC_ERROR_NO_DRIVER:
    return "TILEC_ERROR_NO_DRIVER";
  case TILEC_ERROR_NO_DEVICE:
    return "TILEC_ERROR_NO_DEVICE";
  case TILEC_ERROR_NO_CONTEXT:
    return "TILEC_ERROR_NO_CONTEXT";
  case TILEC_ERROR_NO_KERNEL_IMAGE:
    return "TILEC_ERROR_NO_KERNEL_IMAGE";
  case TILEC_ERROR_OUT_OF_RESOURCES:
    return "TILEC_ERROR_OUT_OF_RESOURCES";
  case TILEC_ERROR_DRIVER:
    return "TILEC_ERROR_DRIVER";
  }
  return "TILEC_ERROR_UNKNOWN";
}

const char *tilec_last_error(void) { return lastError.c_str(); }

tilec_status tilec_init(void) {
  std::call_once(initOnce, [] { initResult = loadDriver(); });
  if (initResult.status != TILEC_SUCCESS)
    return fail(initResult.status, "%s", initResult.message.c_str());
  return TILEC_SUCCESS;
}

tilec_status tilec_prepare(const tilec_kernel *kernel) {
  if (tilec_status status = checkKernel(kernel))
    return status;
  CUfunction function;
  return getFunction(*kernel, function);
}

tilec_status tilec_launch(const tilec_kernel *kernel, tilec_grid grid,
                          CUstream stream, void **args) {
  if (tilec_status status = checkKernel(kernel))
    return status;
  // The driver's limits on grid dimensions for every supported GPU.
  if (grid.x < 1 || grid.x > INT32_MAX || grid.y < 1 || grid.y > 65535 ||
      grid.z < 1 || grid.z > 65535)
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec: %s: grid (%lld, %lld, %lld) is outside [1, 2^31-1] x "
                "[1, 65535] x [1, 65535]",
                kernel->name, (long long)grid.x, (long long)grid.y,
                (long long)grid.z);
  if (inLaunchGroup())
    return launchInGroup(*kernel, grid, stream, args);
  CUfunction function;
  if (tilec_status status = getFunction(*kernel, function))
    return status;
  CUresult result = driver.launchKernel(
      function, unsigned(grid.x), unsigned(grid.y), unsigned(grid.z),
      kernel->block_threads, 1, 1, unsigned(kernel->shared_bytes), stream, args,
      nullptr);
  if (result != CUDA_SUCCESS)
    return failDriver(result, "cuLaunchKernel", kernel->name);
  lastLaunched = kernel;
  return TILEC_SUCCESS;
}

const tilec_kernel *tilec_last_launched(void) { return lastLaunched; }

tilec_status tilec_kernel_image_info(const tilec_kernel *kernel,
                                     tilec_image_info *info) {
  if (!info)
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec: tilec_kernel_image_info needs a result");
  if (tilec_status status = checkKernel(kernel))
    return status;
  CUfunction function;
  if (tilec_status status = getFunction(*kernel, function))
    return status;
  // Resolved here, not at tilec_init: launching needs none of them.
  void *funcGetModule = nullptr, *moduleGetGlobal = nullptr,
       *memcpyDtoH = nullptr;
  CUresult result = getEntryPoint("cuFuncGetModule", 11000, &funcGetModule);
  if (result == CUDA_SUCCESS)
    result = getEntryPoint("cuModuleGetGlobal", 3020, &moduleGetGlobal);
  if (result == CUDA_SUCCESS)
    result = getEntryPoint("cuMemcpyDtoH", 3020, &memcpyDtoH);
  if (result != CUDA_SUCCESS)
    return failDriver(result, "resolving cuFuncGetModule, cuModuleGetGlobal "
                              "and cuMemcpyDtoH", kernel->name);
  *info = tilec_image_info{};
  result = driver.funcGetAttribute(&info->binary_version,
                                   CU_FUNC_ATTRIBUTE_BINARY_VERSION, function);
  if (result == CUDA_SUCCESS)
    result = driver.funcGetAttribute(&info->ptx_version,
                                     CU_FUNC_ATTRIBUTE_PTX_VERSION, function);
  if (result != CUDA_SUCCESS)
    return failDriver(result, "cuFuncGetAttribute", kernel->name);
  CUmodule module;
  result = reinterpret_cast<PFN_cuFuncGetModule_v11000>(funcGetModule)(
      &module, function);
  if (result != CUDA_SUCCESS)
    return failDriver(result, "cuFuncGetModule", kernel->name);
  CUdeviceptr target = 0;
  size_t bytes = 0;
  result = reinterpret_cast<PFN_cuModuleGetGlobal_v3020>(moduleGetGlobal)(
      &target, &bytes, module, kImageTargetSymbol);
  if (result == CUDA_ERROR_NOT_FOUND)
    return TILEC_SUCCESS;
  if (result != CUDA_SUCCESS)
    return failDriver(result, "cuModuleGetGlobal", kernel->name);
  bytes = bytes < sizeof(info->target) - 1 ? bytes : sizeof(info->target) - 1;
  result = reinterpret_cast<PFN_cuMemcpyDtoH_v3020>(memcpyDtoH)(info->target,
                                                                target, bytes);
  if (result != CUDA_SUCCESS)
    return failDriver(result, "reading tilec_image_target (cuMemcpyDtoH)",
                      kernel->name);
  info->target[sizeof(info->target) - 1] = 0;
  return TILEC_SUCCESS;
}

tilec_status tilec_forget_fatbin(const void *fatbin) {
  if (!fatbin)
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec: tilec_forget_fatbin needs an image");
  if (tilec_status status = tilec_init())
    return status;
  CUcontext context = nullptr;
  unsigned long long current = 0;
  bool hasCurrent = driver.ctxGetCurrent(&context) == CUDA_SUCCESS && context &&
                    driver.ctxGetId(context, &current) == CUDA_SUCCESS;
  // The graphs first: they launch the functions about to be unloaded.
  forgetGraphsOf(fatbin, hasCurrent, current);
  std::unique_lock<std::shared_mutex> lock(cacheMutex);
  functionsGeneration.fetch_add(1, std::memory_order_release);
  for (auto it = functions.begin(); it != functions.end();)
    it = it->first.fatbin == fatbin ? functions.erase(it) : std::next(it);
  tilec_status status = TILEC_SUCCESS;
  for (auto it = modules.begin(); it != modules.end();) {
    if (it->first.fatbin != fatbin) {
      ++it;
      continue;
    }
    if (hasCurrent && it->first.context == current) {
      CUresult result = driver.moduleUnload(it->second);
      if (result != CUDA_SUCCESS)
        status = failDriver(result, "cuModuleUnload", nullptr);
    }
    it = modules.erase(it);
  }
  return status;
}

tilec_status tilec_check_view(const char *kernel, const char *arg,
                              const void *data, size_t element_size, int rank,
                              const int64_t *shape, const int64_t *strides) {
  if (!kernel)
    kernel = "?";
  if (!arg)
    arg = "?";
  if (rank < 0 || (rank > 0 && (!shape || !strides)))
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec: %s: view %s has no shape or strides", kernel, arg);
  bool empty = false;
  for (int d = 0; d < rank; ++d) {
    if (shape[d] < 0 || strides[d] < 0)
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  "tilec: %s: view %s has a negative %s (%lld) in dimension %d",
                  kernel, arg, shape[d] < 0 ? "size" : "stride",
                  (long long)(shape[d] < 0 ? shape[d] : strides[d]), d);
    empty |= shape[d] == 0;
  }
  if (empty)
    return TILEC_SUCCESS;
  if (!data)
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec: %s: view %s is a null pointer with a non-empty shape",
                kernel, arg);
  // Kernels access elements at their natural alignment; a misaligned one
  // would fault and poison the whole context.
  if (element_size == 0 ||
      reinterpret_cast<uintptr_t>(data) % element_size != 0)
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec: %s: view %s at %p is not aligned to its %zu-byte "
                "elements",
                kernel, arg, data, element_size);
  // Kernels address elements with 64-bit byte offsets: the last element's
  // must be representable.
  if (!tilec::viewByteSpan(shape, strides, size_t(rank), element_size))
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec: %s: view %s spans more bytes than a 64-bit offset "
                "can address",
                kernel, arg);
  return TILEC_SUCCESS;
}

bool tilec_view_is_vectorizable(const void *data, size_t element_size,
                                int rank, const int64_t *shape,
                                const int64_t *strides) {
  constexpr size_t kVectorBytes = 16;
  if (rank < 1 || !shape || !strides || element_size == 0 ||
      element_size > kVectorBytes || kVectorBytes % element_size != 0)
    return false;
  // An empty view (an absent option: {nullptr, {0, ...}, {0, ...}}) has no
  // element to access: every access of a vec variant is predicated on the
  // view's bounds, so whatever its pointer and strides, it has the facts.
  for (int d = 0; d < rank; ++d)
    if (shape[d] == 0)
      return true;
  if (reinterpret_cast<uintptr_t>(data) % kVectorBytes != 0)
    return false;
  const int64_t width = int64_t(kVectorBytes / element_size);
  if (strides[rank - 1] != 1 || shape[rank - 1] % width != 0)
    return false;
  for (int d = 0; d + 1 < rank; ++d)
    if (strides[d] % width != 0)
      return false;
  return true;
}

tilec_status tilec_driver_entry_point_version(const char *symbol,
                                              int cuda_version,
                                              void **function) {
  if (!symbol || !function)
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec: a driver entry point needs a symbol and a result");
  if (tilec_status status = tilec_init())
    return status;
  *function = nullptr;
  CUresult result = getEntryPoint(symbol, cuda_version, function);
  if (result != CUDA_SUCCESS)
    return fail(result == CUDA_ERROR_NOT_FOUND ? TILEC_ERROR_NO_DRIVER
                                               : classify(result),
                "tilec: the CUDA driver has no entry point %s for CUDA "
                "version %d: %s",
                symbol, cuda_version, describe(result).c_str());
  return TILEC_SUCCESS;
}

tilec_status tilec_driver_entry_point(const char *symbol, void **function) {
  return tilec_driver_entry_point_version(symbol, CUDA_VERSION, function);
}

} // extern "C"
