//===- LowerDistributed.cpp - layout-dependent ops, layouts path -*- C++ -*-===//
//
// The ops whose lowering depends on where a tile's elements live, for tiles
// with #tilegpu.dist layouts (docs/codegen-layouts.md, "As built"):
//   - tile.arange: each register's coordinate;
//   - tilegpu.convert_layout, and tile.broadcast / tile.permute / tile.reshape
//     (whose result is a linear function of the source's coordinates: the
//     result layout composed with that function is a layout of the source
//     tile, and the op is the conversion to it, free or a renaming of
//     registers where LayoutRules chose the layouts);
//   - tile.reduce and tile.cumsum in registers and warp shuffles where the
//     layout allows (DistributedReductions.cpp);
//   - tile.extract, a reshape whose padding does not commute, and the
//     reductions and scans the layout does not allow in registers, through
//     the scratch area by coordinates (the v1 protocol: scratch at offset 0,
//     a barrier after the last read).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

namespace {

/// A layout of `outs` whose bases are those of `layout` mapped through
/// `map` (a linear function of the coordinates).
LinearLayout mapOutputs(
    const LinearLayout &layout, ArrayRef<LayoutDim> outs,
    function_ref<LinearLayout::Basis(const LinearLayout::Basis &)> map) {
  SmallVector<LinearLayout::InDim> ins = layout.getBases();
  for (LinearLayout::InDim &in : ins)
    for (LinearLayout::Basis &basis : in.bases)
      basis = map(basis);
  return LinearLayout(ins, outs);
}

/// The output dims of the padded tile of `type`.
SmallVector<LayoutDim> paddedOuts(RankedTensorType type) {
  SmallVector<LayoutDim> outs;
  for (auto [i, extent] :
       llvm::enumerate(tilegpu::getPaddedShape(type.getShape())))
    outs.push_back({tensorDimName(i), llvm::Log2_64(uint64_t(extent))});
  return outs;
}

struct ArangeLowering : TilePattern<tile::ArangeOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::ArangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    VectorType type = registersOf(op.getType());
    DistributedTile tile(e, op.getType());
    Value result = e.zeros(type);
    for (int64_t r = 0; r < tile.getNumRegisters(); ++r) {
      Value index = tile.coords(e, r)[0];
      if (!type.getElementType().isInteger(32))
        index = arith::ExtUIOp::create(rewriter, op.getLoc(),
                                       type.getElementType(), index);
      result = e.insert(result, index, r);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertLayoutLowering : TilePattern<tilegpu::ConvertLayoutOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tilegpu::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    DistributedTile source(e, op.getSource().getType());
    rewriter.replaceOp(op, convertDistributed(
                               e, source, adaptor.getSource(),
                               getDistributedLinearLayout(op.getType()),
                               registersOf(op.getType())));
    return success();
  }
};

/// result[c] = source[c with the broadcast dims at 0].
LinearLayout broadcastSourceMap(tile::BroadcastOp op) {
  RankedTensorType source = op.getSource().getType();
  return mapOutputs(getDistributedLinearLayout(op.getType()), paddedOuts(source),
                    [&](const LinearLayout::Basis &basis) {
                      LinearLayout::Basis mapped(basis);
                      for (auto [d, extent] :
                           llvm::enumerate(source.getShape()))
                        if (extent == 1)
                          mapped[d] = 0;
                      return mapped;
                    });
}

/// result[c] = source[c'] with c'[p[k]] = c[k].
LinearLayout permuteSourceMap(tile::PermuteOp op) {
  ArrayRef<int64_t> permutation = op.getPermutation();
  return mapOutputs(getDistributedLinearLayout(op.getType()),
                    paddedOuts(op.getSource().getType()),
                    [&](const LinearLayout::Basis &basis) {
                      LinearLayout::Basis mapped(basis.size(), 0);
                      for (auto [k, d] : llvm::enumerate(permutation))
                        mapped[d] = basis[k];
                      return mapped;
                    });
}

/// Whether padding to powers of two commutes with reshaping `from` to `to`:
/// every extent a power of two, or the same extents other than 1s.
bool paddingCommutes(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  auto allPowers = [](ArrayRef<int64_t> shape) {
    return llvm::all_of(
        shape, [](int64_t x) { return llvm::isPowerOf2_64(uint64_t(x)); });
  };
  if (allPowers(from) && allPowers(to))
    return true;
  auto nonUnit = [](ArrayRef<int64_t> shape) {
    SmallVector<int64_t> kept;
    for (int64_t x : shape)
      if (x != 1)
        kept.push_back(x);
    return kept;
  };
  return nonUnit(from) == nonUnit(to);
}

template <typename Op>
struct ConversionLikeLowering : TilePattern<Op> {
  using TilePattern<Op>::TilePattern;
  using OpAdaptor = typename Op::Adaptor;

