//===- LinearLayout.cpp - layouts as linear maps over GF(2) ---------------===//
//
// The algebra on linear layouts and the factories of the layouts the code
// generator uses. Internally a layout is a GF(2) matrix stored by columns:
// columns[i] is the flat output of flat input bit i.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/LinearLayout.h"

#include "tilec/Layout/Gf2Basis.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace tilec;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;

namespace {

[[noreturn]] void fail(const llvm::Twine &message) {
  llvm::report_fatal_error("tilec linear layout: " + message);
}

void require(bool condition, const llvm::Twine &message) {
  if (!condition)
    fail(message);
}

unsigned log2Exact(int64_t size, StringRef what) {
  require(size >= 1 && llvm::isPowerOf2_64(uint64_t(size)),
          what + " must be a positive power of two, got " + llvm::Twine(size));
  return llvm::Log2_64(uint64_t(size));
}

} // namespace

std::string tilec::tensorDimName(unsigned i) {
  return "dim" + std::to_string(i);
}

//===----------------------------------------------------------------------===//
// Construction and queries
//===----------------------------------------------------------------------===//

LinearLayout::LinearLayout(ArrayRef<InDim> inDims,
                           ArrayRef<LayoutDim> outDims) {
  llvm::StringSet<> seen;
  unsigned outBits = 0;
  for (const LayoutDim &out : outDims) {
    require(seen.insert(out.name).second,
            "repeated output dim '" + out.name + "'");
    outBits += out.log2Size;
    outs.push_back(out);
  }
  seen.clear();
  unsigned inBits = 0;
  for (const InDim &in : inDims) {
    require(seen.insert(in.name).second,
            "repeated input dim '" + in.name + "'");
    inBits += in.bases.size();
    ins.push_back({in.name, unsigned(in.bases.size())});
  }
  require(inBits <= 63 && outBits <= 63,
          "a layout has at most 63 input and 63 output bits");
  for (const InDim &in : inDims)
    for (const Basis &basis : in.bases) {
      require(basis.size() == outs.size(),
              "a basis of '" + in.name + "' needs one coordinate per output");
      for (auto [coord, out] : llvm::zip(basis, outs))
        require(coord >= 0 && coord < out.size(),
                "basis coordinate " + llvm::Twine(coord) + " of '" + in.name +
                    "' is outside output dim '" + out.name + "'");
      columns.push_back(packOut(basis));
    }
}

LinearLayout LinearLayout::identity1D(int64_t size, StringRef inDim,
                                      StringRef outDim) {
  unsigned bits = log2Exact(size, "identity size");
  InDim in{inDim.str(), {}};
  for (unsigned k = 0; k < bits; ++k)
    in.bases.push_back({int64_t(1) << k});
  return LinearLayout({in}, {{outDim.str(), bits}});
}

LinearLayout LinearLayout::zeros1D(int64_t size, StringRef inDim,
                                   StringRef outDim, int64_t outSize) {
  InDim in{inDim.str(),
           SmallVector<Basis>(log2Exact(size, "zeros size"), Basis{0})};
  return LinearLayout({in}, {{outDim.str(), log2Exact(outSize, "size")}});
}

int LinearLayout::findIn(StringRef name) const {
  for (auto [i, dim] : llvm::enumerate(ins))
    if (dim.name == name)
      return int(i);
  return -1;
}

int LinearLayout::findOut(StringRef name) const {
  for (auto [i, dim] : llvm::enumerate(outs))
    if (dim.name == name)
      return int(i);
  return -1;
}

int64_t LinearLayout::getInDimSize(StringRef name) const {
  int i = findIn(name);
  return i < 0 ? 1 : ins[i].size();
}

int64_t LinearLayout::getOutDimSize(StringRef name) const {
  int i = findOut(name);
  return i < 0 ? 1 : outs[i].size();
}

unsigned LinearLayout::getTotalOutBits() const {
  unsigned bits = 0;
  for (const LayoutDim &out : outs)
    bits += out.log2Size;
  return bits;
}

