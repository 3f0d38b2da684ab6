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
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

#include <iterator>
#include <vector>

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

Gf2Basis basisOf(ArrayRef<uint64_t> vectors) {
  Gf2Basis basis;
  for (uint64_t v : vectors)
    basis.insert(v, 0);
  return basis;
}

unsigned rankOf(ArrayRef<uint64_t> vectors) {
  return basisOf(vectors).getRank();
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

/// One side of a staged conversion (the stores of the source, or the loads
/// of the destination) as the bank model sees it: accesses of
/// 2^accessBytesLog2 bytes per lane, issued in phases of 8 / 16 / 32 lanes
/// for 16 / 8 / at most 4 bytes, `phase` the tensor vectors that tell the
/// lanes of a phase apart.
struct AccessSide {
  unsigned accessBytesLog2 = 0;
  SmallVector<uint64_t> phase;
};

/// The first `count` images of an input dim (those the phase of an access of
/// 2^accessBytesLog2 bytes spans).
SmallVector<uint64_t> phaseOf(SmallVector<uint64_t> lanes,
                              unsigned accessBytesLog2) {
  unsigned bits = 7 - std::max(2u, accessBytesLog2);
  lanes.truncate(std::min<size_t>(lanes.size(), std::min(5u, bits)));
  return lanes;
}

/// The columns (flat tensor vectors of offset bits 0, 1, ...) of a staging
/// layout of n bits that starts with `word` and keeps every side free of
/// bank conflicts, or none when the greedy search gets stuck. Offsets are,
/// from the lowest bit: the word, the bank bits (byte-address bits up to 7:
/// 128 bytes = 32 banks), and the high columns. Two lanes of a side's phase
/// conflict when their elements differ by u with no bank bits of that side
/// (byte bits [max(2, accessBytesLog2), 7)) but some high bits, so span(phase)
/// must meet span(low + high) inside span(low), low = the columns below the
/// side's bank bits: each high column stays independent of low + phase + the
/// high columns before it, for every side. With the phase sizes above, low
/// and phase together span at most the 128 bytes' worth of offset bits, so
/// the search fails only when three subspaces cover the space. Candidate
/// columns with a bit of `fixedBits` set are not taken (ldmatrix needs the
/// word's coordinates to stay out of every other column).
std::optional<SmallVector<uint64_t>>
searchColumns(unsigned n, unsigned elementBits, ArrayRef<uint64_t> word,
              ArrayRef<AccessSide> sides, uint64_t fixedBits) {
  unsigned below128 = elementBits < 7 ? 7 - elementBits : 0;
  unsigned wordBits = word.size();
  unsigned bankBits =
      below128 > wordBits ? std::min(below128 - wordBits, n - wordBits) : 0;
  auto lowOf = [&](const AccessSide &side) {
    unsigned lowBits = std::max(2u, side.accessBytesLog2);
    lowBits = lowBits > elementBits ? lowBits - elementBits : 0;
    return word.take_front(std::min<size_t>(lowBits, wordBits));
  };
  SmallVector<uint64_t> high;
  while (wordBits + bankBits + high.size() < n) {
    // The spans a candidate must stay out of, eliminated once per column
    // rather than once per candidate (the candidates number up to 2^n).
    SmallVector<uint64_t> nonBank(word.begin(), word.end());
    nonBank.append(high.begin(), high.end());
    Gf2Basis nonBankBasis = basisOf(nonBank);
    SmallVector<Gf2Basis, 2> sideBases;
    for (const AccessSide &side : sides) {
      SmallVector<uint64_t> base(lowOf(side));
      base.append(side.phase.begin(), side.phase.end());
      base.append(high.begin(), high.end());
      sideBases.push_back(basisOf(base));
    }
    std::optional<uint64_t> next = firstVector(n, [&](uint64_t v) {
      return !(v & fixedBits) && !nonBankBasis.solve(v) &&
             llvm::none_of(sideBases, [&](const Gf2Basis &basis) {
               return basis.solve(v).has_value();
             });
    });
    if (!next)
      return std::nullopt;
    high.push_back(*next);
  }

  // Bank columns complete the basis: the phases' vectors first (a layout
  // that reads naturally), then unit vectors.
  SmallVector<uint64_t> columns(word.begin(), word.end());
  Gf2Basis basis;
  for (uint64_t v : word)
    basis.insert(v, 0);
  for (uint64_t v : high)
    basis.insert(v, 0);
  SmallVector<uint64_t> candidates;
  for (const AccessSide &side : sides)
    candidates.append(side.phase.begin(), side.phase.end());
  for (unsigned bit = 0; bit < n; ++bit)
    candidates.push_back(uint64_t(1) << bit);
  for (uint64_t v : candidates)
    if (columns.size() < wordBits + bankBits && !(v & fixedBits) &&
        basis.insert(v, 0))
      columns.push_back(v);
  if (columns.size() != wordBits + bankBits)
    return std::nullopt;
  columns.append(high.begin(), high.end());
  return columns;
}

/// The offset -> tensor layout whose offset bit k has image columns[k].
LinearLayout stagingLayout(const LinearLayout &like,
                           ArrayRef<uint64_t> columns) {
  LinearLayout::InDim offset{std::string(kOffset), {}};
  for (uint64_t column : columns) {
    LinearLayout::Basis coords;
    unsigned shift = 0;
    for (const LayoutDim &out : like.getOutDims()) {
      coords.push_back(int64_t((column >> shift) & (uint64_t(out.size()) - 1)));
      shift += out.log2Size;
    }
    offset.bases.push_back(coords);
  }
  return LinearLayout({offset}, like.getOutDims());
}

/// The longest prefix of `registers` that is a vector access: nonzero,
/// independent images, at most 16 bytes, each equal to `word`'s column at
/// its position when `word` is given.
SmallVector<uint64_t> vectorPrefix(ArrayRef<uint64_t> registers,
                                   unsigned elementBytes,
                                   std::optional<ArrayRef<uint64_t>> word = {}) {
  SmallVector<uint64_t> vector;
  while (vector.size() < registers.size() &&
         (elementBytes << (vector.size() + 1)) <= 16) {
    uint64_t v = registers[vector.size()];
    if (v == 0 || (word && (vector.size() >= word->size() ||
                            (*word)[vector.size()] != v)))
      break;
    vector.push_back(v);
    if (rankOf(vector) != vector.size()) {
      vector.pop_back();
      break;
    }
  }
  return vector;
}

/// How many of `word`'s columns (unit vectors, placed at offset bits 0, 1,
/// ... with no other column touching their tensor bits) a side in `layout`
/// can access as one vector: the registers must walk them in order, and
/// every other image of the side (the higher registers, lanes, warps) must
/// keep off their bits, so that each vector starts at a multiple of its
/// width.
unsigned sideWidthBits(const LinearLayout &layout, ArrayRef<uint64_t> word,
                       unsigned elementBytes) {
  SmallVector<uint64_t> registers = flatBases(layout, kRegister);
  unsigned bits = vectorPrefix(registers, elementBytes, word).size();
  SmallVector<uint64_t> others = flatBases(layout, kLane);
  others.append(flatBases(layout, kWarp));
  for (; bits > 0; --bits) {
    uint64_t mask = 0;
    for (uint64_t v : word.take_front(bits))
      mask |= v;
    if (llvm::none_of(registers, [&](uint64_t v) {
          return (v & mask) && !llvm::is_contained(word.take_front(bits), v);
        }) &&
        llvm::none_of(others, [&](uint64_t v) { return v & mask; }))
      break;
  }
  return bits;
}

/// Whether `toOffset` ((register, lane, warp, block) -> offset) puts
/// registers 0 .. 2^bits - 1 of every run at consecutive offsets from a
/// multiple of 2^bits: what a vector access of each run needs.
bool startsVectors(const LinearLayout &toOffset, unsigned bits) {
  int64_t width = int64_t(1) << bits;
  for (const LayoutDim &in : toOffset.getInDims())
    for (unsigned bit = 0; bit < in.log2Size; ++bit) {
      int64_t offset = toOffset.getBasis(in.name, bit)[0];
      bool inVector = in.name == kRegister && bit < bits;
      if (inVector ? offset != (int64_t(1) << bit) : (offset & (width - 1)))
        return false;
    }
  return true;
}

/// Loads of src -> dst (plain or ldmatrix): the word both sides share at
/// the bottom of the offsets, the widths, and the load side's phase.
struct LoadPlan {
  SmallVector<uint64_t> word;
  unsigned storeBits = 0, loadBits = 0;
  std::optional<LdmatrixRead> ldmatrix;
  SmallVector<uint64_t> ldmatrixRows;
  uint64_t fixedBits = 0;
};

/// The ldmatrix read of `dst` (16-bit elements, or 32-bit ones without
/// .trans), if its registers and lanes are ldmatrixLayout's with the matrix
/// coordinates placed in the tensor: the in-row coordinates (what each
/// 16-byte row holds) single tensor bits, no other image of dst touching
/// them. Fills the word (the in-row images, in element order) and the rows.
std::optional<LoadPlan> matchLdmatrix(const LinearLayout &dst,
                                      unsigned elementBytes, bool transposed) {
  if (!(elementBytes == 2 || (elementBytes == 4 && !transposed)))
    return std::nullopt;
  unsigned halfBits = elementBytes == 2 ? 1 : 0;
  unsigned regBits = llvm::Log2_64(dst.getInDimSize(kRegister));
  if (regBits < halfBits)
    return std::nullopt;
  unsigned matrixBits = std::min(2u, regBits - halfBits);
  LinearLayout instruction = ldmatrixLayout(1u << matrixBits, transposed);
  // 32-bit elements: register bit 0 of the instruction is the half, which
  // must be the low column (the element's two halves side by side).
  if (!halfBits && instruction.getBasis(kRegister, 0) != LinearLayout::Basis{0, 0, 1})
    return std::nullopt;
  SmallVector<uint64_t> dstRegs = flatBases(dst, kRegister),
                        dstLanes = flatBases(dst, kLane);
  if (dstLanes.size() != 5)
    return std::nullopt;

  // Each instruction input bit names one (matrix, row, col) bit; which dst
  // input bit it is, and its tensor image.
  struct Role {
    bool isRegister;
    unsigned bit;
  };
  SmallVector<std::optional<Role>> colRole(3), rowRole(3), matrixRole(matrixBits);
  auto assign = [&](const LinearLayout::Basis &b, Role role) {
    for (unsigned k = 0; k < 3; ++k) {
      if (k < matrixBits && b[0] == (int64_t(1) << k))
        matrixRole[k] = role;
      if (b[1] == (int64_t(1) << k))
        rowRole[k] = role;
      if (b[2] == (int64_t(1) << k))
        colRole[k] = role;
    }
  };
  for (unsigned bit = halfBits ? 0 : 1; bit < 1 + matrixBits; ++bit)
    assign(instruction.getBasis(kRegister, bit), {true, bit - (1 - halfBits)});
  for (unsigned bit = 0; bit < 5; ++bit)
    assign(instruction.getBasis(kLane, bit), {false, bit});
  auto image = [&](const Role &role) {
    return role.isRegister ? dstRegs[role.bit] : dstLanes[role.bit];
  };

  LoadPlan plan;
  for (unsigned k = 1 - halfBits; k < 3; ++k) {
    uint64_t v = image(*colRole[k]);
    if (!llvm::isPowerOf2_64(v) || (plan.fixedBits & v))
      return std::nullopt;
    plan.word.push_back(v);
    plan.fixedBits |= v;
  }
  // Every other image keeps off the in-row bits, so that each row starts at
  // a multiple of 16 bytes.
  auto offRow = [&](ArrayRef<uint64_t> images) {
    return llvm::none_of(images,
                         [&](uint64_t v) { return v & plan.fixedBits; });
  };
  SmallVector<uint64_t> others;
  unsigned perRead = halfBits + matrixBits;
  others.append(dstRegs.begin() + perRead, dstRegs.end());
  for (std::optional<Role> &role : rowRole)
    others.push_back(image(*role));
  for (std::optional<Role> &role : matrixRole)
    others.push_back(image(*role));
  others.append(flatBases(dst, kWarp));
  if (!offRow(others))
    return std::nullopt;
  for (std::optional<Role> &role : rowRole)
    if (uint64_t v = image(*role))
      plan.ldmatrixRows.push_back(v);

  // Row starts: address lane bit i selects (matrix, row) bit i; the
  // instruction input reaching it is the destination point.
  LinearLayout addresses = ldmatrixAddressLayout(1u << matrixBits);
  LinearLayout::InDim lane{std::string(kLane), {}};
  for (unsigned bit = 0; bit < 5; ++bit) {
    LinearLayout::Basis point{0, 0};
    if (bit < 3 + matrixBits) {
      LinearLayout::Basis at = addresses.getBasis(kLane, bit);
      const Role &role = at[0] ? *matrixRole[llvm::Log2_64(at[0])]
                               : *rowRole[llvm::Log2_64(at[1])];
      point[role.isRegister ? 0 : 1] = int64_t(1) << role.bit;
    }
    lane.bases.push_back(point);
  }
  LdmatrixRead read;
  read.numMatrices = 1u << matrixBits;
  read.transposed = transposed;
  read.registersPerRead = 1u << perRead;
  read.rowStarts = LinearLayout(
      {lane}, {{std::string(kRegister), perRead}, {std::string(kLane), 5}});
  plan.ldmatrix = std::move(read);
  return plan;
}

/// The shared-memory staging of src -> dst. Offsets start with a word
/// (at least 4 bytes): for an ldmatrix destination its 16-byte rows, else
/// the longer of the two sides' vectors (registers whose images are
/// consecutive coordinates); each side accesses the longest prefix of its
/// registers that walks the word in order. Falls back to the vector both
/// sides share, for which the search cannot get stuck.
SharedStaging planShared(const LinearLayout &src, const LinearLayout &dst,
                         unsigned elementBytes) {
  unsigned n = src.getTotalOutBits();
  unsigned elementBits = llvm::Log2_32(elementBytes);
  SmallVector<uint64_t> srcRegs = flatBases(src, kRegister);
  SmallVector<uint64_t> dstRegs = flatBases(dst, kRegister);
  SmallVector<uint64_t> srcLanes = flatBases(src, kLane);
  SmallVector<uint64_t> dstLanes = flatBases(dst, kLane);

  auto attempt = [&](LoadPlan plan) -> std::optional<SharedStaging> {
    SmallVector<uint64_t> word = plan.word;
    // The rest of the 4-byte word (any vectors: lanes that differ only
    // there read one word).
    while ((elementBytes << word.size()) < 4 && word.size() < n) {
      Gf2Basis basis = basisOf(word);
      bool independent = basis.getRank() == word.size();
      std::optional<uint64_t> next = firstVector(n, [&](uint64_t v) {
        return independent && !(v & plan.fixedBits) && !basis.solve(v);
      });
      if (!next)
        return std::nullopt;
      word.push_back(*next);
    }
    unsigned storeLog2 = elementBits + plan.storeBits;
    SmallVector<AccessSide> sides;
    sides.push_back({storeLog2, phaseOf(srcLanes, storeLog2)});
    if (plan.ldmatrix)
      sides.push_back({4, plan.ldmatrixRows});
    else
      sides.push_back({elementBits + plan.loadBits,
                       phaseOf(dstLanes, elementBits + plan.loadBits)});
    std::optional<SmallVector<uint64_t>> columns =
        searchColumns(n, elementBits, word, sides, plan.fixedBits);
    if (!columns)
      return std::nullopt;
    SharedStaging staging;
    staging.layout = stagingLayout(src, *columns);
    LinearLayout toOffset = staging.layout.invert();
    if (!startsVectors(src.compose(toOffset), plan.storeBits) ||
        (!plan.ldmatrix &&
         !startsVectors(dst.compose(toOffset), plan.loadBits)))
      return std::nullopt;
    staging.storeVectorElements = 1u << plan.storeBits;
    staging.loadVectorElements = 1u << plan.loadBits;
    staging.ldmatrix = plan.ldmatrix;
    return staging;
  };

  // Plain loads: the longer vector decides the word (a candidate whose
  // other images break a side's vectors drops out).
  std::vector<LoadPlan> candidates;
  SmallVector<uint64_t> srcVector = vectorPrefix(srcRegs, elementBytes);
  SmallVector<uint64_t> dstVector = vectorPrefix(dstRegs, elementBytes);
  {
    LoadPlan plain;
    plain.word = srcVector.size() >= dstVector.size() ? srcVector : dstVector;
    plain.storeBits = vectorPrefix(srcRegs, elementBytes, plain.word).size();
    plain.loadBits = vectorPrefix(dstRegs, elementBytes, plain.word).size();
    // With the word's tensor bits kept out of the other columns (no swizzle
    // can then move a vector off its alignment), and without.
    if (llvm::all_of(plain.word,
                     [](uint64_t v) { return llvm::isPowerOf2_64(v); })) {
      LoadPlan fixed = plain;
      for (uint64_t v : fixed.word)
        fixed.fixedBits |= v;
      candidates.push_back(std::move(fixed));
    }
    candidates.push_back(std::move(plain));
  }
  for (bool transposed : {false, true})
    if (std::optional<LoadPlan> plan =
            matchLdmatrix(dst, elementBytes, transposed)) {
      plan->storeBits = sideWidthBits(src, plan->word, elementBytes);
      candidates.push_back(std::move(*plan));
    }
  // The fewest instructions (a vector access or an ldmatrix each), the
  // first of equals; a candidate whose search gets stuck drops out.
  std::optional<SharedStaging> best;
  int64_t bestCost = 0;
  for (const LoadPlan &candidate : candidates) {
    std::optional<SharedStaging> staging = attempt(candidate);
    if (!staging)
      continue;
    int64_t cost = (int64_t(1) << srcRegs.size()) / staging->storeVectorElements +
           (int64_t(1) << dstRegs.size()) /
               (staging->ldmatrix ? staging->ldmatrix->registersPerRead
                                  : staging->loadVectorElements);
    if (!best || cost < bestCost) {
      best = std::move(staging);
      bestCost = cost;
    }
  }
  if (best)
    return std::move(*best);
  // The vector both sides share: the search cannot get stuck.
  LoadPlan common;
  for (auto [s, d] : llvm::zip(srcVector, dstVector)) {
    if (s != d)
      break;
    common.word.push_back(s);
  }
  common.storeBits = common.loadBits = common.word.size();
  if (std::optional<SharedStaging> staging = attempt(common))
    return std::move(*staging);
  // One element per access (the vector's images broke a side's runs).
  if (std::optional<SharedStaging> staging = attempt(LoadPlan()))
    return std::move(*staging);
  llvm::report_fatal_error("tilec layout conversion: no shared layout "
                           "column found (cannot happen)");
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

/// planConversion without the cache.
llvm::Expected<ConversionPlan> planUncached(const LinearLayout &srcLayout,
                                            const LinearLayout &dstLayout,
                                            unsigned elementBytes,
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
    // A round takes one pass of the warp through the shared-memory
    // crossbar (128 bytes), a shared access of b bytes per lane max(1, b/4)
    // of them (an ldmatrix one per matrix), whatever the vector width; the
    // shared plan also waits at a CTA barrier, which we count as doubling
    // its cost.
    auto passes = [&](int64_t registers, int64_t width) {
      return registers / width *
             std::max<int64_t>(1, width * elementBytes / 4);
    };
    int64_t sharedAccesses =
        passes(src->getInDimSize(kRegister), staging.storeVectorElements) +
        (staging.ldmatrix
             ? dst->getInDimSize(kRegister) /
                   staging.ldmatrix->registersPerRead *
                   staging.ldmatrix->numMatrices
             : passes(dst->getInDimSize(kRegister),
                      staging.loadVectorElements));
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
} // namespace

std::optional<LdmatrixRead>
tilec::planLdmatrixRead(const LinearLayout &dstLayout,
                        const LinearLayout &shared, unsigned elementBytes) {
  llvm::Expected<LinearLayout> dst = normalize(dstLayout, "the destination");
  if (!dst) {
    llvm::consumeError(dst.takeError());
    return std::nullopt;
  }
  if (shared.getOutDims() != dst->getOutDims() || !shared.isInjective() ||
      !shared.isSurjective())
    return std::nullopt;
  LinearLayout toOffset = shared.invert();
  // Elements of a 16-byte row: the low offset bits a row may not leave.
  uint64_t rowMask = 16 / elementBytes - 1;
  for (bool transposed : {false, true}) {
    std::optional<LoadPlan> plan = matchLdmatrix(*dst, elementBytes, transposed);
    if (!plan)
      continue;
    // The in-row coordinates must be offsets 1, 2, 4, ... in order, and
    // every other image of dst a multiple of a row: each lane's row then
    // lies whole and in order at the 16-byte boundary its start gives.
    bool rowsContiguous = true;
    for (auto [k, v] : llvm::enumerate(plan->word))
      rowsContiguous &= toOffset.applyFlat(v) == (uint64_t(1) << k);
    SmallVector<uint64_t> others;
    for (StringRef dim : {kRegister, kLane, kWarp})
      for (uint64_t v : flatBases(*dst, dim))
        if (!llvm::is_contained(plan->word, v))
          others.push_back(v);
    for (uint64_t v : others)
      rowsContiguous &= (toOffset.applyFlat(v) & rowMask) == 0;
    if (rowsContiguous)
      return plan->ldmatrix;
  }
  return std::nullopt;
}

namespace {
/// Plans already made on this thread, by the layouts and the element size
/// they were made for (LinearLayout::toString spells a layout out in full).
/// The layout passes ask for the same conversions many times: each round of
/// tilegpu-remove-layout-conversions asks whether every remaining
/// conversion is free, the shared-memory allocation and the lowering plan
/// each conversion again, and the targets and variants of an instance (and
/// the instances of one tilec process) share most of their layouts. A plan
/// costs about a million instructions; the key a few thousand.
class PlanCache {
public:
  std::optional<ConversionPlan> find(llvm::StringRef key) const {
    auto it = plans.find(key);
    if (it == plans.end())
      return std::nullopt;
    return it->second;
  }
  void insert(llvm::StringRef key, const ConversionPlan &plan) {
    // Bounded: a long-lived process (a JIT, the interpreter's tests) plans
    // many layouts once each.
    if (plans.size() >= kMaxPlans)
      plans.clear();
    plans.insert({key, plan});
  }

private:
  static constexpr size_t kMaxPlans = 4096;
  llvm::StringMap<ConversionPlan> plans;
};
} // namespace

llvm::Expected<ConversionPlan>
tilec::planConversion(const LinearLayout &srcLayout,
                      const LinearLayout &dstLayout, unsigned elementBytes,
                      bool allowShuffles) {
  // Per thread: MLIR runs a pass on the kernels of a module in parallel.
  thread_local PlanCache cache;
  std::string key = srcLayout.toString() + " | " + dstLayout.toString() +
                    " | " + std::to_string(elementBytes) +
                    (allowShuffles ? " shuffles" : "");
  if (std::optional<ConversionPlan> known = cache.find(key))
    return std::move(*known);
  llvm::Expected<ConversionPlan> planned =
      planUncached(srcLayout, dstLayout, elementBytes, allowShuffles);
  if (planned)
    cache.insert(key, *planned);
  return planned;
}
