//===- LayoutTestUtils.h - enumeration and shared-memory bank model -------===//
//
// Helpers the layout tests share: enumerate every point of a distributed
// layout, the row-major index of a coordinate, and a model of shared-memory
// bank conflicts (32 banks of 4 bytes; a warp's access of at most 4 bytes
// per lane is one request, 8-byte accesses go in 2 phases of 16 lanes,
// 16-byte ones in 4 phases of 8; a phase takes as many wavefronts as the
// most distinct 4-byte words any one bank is asked for).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_UNITTESTS_LAYOUT_LAYOUTTESTUTILS_H
#define TILEC_UNITTESTS_LAYOUT_LAYOUTTESTUTILS_H

#include "tilec/Layout/LinearLayout.h"

#include <functional>
#include <map>
#include <set>
#include <vector>

namespace tilec::testing {

/// Calls f(register, lane, warp) for every point of a (register, lane,
/// warp) layout.
inline void
forEachThreadRegister(const LinearLayout &layout,
                      const std::function<void(int64_t, int64_t, int64_t)> &f) {
  for (int64_t w = 0; w < layout.getInDimSize(kWarp); ++w)
    for (int64_t l = 0; l < layout.getInDimSize(kLane); ++l)
      for (int64_t r = 0; r < layout.getInDimSize(kRegister); ++r)
        f(r, l, w);
}

/// Coordinates of (register, lane, warp) in a layout whose inputs are some
/// of those dims in that order.
inline llvm::SmallVector<int64_t> at(const LinearLayout &layout, int64_t r,
                                     int64_t l, int64_t w) {
  llvm::SmallVector<int64_t> inputs;
  for (const LayoutDim &in : layout.getInDims())
    inputs.push_back(in.name == kRegister ? r : in.name == kLane ? l : w);
  return layout.apply(inputs);
}

/// Row-major linear index of coordinates in a layout's output dims.
inline int64_t linearIndex(const LinearLayout &layout,
                           llvm::ArrayRef<int64_t> coords) {
  int64_t index = 0;
  for (auto [coord, out] : llvm::zip(coords, layout.getOutDims()))
    index = index * out.size() + coord;
  return index;
}

/// Excess wavefronts (0 = conflict free) of one warp-wide shared access:
/// lane l touches `bytes` bytes from byte address addresses[l].
inline int64_t excessWavefronts(const std::vector<int64_t> &addresses,
                                int64_t bytes) {
  int64_t phaseLanes = bytes <= 4 ? 32 : bytes == 8 ? 16 : 8;
  int64_t excess = 0;
  for (size_t first = 0; first < addresses.size(); first += phaseLanes) {
    std::map<int64_t, std::set<int64_t>> wordsPerBank;
    for (size_t l = first; l < first + phaseLanes && l < addresses.size(); ++l)
      for (int64_t b = 0; b < std::max<int64_t>(bytes, 1); b += 4) {
        int64_t word = (addresses[l] + b) / 4;
        wordsPerBank[word % 32].insert(word);
      }
    size_t wavefronts = 0;
    for (auto &entry : wordsPerBank)
      wavefronts = std::max(wavefronts, entry.second.size());
    excess += int64_t(wavefronts) - 1;
  }
  return excess;
}

} // namespace tilec::testing

#endif // TILEC_UNITTESTS_LAYOUT_LAYOUTTESTUTILS_H