unsigned LinearLayout::inBitOffset(unsigned dim) const {
  unsigned offset = 0;
  for (unsigned i = 0; i < dim; ++i)
    offset += ins[i].log2Size;
  return offset;
}

unsigned LinearLayout::outBitOffset(unsigned dim) const {
  unsigned offset = 0;
  for (unsigned i = 0; i < dim; ++i)
    offset += outs[i].log2Size;
  return offset;
}

uint64_t LinearLayout::packOut(ArrayRef<int64_t> coords) const {
  uint64_t flat = 0;
  for (unsigned i = 0; i < outs.size(); ++i)
    flat |= uint64_t(coords[i]) << outBitOffset(i);
  return flat;
}

SmallVector<int64_t> LinearLayout::unpackOut(uint64_t flat) const {
  SmallVector<int64_t> coords;
  for (unsigned i = 0; i < outs.size(); ++i)
    coords.push_back(
        int64_t((flat >> outBitOffset(i)) & (uint64_t(outs[i].size()) - 1)));
  return coords;
}

LinearLayout::Basis LinearLayout::getBasis(StringRef inDim,
                                           unsigned bit) const {
  int i = findIn(inDim);
  require(i >= 0 && bit < ins[i].log2Size,
          "no bit " + llvm::Twine(bit) + " in input dim '" + inDim + "'");
  return Basis(unpackOut(columns[inBitOffset(i) + bit]));
}

SmallVector<LinearLayout::InDim> LinearLayout::getBases() const {
  SmallVector<InDim> result;
  unsigned flat = 0;
  for (const LayoutDim &in : ins) {
    InDim dim{in.name, {}};
    for (unsigned k = 0; k < in.log2Size; ++k)
      dim.bases.push_back(Basis(unpackOut(columns[flat++])));
    result.push_back(std::move(dim));
  }
  return result;
}

uint64_t LinearLayout::applyFlat(uint64_t input) const {
  uint64_t out = 0;
  for (unsigned i = 0; i < columns.size(); ++i)
    if ((input >> i) & 1)
      out ^= columns[i];
  return out;
}

SmallVector<int64_t> LinearLayout::apply(ArrayRef<int64_t> inputs) const {
  require(inputs.size() == ins.size(), "apply needs one value per input dim");
  uint64_t flat = 0;
  for (unsigned i = 0; i < ins.size(); ++i) {
    require(inputs[i] >= 0 && inputs[i] < ins[i].size(),
            "input " + llvm::Twine(inputs[i]) + " is outside dim '" +
                ins[i].name + "'");
    flat |= uint64_t(inputs[i]) << inBitOffset(i);
  }
  return unpackOut(applyFlat(flat));
}

unsigned LinearLayout::getRank() const {
  Gf2Basis basis;
  for (auto [i, column] : llvm::enumerate(columns))
    basis.insert(column, i);
  return basis.getRank();
}

bool LinearLayout::operator==(const LinearLayout &other) const {
  return ins == other.ins && outs == other.outs && columns == other.columns;
}

std::string LinearLayout::toString() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(getBases(), os, [&](const InDim &in) {
    os << in.name << " = [";
    llvm::interleaveComma(in.bases, os, [&](const Basis &basis) {
      os << '[';
      llvm::interleaveComma(basis, os);
      os << ']';
    });
    os << ']';
  });
  os << " -> ";
  llvm::interleaveComma(outs, os, [&](const LayoutDim &out) {
    os << out.name << ':' << out.size();
  });
  return text;
}

//===----------------------------------------------------------------------===//
// Algebra
//===----------------------------------------------------------------------===//