  LogicalResult
  matchAndRewrite(Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    DistributedTile source(e, op.getSource().getType());
    VectorType type = this->registersOf(op.getType());
    Value result;
    if constexpr (std::is_same_v<Op, tile::BroadcastOp>) {
      result = convertDistributed(e, source, adaptor.getSource(),
                                  broadcastSourceMap(op), type);
    } else if constexpr (std::is_same_v<Op, tile::PermuteOp>) {
      result = convertDistributed(e, source, adaptor.getSource(),
                                  permuteSourceMap(op), type);
    } else {
      RankedTensorType from = op.getSource().getType();
      if (paddingCommutes(from.getShape(), op.getType().getShape())) {
        result = convertDistributed(
            e, source, adaptor.getSource(),
            getDistributedLinearLayout(op.getType()).reshapeOuts(
                paddedOuts(from)),
            type);
      } else {
        // Through the scratch area: the row-major index is the same in
        // both shapes.
        storeToScratch(e, source, adaptor.getSource());
        e.barrier();
        DistributedTile tile(e, op.getType());
        SmallVector<int64_t> strides = getRowMajorStrides(op.getType().getShape());
        result = gatherFromScratch(
            e, tile, from, [&](ArrayRef<Value> coords) {
              return e.delinearize(e.dot(coords, strides), from.getShape());
            });
        e.barrier();
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ExtractLowering : TilePattern<tile::ExtractOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::ExtractOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    RankedTensorType sourceType = op.getSource().getType();
    DistributedTile source(e, sourceType);
    storeToScratch(e, source, adaptor.getSource());
    e.barrier();
    SmallVector<Value> origin =
        extractOrigin(e, adaptor.getIndices(), op.getType().getShape());
    DistributedTile tile(e, op.getType());
    Value result = gatherFromScratch(
        e, tile, sourceType,
        [&](ArrayRef<Value> coords) { return addCoords(e, origin, coords); });
    e.barrier();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Serial over the axis from the scratch copy, in index order (the order
/// the dialect specifies for float sums).
struct ReduceLowering : TilePattern<tile::ReduceOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    if (std::optional<Value> result = reduceInRegisters(
            e, op, adaptor.getSource(), registersOf(op.getType()))) {
      rewriter.replaceOp(op, *result);
      return success();
    }
    RankedTensorType sourceType = op.getSource().getType();
    DistributedTile source(e, sourceType);
    storeToScratch(e, source, adaptor.getSource());
    e.barrier();
    SharedLayout shared = SharedLayout::rowMajor(
        sourceType.getShape(), getSharedBytes(sourceType.getElementType()), 0);
    DistributedTile tile(e, op.getType());
    Value result = reduceFromShared(
        e, op, shared, registersOf(op.getType()), tile.getNumRegisters(),
        [&](int64_t r) { return tile.coords(e, r, /*clamp=*/true); });
    e.barrier();
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct CumsumLowering : TilePattern<tile::CumsumOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::CumsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    if (std::optional<Value> result =
            scanInRegisters(e, op, adaptor.getSource())) {
      rewriter.replaceOp(op, *result);
      return success();
    }
    RankedTensorType tileType = op.getType();
    DistributedTile tile(e, tileType);
    storeToScratch(e, tile, adaptor.getSource());
    e.barrier();
    SharedLayout shared = SharedLayout::rowMajor(
        tileType.getShape(), getSharedBytes(tileType.getElementType()), 0);
    int64_t axis = op.getAxis();
    Type element = tileType.getElementType();
    Value result = e.zeros(registersOf(tileType));
    for (int64_t r = 0; r < tile.getNumRegisters(); ++r) {
      SmallVector<Value> coords = tile.coords(e, r, /*clamp=*/true);
      result = e.insert(
          result, scanAlongShared(e, shared, element, axis, coords), r);
    }
    e.barrier();
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

int64_t tilec::detail::getDistributedScratchBytes(Operation *op) {
  if (auto convert = dyn_cast<tilegpu::ConvertLayoutOp>(op))
    return getConversionScratchBytes(
        convert.getSource().getType(),
        getDistributedLinearLayout(convert.getType()));
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(op))
    return getConversionScratchBytes(broadcast.getSource().getType(),
                                     broadcastSourceMap(broadcast));
  if (auto permute = dyn_cast<tile::PermuteOp>(op))
    return getConversionScratchBytes(permute.getSource().getType(),
                                     permuteSourceMap(permute));
  if (auto reshape = dyn_cast<tile::ReshapeOp>(op)) {
    RankedTensorType from = reshape.getSource().getType();
    if (!paddingCommutes(from.getShape(), reshape.getType().getShape()))
      return getScratchBytes(from);
    return getConversionScratchBytes(
        from, getDistributedLinearLayout(reshape.getType())
                  .reshapeOuts(paddedOuts(from)));
  }
  if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
    int64_t bytes = getReduceInRegistersBytes(reduce);
    if (bytes >= 0)
      return bytes;
  }
  if (auto cumsum = dyn_cast<tile::CumsumOp>(op)) {
    int64_t bytes = getScanInRegistersBytes(cumsum);
    if (bytes >= 0)
      return bytes;
  }
  if (isa<tile::ExtractOp, tile::ReduceOp, tile::CumsumOp>(op))
    return getScratchBytes(cast<RankedTensorType>(op->getOperand(0).getType()));
  if (auto mma = dyn_cast<tile::MmaOp>(op))
    return getDistributedMmaScratchBytes(mma);
  return 0;
}

void tilec::detail::populateDistributedPatterns(TileTypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<ArangeLowering, ConvertLayoutLowering,
               ConversionLikeLowering<tile::BroadcastOp>,
               ConversionLikeLowering<tile::PermuteOp>,
               ConversionLikeLowering<tile::ReshapeOp>, ExtractLowering,
               ReduceLowering, CumsumLowering>(converter,
                                               patterns.getContext());
}
