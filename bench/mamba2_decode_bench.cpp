//===- mamba2_decode_bench.cpp - the decode step against memory bandwidth -===//
//
// mamba2_decode_bench [--reps N] [--state-dtype f32|bf16]
//
// The decode step (stateUpdateGpu) is bound by memory: each state element
// is read and written once, and everything else is a few vectors per
// sequence. Per shape this prints the step's GPU time (CUDA events around
// one launch, median of N), the bytes it moves over that time, and beside
// it the rate of cuMemcpyDtoDAsync copying the state (read once, written
// once: the same traffic) measured the same way in the same run, and the
// ratio of the two. Shapes: Mamba-2 2.7B's layer (80 heads of 64, dstate
// 128, one group) and Codestral Mamba 7B's (128 heads of 64, dstate 128,
// 8 groups) at batch 1 to 256, with every option on (dt_bias, softplus, D,
// z), and one with state indices picking a shuffled half of a cache twice
// the batch (read by the kernel from device memory: one launch as well).
// The state is f32 unless --state-dtype bf16 (mamba_ssm's cache in the
// model's dtype: half the bytes). Exits 77 without a GPU.
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/Mamba2Gpu.h"
#include "tilec/Mamba2/StateUpdate.h"
#include "tilec/Runtime/DriverApi.h"
#include "tilec/Runtime/Runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace tilec::mamba2;

