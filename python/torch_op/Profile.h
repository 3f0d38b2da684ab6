//===- Profile.h - where an op call's host time goes -----------*- C++ -*-===//
//
// With TILEC_TORCH_OP_PROFILE=1 in the environment (read once), each stage
// of every op call adds its steady_clock time to a counter and a histogram,
// and the process prints each stage's median, 90th percentile and mean per
// call (the mean without its slowest call) to stderr when it exits; the time
// from Python to the kernel and back (argument conversion, the dispatcher,
// the outputs' Python objects) is the caller's measure less the "whole"
// stage. Without the variable a stage costs one test of a flag.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TORCH_OP_PROFILE_H
#define TILEC_TORCH_OP_PROFILE_H

#include <chrono>

namespace tilec_torch_op {

enum class Stage {
  ForwardChecks,    // devices, sizes
  ForwardContext,   // kernels loaded, context current, stream, capture state
  ForwardOutputs,   // at::empty of the outputs asked for (and a zero D)
  ForwardWorkspace, // its size and the kept buffer
  ForwardCApi,      // tilec_mamba2_forward_with_options
  ForwardWhole,     // the kernel function, entry to return
  DecodeChecks,
  DecodeContext,
  DecodeOutputs,    // y (and the indices converted)
  DecodeCApi,       // tilec_mamba2_state_update
  DecodeWhole,
  Count
};

bool profiling();
void addTime(Stage stage, std::chrono::steady_clock::duration time);

/// Times consecutive stages of one call: lap(s) charges the time since the
/// previous lap (or the construction) to s; the destructor charges `whole`
/// with the time since the construction.
class Laps {
public:
  explicit Laps(Stage whole) : whole(whole), on(profiling()) {
    if (on)
      start = last = std::chrono::steady_clock::now();
  }
  void lap(Stage stage) {
    if (!on)
      return;
    const auto now = std::chrono::steady_clock::now();
    addTime(stage, now - last);
    last = now;
  }
  ~Laps() {
    if (on)
      addTime(whole, std::chrono::steady_clock::now() - start);
  }
  Laps(const Laps &) = delete;
  Laps &operator=(const Laps &) = delete;

private:
  Stage whole;
  bool on;
  std::chrono::steady_clock::time_point start, last;
};

} // namespace tilec_torch_op

#endif // TILEC_TORCH_OP_PROFILE_H