LinearLayout LinearLayout::compose(const LinearLayout &outer) const {
  require(outs.size() == outer.ins.size(),
          "compose: the outputs of the first layout must be the inputs of "
          "the second");
  // Where each of this layout's output bits sits among outer's input bits.
  SmallVector<unsigned> outerBitOf;
  for (const LayoutDim &out : outs) {
    int j = outer.findIn(out.name);
    require(j >= 0 && outer.ins[j].log2Size == out.log2Size,
            "compose: output dim '" + out.name +
                "' is not an input of the same size of the second layout");
    for (unsigned k = 0; k < out.log2Size; ++k)
      outerBitOf.push_back(outer.inBitOffset(j) + k);
  }
  LinearLayout result = *this;
  result.outs = outer.outs;
  for (uint64_t &column : result.columns) {
    uint64_t outerInput = 0;
    for (auto [bit, outerBit] : llvm::enumerate(outerBitOf))
      if ((column >> bit) & 1)
        outerInput |= uint64_t(1) << outerBit;
    column = outer.applyFlat(outerInput);
  }
  return result;
}

LinearLayout LinearLayout::pseudoInvert() const {
  require(isSurjective(),
          "pseudoInvert needs a surjective layout: " + toString());
  Gf2Basis basis;
  for (auto [i, column] : llvm::enumerate(columns))
    basis.insert(column, i);
  LinearLayout result;
  result.ins = outs;
  result.outs = ins;
  for (unsigned bit = 0, e = getTotalOutBits(); bit < e; ++bit)
    result.columns.push_back(*basis.solve(uint64_t(1) << bit));
  return result;
}

LinearLayout LinearLayout::invert() const {
  require(isSurjective() && isInjective(),
          "invert needs a bijective layout: " + toString());
  return pseudoInvert();
}

LinearLayout LinearLayout::operator*(const LinearLayout &other) const {
  SmallVector<LayoutDim> outDims(outs.begin(), outs.end());
  for (const LayoutDim &out : other.outs) {
    int i = findOut(out.name);
    if (i < 0)
      outDims.push_back(out);
    else
      outDims[i].log2Size += out.log2Size;
  }
  // Coordinates of a basis of either factor in the merged output dims.
  auto merge = [&](const LinearLayout &from, const Basis &basis,
                   bool high) -> Basis {
    Basis merged(outDims.size(), 0);
    for (auto [i, out] : llvm::enumerate(from.outs)) {
      unsigned j =
          llvm::find_if(
              outDims, [&](const LayoutDim &d) { return d.name == out.name; }) -
          outDims.begin();
      unsigned shift = high ? llvm::Log2_64(getOutDimSize(out.name)) : 0;
      merged[j] = basis[i] << shift;
    }
    return merged;
  };
  SmallVector<InDim> inDims;
  auto addBases = [&](const LinearLayout &from, bool high) {
    for (const InDim &in : from.getBases()) {
      auto it = llvm::find_if(
          inDims, [&](const InDim &d) { return d.name == in.name; });
      if (it == inDims.end()) {
        inDims.push_back({in.name, {}});
        it = inDims.end() - 1;
      }
      for (const Basis &basis : in.bases)
        it->bases.push_back(merge(from, basis, high));
    }
  };
  addBases(*this, /*high=*/false);
  addBases(other, /*high=*/true);
  return LinearLayout(inDims, outDims);
}

LinearLayout LinearLayout::transposeOuts(ArrayRef<std::string> order) const {
  require(order.size() == outs.size(),
          "transposeOuts needs every output dim once");
  SmallVector<LayoutDim> newOuts;
  SmallVector<unsigned> from;
  for (const std::string &name : order) {
    int i = findOut(name);
    require(i >= 0 && !llvm::is_contained(from, unsigned(i)),
            "transposeOuts: '" + name + "' is not an output dim or repeats");
    from.push_back(i);
    newOuts.push_back(outs[i]);
  }
  SmallVector<InDim> inDims = getBases();
  for (InDim &in : inDims)
    for (Basis &basis : in.bases) {
      Basis permuted;
      for (unsigned i : from)
        permuted.push_back(basis[i]);
      basis = permuted;
    }
  return LinearLayout(inDims, newOuts);
}

