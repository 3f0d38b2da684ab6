//===- LowerShared.cpp - ops that move elements between threads -*- C++ -*-===//
//
// broadcast, permute, extract, reduce and cumsum read elements that other
// threads hold. Each one writes its source tile into the shared scratch area
// (row-major, offset 0), waits at a barrier, reads what each of its result
// registers needs, and waits at a second barrier so that the next op may
// overwrite the scratch area. Reductions and scans run serially per result
// element in index order, which is also the order the dialect specifies for
// float sums.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include <functional>

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

namespace {

/// The source tile in the scratch area.
SharedLayout exchangeLayout(RankedTensorType source) {
  return SharedLayout::rowMajor(source.getShape(),
                                getSharedBytes(source.getElementType()), 0);
}

template <typename Op>
struct ExchangePattern : TilePattern<Op> {
  using TilePattern<Op>::TilePattern;
  using OpAdaptor = typename Op::Adaptor;
  using TilePattern<Op>::converter;

  /// Writes `tile` (a value of `type`) to the scratch area and waits for all
  /// threads to have done so.
  SharedLayout publish(Emitter &e, Value tile, RankedTensorType type) const {
    SharedLayout shared = exchangeLayout(type);
    storeTileToShared(e, converter().getLayout(type), tile,
                      TileTypeConverter::getRegisterType(type.getElementType()),
                      shared);
    e.barrier();
    return shared;
  }
};

/// The source coordinates of a result element, given its coordinates.
using SourceCoords = std::function<SmallVector<Value>(ArrayRef<Value>)>;

/// An op whose result elements are elements of its source: the source is
/// published to the scratch area, each result element is read from it at
/// `sourceCoords`, and a barrier frees the area again.
template <typename Op>
struct GatherPattern : ExchangePattern<Op> {
  using ExchangePattern<Op>::ExchangePattern;
  using OpAdaptor = typename Op::Adaptor;

  LogicalResult
  matchAndRewrite(Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Emitter e(rewriter, op.getLoc());
    SharedLayout shared =
        this->publish(e, adaptor.getSource(), op.getSource().getType());
    Value result = gatherFromShared(e, this->converter(), op.getType(), shared,
                                    sourceCoords(e, op, adaptor));
    e.barrier();
    rewriter.replaceOp(op, result);
    return success();
  }

  virtual SourceCoords sourceCoords(Emitter &e, Op op,
                                    OpAdaptor adaptor) const = 0;
};

struct BroadcastOpLowering : GatherPattern<tile::BroadcastOp> {
  using GatherPattern::GatherPattern;

  SourceCoords sourceCoords(Emitter &e, tile::BroadcastOp op,
                            OpAdaptor) const override {
    SmallVector<int64_t> sourceShape(op.getSource().getType().getShape());
    return [&e, sourceShape](ArrayRef<Value> coords) {
      // A repeated (extent-1) dimension reads its only element.
      SmallVector<Value> from(coords);
      for (auto [d, size] : llvm::enumerate(sourceShape))
        if (size == 1)
          from[d] = e.i32(0);
      return from;
    };
  }
};

struct PermuteOpLowering : GatherPattern<tile::PermuteOp> {
  using GatherPattern::GatherPattern;

  SourceCoords sourceCoords(Emitter &, tile::PermuteOp op,
                            OpAdaptor) const override {
    SmallVector<int64_t> permutation(op.getPermutation());
    return [permutation](ArrayRef<Value> coords) {
      // Result dimension k is source dimension p[k].
      SmallVector<Value> from(coords.size());
      for (auto [k, d] : llvm::enumerate(permutation))
        from[d] = coords[k];
      return from;
    };
  }
};

struct ExtractOpLowering : GatherPattern<tile::ExtractOp> {
  using GatherPattern::GatherPattern;

