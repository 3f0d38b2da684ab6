//===- Profile.cpp - where an op call's host time goes --------------------===//

#include "Profile.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tilec_torch_op {
namespace {

constexpr size_t kStages = size_t(Stage::Count);
const char *const kNames[kStages] = {
    "forward checks", "forward context", "forward outputs",
    "forward workspace", "forward C ABI", "forward whole",
    "decode checks", "decode context", "decode outputs", "decode C ABI",
    "decode whole"};

/// The counters, printed when the process exits.
struct Counters {
  std::array<std::atomic<unsigned long long>, kStages> ns{}, calls{};
  ~Counters() {
    for (size_t i = 0; i < kStages; ++i)
      if (unsigned long long n = calls[i].load())
        std::fprintf(stderr, "tilec_torch_op profile: %-17s %8.2f us per "
                             "call (%llu calls)\n",
                     kNames[i], double(ns[i].load()) / double(n) / 1e3, n);
  }
};

Counters &counters() {
  static Counters c;
  return c;
}

} // namespace

bool profiling() {
  static const bool on = [] {
    const char *value = std::getenv("TILEC_TORCH_OP_PROFILE");
    if (!value || std::strcmp(value, "1") != 0)
      return false;
    counters(); // constructed now: destroyed (printed) at exit
    return true;
  }();
  return on;
}

void addTime(Stage stage, std::chrono::steady_clock::duration time) {
  Counters &c = counters();
  const size_t i = size_t(stage);
  c.ns[i] += (unsigned long long)
      std::chrono::duration_cast<std::chrono::nanoseconds>(time).count();
  ++c.calls[i];
}

} // namespace tilec_torch_op