LinearLayout LinearLayout::reshapeOuts(ArrayRef<LayoutDim> newOuts) const {
  unsigned newBits = 0;
  for (const LayoutDim &out : newOuts)
    newBits += out.log2Size;
  require(newBits == getTotalOutBits(),
          "reshapeOuts must keep the number of elements");
  SmallVector<InDim> inDims = getBases();
  for (InDim &in : inDims)
    for (Basis &basis : in.bases) {
      // Row-major linear index, then split it again: on powers of two both
      // are bit concatenations, so the map stays linear.
      uint64_t linear = 0;
      for (auto [coord, out] : llvm::zip(basis, outs))
        linear = (linear << out.log2Size) | uint64_t(coord);
      Basis split(newOuts.size(), 0);
      for (int i = int(newOuts.size()) - 1; i >= 0; --i) {
        split[i] = int64_t(linear & (uint64_t(newOuts[i].size()) - 1));
        linear >>= newOuts[i].log2Size;
      }
      basis = split;
    }
  return LinearLayout(inDims, newOuts);
}

LinearLayout LinearLayout::sublayout(ArrayRef<std::string> inNames,
                                     ArrayRef<std::string> outNames) const {
  SmallVector<unsigned> keptOuts;
  SmallVector<LayoutDim> newOuts;
  for (auto [i, out] : llvm::enumerate(outs))
    if (llvm::is_contained(outNames, out.name)) {
      keptOuts.push_back(i);
      newOuts.push_back(out);
    }
  SmallVector<InDim> inDims;
  for (const InDim &in : getBases()) {
    if (!llvm::is_contained(inNames, in.name))
      continue;
    InDim projected{in.name, {}};
    for (const Basis &basis : in.bases) {
      Basis kept;
      for (unsigned i : keptOuts)
        kept.push_back(basis[i]);
      projected.bases.push_back(kept);
    }
    inDims.push_back(std::move(projected));
  }
  return LinearLayout(inDims, newOuts);
}

LinearLayout LinearLayout::removeZeroBases(StringRef inDim) const {
  SmallVector<InDim> inDims = getBases();
  for (InDim &in : inDims)
    if (in.name == inDim)
      llvm::erase_if(in.bases, [](const Basis &basis) {
        return llvm::all_of(basis, [](int64_t c) { return c == 0; });
      });
  return LinearLayout(inDims, outs);
}

std::optional<LinearLayout>
LinearLayout::quotient(ArrayRef<std::string> dims) const {
  for (const std::string &name : dims) {
    int in = findIn(name), out = findOut(name);
    if (in < 0 && out < 0)
      continue;
    if (in < 0 || out < 0 || ins[in].log2Size != outs[out].log2Size)
      return std::nullopt;
  }
  SmallVector<InDim> inDims = getBases();
  SmallVector<unsigned> quotientOuts;
  for (auto [i, out] : llvm::enumerate(outs))
    if (llvm::is_contained(dims, out.name))
      quotientOuts.push_back(i);
  for (const InDim &in : inDims) {
    bool quotiented = llvm::is_contained(dims, in.name);
    for (auto [bit, basis] : llvm::enumerate(in.bases))
      for (unsigned o : quotientOuts) {
        int64_t expected =
            quotiented && outs[o].name == in.name ? int64_t(1) << bit : 0;
        if (basis[o] != expected)
          return std::nullopt;
      }
    // A quotiented input must touch nothing but its own output.
    if (quotiented)
      for (const Basis &basis : in.bases)
        for (unsigned o = 0; o < outs.size(); ++o)
          if (!llvm::is_contained(quotientOuts, o) && basis[o] != 0)
            return std::nullopt;
  }
  SmallVector<std::string> keptIns, keptOuts;
  for (const LayoutDim &in : ins)
    if (!llvm::is_contained(dims, in.name))
      keptIns.push_back(in.name);
  for (const LayoutDim &out : outs)
    if (!llvm::is_contained(dims, out.name))
      keptOuts.push_back(out.name);
  return sublayout(keptIns, keptOuts);
}

//===----------------------------------------------------------------------===//
// Factories
//===----------------------------------------------------------------------===//