  SourceCoords sourceCoords(Emitter &e, tile::ExtractOp op,
                            OpAdaptor adaptor) const override {
    SmallVector<Value> origin =
        extractOrigin(e, adaptor.getIndices(), op.getType().getShape());
    return [&e, origin](ArrayRef<Value> coords) {
      return addCoords(e, origin, coords);
    };
  }
};

struct ReduceOpLowering : ExchangePattern<tile::ReduceOp> {
  using ExchangePattern::ExchangePattern;

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    RankedTensorType source = op.getSource().getType();
    SharedLayout shared = publish(e, adaptor.getSource(), source);
    BlockedLayout layout = converter().getLayout(op.getType());
    Value result = reduceFromShared(
        e, op, shared, cast<VectorType>(converter().convertType(op.getType())),
        layout.getNumRegisters(), [&](int64_t r) {
          return e.delinearize(e.linearIndex(layout, r, /*clamp=*/true),
                               op.getType().getShape());
        });
    e.barrier();
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct CumsumOpLowering : ExchangePattern<tile::CumsumOp> {
  using ExchangePattern::ExchangePattern;

  LogicalResult
  matchAndRewrite(tile::CumsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    RankedTensorType tileType = op.getType();
    SharedLayout shared = publish(e, adaptor.getSource(), tileType);
    int64_t axis = op.getAxis();
    Type element = tileType.getElementType();

    auto type = cast<VectorType>(converter().convertType(tileType));
    BlockedLayout layout = converter().getLayout(tileType);
    Value result = e.zeros(type);
    for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
      SmallVector<Value> coords = e.delinearize(
          e.linearIndex(layout, r, /*clamp=*/true), tileType.getShape());
      result = e.insert(
          result, scanAlongShared(e, shared, element, axis, coords), r);
    }
    e.barrier();
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

/// Float sums and scans accumulate in f32; everything else in its own type.
Type tilec::detail::accumulatorType(Type element) {
  if (isa<FloatType>(element))
    return Float32Type::get(element.getContext());
  return element;
}

Value tilec::detail::toAccumulator(Emitter &e, Value value, Type accumulator) {
  if (value.getType() == accumulator)
    return value;
  return LLVM::FPExtOp::create(e.b, e.loc, accumulator, value);
}

Value tilec::detail::fromAccumulator(Emitter &e, Value value, Type element) {
  if (value.getType() == element)
    return value;
  return LLVM::FPTruncOp::create(e.b, e.loc, element, value);
}

Value tilec::detail::combine(Emitter &e, tile::ReduceKind kind, Value x, Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case tile::ReduceKind::sum:
    return isFloat ? LLVM::FAddOp::create(e.b, e.loc, x, y).getResult()
                   : LLVM::AddOp::create(e.b, e.loc, x, y).getResult();
  case tile::ReduceKind::max:
    // llvm.maximum propagates NaN, as the dialect specifies.
    return isFloat ? LLVM::MaximumOp::create(e.b, e.loc, x, y).getResult()
                   : LLVM::SMaxOp::create(e.b, e.loc, x, y).getResult();
  case tile::ReduceKind::min:
    return isFloat ? LLVM::MinimumOp::create(e.b, e.loc, x, y).getResult()
                   : LLVM::SMinOp::create(e.b, e.loc, x, y).getResult();
  }
  llvm_unreachable("unknown reduction");
}

Value tilec::detail::zeroOf(Emitter &e, Type type) {
  return LLVM::ConstantOp::create(e.b, e.loc, type, e.b.getZeroAttr(type));
}

/// The `kind` reduction of the `extent` elements of `shared` from element
/// offset `base` along dimension `axis`, in `element`'s type.
static Value reduceAlongShared(Emitter &e, const SharedLayout &shared,
                               tile::ReduceKind kind, Type element,
                               int64_t axis, int64_t extent, Value base) {
  Type accumulator =
      kind == tile::ReduceKind::sum ? accumulatorType(element) : element;
  auto load = [&](Value k) {
    Value offset = e.add(base, e.mul(k, e.i32(shared.strides[axis])));
    return toAccumulator(
        e, e.loadShared(element, e.sharedAddress(shared, element, offset)),
        accumulator);
  };
  // Sums start from 0, max and min from the first element.
  bool isSum = kind == tile::ReduceKind::sum;
  Value init = isSum ? zeroOf(e, accumulator) : load(e.i32(0));
  Value total = e.loop(e.i32(isSum ? 0 : 1), e.i32(extent), init,
                       [&](Value k, ValueRange acc) {
                         return SmallVector<Value>{
                             combine(e, kind, acc[0], load(k))};
                       })[0];
  return fromAccumulator(e, total, element);
}

Value tilec::detail::scanAlongShared(Emitter &e, const SharedLayout &shared,
                                     Type element, int64_t axis,
                                     SmallVector<Value> coords) {
  Type accumulator = accumulatorType(element);
  Value last = coords[axis];
  coords[axis] = e.i32(0);
  Value base = e.dot(coords, shared.strides);
  // Element i sums source elements 0..i along the axis, in order.
  Value total =
      e.loop(e.i32(0), e.add(last, e.i32(1)), zeroOf(e, accumulator),
             [&](Value k, ValueRange acc) {
               Value offset =
                   e.add(base, e.mul(k, e.i32(shared.strides[axis])));
               Value value = toAccumulator(
                   e,
                   e.loadShared(element,
                                e.sharedAddress(shared, element, offset)),
                   accumulator);
               return SmallVector<Value>{
                   combine(e, tile::ReduceKind::sum, acc[0], value)};
             })[0];
  return fromAccumulator(e, total, element);
}

Value tilec::detail::gatherFromShared(
    Emitter &e, const TileTypeConverter &converter,
    RankedTensorType resultType, const SharedLayout &source,
    function_ref<SmallVector<Value>(ArrayRef<Value>)> sourceCoords) {
  auto type = cast<VectorType>(converter.convertType(resultType));
  BlockedLayout layout = converter.getLayout(resultType);
  Type element = resultType.getElementType();
  Type registerType = type.getElementType();
  Value result = e.zeros(type);
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
    SmallVector<Value> coords = e.delinearize(
        e.linearIndex(layout, r, /*clamp=*/true), resultType.getShape());
    Value offset = e.dot(sourceCoords(coords), source.strides);
    Value value = e.loadShared(
        registerType, e.sharedAddress(source, element, offset));
    result = e.insert(result, value, r);
  }
  return result;
}

void tilec::detail::storeTileToShared(Emitter &e, const BlockedLayout &layout,
                               Value tile, Type element,
                               const SharedLayout &shared) {
  bool dense = ArrayRef<int64_t>(shared.strides) ==
               ArrayRef<int64_t>(getRowMajorStrides(layout.getShape()));
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
    Value linear = e.linearIndex(layout, r, /*clamp=*/false);
    Value value = e.extract(tile, r);
    e.ifThen(e.holdsElement(layout, r), [&] {
      Value offset =
          dense ? linear
                : e.dot(e.delinearize(linear, layout.getShape()),
                        shared.strides);
      e.storeShared(value, e.sharedAddress(shared, element, offset));
    });
  }
}

