//===- DistributedReductions.cpp - reduce and cumsum in registers -*- C++ -*-===//
//
// tile.reduce and tile.cumsum on the layouts path, from the layout: the
// reduced (scanned) axis is walked by some register, lane and warp bits.
// Register bits combine in-thread, lane bits by warp shuffles (shfl.bfly for
// a reduction, shfl.up for a scan), warp bits through a small buffer in the
// scratch area and one barrier (a second one frees it). docs/semantics.md
// lets the GPU sum in this tree order. Layouts whose bits mix the axis with
// other dims, and element types other than 32-bit accumulators, take the
// scratch path of LowerDistributed.cpp instead.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tilec/Dialect/TileGPU/Transforms/LayoutRules.h"
#include "tilec/Layout/Gf2Basis.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

namespace {

/// Which input bits of a layout walk `axis`: bits whose image is only along
/// it, in bit order; `ok` is false when some bit walks it and another dim,
/// or when two of them walk it dependently (copies along the axis would be
/// combined twice).
struct AxisBits {
  SmallVector<unsigned> reg, lane, warp;
  bool ok = true;
};

AxisBits classifyAxis(const LinearLayout &layout, unsigned axis) {
  AxisBits bits;
  Gf2Basis span;
  unsigned column = 0;
  auto independent = [&](int64_t image) {
    return span.insert(uint64_t(image), column++);
  };
  auto classify = [&](StringRef name, SmallVectorImpl<unsigned> &out) {
    unsigned count = llvm::Log2_64(uint64_t(layout.getInDimSize(name)));
    for (unsigned bit = 0; bit < count; ++bit) {
      LinearLayout::Basis image = layout.getBasis(name, bit);
      if (image[axis] == 0)
        continue;
      for (auto [d, coord] : llvm::enumerate(image))
        if (d != axis && coord != 0)
          bits.ok = false;
      if (!independent(image[axis]))
        bits.ok = false;
      out.push_back(bit);
    }
  };
  classify(kRegister, bits.reg);
  classify(kLane, bits.lane);
  classify(kWarp, bits.warp);
  return bits;
}

int64_t maskOf(ArrayRef<unsigned> bits) {
  int64_t mask = 0;
  for (unsigned bit : bits)
    mask |= int64_t(1) << bit;
  return mask;
}

/// `value`'s bits of positions `bits`, packed from bit 0 (i32).
Value extractBits(Emitter &e, Value value, ArrayRef<unsigned> bits) {
  Value packed = e.i32(0);
  for (auto [j, bit] : llvm::enumerate(bits)) {
    Value one = e.bitAnd(LLVM::LShrOp::create(e.b, e.loc, value, e.i32(bit)), 1);
    packed = arith::OrIOp::create(
        e.b, e.loc, packed,
        LLVM::ShlOp::create(e.b, e.loc, one, e.i32(int64_t(j))));
  }
  return packed;
}

/// The integer with the bits of `j` placed at positions `bits`.
int64_t depositBits(int64_t j, ArrayRef<unsigned> bits) {
  int64_t result = 0;
  for (auto [k, bit] : llvm::enumerate(bits))
    if (j & (int64_t(1) << k))
      result |= int64_t(1) << bit;
  return result;
}

/// Accumulators that a 32-bit shuffle moves.
bool isShuffleable(Type accumulator) {
  return accumulator.isF32() || accumulator.isInteger(32);
}

Value shuffle(Emitter &e, NVVM::ShflKind kind, Value value, Value offset,
              int64_t clamp) {
  return NVVM::ShflOp::create(
      e.b, e.loc, value.getType(), e.i32(-1), value, offset, e.i32(clamp),
      NVVM::ShflKindAttr::get(e.b.getContext(), kind), UnitAttr());
}

/// The neutral element of `kind` in `type` (f32 or i32).
Value neutral(Emitter &e, tile::ReduceKind kind, Type type) {
  if (kind == tile::ReduceKind::sum)
    return zeroOf(e, type);
  bool isMax = kind == tile::ReduceKind::max;
  if (auto floatType = dyn_cast<FloatType>(type))
    return LLVM::ConstantOp::create(
        e.b, e.loc, type,
        FloatAttr::get(type, llvm::APFloat::getInf(floatType.getFloatSemantics(),
                                                   /*Negative=*/isMax)));
  unsigned width = type.getIntOrFloatBitWidth();
  return LLVM::ConstantOp::create(
      e.b, e.loc, type,
      IntegerAttr::get(type, isMax ? llvm::APInt::getSignedMinValue(width)
                                   : llvm::APInt::getSignedMaxValue(width)));
}

Type reduceAccumulator(tile::ReduceOp op) {
  Type element = op.getSource().getType().getElementType();
  return op.getKind() == tile::ReduceKind::sum ? accumulatorType(element)
                                               : element;
}

/// The source layout's slice along the axis, and for each of its registers
/// the source register (axis bits 0) holding the same coordinates.
struct SlicePlan {
  LinearLayout slice;
  SmallVector<int64_t> sourceRegister;
};

std::optional<SlicePlan> planSlice(const LinearLayout &source, unsigned axis,
                                   const AxisBits &bits) {
  SlicePlan plan{sliceLayout(source, axis), {}};
  auto project = [&](ArrayRef<int64_t> coords) {
    uint64_t key = 0;
    for (auto [d, coord] : llvm::enumerate(coords))
      if (d != axis)
        key = key * 4096 + uint64_t(coord);
    return key;
  };
  llvm::DenseMap<uint64_t, int64_t> byCoords;
  int64_t axisMask = maskOf(bits.reg);
  for (int64_t r = 0, e = source.getInDimSize(kRegister); r < e; ++r)
    if (!(r & axisMask))
      byCoords.try_emplace(project(source.apply({r, 0, 0})), r);
  for (int64_t r = 0, e = plan.slice.getInDimSize(kRegister); r < e; ++r) {
    SmallVector<int64_t> coords = plan.slice.apply({r, 0, 0});
    coords.insert(coords.begin() + axis, 0);
    auto it = byCoords.find(project(coords));
    if (it == byCoords.end())
      return std::nullopt;
    plan.sourceRegister.push_back(it->second);
  }
  return plan;
}

/// Elements of the padded slice (the warp buffer's rows).
int64_t paddedElements(const LinearLayout &layout) {
  int64_t n = 1;
  for (const LayoutDim &out : layout.getOutDims())
    n *= out.size();
  return n;
}

/// Row-major index of a point of the padded tile of `layout`.
Value paddedIndex(Emitter &e, const LinearLayout &layout, ValueRange coords) {
  SmallVector<int64_t> shape;
  for (const LayoutDim &out : layout.getOutDims())
    shape.push_back(out.size());
  return e.dot(coords, getRowMajorStrides(shape));
}

} // namespace