namespace {

/// The image of one bit of a fragment: 2^log2 along one tensor dim, or
/// nothing (replication).
struct Step {
  int dim = -1;
  unsigned log2 = 0;
};
Step along(unsigned dim, unsigned log2) { return {int(dim), log2}; }
constexpr Step kReplicated{};

/// Builds a distributed layout of `shape` from the bits of a CTA-sized
/// pattern (register, lane, warp steps): steps past the tile are dropped
/// for registers and replicated for lanes and warps; dims the pattern does
/// not fill are covered by more register bits, dims in `repeatOrder` first.
LinearLayout fitToShape(ArrayRef<int64_t> shape, ArrayRef<Step> registers,
                        ArrayRef<Step> lanes, ArrayRef<Step> warps,
                        ArrayRef<unsigned> repeatOrder) {
  SmallVector<LayoutDim> outs;
  SmallVector<unsigned> tileBits, covered(shape.size(), 0);
  for (auto [i, extent] : llvm::enumerate(shape)) {
    tileBits.push_back(log2Exact(extent, "a tile extent"));
    outs.push_back({tensorDimName(i), tileBits.back()});
  }
  auto basisOf = [&](Step step) {
    LinearLayout::Basis basis(shape.size(), 0);
    if (step.dim >= 0 && step.log2 < tileBits[step.dim])
      basis[step.dim] = int64_t(1) << step.log2;
    return basis;
  };
  auto insideTile = [&](Step step) {
    return step.dim < 0 || step.log2 < tileBits[step.dim];
  };
  LinearLayout::InDim reg{std::string(kRegister), {}};
  LinearLayout::InDim lane{std::string(kLane), {}};
  LinearLayout::InDim warp{std::string(kWarp), {}};
  for (ArrayRef<Step> steps : {registers, lanes, warps})
    for (Step step : steps)
      if (step.dim >= 0)
        covered[step.dim] = std::max(covered[step.dim], step.log2 + 1);
  for (Step step : registers)
    if (insideTile(step))
      reg.bases.push_back(basisOf(step));
  for (Step step : lanes)
    lane.bases.push_back(basisOf(step));
  for (Step step : warps)
    warp.bases.push_back(basisOf(step));
  for (unsigned d : repeatOrder)
    for (unsigned bit = covered[d]; bit < tileBits[d]; ++bit)
      reg.bases.push_back(basisOf(along(d, bit)));
  return LinearLayout({reg, lane, warp}, outs);
}

void requireRank(ArrayRef<int64_t> values, size_t rank, StringRef what) {
  require(values.size() == rank,
          what + " needs " + llvm::Twine(rank) + " entries");
}

/// The m16n8 C/D fragment of one warp: c0..c3 at (g + 8 (i >= 2), 2 t + (i &
/// 1)) for lane = 4 g + t.
SmallVector<Step> accumulatorRegisters() { return {along(1, 0), along(0, 3)}; }
SmallVector<Step> accumulatorLanes() {
  return {along(1, 1), along(1, 2), along(0, 0), along(0, 1), along(0, 2)};
}

/// Warp bits: log2(wm) along M (in units of 2^mLog2 rows), then log2(wn)
/// along N (in units of 2^nLog2 columns); a dim given as -1 is replicated.
SmallVector<Step> warpSteps(ArrayRef<int64_t> warpsPerCTA, int mDim,
                            unsigned mLog2, int nDim, unsigned nLog2) {
  SmallVector<Step> steps;
  unsigned wm = log2Exact(warpsPerCTA[0], "warpsPerCTA");
  unsigned wn = log2Exact(warpsPerCTA[1], "warpsPerCTA");
  for (unsigned k = 0; k < wm; ++k)
    steps.push_back(mDim < 0 ? kReplicated : along(mDim, mLog2 + k));
  for (unsigned k = 0; k < wn; ++k)
    steps.push_back(nDim < 0 ? kReplicated : along(nDim, nLog2 + k));
  return steps;
}

} // namespace

