//===- DevicePointers.cpp - which pointers are device memory ----*- C++ -*-===//
//
// One cuPointerGetAttributes call answers, for a pointer, its memory type
// and the allocation range holding it. A range found to be device memory is
// remembered, so later pointers into it (a caching allocator hands out many
// tensors from one cudaMalloc'd segment, and the same segments call after
// call) need no driver call. Each thread also keeps the ranges it found,
// valid while the shared cache is unchanged (its generation), so that a
// call's pointers, the same call after call in a loop, take no lock.
//
//===----------------------------------------------------------------------===//

#include "DevicePointers.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <utility>

using namespace tilec::mamba2;

namespace {

/// The ranges at most remembered; past that the cache starts afresh, so a
/// program that allocates without end does not grow it without end.
constexpr size_t kMaxRanges = 4096;

/// Where a range starts: the context it was seen in (by id, which the
/// driver never reuses) and its first address.
using RangeStart = std::pair<unsigned long long, uintptr_t>;

std::shared_mutex rangesMutex;
/// Device allocation ranges -> one past their last byte.
std::map<RangeStart, uintptr_t> deviceRanges;
/// Changed (under the lock) with every change of deviceRanges.
std::atomic<unsigned long long> rangesGeneration{0};

struct KnownRange {
  unsigned long long context;
  uintptr_t start, end;
};

/// Ranges of deviceRanges this thread found, as of `generation`, in a
/// direct-mapped table indexed by the address looked up (its 4 KiB page):
/// the tensors of a call in a loop, at the same addresses call after call,
/// find theirs in one probe each.
struct RecentRanges {
  static constexpr size_t kSlots = 64;
  unsigned long long generation = 0;
  std::array<KnownRange, kSlots> slots{};

  static size_t slot(uintptr_t address) {
    // Fibonacci hashing of the page number: the top bits of the product.
    return size_t((uint64_t(address >> 12) * 0x9E3779B97F4A7C15ull) >> 58);
  }
};
thread_local RecentRanges recent;

bool inKnownRange(unsigned long long context, uintptr_t address) {
  const unsigned long long generation =
      rangesGeneration.load(std::memory_order_acquire);
  if (recent.generation != generation) {
    recent.generation = generation;
    recent.slots.fill(KnownRange{});
  }
  KnownRange &cached = recent.slots[RecentRanges::slot(address)];
  // An empty slot (end 0) matches no address.
  if (cached.context == context && cached.start <= address &&
      address < cached.end)
    return true;
  std::shared_lock<std::shared_mutex> lock(rangesMutex);
  auto after = deviceRanges.upper_bound({context, address});
  if (after == deviceRanges.begin())
    return false;
  auto range = std::prev(after);
  if (range->first.first != context || address >= range->second)
    return false;
  // Stamped with the generation read before the lock: a change since then
  // empties the table at the thread's next lookup.
  cached = {context, range->first.second, range->second};
  return true;
}

void remember(unsigned long long context, uintptr_t start, uintptr_t size) {
  std::unique_lock<std::shared_mutex> lock(rangesMutex);
  rangesGeneration.fetch_add(1, std::memory_order_release);
  if (deviceRanges.size() >= kMaxRanges)
    deviceRanges.clear();
  // A range freed and allocated again may come back with another size: the
  // newest answer replaces what overlaps it.
  auto first = deviceRanges.upper_bound({context, start});
  if (first != deviceRanges.begin()) {
    auto before = std::prev(first);
    if (before->first.first == context && before->second > start)
      first = before;
  }
  auto last = deviceRanges.lower_bound({context, start + size});
  deviceRanges.erase(first, last);
  deviceRanges.emplace(RangeStart{context, start}, start + size);
}

std::string describe(const gpu::PointerQueries &driver, CUresult result) {
  const char *name = nullptr;
  if (driver.getErrorName(result, &name) != CUDA_SUCCESS || !name)
    return "CUDA error " + std::to_string(result);
  return name;
}

} // namespace

bool gpu::pointerCheckMode(PointerCheck &mode, std::string &message) {
  static const char *const value = std::getenv("TILEC_MAMBA2_POINTER_CHECK");
  if (!value || !*value || !std::strcmp(value, "range")) {
    mode = PointerCheck::PerRange;
    return true;
  }
  if (!std::strcmp(value, "call")) {
    mode = PointerCheck::PerCall;
    return true;
  }
  message = std::string("TILEC_MAMBA2_POINTER_CHECK is '") + value +
            "'; it must be 'range' (the default: ask the driver once per "
            "allocation range) or 'call' (ask about every pointer on every "
            "call)";
  return false;
}

tilec_mamba2_status gpu::checkDevicePointer(const PointerQueries &driver,
                                            PointerCheck mode,
                                            unsigned long long context,
                                            const char *name,
                                            const void *pointer,
                                            std::string &message) {
  const auto address = reinterpret_cast<uintptr_t>(pointer);
  if (mode == PointerCheck::PerRange && inKnownRange(context, address))
    return TILEC_MAMBA2_SUCCESS;

  unsigned int type = 0;
  CUdeviceptr start = 0;
  size_t size = 0;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                      CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  void *values[] = {&type, &start, &size};
  // Memory the driver does not know is no error here: its attributes come
  // back zero, and type 0 is no memory type. (cuPointerGetAttribute, the
  // singular, says CUDA_ERROR_INVALID_VALUE instead: taken the same way.)
  CUresult result = driver.getAttributes(std::size(attributes), attributes,
                                         values, CUdeviceptr(address));
  if (result != CUDA_SUCCESS && result != CUDA_ERROR_INVALID_VALUE) {
    message = std::string(name) +
              ": cuPointerGetAttributes failed: " + describe(driver, result);
    return TILEC_MAMBA2_ERROR_LAUNCH_FAILURE;
  }
  if (type == CU_MEMORYTYPE_HOST) {
    message = std::string(name) + ": data pointer is host memory; the "
                                  "kernels need device memory";
    return TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER;
  }
  if (type != CU_MEMORYTYPE_DEVICE) {
    message = std::string(name) +
              ": data pointer is not memory the CUDA driver knows (host "
              "memory?); the kernels need device memory";
    return TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER;
  }
  if (mode == PointerCheck::PerRange && size > 0 && start <= address &&
      address - start < size && start + size > start)
    remember(context, uintptr_t(start), uintptr_t(size));
  return TILEC_MAMBA2_SUCCESS;
}

void gpu::forgetDeviceRanges() {
  std::unique_lock<std::shared_mutex> lock(rangesMutex);
  rangesGeneration.fetch_add(1, std::memory_order_release);
  deviceRanges.clear();
}

unsigned long long gpu::deviceRangesGeneration() {
  return rangesGeneration.load(std::memory_order_acquire);
}
