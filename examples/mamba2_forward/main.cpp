//===- main.cpp - one Mamba-2 forward pass, checked -------------*- C++ -*-===//
//
// mamba2_forward [--device=auto|cpu|gpu] [--batch=1] [--seqlen=256] [--heads=4]
//                [--groups=2] [--headdim=64] [--dstate=64] [--chunk=64]
//                [--initial-state] [--seed=N]
//
// Runs the forward pass on random inputs on the chosen device (auto: the GPU
// when there is one, else the CPU interpreter), compares y
// and the final state with the f64 recurrence (norm-wise relative error),
// and prints the times. Exits non-zero on an error or when an error exceeds
// 1e-2, a loose bound for a demonstration (the tests' bounds, per element and
// norm-wise from the precision, are in docs/testing.md).
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/Reference.h"
#ifdef TILEC_HAVE_GPU
#include "GpuForward.h"
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace tilec::mamba2;

namespace {

enum class Device { Auto, Cpu, Gpu };

struct Options {
  Device device = Device::Auto;
  Problem problem{/*batch=*/1, /*seqlen=*/256, /*heads=*/4, /*groups=*/2,
                  /*headdim=*/64, /*dstate=*/64, /*chunk=*/64};
  bool initialState = false;
  uint64_t seed = 0;
};

const char *kUsage =
    "usage: mamba2_forward [--device=auto|cpu|gpu] [--batch=N] [--seqlen=N] "
    "[--heads=N] [--groups=N] [--headdim=N] [--dstate=N] [--chunk=64|128|256] "
    "[--initial-state] [--seed=N]\n";

bool parseOptions(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    size_t eq = arg.find('=');
    std::string name = arg.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    auto number = [&](int64_t &out) {
      char *end = nullptr;
      out = std::strtoll(value.c_str(), &end, 10);
      return !value.empty() && *end == '\0';
    };
    int64_t seed = 0;
    bool ok = true;
    if (name == "--device") {
      ok = value == "auto" || value == "cpu" || value == "gpu";
      options.device = value == "cpu"   ? Device::Cpu
                       : value == "gpu" ? Device::Gpu
                                        : Device::Auto;
    } else if (name == "--batch") {
      ok = number(options.problem.batch);
    } else if (name == "--seqlen") {
      ok = number(options.problem.seqlen);
    } else if (name == "--heads") {
      ok = number(options.problem.heads);
    } else if (name == "--groups") {
      ok = number(options.problem.groups);
    } else if (name == "--headdim") {
      ok = number(options.problem.headdim);
    } else if (name == "--dstate") {
      ok = number(options.problem.dstate);
    } else if (name == "--chunk") {
      ok = number(options.problem.chunk);
    } else if (name == "--initial-state" && value.empty()) {
      options.initialState = true;
    } else if (name == "--seed") {
      ok = number(seed);
      options.seed = static_cast<uint64_t>(seed);
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr, "mamba2_forward: bad argument '%s'\n%s", argv[i],
                   kUsage);
      return false;
    }
  }
  return true;
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

const char *deviceName(Device device) {
  switch (device) {
  case Device::Cpu:
    return "cpu (tile interpreter)";
  case Device::Gpu:
    return "gpu (compiled kernels)";
  case Device::Auto:
    break;
  }
  return "?";
}

/// Auto becomes the GPU when the driver sees a device, else the CPU.
Device resolveDevice(Device device) {
  if (device != Device::Auto)
    return device;
#ifdef TILEC_HAVE_GPU
  std::string why;
  if (tilec::examples::gpuAvailable(why))
    return Device::Gpu;
  std::printf("no GPU (%s): running on the CPU\n", why.c_str());
#else
  std::printf("built without the GPU library: running on the CPU\n");
#endif
  return Device::Cpu;
}

/// One pass; `ms` is its time (on the GPU, launch to completion).
Status forward(Device device, const Problem &problem, const Inputs &inputs,
               const Outputs &outputs, double &ms) {
  auto start = std::chrono::steady_clock::now();
  switch (device) {
  case Device::Cpu: {
    Status status = forwardCpu(problem, inputs, outputs);
    ms = millisecondsSince(start);
    return status;
  }
  case Device::Gpu:
#ifdef TILEC_HAVE_GPU
    return tilec::examples::forwardOnGpu(problem, inputs, outputs, ms);
#else
    return Status::error("this build has no GPU library (no CUDA toolkit "
                         "at configure time)");
#endif
  case Device::Auto:
    break;
  }
  return Status::error("unknown device");
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (!parseOptions(argc, argv, options))
    return 2;
  options.device = resolveDevice(options.device);
  const Problem &p = options.problem;
  std::printf("Mamba-2 forward on %s: batch %lld, seqlen %lld, heads %lld, "
              "groups %lld, headdim %lld, dstate %lld, chunk %lld, %s "
              "initial state, seed %llu\n",
              deviceName(options.device), (long long)p.batch,
              (long long)p.seqlen, (long long)p.heads, (long long)p.groups,
              (long long)p.headdim, (long long)p.dstate, (long long)p.chunk,
              options.initialState ? "with" : "without",
              (unsigned long long)options.seed);

  HostProblem data = HostProblem::random(p, options.seed);
  Inputs inputs = data.inputs(options.initialState);
  Outputs outputs = data.outputs();
  ReferenceResult want;
  auto start = std::chrono::steady_clock::now();
  if (Status status = referenceForward(p, inputs, want); !status) {
    std::fprintf(stderr, "mamba2_forward: %s\n", status.message().c_str());
    return 1;
  }
  double referenceMs = millisecondsSince(start);

  // The first pass also compiles the kernels; the second shows the run alone.
  double passMs[2];
  for (double &ms : passMs) {
    data.poisonOutputs();
    if (Status status = forward(options.device, p, inputs, outputs, ms);
        !status) {
      std::fprintf(stderr, "mamba2_forward: %s\n", status.message().c_str());
      return 1;
    }
  }

  double yError = normwiseRelativeError(outputs.y, want.y);
  double stateError =
      normwiseRelativeError(*outputs.finalState, want.finalState);
  std::printf("y           relative error %.3e\n", yError);
  std::printf("final state relative error %.3e\n", stateError);
  std::printf("time: %.1f ms first pass (compiles or loads the kernels), "
              "%.1f ms second pass; f64 recurrence %.1f ms\n",
              passMs[0], passMs[1], referenceMs);
  const double tolerance = 1e-2;
  if (!(yError <= tolerance && stateError <= tolerance)) {
    std::printf("FAILED: an error is above %.0e\n", tolerance);
    return 1;
  }
  std::printf("OK (errors <= %.0e)\n", tolerance);
  return 0;
}
