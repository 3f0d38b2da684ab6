//===- TestSeed.h - the seed of a test's random inputs ----------*- C++ -*-===//
//
// Every test that draws random inputs takes its seed from here: fresh per
// run, so that runs explore new inputs, or TILEC_TEST_SEED=<seed> to replay
// one. The seed is printed when drawn and tests put it in their failure
// messages (seedTrace), so a failing run names the seed that replays it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_UNITTESTS_SUPPORT_TESTSEED_H
#define TILEC_UNITTESTS_SUPPORT_TESTSEED_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace tilec::testing {

/// TILEC_TEST_SEED when set, else a fresh random seed; printed either way.
inline uint64_t testSeed() {
  uint64_t seed;
  if (const char *fixed = std::getenv("TILEC_TEST_SEED")) {
    seed = std::strtoull(fixed, nullptr, 10);
  } else {
    std::random_device device;
    seed = (static_cast<uint64_t>(device()) << 32) | device();
  }
  std::printf("seed %llu (replay with TILEC_TEST_SEED=%llu)\n",
              static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed));
  return seed;
}

/// What a failure message says about the seed.
inline std::string seedTrace(uint64_t seed) {
  return "seed " + std::to_string(seed) + " (replay with TILEC_TEST_SEED=" +
         std::to_string(seed) + ")";
}

} // namespace tilec::testing

#endif // TILEC_UNITTESTS_SUPPORT_TESTSEED_H