int64_t tilec::detail::getExchangeScratchBytes(Operation *op) {
  if (!isa<tile::BroadcastOp, tile::PermuteOp, tile::ExtractOp,
           tile::ReduceOp, tile::CumsumOp>(op))
    return 0;
  return exchangeLayout(cast<RankedTensorType>(op->getOperand(0).getType()))
      .sizeBytes;
}

void tilec::detail::populateSharedPatterns(TileTypeConverter &converter,
                                    RewritePatternSet &patterns) {
  if (converter.hasLayouts())
    return populateDistributedPatterns(converter, patterns);
  patterns.add<BroadcastOpLowering, PermuteOpLowering, ExtractOpLowering,
               ReduceOpLowering, CumsumOpLowering>(converter,
                                                   patterns.getContext());
}

SmallVector<Value> tilec::detail::extractOrigin(Emitter &e, ValueRange indices,
                                                ArrayRef<int64_t> subShape) {
  // The dialect makes an index outside the source undefined, so 32 bits
  // hold index * extent.
  SmallVector<Value> origin;
  for (auto [index, size] : llvm::zip(indices, subShape)) {
    Value start =
        arith::TruncIOp::create(e.b, e.loc, e.b.getI32Type(), index);
    origin.push_back(e.mul(start, e.i32(size)));
  }
  return origin;
}

SmallVector<Value> tilec::detail::addCoords(Emitter &e, ArrayRef<Value> origin,
                                            ArrayRef<Value> coords) {
  SmallVector<Value> sum;
  for (auto [start, coord] : llvm::zip(origin, coords))
    sum.push_back(e.add(start, coord));
  return sum;
}

Value tilec::detail::reduceFromShared(
    Emitter &e, tile::ReduceOp op, const SharedLayout &shared,
    VectorType registers, int64_t numRegisters,
    function_ref<SmallVector<Value>(int64_t)> resultCoords) {
  RankedTensorType source = op.getSource().getType();
  int64_t axis = op.getAxis();
  Value result = e.zeros(registers);
  for (int64_t r = 0; r < numRegisters; ++r) {
    // The source coordinates of the reduced line's first element.
    SmallVector<Value> parent = resultCoords(r);
    parent.insert(parent.begin() + axis, e.i32(0));
    Value base = e.dot(parent, shared.strides);
    result = e.insert(result,
                      reduceAlongShared(e, shared, op.getKind(),
                                        source.getElementType(), axis,
                                        source.getDimSize(axis), base),
                      r);
  }
  return result;
}
