//===- Profile.cpp - where an op call's host time goes --------------------===//

#include "Profile.h"

#include <algorithm>
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

/// Each stage's times in buckets of kBucketNs up to kBuckets of them (the
/// last one takes every longer call): enough for the median and the 90th
/// percentile without storing the calls.
constexpr unsigned long long kBucketNs = 50;
constexpr size_t kBuckets = 4000;

/// The time under which `fraction` of the `n` calls in `buckets` fall, in
/// µs (the upper edge of its bucket).
double percentile(
    const std::array<std::atomic<unsigned long long>, kBuckets> &buckets,
    unsigned long long n, double fraction) {
  const auto rank = (unsigned long long)(fraction * double(n));
  unsigned long long below = 0;
  for (size_t b = 0; b < kBuckets; ++b) {
    below += buckets[b].load();
    if (below > rank)
      return double((b + 1) * kBucketNs) / 1e3;
  }
  return double(kBuckets * kBucketNs) / 1e3;
}

/// The counters, printed when the process exits: each stage's median and
/// 90th percentile (the measure of a call's host cost: calls that waited,
/// for the GPU or after it was idle, stay out of the median), and its mean
/// without its slowest call (the first call of a device loads every kernel,
/// which would swamp the mean of thousands), and that call.
struct Counters {
  std::array<std::atomic<unsigned long long>, kStages> ns{}, calls{},
      slowest{};
  std::array<std::array<std::atomic<unsigned long long>, kBuckets>, kStages>
      buckets{};
  ~Counters() {
    for (size_t i = 0; i < kStages; ++i) {
      const unsigned long long n = calls[i].load(), most = slowest[i].load();
      if (n < 2)
        continue;
      std::fprintf(stderr,
                   "tilec_torch_op profile: %-17s median %7.2f us, 90%% "
                   "%7.2f us, mean %8.2f us per call (%llu calls; the "
                   "slowest, %.1f us, left out of the mean)\n",
                   kNames[i], percentile(buckets[i], n, 0.5),
                   percentile(buckets[i], n, 0.9),
                   double(ns[i].load() - most) / double(n - 1) / 1e3, n,
                   double(most) / 1e3);
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
  ++c.buckets[i][std::min<size_t>(size_t(ns / kBucketNs), kBuckets - 1)];
  unsigned long long most = c.slowest[i].load();
  while (ns > most && !c.slowest[i].compare_exchange_weak(most, ns)) {
  }
}

} // namespace tilec_torch_op