std::optional<Value> tilec::detail::reduceInRegisters(Emitter &e,
                                                      tile::ReduceOp op,
                                                      Value source,
                                                      VectorType resultType) {
  RankedTensorType sourceType = op.getSource().getType();
  unsigned axis = op.getAxis();
  Type accumulator = reduceAccumulator(op);
  if (!isShuffleable(accumulator))
    return std::nullopt;
  LinearLayout layout = getDistributedLinearLayout(sourceType);
  AxisBits bits = classifyAxis(layout, axis);
  if (!bits.ok)
    return std::nullopt;
  std::optional<SlicePlan> plan = planSlice(layout, axis, bits);
  if (!plan)
    return std::nullopt;
  tile::ReduceKind kind = op.getKind();
  Type element = sourceType.getElementType();
  DistributedTile tile(e, sourceType);
  RankedTensorType sliceType = getDistributedType(
      e.b.getContext(), op.getType().getShape(), element, plan->slice);
  DistributedTile slice(e, sliceType);

  // In-thread, then across the lanes that walk the axis.
  SmallVector<Value> totals;
  for (int64_t base : plan->sourceRegister) {
    Value total;
    for (int64_t j = 0, e2 = int64_t(1) << bits.reg.size(); j < e2; ++j) {
      int64_t r = base | depositBits(j, bits.reg);
      Value value = toAccumulator(e, e.extract(source, r), accumulator);
      if (Value holds = tile.holds(e, r))
        value = LLVM::SelectOp::create(e.b, e.loc, holds, value,
                                       neutral(e, kind, accumulator));
      total = total ? combine(e, kind, total, value) : value;
    }
    for (unsigned bit : bits.lane)
      total = combine(e, kind, total,
                      shuffle(e, NVVM::ShflKind::bfly, total,
                              e.i32(int64_t(1) << bit), 0x1f));
    totals.push_back(total);
  }

  // Across the warps that walk it: warp p's totals in row p of a buffer,
  // written by one copy of each, read back and combined in warp order.
  if (!bits.warp.empty()) {
    int64_t rows = int64_t(1) << bits.warp.size();
    int64_t rowElements = paddedElements(plan->slice);
    SharedLayout buffer =
        SharedLayout::rowMajor({rows, rowElements}, 4, /*offset=*/0);
    Value warp = e.udiv(e.threadId(), 32);
    Value position = extractBits(e, warp, bits.warp);
    Value writer = threadBitsClear(e, slice.getCopyLaneMask(),
                                   tile.getCopyWarpMask());
    SmallVector<Value> indices;
    for (int64_t r = 0; r < slice.getNumRegisters(); ++r)
      indices.push_back(
          paddedIndex(e, plan->slice, slice.getThreadLayout().outputs(e, r)));
    for (auto [index, total] : llvm::zip(indices, totals)) {
      Value offset = e.add(e.mul(position, e.i32(rowElements)), index);
      e.ifThen(writer, [&, total = total] {
        e.storeShared(total, e.sharedAddress(buffer, accumulator, offset));
      });
    }
    e.barrier();
    for (auto [index, total] : llvm::zip(indices, totals)) {
      Value sum;
      for (int64_t p = 0; p < rows; ++p) {
        Value offset = e.add(e.i32(p * rowElements), index);
        Value value =
            e.loadShared(accumulator, e.sharedAddress(buffer, accumulator, offset));
        sum = sum ? combine(e, kind, sum, value) : value;
      }
      total = sum;
    }
    e.barrier();
  }

  auto sliceRegisters = VectorType::get({slice.getNumRegisters()},
                                        resultType.getElementType());
  Value result = e.zeros(sliceRegisters);
  for (auto [r, total] : llvm::enumerate(totals))
    result = e.insert(result, fromAccumulator(e, total, element), int64_t(r));
  LinearLayout wanted = getDistributedLinearLayout(op.getType());
  if (plan->slice == wanted)
    return result;
  return convertDistributed(e, slice, result, wanted, resultType);
}

