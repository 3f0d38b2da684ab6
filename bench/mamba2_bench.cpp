//===- mamba2_bench.cpp - times the GPU Mamba-2 forward ---------*- C++ -*-===//
//
// mamba2_bench [--reps N] [--bandwidth GB/s] [--tflops T]
//              [--structure four|three|both] [--problem B,L,H,G,P,N,Q]
//              [--state-dtype f32|bf16|both]
//
// For each problem, structure and state dtype (docs/mamba2.md: the
// four-kernel default, the three-kernel option; both unless asked; the
// states between chunks in f32 unless asked, bf16 being mamba_ssm's
// state_dtype; every problem of the list below unless one is given): random
// inputs (HostProblem::random) copied to the GPU, a preallocated workspace, 5
// warm-up passes, then N passes each timed with CUDA events; prints the median,
// the fewest bytes a pass must move (inputs read once, outputs written once)
// and the matrix flops, each over the ceilings given (measured on the machine:
// a device-to-device copy and a large bf16 matrix product), so the time sits
// beside its roofline.
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/Mamba2Gpu.h"
#include "tilec/Mamba2/Reference.h"
#include "tilec/Runtime/DriverApi.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace tilec::mamba2;

namespace {

using Driver = tilec::runtime::DriverApi;

#define CHECK_CU(call)                                                         \
  do {                                                                         \
    if ((call) != CUDA_SUCCESS) {                                              \
      std::fprintf(stderr, "mamba2_bench: %s failed\n", #call);               \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

/// A device copy of a host vector.
template <typename T>
CUdeviceptr upload(const Driver &d, const std::vector<T> &host) {
  CUdeviceptr p;
  size_t bytes = std::max<size_t>(host.size() * sizeof(T), 1);
  CHECK_CU(d.memAlloc(&p, bytes));
  if (!host.empty())
    CHECK_CU(d.memcpyHtoD(p, host.data(), host.size() * sizeof(T)));
  return p;
}

Tensor onDevice(const Tensor &host, CUdeviceptr p) {
  Tensor t = host;
  t.data = reinterpret_cast<void *>(p);
  return t;
}

struct Row {
  Problem problem;
  double ms;
  double gbytes;
  double tflop;
};

Row run(const Driver &d, const Problem &problem, ForwardStructure structure,
        DType stateDtype, int reps) {
  HostProblem host = HostProblem::random(problem, 1234);
  Inputs hin = host.inputs(/*withInitialState=*/true);
  Outputs hout = host.outputs();
  std::vector<CUdeviceptr> buffers = {
      upload(d, host.x),  upload(d, host.dt), upload(d, host.A),
      upload(d, host.B),  upload(d, host.C),  upload(d, host.D),
      upload(d, host.initialState), upload(d, host.y),
      upload(d, host.finalState)};
  Inputs in;
  in.x = onDevice(hin.x, buffers[0]);
  in.dt = onDevice(hin.dt, buffers[1]);
  in.A = onDevice(hin.A, buffers[2]);
  in.B = onDevice(hin.B, buffers[3]);
  in.C = onDevice(hin.C, buffers[4]);
  in.D = onDevice(hin.D, buffers[5]);
  in.initialState = onDevice(*hin.initialState, buffers[6]);
  in.stateDtype = stateDtype;
  Outputs out;
  out.y = onDevice(hout.y, buffers[7]);
  out.finalState = onDevice(*hout.finalState, buffers[8]);

  GpuOptions options;
  options.structure = structure;
  CUdeviceptr workspace;
  if (!gpuWorkspaceSize(problem, options.workspaceBytes, structure).ok())
    std::exit(1);
  CHECK_CU(d.memAlloc(&workspace, options.workspaceBytes));
  options.workspace = reinterpret_cast<void *>(workspace);

  CUevent start, stop;
  CHECK_CU(d.eventCreate(&start, CU_EVENT_DEFAULT));
  CHECK_CU(d.eventCreate(&stop, CU_EVENT_DEFAULT));
  std::vector<float> times;
  for (int i = 0; i < reps + 5; ++i) {
    CHECK_CU(d.eventRecord(start, nullptr));
    Status status = forwardGpu(problem, in, out, options, nullptr);
    if (!status.ok()) {
      std::fprintf(stderr, "mamba2_bench: %s\n", status.message().c_str());
      std::exit(1);
    }
    CHECK_CU(d.eventRecord(stop, nullptr));
    CHECK_CU(d.eventSynchronize(stop));
    float ms;
    CHECK_CU(d.eventElapsedTime(&ms, start, stop));
    if (i >= 5)
      times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  for (CUdeviceptr p : buffers)
    d.memFree(p);
  d.memFree(workspace);

  const Problem &p = problem;
  double tokens = double(p.batch) * p.seqlen;
  // Inputs once (x, B, C bf16; dt f32; the initial state), outputs once (y
  // f32, the final state).
  double bytes = tokens * p.heads * p.headdim * 2 +
                 2 * tokens * p.groups * p.dstate * 2 + tokens * p.heads * 4 +
                 tokens * p.heads * p.headdim * 4 +
                 2.0 * p.batch * p.heads * p.headdim * p.dstate * 4;
  // Per head and token: C B^T and the causal product over a chunk (Q N + Q P,
  // counted whole), C h^T and the state update (2 N P), two flops a product.
  double flops = 2 * tokens * p.heads *
                 (double(p.chunk) * p.dstate + double(p.chunk) * p.headdim +
                  2.0 * p.dstate * p.headdim);
  return {problem, times[times.size() / 2], bytes / 1e9, flops / 1e12};
}

} // namespace

int main(int argc, char **argv) {
  int reps = 50;
  double bandwidth = 4300, tflops = 790;
  std::vector<ForwardStructure> structures = {ForwardStructure::FourKernels,
                                              ForwardStructure::ThreeKernels};
  std::vector<DType> stateDtypes = {DType::F32};
  // (batch, seqlen, heads, groups, headdim, dstate, chunk): Mamba-2 2.7B's
  // layer (80 heads of 64, dstate 128, one group) at 4 x 4096 tokens per
  // chunk size, one long sequence, and the shape of the comparison with
  // mamba_ssm (docs/performance.md).
  std::vector<Problem> problems = {{4, 4096, 80, 1, 64, 128, 64},
                                   {4, 4096, 80, 1, 64, 128, 128},
                                   {4, 4096, 80, 1, 64, 128, 256},
                                   {1, 65536, 80, 1, 64, 128, 256},
                                   {4, 16384, 8, 1, 64, 128, 128}};
  const char *usage = "usage: mamba2_bench [--reps N] [--bandwidth GB/s] "
                      "[--tflops T] [--structure four|three|both] "
                      "[--problem B,L,H,G,P,N,Q] "
                      "[--state-dtype f32|bf16|both]\n";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--reps")
      reps = std::atoi(argv[i + 1]);
    else if (flag == "--bandwidth")
      bandwidth = std::atof(argv[i + 1]);
    else if (flag == "--tflops")
      tflops = std::atof(argv[i + 1]);
    else if (flag == "--structure" && !std::strcmp(argv[i + 1], "four"))
      structures = {ForwardStructure::FourKernels};
    else if (flag == "--structure" && !std::strcmp(argv[i + 1], "three"))
      structures = {ForwardStructure::ThreeKernels};
    else if (flag == "--state-dtype" && !std::strcmp(argv[i + 1], "f32"))
      stateDtypes = {DType::F32};
    else if (flag == "--state-dtype" && !std::strcmp(argv[i + 1], "bf16"))
      stateDtypes = {DType::BF16};
    else if (flag == "--state-dtype" && !std::strcmp(argv[i + 1], "both"))
      stateDtypes = {DType::F32, DType::BF16};
    else if (flag == "--problem") {
      long long v[7];
      char end;
      if (std::sscanf(argv[i + 1], "%lld,%lld,%lld,%lld,%lld,%lld,%lld%c",
                      &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                      &end) != 7) {
        std::fprintf(stderr, "%s", usage);
        return 1;
      }
      problems = {Problem{v[0], v[1], v[2], v[3], v[4], v[5], v[6]}};
    } else if (flag != "--structure" || std::strcmp(argv[i + 1], "both")) {
      std::fprintf(stderr, "%s", usage);
      return 1;
    }
  }
  Driver d;
  if (tilec_status status = d.load()) {
    std::printf("mamba2_bench: %s\n", d.error().c_str());
    return status == TILEC_ERROR_NO_DRIVER || status == TILEC_ERROR_NO_DEVICE
               ? 77
               : 1;
  }

  std::printf("%-34s %-9s %-6s %10s %9s %9s %10s %9s\n",
              "problem (B,L,H,G,P,N,Q)", "structure", "states", "median ms",
              "GB", "TFLOP", "mem floor", "mma floor");
  for (const Problem &p : problems)
    for (ForwardStructure structure : structures)
      for (DType stateDtype : stateDtypes) {
        Row r = run(d, p, structure, stateDtype, reps);
        char name[64];
        std::snprintf(name, sizeof name, "(%lld,%lld,%lld,%lld,%lld,%lld,%lld)",
                      (long long)p.batch, (long long)p.seqlen,
                      (long long)p.heads, (long long)p.groups,
                      (long long)p.headdim, (long long)p.dstate,
                      (long long)p.chunk);
        std::printf(
            "%-34s %-9s %-6s %10.3f %9.3f %9.3f %8.3fms %7.3fms\n", name,
            structure == ForwardStructure::FourKernels ? "four" : "three",
            dtypeName(stateDtype), r.ms, r.gbytes, r.tflop,
            r.gbytes / bandwidth * 1e3, r.tflop / tflops * 1e3);
      }
  return 0;
}
