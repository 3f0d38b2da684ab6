//===- mamba2_host_cost.cpp - host time of a Mamba-2 forward call -*- C++ -*-===//
//
// mamba2_host_cost [--calls N] [--batches K]
//
// The host cost of one forward call (validation, grids, pointer checks and the
// launches: five, the default structure's), through the C++ API (forwardGpu)
// and the C ABI (tilec_mamba2_forward), per problem: batches of N calls in a
// loop with no synchronization inside (the stream is synchronized between
// batches, outside the timed loop, so that the launch queue never fills), the
// median over K batches of the batch's time / N; and each call timed on its
// own (the median call, the slowest) with the GPU's time per call (see
// Timing: where the GPU is slower, the queue fills and some calls wait for
// it, which the median call leaves out). Also the first call of the
// process (it loads the kernels) and of each problem (new allocation ranges:
// one pointer query each). The tensors are device allocations of the right
// sizes, never initialized: the time of a call does not depend on the data.
//
// "C++ 2 sets" alternates between two sets of tensors, so that every call
// updates the parameters of the cached graph's kernel nodes; "C++ no graph"
// is the C++ call with launch groups' graphs turned off
// (tilec_set_launch_graphs): five cuLaunchKernel.
//
// Then the same for the decode step (stateUpdateGpu and
// tilec_mamba2_state_update, one launch) on Mamba-2 2.7B's layer, and the
// forward's C++ call on a stream of its own (non-blocking) beside the legacy
// default stream the other columns use.
//
// Run with TILEC_CUDA_DRIVER pointing at the counting stand-in driver
// (unittests/Mamba2Gpu/CountingDriver.cpp, lib/libtilec_counting_driver.so
// in the build) it needs no GPU, times the library alone and prints the
// driver calls each forward makes, by entry point.
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/Mamba2Gpu.h"
#include "tilec/Mamba2/StateUpdate.h"
#include "tilec/Mamba2/tilec_mamba2.h"
#include "tilec/Runtime/DriverApi.h"
#include "tilec/Runtime/Runtime.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace tilec::mamba2;

