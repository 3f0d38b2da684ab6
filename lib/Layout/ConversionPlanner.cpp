//===- ConversionPlanner.cpp - how to convert between two layouts ---------===//
//
// planConversion: from the map "destination point -> source point" decides
// whether a conversion is free, a renaming of registers, warp shuffles, or a
// round trip through shared memory, and for the last picks a layout whose
// bank bits keep both the store and the load free of bank conflicts.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/LinearLayout.h"

#include "tilec/Layout/Gf2Basis.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <iterator>

using namespace tilec;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;

namespace {

const std::string kHardwareDims[] = {std::string(kRegister), std::string(kLane),
                                     std::string(kWarp), std::string(kBlock)};

llvm::Error planError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "layout conversion: " + message);
}

/// The layout with exactly the inputs register, lane, warp, block (missing
/// ones of size 1), in that order.
llvm::Expected<LinearLayout> normalize(const LinearLayout &layout,
                                       StringRef which) {
  SmallVector<LinearLayout::InDim> bases = layout.getBases();
  for (const LinearLayout::InDim &in : bases)
    if (!llvm::is_contained(kHardwareDims, in.name))
      return planError(which + " layout has input dim '" + in.name +
                       "'; distributed layouts have register, lane, warp, "
                       "block");
  SmallVector<LinearLayout::InDim> ordered;
  for (const std::string &name : kHardwareDims) {
    auto it = llvm::find_if(
        bases, [&](const LinearLayout::InDim &in) { return in.name == name; });
    ordered.push_back(it == bases.end() ? LinearLayout::InDim{name, {}} : *it);
  }
  return LinearLayout(ordered, layout.getOutDims());
}

/// Flat tensor coordinate of a basis (the first output dim lowest, as in
/// LinearLayout).
uint64_t flatten(const LinearLayout &layout, const LinearLayout::Basis &b) {
  uint64_t flat = 0;
  unsigned offset = 0;
  for (auto [coord, out] : llvm::zip(b, layout.getOutDims())) {
    flat |= uint64_t(coord) << offset;
    offset += out.log2Size;
  }
  return flat;
}

SmallVector<uint64_t> flatBases(const LinearLayout &layout, StringRef dim) {
  SmallVector<uint64_t> result;
  for (unsigned k = 0, e = llvm::Log2_64(layout.getInDimSize(dim)); k < e; ++k)
    result.push_back(flatten(layout, layout.getBasis(dim, k)));
  return result;
}

unsigned rankOf(ArrayRef<uint64_t> vectors) {
  Gf2Basis basis;
  for (uint64_t v : vectors)
    basis.insert(v, 0);
  return basis.getRank();
}

/// The vectors of the form (popcount, value) ascending: single bits first,
/// then pairs, ... so that the layout needs as few XORs as it can.
template <typename Accept>
std::optional<uint64_t> firstVector(unsigned n, Accept accept) {
  for (unsigned weight = 1; weight <= n; ++weight)
    for (uint64_t v = (uint64_t(1) << weight) - 1; v < (uint64_t(1) << n);) {
      if (accept(v))
        return v;
      uint64_t low = v & (~v + 1), ripple = v + low; // next of this weight
      v = (((ripple ^ v) >> 2) / low) | ripple;
    }
  return std::nullopt;
}