LinearLayout tilec::blockedLayout(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> sizePerThread,
                                  ArrayRef<int64_t> threadsPerWarp,
                                  ArrayRef<int64_t> warpsPerCTA,
                                  ArrayRef<unsigned> order) {
  size_t rank = shape.size();
  requireRank(sizePerThread, rank, "sizePerThread");
  requireRank(threadsPerWarp, rank, "threadsPerWarp");
  requireRank(warpsPerCTA, rank, "warpsPerCTA");
  require(order.size() == rank, "order needs one entry per dim");
  SmallVector<unsigned> sorted(order.begin(), order.end());
  llvm::sort(sorted);
  for (unsigned i = 0; i < rank; ++i)
    require(sorted[i] == i, "order must be a permutation of the dims");
  SmallVector<unsigned> next(rank, 0);
  auto steps = [&](ArrayRef<int64_t> counts, StringRef what) {
    SmallVector<Step> result;
    for (unsigned d : order)
      for (unsigned k = 0, e = log2Exact(counts[d], what); k < e; ++k)
        result.push_back(along(d, next[d]++));
    return result;
  };
  SmallVector<Step> registers = steps(sizePerThread, "sizePerThread");
  SmallVector<Step> lanes = steps(threadsPerWarp, "threadsPerWarp");
  SmallVector<Step> warps = steps(warpsPerCTA, "warpsPerCTA");
  return fitToShape(shape, registers, lanes, warps, order);
}

LinearLayout tilec::sliceLayout(const LinearLayout &parent, unsigned dim) {
  unsigned rank = parent.getOutDims().size();
  require(dim < rank, "slice dim " + llvm::Twine(dim) + " is out of range");
  SmallVector<LinearLayout::InDim> inDims = parent.getBases();
  for (LinearLayout::InDim &in : inDims)
    for (LinearLayout::Basis &basis : in.bases)
      basis.erase(basis.begin() + dim);
  SmallVector<LayoutDim> outs;
  for (unsigned i = 0, j = 0; i < rank; ++i)
    if (i != dim)
      outs.push_back({tensorDimName(j++), parent.getOutDims()[i].log2Size});
  return LinearLayout(inDims, outs).removeZeroBases(kRegister);
}

LinearLayout tilec::mmaSyncAccumulatorLayout(ArrayRef<int64_t> shape,
                                             ArrayRef<int64_t> warpsPerCTA) {
  requireRank(shape, 2, "an mma accumulator shape");
  requireRank(warpsPerCTA, 2, "warpsPerCTA");
  require(shape[0] % 16 == 0 && shape[1] % 8 == 0,
          "an mma.sync accumulator tile is a multiple of 16 x 8");
  return fitToShape(shape, accumulatorRegisters(), accumulatorLanes(),
                    warpSteps(warpsPerCTA, 0, 4, 1, 3), {1, 0});
}