int64_t tilec::detail::getReduceInRegistersBytes(tile::ReduceOp op) {
  RankedTensorType sourceType = op.getSource().getType();
  if (!isShuffleable(reduceAccumulator(op)))
    return -1;
  LinearLayout layout = getDistributedLinearLayout(sourceType);
  AxisBits bits = classifyAxis(layout, op.getAxis());
  if (!bits.ok)
    return -1;
  std::optional<SlicePlan> plan = planSlice(layout, op.getAxis(), bits);
  if (!plan)
    return -1;
  int64_t bytes = 0;
  if (!bits.warp.empty())
    bytes = (int64_t(1) << bits.warp.size()) * paddedElements(plan->slice) * 4;
  LinearLayout wanted = getDistributedLinearLayout(op.getType());
  if (plan->slice != wanted)
    bytes = std::max(bytes, getConversionScratchBytes(
                                getDistributedType(op.getContext(),
                                                   op.getType().getShape(),
                                                   sourceType.getElementType(),
                                                   plan->slice),
                                wanted));
  return bytes;
}

namespace {

/// Whether the scan can run in registers: the axis bits' images are 1, 2,
/// 4, ... along it, registers first, then lanes (consecutive lane bits, so
/// that shfl.up reaches the previous lanes along the axis), then warps.
bool isScannable(const LinearLayout &layout, unsigned axis,
                 const AxisBits &bits) {
  if (!bits.ok)
    return false;
  int64_t expected = 1;
  auto check = [&](StringRef name, ArrayRef<unsigned> list) {
    for (unsigned bit : list) {
      if (layout.getBasis(name, bit)[axis] != expected)
        return false;
      expected *= 2;
    }
    return true;
  };
  for (size_t i = 1; i < bits.lane.size(); ++i)
    if (bits.lane[i] != bits.lane[0] + i)
      return false;
  return check(kRegister, bits.reg) && check(kLane, bits.lane) &&
         check(kWarp, bits.warp);
}

} // namespace

namespace {

/// The inclusive scan of `source`, registers of `type` (a scannable layout
/// with its slice plan).
Value scanScannable(Emitter &e, RankedTensorType type, unsigned axis,
                    const AxisBits &bits, const SlicePlan &plan,
                    Value source) {
  Type element = type.getElementType();
  Type accumulator = accumulatorType(element);
  DistributedTile tile(e, type);
  Value lane = e.urem(e.threadId(), 32);
  Value lanePosition = extractBits(e, lane, bits.lane);
  int64_t lanes = int64_t(1) << bits.lane.size();
  auto atLeast = [&](Value position, int64_t bound) {
    return arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::uge,
                                 position, e.i32(bound));
  };