/// The shared-memory staging of src -> dst. Offsets are, from the lowest
/// bit: the vector (registers both sides have in the same order), the rest
/// of its 4-byte word, the bank bits (byte-address bits up to 7: 128 bytes
/// = 32 banks), and the rest. A phase of lanes (8 / 16 / 32 lanes for 16 /
/// 8 / at most 4-byte accesses) is conflict free when no two of its lanes
/// hit one bank in different words.
SharedStaging planShared(const LinearLayout &src, const LinearLayout &dst,
                         unsigned elementBytes) {
  unsigned n = src.getTotalOutBits();
  unsigned elementBits = llvm::Log2_32(elementBytes);
  SmallVector<uint64_t> srcRegs = flatBases(src, kRegister);
  SmallVector<uint64_t> dstRegs = flatBases(dst, kRegister);

  SmallVector<uint64_t> vector;
  while (vector.size() < srcRegs.size() && vector.size() < dstRegs.size() &&
         (elementBytes << (vector.size() + 1)) <= 16) {
    uint64_t v = srcRegs[vector.size()];
    if (v != dstRegs[vector.size()] || v == 0)
      break;
    vector.push_back(v);
    if (rankOf(vector) != vector.size()) {
      vector.pop_back();
      break;
    }
  }
  unsigned vectorBits = vector.size();
  unsigned vectorBytesLog2 = elementBits + vectorBits;
  unsigned wordRest = vectorBytesLog2 < 2 ? 2 - vectorBytesLog2 : 0;
  unsigned bankBits = 7 - std::max(2u, vectorBytesLog2);
  unsigned phaseLaneBits = std::min(5u, bankBits);
  wordRest = std::min(wordRest, n - vectorBits);
  bankBits = std::min(bankBits, n - vectorBits - wordRest);

  SmallVector<uint64_t> srcLanes = flatBases(src, kLane);
  SmallVector<uint64_t> dstLanes = flatBases(dst, kLane);
  srcLanes.truncate(std::min<size_t>(srcLanes.size(), phaseLaneBits));
  dstLanes.truncate(std::min<size_t>(dstLanes.size(), phaseLaneBits));

  // word: the vector and the rest of its 4-byte word (any vectors: lanes
  // that differ only there read one word). high: the columns above the
  // bank bits. Two lanes of a phase conflict when their elements differ by
  // u with no bank bits but some high bits, so we need span(lanes) to meet
  // span(word + high) inside span(word): each high column must stay
  // independent of word + lanes + the high columns before it, for both
  // sides. The lanes span at most bankBits dims beyond word, and two proper
  // subspaces never cover the space, so the search always succeeds.
  SmallVector<uint64_t> word(vector.begin(), vector.end());
  auto independentOf = [](ArrayRef<uint64_t> base, uint64_t v) {
    SmallVector<uint64_t> more(base.begin(), base.end());
    more.push_back(v);
    return rankOf(more) == rankOf(base) + 1;
  };
  while (word.size() < vectorBits + wordRest)
    word.push_back(
        *firstVector(n, [&](uint64_t v) { return independentOf(word, v); }));
  SmallVector<uint64_t> high;
  auto withLanes = [&](ArrayRef<uint64_t> lanes) {
    SmallVector<uint64_t> all(word.begin(), word.end());
    all.append(lanes.begin(), lanes.end());
    all.append(high.begin(), high.end());
    return all;
  };
  while (word.size() + high.size() < n - bankBits) {
    std::optional<uint64_t> next = firstVector(n, [&](uint64_t v) {
      SmallVector<uint64_t> nonBank(word.begin(), word.end());
      nonBank.append(high.begin(), high.end());
      return independentOf(nonBank, v) &&
             independentOf(withLanes(srcLanes), v) &&
             independentOf(withLanes(dstLanes), v);
    });
    if (!next)
      llvm::report_fatal_error("tilec layout conversion: no shared layout "
                               "column found (cannot happen)");
    high.push_back(*next);
  }

  // Bank columns complete the basis: the source's lanes first (a layout
  // that reads naturally), then the destination's, then unit vectors.
  SmallVector<uint64_t> columns(word.begin(), word.end());
  {
    Gf2Basis basis;
    for (uint64_t v : word)
      basis.insert(v, 0);
    for (uint64_t v : high)
      basis.insert(v, 0);
    SmallVector<uint64_t> candidates(srcLanes.begin(), srcLanes.end());
    candidates.append(dstLanes.begin(), dstLanes.end());
    for (unsigned bit = 0; bit < n; ++bit)
      candidates.push_back(uint64_t(1) << bit);
    for (uint64_t v : candidates)
      if (columns.size() < word.size() + bankBits && basis.insert(v, 0))
        columns.push_back(v);
  }
  columns.append(high.begin(), high.end());

  LinearLayout::InDim offset{std::string(kOffset), {}};
  for (uint64_t column : columns) {
    LinearLayout::Basis coords;
    unsigned shift = 0;
    for (const LayoutDim &out : src.getOutDims()) {
      coords.push_back(int64_t((column >> shift) & (uint64_t(out.size()) - 1)));
      shift += out.log2Size;
    }
    offset.bases.push_back(coords);
  }
  return {LinearLayout({offset}, src.getOutDims()), 1u << vectorBits};
}

/// Shuffle rounds for a (register, lane) -> (register, lane) map within a
/// warp. Each destination register takes as many rounds as the most
/// distinct registers one lane must send for it: a receiver joins the first
/// round in which its source lane sends nothing yet or the register it
/// needs.
std::vector<ShuffleRound> planShuffles(const LinearLayout &dstToSrc) {
  std::vector<ShuffleRound> result;
  for (int64_t r = 0, e = dstToSrc.getInDimSize(kRegister); r < e; ++r) {
    std::vector<ShuffleRound> rounds;
    SmallVector<uint32_t> sending; // per round: lanes whose register is set
    for (unsigned lane = 0; lane < 32; ++lane) {
      SmallVector<int64_t> from = dstToSrc.apply({r, lane});
      unsigned reg = unsigned(from[0]), sender = unsigned(from[1]);
      size_t k = 0;
      while (k < rounds.size() && ((sending[k] >> sender) & 1) &&
             rounds[k].sendRegister[sender] != reg)
        ++k;
      if (k == rounds.size()) {
        ShuffleRound round;
        round.dstRegister = unsigned(r);
        for (unsigned l = 0; l < 32; ++l) {
          round.srcLane.push_back(l);
          round.sendRegister.push_back(0);
        }
        rounds.push_back(std::move(round));
        sending.push_back(0);
      }
      rounds[k].sendRegister[sender] = reg;
      sending[k] |= uint32_t(1) << sender;
      rounds[k].srcLane[lane] = sender;
      rounds[k].lanesKept |= uint32_t(1) << lane;
    }
    result.insert(result.end(), std::make_move_iterator(rounds.begin()),
                  std::make_move_iterator(rounds.end()));
  }
  return result;
}

} // namespace