LinearLayout tilec::mmaSyncOperandLayout(MmaSyncShape mmaShape,
                                         MmaOperand operand,
                                         ArrayRef<int64_t> tileShape,
                                         ArrayRef<int64_t> warpsPerCTA) {
  requireRank(tileShape, 2, "an mma operand shape");
  requireRank(warpsPerCTA, 2, "warpsPerCTA");
  bool k16 = mmaShape == MmaSyncShape::M16N8K16;
  int64_t k = k16 ? 16 : 8;
  // The PTX ISA fragments, lane = 4 g + t. m16n8k16 A: a_i at
  // (g + 8 ((i >> 1) & 1), 2 t + (i & 1) + 8 (i >> 2)); B: b_i at
  // (2 t + (i & 1) + 8 (i >> 1), g). m16n8k8 (tf32) A: a_i at
  // (g + 8 (i & 1), t + 4 (i >> 1)); B: b_i at (t + 4 i, g).
  if (operand == MmaOperand::A) {
    require(tileShape[0] % 16 == 0 && tileShape[1] % k == 0,
            "an mma.sync A tile is a multiple of 16 x " + llvm::Twine(k));
    SmallVector<Step> registers =
        k16 ? SmallVector<Step>{along(1, 0), along(0, 3), along(1, 3)}
            : SmallVector<Step>{along(0, 3), along(1, 2)};
    SmallVector<Step> lanes =
        k16 ? SmallVector<Step>{along(1, 1), along(1, 2), along(0, 0),
                                along(0, 1), along(0, 2)}
            : SmallVector<Step>{along(1, 0), along(1, 1), along(0, 0),
                                along(0, 1), along(0, 2)};
    return fitToShape(tileShape, registers, lanes,
                      warpSteps(warpsPerCTA, 0, 4, -1, 0), {1, 0});
  }
  require(tileShape[0] % k == 0 && tileShape[1] % 8 == 0,
          "an mma.sync B tile is a multiple of " + llvm::Twine(k) + " x 8");
  SmallVector<Step> registers =
      k16 ? SmallVector<Step>{along(0, 0), along(0, 3)}
          : SmallVector<Step>{along(0, 2)};
  SmallVector<Step> lanes =
      k16 ? SmallVector<Step>{along(0, 1), along(0, 2), along(1, 0),
                              along(1, 1), along(1, 2)}
          : SmallVector<Step>{along(0, 0), along(0, 1), along(1, 0),
                              along(1, 1), along(1, 2)};
  return fitToShape(tileShape, registers, lanes,
                    warpSteps(warpsPerCTA, -1, 0, 1, 3), {0, 1});
}

LinearLayout tilec::ldmatrixLayout(unsigned numMatrices, bool transposed) {
  require(numMatrices == 1 || numMatrices == 2 || numMatrices == 4,
          "ldmatrix loads 1, 2 or 4 matrices");
  unsigned matrixBits = llvm::Log2_32(numMatrices);
  // Outputs (matrix, row, col). Lane 4 g + t receives row g, columns 2 t and
  // 2 t + 1 of each matrix; .trans receives column g, rows 2 t and 2 t + 1.
  // pairDim holds the two halves of a register, groupDim is indexed by g.
  unsigned pairDim = transposed ? 1 : 2, groupDim = transposed ? 2 : 1;
  LinearLayout::InDim reg{std::string(kRegister), {}};
  LinearLayout::InDim lane{std::string(kLane), {}};
  auto at = [](unsigned dim, int64_t value) {
    LinearLayout::Basis basis(3, 0);
    basis[dim] = value;
    return basis;
  };
  reg.bases.push_back(at(pairDim, 1));
  for (unsigned k = 0; k < matrixBits; ++k)
    reg.bases.push_back(at(0, int64_t(1) << k));
  lane.bases = {at(pairDim, 2), at(pairDim, 4), at(groupDim, 1),
                at(groupDim, 2), at(groupDim, 4)};
  return LinearLayout({reg, lane},
                      {{"matrix", matrixBits}, {"row", 3}, {"col", 3}});
}

LinearLayout tilec::ldmatrixAddressLayout(unsigned numMatrices) {
  require(numMatrices == 1 || numMatrices == 2 || numMatrices == 4,
          "ldmatrix loads 1, 2 or 4 matrices");
  unsigned matrixBits = llvm::Log2_32(numMatrices);
  // Lanes 8 j .. 8 j + 7 address rows 0..7 of matrix j.
  LinearLayout::InDim lane{std::string(kLane), {{0, 1}, {0, 2}, {0, 4}}};
  for (unsigned k = 0; k < matrixBits; ++k)
    lane.bases.push_back({int64_t(1) << k, 0});
  return LinearLayout({lane}, {{"matrix", matrixBits}, {"row", 3}});
}