  // Per group of registers along the axis: the in-thread inclusive prefix,
  // then the exclusive prefix of the thread totals over the lanes.
  int64_t perThread = int64_t(1) << bits.reg.size();
  SmallVector<SmallVector<Value>> prefixes;
  SmallVector<Value> carries, warpTotals;
  for (int64_t base : plan.sourceRegister) {
    SmallVector<Value> prefix;
    for (int64_t j = 0; j < perThread; ++j) {
      // Padding lies past every real element along the axis: it only ever
      // reaches padding.
      Value value = toAccumulator(
          e, e.extract(source, base | depositBits(j, bits.reg)), accumulator);
      prefix.push_back(j == 0 ? value
                              : combine(e, tile::ReduceKind::sum, prefix.back(),
                                        value));
    }
    Value inclusive = prefix.back();
    if (!bits.lane.empty()) {
      for (int64_t d = 1; d < lanes; d *= 2) {
        Value from = shuffle(e, NVVM::ShflKind::up, inclusive,
                             e.i32(d << bits.lane[0]), 0);
        inclusive = LLVM::SelectOp::create(
            e.b, e.loc, atLeast(lanePosition, d),
            combine(e, tile::ReduceKind::sum, inclusive, from), inclusive);
      }
    }
    Value carry = zeroOf(e, accumulator);
    if (!bits.lane.empty()) {
      Value previous = shuffle(e, NVVM::ShflKind::up, inclusive,
                               e.i32(int64_t(1) << bits.lane[0]), 0);
      carry = LLVM::SelectOp::create(e.b, e.loc, atLeast(lanePosition, 1),
                                     previous, carry);
    }
    prefixes.push_back(std::move(prefix));
    carries.push_back(carry);
    warpTotals.push_back(inclusive);
  }

  // Across warps: each warp's totals in row p of a buffer (written by its
  // last lane along the axis); a thread adds those of the warps before it.
  if (!bits.warp.empty()) {
    int64_t rows = int64_t(1) << bits.warp.size();
    int64_t rowElements = paddedElements(plan.slice);
    SharedLayout buffer =
        SharedLayout::rowMajor({rows, rowElements}, 4, /*offset=*/0);
    Value warp = e.udiv(e.threadId(), 32);
    Value position = extractBits(e, warp, bits.warp);
    Value lastLane = arith::CmpIOp::create(
        e.b, e.loc, arith::CmpIPredicate::eq, lanePosition, e.i32(lanes - 1));
    Value writer = e.logicalAnd(
        lastLane, threadBitsClear(e, tile.getCopyLaneMask(),
                                  tile.getCopyWarpMask()));
    SmallVector<int64_t> sliceShape(type.getShape());
    sliceShape.erase(sliceShape.begin() + axis);
    RankedTensorType sliceType = getDistributedType(
        e.b.getContext(), sliceShape, element, plan.slice);
    DistributedTile slice(e, sliceType);
    SmallVector<Value> indices;
    for (int64_t r = 0; r < slice.getNumRegisters(); ++r)
      indices.push_back(
          paddedIndex(e, plan.slice, slice.getThreadLayout().outputs(e, r)));
    for (auto [index, total] : llvm::zip(indices, warpTotals)) {
      Value offset = e.add(e.mul(position, e.i32(rowElements)), index);
      e.ifThen(writer, [&, total = total] {
        e.storeShared(total, e.sharedAddress(buffer, accumulator, offset));
      });
    }
    e.barrier();
    for (auto [index, carry] : llvm::zip(indices, carries)) {
      Value before = e.loop(
          e.i32(0), position, zeroOf(e, accumulator),
          [&](Value p, ValueRange acc) {
            Value offset = e.add(e.mul(p, e.i32(rowElements)), index);
            Value value = e.loadShared(
                accumulator, e.sharedAddress(buffer, accumulator, offset));
            return SmallVector<Value>{
                combine(e, tile::ReduceKind::sum, acc[0], value)};
          })[0];
      carry = combine(e, tile::ReduceKind::sum, before, carry);
    }
    e.barrier();
  }

