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

/// The counters, printed when the process exits: each stage's mean without
/// its slowest call (the first call of a device loads every kernel, which
/// would swamp the mean of thousands), and that call.
struct Counters {
  std::array<std::atomic<unsigned long long>, kStages> ns{}, calls{},
      slowest{};
  ~Counters() {
    for (size_t i = 0; i < kStages; ++i) {
      const unsigned long long n = calls[i].load(), most = slowest[i].load();
      if (n < 2)
        continue;
      std::fprintf(stderr, "tilec_torch_op profile: %-17s %8.2f us per call "
                           "(%llu calls; the slowest, %.1f us, left out)\n",
                   kNames[i], double(ns[i].load() - most) / double(n - 1) / 1e3,
                   n, double(most) / 1e3);
    }
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
  const auto ns = (unsigned long long)
      std::chrono::duration_cast<std::chrono::nanoseconds>(time).count();
  c.ns[i] += ns;
  ++c.calls[i];
  unsigned long long most = c.slowest[i].load();
  while (ns > most && !c.slowest[i].compare_exchange_weak(most, ns)) {
  }
}

} // namespace tilec_torch_op