namespace {

using Driver = tilec::runtime::DriverApi;

#define CHECK_CU(call)                                                         \
  do {                                                                         \
    if (CUresult result = (call); result != CUDA_SUCCESS) {                    \
      std::fprintf(stderr, "mamba2_decode_bench: %s failed: %s\n", #call,      \
                   d.errorName(result));                                       \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct Shape {
  const char *model;
  DecodeProblem problem;
  bool scatteredIndices;
};

/// A device buffer of `count` elements of `bytes` each, filled with small
/// random values of that width (the values do not change the time).
CUdeviceptr randomBuffer(const Driver &d, std::vector<CUdeviceptr> &all,
                         size_t count, size_t bytes, std::mt19937 &rng) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<uint16_t> half(bytes == 2 ? count : 0);
  std::vector<float> single(bytes == 4 ? count : 0);
  for (uint16_t &v : half)
    v = toBF16(uniform(rng));
  for (float &v : single)
    v = 0.5f * uniform(rng);
  CUdeviceptr p;
  CHECK_CU(d.memAlloc(&p, std::max<size_t>(count * bytes, 4)));
  CHECK_CU(d.memcpyHtoD(p,
                        bytes == 2 ? static_cast<void *>(half.data())
                                   : static_cast<void *>(single.data()),
                        count * bytes));
  all.push_back(p);
  return p;
}

/// Median ms of `enqueue` between two events, over `reps` repetitions.
double medianMs(const Driver &d, const std::function<void()> &enqueue,
                int reps) {
  CUevent start, stop;
  CHECK_CU(d.eventCreate(&start, CU_EVENT_DEFAULT));
  CHECK_CU(d.eventCreate(&stop, CU_EVENT_DEFAULT));
  enqueue(); // warm-up: module load, caches
  CHECK_CU(d.streamSynchronize(nullptr));
  std::vector<float> times;
  for (int i = 0; i < reps; ++i) {
    CHECK_CU(d.eventRecord(start, nullptr));
    enqueue();
    CHECK_CU(d.eventRecord(stop, nullptr));
    CHECK_CU(d.eventSynchronize(stop));
    float ms = 0;
    CHECK_CU(d.eventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  int reps = 200;
  DType stateDType = DType::F32;
  for (int i = 1; i < argc; i += 2) {
    const std::string option = argv[i];
    const std::string value = i + 1 < argc ? argv[i + 1] : "";
    if (option == "--reps" && !value.empty())
      reps = std::atoi(value.c_str());
    else if (option == "--state-dtype" && (value == "f32" || value == "bf16"))
      stateDType = value == "bf16" ? DType::BF16 : DType::F32;
    else {
      std::fprintf(stderr, "usage: mamba2_decode_bench [--reps N] "
                           "[--state-dtype f32|bf16]\n");
      return 2;
    }
  }
  if (reps < 1) {
    std::fprintf(stderr, "mamba2_decode_bench: --reps must be positive\n");
    return 2;
  }
  Driver d;
  if (tilec_status status = d.load()) {
    std::printf("mamba2_decode_bench: %s\n", d.error().c_str());
    return status == TILEC_ERROR_NO_DRIVER || status == TILEC_ERROR_NO_DEVICE
               ? 77
               : 1;
  }
  void *entry = nullptr;
  if (tilec_driver_entry_point("cuMemcpyDtoDAsync", &entry) != TILEC_SUCCESS) {
    std::printf("mamba2_decode_bench: %s\n", tilec_last_error());
    return 1;
  }
  const auto memcpyDtoDAsync =
      reinterpret_cast<decltype(&::cuMemcpyDtoDAsync)>(entry);
  if (Status s = prepareGpu(); !s) {
    std::printf("mamba2_decode_bench: %s\n", s.message().c_str());
    return 1;
  }

  const std::vector<Shape> shapes = {
      {"mamba2-2.7b", {1, 80, 1, 64, 128, 1}, false},
      {"mamba2-2.7b", {8, 80, 1, 64, 128, 8}, false},
      {"mamba2-2.7b", {32, 80, 1, 64, 128, 32}, false},
      {"mamba2-2.7b", {128, 80, 1, 64, 128, 128}, false},
      {"mamba2-2.7b", {256, 80, 1, 64, 128, 256}, false},
      {"codestral-7b", {1, 128, 8, 64, 128, 1}, false},
      {"codestral-7b", {64, 128, 8, 64, 128, 64}, false},
      {"codestral-7b", {256, 128, 8, 64, 128, 256}, false},
      {"2.7b shuffled", {32, 80, 1, 64, 128, 64}, true}};
  std::printf("decode step, every option on, %s state; GPU ms: CUDA events "
              "around one call, median of %d\n",
              dtypeName(stateDType), reps);
  const size_t stateElementBytes = stateDType == DType::F32 ? 4 : 2;
  std::printf("%-15s %6s %6s %6s %5s %5s %10s %10s %9s %10s %8s\n", "model",
              "batch", "heads", "groups", "P", "N", "MB moved", "step ms",
              "GB/s", "copy GB/s", "of copy");
  std::mt19937 rng(1);
  for (const Shape &shape : shapes) {
    const DecodeProblem &p = shape.problem;
    std::vector<CUdeviceptr> all;
    const size_t rows = size_t(p.batch * p.heads * p.headdim);
    const size_t stateElements =
        size_t(p.stateRows * p.heads * p.headdim * p.dstate);
    auto tensor = [&](CUdeviceptr ptr, DType dtype, std::vector<int64_t> s) {
      return Tensor::contiguous(reinterpret_cast<void *>(ptr), dtype,
                                std::move(s));
    };
    StateUpdateArgs args;
    args.state =
        tensor(randomBuffer(d, all, stateElements, stateElementBytes, rng),
               stateDType, {p.stateRows, p.heads, p.headdim, p.dstate});
    args.x = tensor(randomBuffer(d, all, rows, 2, rng), DType::BF16,
                    {p.batch, p.heads, p.headdim});
    args.z = tensor(randomBuffer(d, all, rows, 2, rng), DType::BF16,
                    {p.batch, p.heads, p.headdim});
    args.y = tensor(randomBuffer(d, all, rows, 2, rng), DType::BF16,
                    {p.batch, p.heads, p.headdim});
    args.dt = tensor(randomBuffer(d, all, size_t(p.batch * p.heads), 4, rng),
                     DType::F32, {p.batch, p.heads});
    for (Tensor *t : {&args.B, &args.C})
      *t = tensor(
          randomBuffer(d, all, size_t(p.batch * p.groups * p.dstate), 2, rng),
          DType::BF16, {p.batch, p.groups, p.dstate});
    args.A = tensor(randomBuffer(d, all, size_t(p.heads), 4, rng), DType::F32,
                    {p.heads});
    args.D = tensor(randomBuffer(d, all, size_t(p.heads), 4, rng), DType::F32,
                    {p.heads});
    args.dtBias = tensor(randomBuffer(d, all, size_t(p.heads), 4, rng),
                         DType::F32, {p.heads});
    args.dtSoftplus = true;
    std::vector<int64_t> indices(size_t(p.stateRows));
    if (shape.scatteredIndices) {
      std::iota(indices.begin(), indices.end(), 0);
      std::shuffle(indices.begin(), indices.end(), rng);
      indices.resize(size_t(p.batch));
      // The kernel reads them on the device.
      CUdeviceptr onDevice;
      CHECK_CU(d.memAlloc(&onDevice, indices.size() * sizeof(int64_t)));
      CHECK_CU(d.memcpyHtoD(onDevice, indices.data(),
                            indices.size() * sizeof(int64_t)));
      all.push_back(onDevice);
      args.stateIndices = reinterpret_cast<const int64_t *>(onDevice);
    }
    // Bytes the step must move: the updated state rows read and written,
    // x, z and y, B and C, dt, and the per-head vectors.
    const double stateBytes =
        double(p.batch * p.heads * p.headdim * p.dstate) *
        double(stateElementBytes);
    const double moved = 2 * stateBytes + 3.0 * double(rows) * 2 +
                         2.0 * double(p.batch * p.groups * p.dstate) * 2 +
                         double(p.batch * p.heads) * 4 +
                         3.0 * double(p.heads) * 4;
    const double stepMs = medianMs(
        d,
        [&] {
          if (Status s = stateUpdateGpu(p, args, nullptr); !s) {
            std::fprintf(stderr, "mamba2_decode_bench: %s\n",
                         s.message().c_str());
            std::exit(1);
          }
        },
        reps);
    CUdeviceptr copy;
    CHECK_CU(d.memAlloc(&copy, size_t(stateBytes)));
    all.push_back(copy);
    const CUdeviceptr source = reinterpret_cast<CUdeviceptr>(args.state.data);
    const double copyMs = medianMs(
        d,
        [&] {
          CHECK_CU(memcpyDtoDAsync(copy, source, size_t(stateBytes), nullptr));
        },
        reps);
    const double rate = moved / (stepMs * 1e6),
                 copyRate = 2 * stateBytes / (copyMs * 1e6);
    std::printf(
        "%-15s %6lld %6lld %6lld %5lld %5lld %10.2f %10.4f %9.0f %10.0f "
        "%7.0f%%\n",
        shape.model, (long long)p.batch, (long long)p.heads,
        (long long)p.groups, (long long)p.headdim, (long long)p.dstate,
        moved / 1e6, stepMs, rate, copyRate, 100 * rate / copyRate);
    for (CUdeviceptr buffer : all)
      d.memFree(buffer);
  }
  return 0;
}