namespace {

using Driver = tilec::runtime::DriverApi;
using Clock = std::chrono::steady_clock;

#define CHECK_CU(call)                                                         \
  do {                                                                         \
    if (CUresult result = (call); result != CUDA_SUCCESS) {                    \
      std::fprintf(stderr, "mamba2_host_cost: %s failed: %s\n", #call,        \
                   d.errorName(result));                                       \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

/// The counting driver's call counter, when the runtime loaded that driver.
using Counter = unsigned long long (*)(const char *);
Counter countingDriver() {
  const char *path = std::getenv("TILEC_CUDA_DRIVER");
  void *handle = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  return handle ? reinterpret_cast<Counter>(
                      dlsym(handle, "tilec_counting_driver_calls"))
                : nullptr;
}

double microseconds(Clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

/// A contiguous tensor in a device allocation of its own.
struct DeviceTensor {
  Tensor tensor;
  std::vector<int64_t> strides;
  tilec_mamba2_tensor descriptor{};
};

struct Buffers {
  DeviceTensor x, dt, A, B, C, D, init, y, final;
  CUdeviceptr workspace = 0;
  size_t workspaceBytes = 0;
  std::vector<CUdeviceptr> allocations;
};

void allocate(const Driver &d, Buffers &b, DeviceTensor &t, DType dtype,
              std::vector<int64_t> shape) {
  int64_t elements = 1;
  for (int64_t extent : shape)
    elements *= extent;
  CUdeviceptr p;
  CHECK_CU(d.memAlloc(&p, size_t(elements) * dtypeSize(dtype)));
  b.allocations.push_back(p);
  t.strides.assign(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    t.strides[i - 1] = t.strides[i] * shape[i];
  t.tensor = Tensor{reinterpret_cast<void *>(p), dtype, shape, t.strides};
  t.descriptor.data = t.tensor.data;
  t.descriptor.dtype = dtype == DType::F32 ? TILEC_MAMBA2_F32 : TILEC_MAMBA2_BF16;
  t.descriptor.rank = int32_t(shape.size());
  t.descriptor.shape = t.tensor.shape.data();
  t.descriptor.strides = t.strides.data();
}

/// The tensors and workspace of the forward pass of `p`.
bool allocateProblem(const Driver &d, Buffers &b, const Problem &p) {
  const std::vector<int64_t> tokens = {p.batch, p.seqlen, p.heads, p.headdim};
  const std::vector<int64_t> groups = {p.batch, p.seqlen, p.groups, p.dstate};
  const std::vector<int64_t> state = {p.batch, p.heads, p.headdim, p.dstate};
  allocate(d, b, b.x, DType::BF16, tokens);
  allocate(d, b, b.dt, DType::F32, {p.batch, p.seqlen, p.heads});
  allocate(d, b, b.A, DType::F32, {p.heads});
  allocate(d, b, b.B, DType::BF16, groups);
  allocate(d, b, b.C, DType::BF16, groups);
  allocate(d, b, b.D, DType::F32, {p.heads});
  allocate(d, b, b.init, DType::F32, state);
  allocate(d, b, b.y, DType::F32, tokens);
  allocate(d, b, b.final, DType::F32, state);
  if (!gpuWorkspaceSize(p, b.workspaceBytes).ok())
    return false;
  CHECK_CU(d.memAlloc(&b.workspace, b.workspaceBytes));
  b.allocations.push_back(b.workspace);
  return true;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

/// The times of `call` in batches of unsynchronized calls: its first call;
/// the median over the batches of the batch's host time per call (the
/// issue's measure: calls per second); the median and the largest host
/// time of one call, each call timed on its own; and the median over the
/// batches of the batch's time up to the end of its synchronization per
/// call, the GPU's time per call where the GPU is slower than the host.
/// When the GPU is slower, the launch queue fills during a batch and the
/// calls that find it full wait for the GPU: they raise the batch's mean
/// and the largest call, not the median call, which stays the host's cost.
struct Timing {
  double first, median, single, slowest, gpu;
};
Timing time(const Driver &d, const std::function<bool()> &call, int calls,
            int batches, CUstream stream = nullptr) {
  auto start = Clock::now();
  if (!call())
    std::exit(1);
  Timing timing{microseconds(Clock::now() - start), 0, 0, 0, 0};
  CHECK_CU(d.streamSynchronize(stream));
  std::vector<double> perCall, single, gpu;
  for (int batch = 0; batch < batches; ++batch) {
    start = Clock::now();
    auto last = start;
    for (int i = 0; i < calls; ++i) {
      if (!call())
        std::exit(1);
      const auto now = Clock::now();
      single.push_back(microseconds(now - last));
      last = now;
    }
    perCall.push_back(microseconds(last - start) / calls);
    CHECK_CU(d.streamSynchronize(stream));
    gpu.push_back(microseconds(Clock::now() - start) / calls);
  }
  timing.median = median(perCall);
  timing.single = median(single);
  timing.slowest = *std::max_element(single.begin(), single.end());
  timing.gpu = median(gpu);
  return timing;
}

/// The second line of a problem: the calls timed one by one, and the GPU.
void printSingleCalls(const Timing &cpp, const Timing &c) {
  std::printf("  one call: C++ %.2f us (slowest %.1f), C ABI %.2f us "
              "(slowest %.1f); GPU %.1f us per call%s\n",
              cpp.single, cpp.slowest, c.single, c.slowest, cpp.gpu,
              cpp.gpu > 1.5 * cpp.median
                  ? " (slower than the host: the queue fills in a batch)"
                  : "");
}

const char *const kCounted[] = {"cuCtxGetCurrent",
                                "cuCtxGetId",
                                "cuStreamIsCapturing",
                                "cuLaunchKernel",
                                "cuGraphLaunch",
                                "cuGraphExecKernelNodeSetParams",
                                "cuGraphInstantiateWithFlags",
                                "cuPointerGetAttributes",
                                "cuModuleLoadData",
                                "cuModuleGetFunction",
                                "cuFuncGetAttribute",
                                "cuFuncSetAttribute",
                                "cuMemAllocAsync",
                                "cuMemFreeAsync"};

/// The decode step's host cost: stateUpdateGpu and the C ABI, every option
/// on, on Mamba-2 2.7B's layer at batch 1 and 64.
int decodeHostCost(const Driver &d, Counter counter, int calls, int batches) {
  std::printf("decode step (B,H,G,P,N), every option on: µs per call\n");
  for (const DecodeProblem &p : {DecodeProblem{1, 80, 1, 64, 128, 1},
                                 DecodeProblem{64, 80, 1, 64, 128, 64}}) {
    Buffers b;
    const std::vector<int64_t> rows = {p.batch, p.heads, p.headdim};
    const std::vector<int64_t> groups = {p.batch, p.groups, p.dstate};
    DeviceTensor state, z, dtBias;
    allocate(d, b, state, DType::F32, {p.stateRows, p.heads, p.headdim, p.dstate});
    allocate(d, b, b.x, DType::BF16, rows);
    allocate(d, b, z, DType::BF16, rows);
    allocate(d, b, b.y, DType::BF16, rows);
    allocate(d, b, b.dt, DType::F32, {p.batch, p.heads});
    allocate(d, b, b.A, DType::F32, {p.heads});
    allocate(d, b, b.D, DType::F32, {p.heads});
    allocate(d, b, dtBias, DType::F32, {p.heads});
    allocate(d, b, b.B, DType::BF16, groups);
    allocate(d, b, b.C, DType::BF16, groups);
    StateUpdateArgs args;
    args.state = state.tensor;
    args.x = b.x.tensor;
    args.dt = b.dt.tensor;
    args.A = b.A.tensor;
    args.B = b.B.tensor;
    args.C = b.C.tensor;
    args.D = b.D.tensor;
    args.z = z.tensor;
    args.dtBias = dtBias.tensor;
    args.dtSoftplus = true;
    args.y = b.y.tensor;
    auto cpp = [&] {
      Status status = stateUpdateGpu(p, args, nullptr);
      if (!status.ok())
        std::fprintf(stderr, "mamba2_host_cost: %s\n",
                     status.message().c_str());
      return status.ok();
    };
    const tilec_mamba2_decode_problem cp{p.batch,   p.heads,  p.groups,
                                         p.headdim, p.dstate, p.stateRows};
    auto c = [&] {
      int status = tilec_mamba2_state_update(
          &cp, &state.descriptor, &b.x.descriptor, &b.dt.descriptor,
          &b.A.descriptor, &b.B.descriptor, &b.C.descriptor,
          &b.D.descriptor, &z.descriptor, &dtBias.descriptor, 1, nullptr, -1,
          &b.y.descriptor, nullptr);
      if (status != TILEC_MAMBA2_SUCCESS)
        std::fprintf(stderr, "mamba2_host_cost: %s: %s\n",
                     tilec_mamba2_status_name(status),
                     tilec_mamba2_last_error());
      return status == TILEC_MAMBA2_SUCCESS;
    };
    const Timing cppTiming = time(d, cpp, calls, batches);
    const Timing cTiming = time(d, c, calls, batches);
    std::printf("  (%lld,%lld,%lld,%lld,%lld): C++ %.2f us, C ABI %.2f us\n",
                (long long)p.batch, (long long)p.heads, (long long)p.groups,
                (long long)p.headdim, (long long)p.dstate, cppTiming.median,
                cTiming.median);
    printSingleCalls(cppTiming, cTiming);
    if (counter) {
      const unsigned long long total = counter("");
      if (!c())
        return 1;
      std::printf("  driver calls of one more state update: %llu\n",
                  counter("") - total);
    }
    CHECK_CU(d.streamSynchronize(nullptr));
    for (CUdeviceptr allocation : b.allocations)
      d.memFree(allocation);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  int calls = 32, batches = 15;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--calls")
      calls = std::atoi(argv[i + 1]);
    else if (flag == "--batches")
      batches = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: mamba2_host_cost [--calls N] "
                           "[--batches K]\n");
      return 2;
    }
  }
  if (calls < 1 || batches < 1) {
    std::fprintf(stderr, "mamba2_host_cost: --calls and --batches must be "
                         "positive\n");
    return 2;
  }
  Driver d;
  if (tilec_status status = d.load()) {
    std::printf("mamba2_host_cost: %s\n", d.error().c_str());
    return status == TILEC_ERROR_NO_DRIVER || status == TILEC_ERROR_NO_DEVICE
               ? 77
               : 1;
  }
  const Counter counter = countingDriver();
  void *entry = nullptr;
  if (tilec_driver_entry_point("cuStreamCreate", &entry) != TILEC_SUCCESS) {
    std::printf("mamba2_host_cost: %s\n", tilec_last_error());
    return 1;
  }
  CUstream ownStream = nullptr;
  CHECK_CU(reinterpret_cast<decltype(&::cuStreamCreate)>(entry)(
      &ownStream, CU_STREAM_NON_BLOCKING));
  std::printf("driver: %s\n", counter ? "the counting stand-in (no GPU: the "
                                        "library's own time)"
                                      : "the CUDA driver");
  std::printf("%d batches of %d calls, no synchronization inside a batch; "
              "µs per call, median over the batches\n",
              batches, calls);

  // (batch, seqlen, heads, groups, headdim, dstate, chunk): a small one and
  // bench/compare_mamba_ssm.py's, whose host time must not grow with size.
  const std::vector<Problem> problems = {
      {1, 64, 4, 1, 32, 16, 64},         {4, 1024, 8, 1, 64, 128, 128},
      {4, 4096, 8, 1, 64, 128, 128},     {4, 16384, 8, 1, 64, 128, 128},
      {4, 65536, 8, 1, 64, 128, 128},    {4, 16384, 8, 1, 64, 64, 128},
      {4, 4096, 80, 1, 64, 128, 256}};
  std::printf("%-30s %10s %10s %10s %10s %12s %11s %11s\n",
              "problem (B,L,H,G,P,N,Q)", "first us", "C++ us", "C ABI us",
              "C ABI 1st", "C++ own str", "C++ 2 sets", "C++ no graph");
  bool firstOfProcess = true;
  for (const Problem &p : problems) {
    Buffers b, other;
    if (!allocateProblem(d, b, p) || !allocateProblem(d, other, p))
      return 1;
    Inputs in{b.x.tensor, b.dt.tensor, b.A.tensor, b.B.tensor,
              b.C.tensor, b.D.tensor, b.init.tensor};
    Outputs out{b.y.tensor, b.final.tensor};
    GpuOptions options;
    options.workspace = reinterpret_cast<void *>(b.workspace);
    options.workspaceBytes = b.workspaceBytes;
    auto cpp = [&] {
      Status status = forwardGpu(p, in, out, options, nullptr);
      if (!status.ok())
        std::fprintf(stderr, "mamba2_host_cost: %s\n",
                     status.message().c_str());
      return status.ok();
    };
    const tilec_mamba2_problem cp{p.batch,   p.seqlen,  p.heads, p.groups,
                                  p.headdim, p.dstate, p.chunk};
    auto c = [&] {
      int status = tilec_mamba2_forward(
          &cp, &b.x.descriptor, &b.dt.descriptor, &b.A.descriptor,
          &b.B.descriptor, &b.C.descriptor, &b.D.descriptor,
          &b.init.descriptor, &b.y.descriptor, &b.final.descriptor,
          options.workspace, options.workspaceBytes, nullptr);
      if (status != TILEC_MAMBA2_SUCCESS)
        std::fprintf(stderr, "mamba2_host_cost: %s: %s\n",
                     tilec_mamba2_status_name(status),
                     tilec_mamba2_last_error());
      return status == TILEC_MAMBA2_SUCCESS;
    };
    auto cppOwnStream = [&] {
      Status status = forwardGpu(p, in, out, options, ownStream);
      if (!status.ok())
        std::fprintf(stderr, "mamba2_host_cost: %s\n",
                     status.message().c_str());
      return status.ok();
    };
    // Every call on other tensors than the last: the graph's nodes are
    // updated each time.
    Inputs otherIn{other.x.tensor, other.dt.tensor, other.A.tensor,
                   other.B.tensor, other.C.tensor, other.D.tensor,
                   other.init.tensor};
    Outputs otherOut{other.y.tensor, other.final.tensor};
    GpuOptions otherOptions = options;
    otherOptions.workspace = reinterpret_cast<void *>(other.workspace);
    bool useOther = false;
    auto cppAlternating = [&] {
      useOther = !useOther;
      Status status =
          useOther ? forwardGpu(p, otherIn, otherOut, otherOptions, nullptr)
                   : forwardGpu(p, in, out, options, nullptr);
      if (!status.ok())
        std::fprintf(stderr, "mamba2_host_cost: %s\n",
                     status.message().c_str());
      return status.ok();
    };
    const Timing cppTiming = time(d, cpp, calls, batches);
    const Timing cTiming = time(d, c, calls, batches);
    const Timing ownTiming = time(d, cppOwnStream, calls, batches, ownStream);
    const Timing alternatingTiming = time(d, cppAlternating, calls, batches);
    tilec_set_launch_graphs(false);
    const Timing plainTiming = time(d, cpp, calls, batches);
    tilec_set_launch_graphs(true);
    char name[64];
    std::snprintf(name, sizeof name, "(%lld,%lld,%lld,%lld,%lld,%lld,%lld)",
                  (long long)p.batch, (long long)p.seqlen, (long long)p.heads,
                  (long long)p.groups, (long long)p.headdim,
                  (long long)p.dstate, (long long)p.chunk);
    std::printf("%-30s %10.1f %10.2f %10.2f %10.1f %12.2f %11.2f %11.2f%s\n",
                name, cppTiming.first, cppTiming.median, cTiming.median,
                cTiming.first, ownTiming.median, alternatingTiming.median,
                plainTiming.median,
                firstOfProcess ? "  (first of the process: loads kernels)"
                               : "");
    firstOfProcess = false;
    printSingleCalls(cppTiming, cTiming);

    if (counter) {
      // The call before the counted one has the same tensors: the steady
      // state of a caller that calls with the same tensors again.
      if (!c())
        return 1;
      unsigned long long before[std::size(kCounted)], total = counter("");
      for (size_t i = 0; i < std::size(kCounted); ++i)
        before[i] = counter(kCounted[i]);
      if (!c())
        return 1;
      std::printf("  driver calls of one more C ABI call: %llu:",
                  counter("") - total);
      for (size_t i = 0; i < std::size(kCounted); ++i)
        if (unsigned long long n = counter(kCounted[i]) - before[i])
          std::printf(" %s %llu", kCounted[i], n);
      std::printf("\n");
    }
    CHECK_CU(d.streamSynchronize(nullptr));
    for (const Buffers *buffers : {&b, &other})
      for (CUdeviceptr allocation : buffers->allocations)
        d.memFree(allocation);
  }
  return decodeHostCost(d, counter, calls, batches);
}