  Value result = source;
  for (auto [base, prefix, carry] :
       llvm::zip(plan.sourceRegister, prefixes, carries))
    for (auto [j, value] : llvm::enumerate(prefix))
      result = e.insert(
          result,
          fromAccumulator(e, combine(e, tile::ReduceKind::sum, carry, value),
                          element),
          base | depositBits(int64_t(j), bits.reg));
  return result;
}

/// A layout in which the scan along `axis` runs in registers and shuffles:
/// blocked, the axis fastest with the thread's share of the tile in
/// registers.
LinearLayout scanLayout(MLIRContext *context, RankedTensorType type,
                        unsigned axis, unsigned numWarps) {
  SmallVector<int64_t> padded = tilegpu::getPaddedShape(type.getShape());
  int64_t elements = 1;
  for (int64_t extent : padded)
    elements *= extent;
  int64_t perThread = std::clamp<int64_t>(elements / (32 * numWarps), 1,
                                          padded[axis]);
  return tilegpu::getBlockedLayout(context, type.getShape(), axis, perThread,
                                   numWarps)
      .getLinearLayout(type.getShape());
}

/// The layout the scan runs in (the op's own when it is scannable).
std::optional<LinearLayout> scanRunLayout(tile::CumsumOp op) {
  RankedTensorType type = op.getType();
  unsigned axis = op.getAxis();
  LinearLayout layout = getDistributedLinearLayout(type);
  if (isScannable(layout, axis, classifyAxis(layout, axis)))
    return layout;
  LinearLayout blocked =
      scanLayout(op.getContext(), type, axis,
                 unsigned(layout.getInDimSize(kWarp)));
  if (isScannable(blocked, axis, classifyAxis(blocked, axis)))
    return blocked;
  return std::nullopt;
}

} // namespace

std::optional<Value> tilec::detail::scanInRegisters(Emitter &e,
                                                    tile::CumsumOp op,
                                                    Value source) {
  RankedTensorType type = op.getType();
  unsigned axis = op.getAxis();
  Type element = type.getElementType();
  if (!isShuffleable(accumulatorType(element)))
    return std::nullopt;
  LinearLayout layout = getDistributedLinearLayout(type);
  if (getDistributedLinearLayout(op.getSource().getType()) != layout)
    return std::nullopt;
  std::optional<LinearLayout> run = scanRunLayout(op);
  if (!run)
    return std::nullopt;
  AxisBits bits = classifyAxis(*run, axis);
  std::optional<SlicePlan> plan = planSlice(*run, axis, bits);
  if (!plan)
    return std::nullopt;
  if (*run == layout)
    return scanScannable(e, type, axis, bits, *plan, source);
  // Into the scannable layout and back.
  RankedTensorType runType =
      getDistributedType(op.getContext(), type.getShape(), element, *run);
  VectorType runRegisters = VectorType::get(
      {run->getInDimSize(kRegister)},
      TileTypeConverter::getRegisterType(element));
  Value converted = convertDistributed(e, DistributedTile(e, type), source,
                                       *run, runRegisters);
  Value scanned = scanScannable(e, runType, axis, bits, *plan, converted);
  return convertDistributed(e, DistributedTile(e, runType), scanned, layout,
                            cast<VectorType>(source.getType()));
}


int64_t tilec::detail::getScanInRegistersBytes(tile::CumsumOp op) {
  RankedTensorType type = op.getType();
  if (!isShuffleable(accumulatorType(type.getElementType())))
    return -1;
  LinearLayout layout = getDistributedLinearLayout(type);
  if (getDistributedLinearLayout(op.getSource().getType()) != layout)
    return -1;
  std::optional<LinearLayout> run = scanRunLayout(op);
  if (!run)
    return -1;
  AxisBits bits = classifyAxis(*run, op.getAxis());
  std::optional<SlicePlan> plan = planSlice(*run, op.getAxis(), bits);
  if (!plan)
    return -1;
  int64_t bytes = 0;
  if (!bits.warp.empty())
    bytes = (int64_t(1) << bits.warp.size()) * paddedElements(plan->slice) * 4;
  if (*run != layout) {
    RankedTensorType runType = getDistributedType(
        op.getContext(), type.getShape(), type.getElementType(), *run);
    bytes = std::max({bytes, getConversionScratchBytes(type, *run),
                      getConversionScratchBytes(runType, layout)});
  }
  return bytes;
}