llvm::Expected<ConversionPlan>
tilec::planConversion(const LinearLayout &srcLayout,
                      const LinearLayout &dstLayout, unsigned elementBytes,
                      bool allowShuffles) {
  if (elementBytes == 0 || elementBytes > 16 ||
      !llvm::isPowerOf2_32(elementBytes))
    return planError("element size " + llvm::Twine(elementBytes) +
                     " is not 1, 2, 4, 8 or 16 bytes");
  if (srcLayout.getOutDims() != dstLayout.getOutDims())
    return planError("the layouts describe different tiles: " +
                     srcLayout.toString() + " and " + dstLayout.toString());
  llvm::Expected<LinearLayout> src = normalize(srcLayout, "the source");
  if (!src)
    return src.takeError();
  llvm::Expected<LinearLayout> dst = normalize(dstLayout, "the destination");
  if (!dst)
    return dst.takeError();
  if (!src->isSurjective())
    return planError("the source layout does not hold every element: " +
                     src->toString());

  // dst point -> src point, bit by bit (the map is linear). An element the
  // source holds in the same place (same dim, same bit) stays there; others
  // come from the lowest source bits that hold them (registers first).
  LinearLayout srcInverse = src->pseudoInvert();
  SmallVector<LinearLayout::InDim> cvtBases;
  bool inPlace = src->getInDims() == dst->getInDims();
  for (const LayoutDim &in : dst->getInDims()) {
    LinearLayout::InDim bases{in.name, {}};
    int srcDim =
        llvm::find_if(src->getInDims(),
                      [&](const LayoutDim &d) { return d.name == in.name; }) -
        src->getInDims().begin();
    for (unsigned bit = 0; bit < in.log2Size; ++bit) {
      LinearLayout::Basis element = dst->getBasis(in.name, bit);
      LinearLayout::Basis from(src->getInDims().size(), 0);
      if (bit < src->getInDims()[srcDim].log2Size &&
          src->getBasis(in.name, bit) == element) {
        from[srcDim] = int64_t(1) << bit;
      } else {
        from = srcInverse.apply(element);
        inPlace = false;
      }
      bases.bases.push_back(from);
    }
    cvtBases.push_back(std::move(bases));
  }
  ConversionPlan plan;
  plan.dstToSrc = LinearLayout(cvtBases, src->getInDims());

  if (inPlace) {
    plan.kind = ConversionPlan::Kind::Free;
    return plan;
  }
  if (std::optional<LinearLayout> inThread = plan.dstToSrc.quotient(
          {std::string(kLane), std::string(kWarp), std::string(kBlock)})) {
    plan.kind = ConversionPlan::Kind::RegisterPermutation;
    for (int64_t r = 0, e = dst->getInDimSize(kRegister); r < e; ++r)
      plan.srcRegisterOf.push_back(unsigned(inThread->apply({r})[0]));
    return plan;
  }
  if (!plan.dstToSrc.quotient({std::string(kBlock)}))
    return planError("the data would move between CTAs (distributed shared "
                     "memory is not supported)");
  SharedStaging staging = planShared(*src, *dst, elementBytes);
  std::optional<LinearLayout> inWarp =
      plan.dstToSrc.quotient({std::string(kWarp), std::string(kBlock)});
  if (allowShuffles && inWarp && src->getInDimSize(kLane) == 32 &&
      dst->getInDimSize(kLane) == 32) {
    std::vector<ShuffleRound> rounds = planShuffles(*inWarp);
    // A round and a vector access of shared memory both take one pass of
    // the warp through the shared-memory crossbar; the shared plan also
    // waits at a CTA barrier, which we count as doubling its cost.
    int64_t sharedAccesses =
        (src->getInDimSize(kRegister) + dst->getInDimSize(kRegister)) /
        staging.vectorElements;
    if (int64_t(rounds.size()) <= 2 * sharedAccesses) {
      plan.kind = ConversionPlan::Kind::WarpShuffle;
      plan.shuffles = std::move(rounds);
      return plan;
    }
  }
  plan.kind = ConversionPlan::Kind::SharedMemory;
  plan.shared = std::move(staging);
  return plan;
}
