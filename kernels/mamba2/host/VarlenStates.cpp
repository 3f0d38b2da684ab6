//===- VarlenStates.cpp - the launch of varlen_state ------------*- C++ -*-===//

#include "VarlenStates.h"

#include <cstdint>

using namespace tilec::mamba2;

std::array<int64_t, 3> detail::varlenStateGrid(const Problem &p,
                                               int64_t numSequences,
                                               int64_t blockP,
                                               int64_t blockN) {
  auto ceilDiv = [](int64_t a, int64_t b) { return a / b + (a % b != 0); };
  int64_t tiles = 0, programs = 0;
  if (__builtin_mul_overflow(ceilDiv(p.headdim, blockP),
                             ceilDiv(p.dstate, blockN), &tiles) ||
      __builtin_mul_overflow(tiles, numSequences, &programs))
    programs = INT64_MAX;
  return {programs, p.heads, 1};
}
