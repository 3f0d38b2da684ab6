//===- Gf2Basis.h - Gaussian elimination over GF(2) -------------*- C++ -*-===//
//
// The one elimination the layout code uses (rank, solving, pseudo-inverse,
// the shared-memory layout search, which input bits of a layout only make
// copies in the lowering).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LAYOUT_GF2BASIS_H
#define TILEC_LAYOUT_GF2BASIS_H

#include <array>
#include <cstdint>
#include <optional>

namespace tilec {

/// Gaussian elimination over GF(2) on column vectors, remembering which
/// columns each reduced vector combines. Columns inserted first are
/// preferred: the solution of v uses the lowest-numbered columns that can
/// reach it (the representation in this basis is unique, and the vectors
/// from the first k columns span exactly what those columns span).
class Gf2Basis {
public:
  /// Adds column number `index`; returns whether it was independent of the
  /// columns already inserted.
  bool insert(uint64_t column, unsigned index) {
    uint64_t combination = uint64_t(1) << index;
    for (int bit = 63; bit >= 0; --bit) {
      if (!((column >> bit) & 1))
        continue;
      if (!pivots[bit]) {
        pivots[bit] = column;
        combinations[bit] = combination;
        ++rank;
        return true;
      }
      column ^= pivots[bit];
      combination ^= combinations[bit];
    }
    return false;
  }
  /// The combination of inserted columns summing to v, if any.
  std::optional<uint64_t> solve(uint64_t v) const {
    uint64_t combination = 0;
    for (int bit = 63; bit >= 0; --bit) {
      if (!((v >> bit) & 1))
        continue;
      if (!pivots[bit])
        return std::nullopt;
      v ^= pivots[bit];
      combination ^= combinations[bit];
    }
    return combination;
  }
  unsigned getRank() const { return rank; }

private:
  std::array<uint64_t, 64> pivots{};
  std::array<uint64_t, 64> combinations{};
  unsigned rank = 0;
};

} // namespace tilec

#endif // TILEC_LAYOUT_GF2BASIS_H