LinearLayout tilec::wgmmaAccumulatorLayout(ArrayRef<int64_t> shape,
                                           int64_t instrN, int64_t numWarps) {
  requireRank(shape, 2, "a wgmma accumulator shape");
  unsigned nBits = log2Exact(instrN, "wgmma N");
  require(instrN >= 8 && instrN <= 256, "wgmma N is 8 to 256");
  require(numWarps % 4 == 0, "wgmma needs whole warpgroups (4 warps)");
  require(shape[0] % 64 == 0 && shape[1] % instrN == 0,
          "a wgmma accumulator tile is a multiple of 64 x N");
  // d_i of lane 4 g + t in warp w: (16 w + g + 8 ((i >> 1) & 1),
  // 8 (i >> 2) + 2 t + (i & 1)): the m16n8 fragment, repeated along N.
  SmallVector<Step> registers = accumulatorRegisters();
  for (unsigned k = 3; k < nBits; ++k)
    registers.push_back(along(1, k));
  SmallVector<Step> warps = {along(0, 4), along(0, 5)};
  for (unsigned k = 0, e = log2Exact(numWarps / 4, "warpgroups"); k < e; ++k)
    warps.push_back(along(0, 6 + k));
  return fitToShape(shape, registers, accumulatorLanes(), warps, {1, 0});
}

LinearLayout tilec::wgmmaOperandALayout(ArrayRef<int64_t> shape,
                                        int64_t numWarps) {
  requireRank(shape, 2, "a wgmma operand shape");
  require(numWarps % 4 == 0, "wgmma needs whole warpgroups (4 warps)");
  require(shape[0] % 64 == 0 && shape[1] % 16 == 0,
          "a wgmma A tile is a multiple of 64 x 16");
  // Per warp the m16n8k16 A fragment; warp w of the warpgroup takes rows
  // 16 w, warpgroups stack along M.
  SmallVector<Step> warps = {along(0, 4), along(0, 5)};
  for (unsigned k = 0, e = log2Exact(numWarps / 4, "warpgroups"); k < e; ++k)
    warps.push_back(along(0, 6 + k));
  return fitToShape(
      shape, {along(1, 0), along(0, 3), along(1, 3)},
      {along(1, 1), along(1, 2), along(0, 0), along(0, 1), along(0, 2)}, warps,
      {1, 0});
}

LinearLayout tilec::swizzledSharedLayout(ArrayRef<int64_t> shape,
                                         unsigned elementBytes,
                                         unsigned swizzleBytes) {
  requireRank(shape, 2, "a shared-memory tile shape");
  unsigned rowBits = log2Exact(shape[0], "rows");
  unsigned colBits = log2Exact(shape[1], "cols");
  unsigned elementBits = log2Exact(elementBytes, "element bytes");
  require(elementBytes <= 16, "elements are at most 16 bytes");
  require(swizzleBytes == 0 || swizzleBytes == 32 || swizzleBytes == 64 ||
              swizzleBytes == 128,
          "swizzle is 0, 32, 64 or 128 bytes");
  require(swizzleBytes == 0 || shape[1] * elementBytes >= swizzleBytes,
          "a swizzled row spans at least the swizzle width");
  // The address of each coordinate bit; the map is linear, so these bases
  // give the whole coordinate -> offset map, which we invert.
  unsigned spanBits =
      swizzleBytes ? llvm::Log2_32(swizzleBytes) - elementBits : colBits;
  unsigned xorBits = swizzleBytes ? llvm::Log2_32(swizzleBytes / 16) : 0;
  auto offsetOf = [&](int64_t row, int64_t col) -> int64_t {
    int64_t block = col >> spanBits,
            within = col & ((int64_t(1) << spanBits) - 1);
    int64_t bytes = (((block << rowBits) + row) << (spanBits + elementBits)) +
                    (within << elementBits);
    int64_t mask = (int64_t(1) << xorBits) - 1;
    bytes ^= ((bytes >> 7) & mask) << 4;
    return bytes >> elementBits;
  };
  LinearLayout::InDim dim0{tensorDimName(0), {}}, dim1{tensorDimName(1), {}};
  for (unsigned k = 0; k < rowBits; ++k)
    dim0.bases.push_back({offsetOf(int64_t(1) << k, 0)});
  for (unsigned k = 0; k < colBits; ++k)
    dim1.bases.push_back({offsetOf(0, int64_t(1) << k)});
  return LinearLayout({dim0, dim1}, {{std::string(kOffset), rowBits + colBits}})
      .invert();
}
