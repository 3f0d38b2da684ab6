//===- LowerMemory.cpp - tile.load and tile.store ---------------*- C++ -*-===//
//
// Each thread reads or writes the elements of its registers, one predicated
// access per element: the element's view coordinates are the tile's origin
// (tile index times tile extent, for a tile index that overlaps the view:
// the product must not wrap) plus its coordinates in the tile, the
// offset sum(coord_d * stride_d) is computed in i64 (sizes may pass 2^31),
// and an element outside the view is not accessed (a load yields the padding
// value). Consecutive threads hold consecutive elements along the tile's last
// dimension, so accesses along a contiguous last view dimension coalesce.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "ViewAccess.h"

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

namespace {

/// The value an out-of-bounds load reads (the verifier allows paddings other
/// than zero for float tiles only).
Value paddingValue(Emitter &e, Type element, tile::Padding padding) {
  TypedAttr value = e.b.getZeroAttr(element);
  if (auto floatType = dyn_cast<FloatType>(element)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    if (padding == tile::Padding::nan)
      value = FloatAttr::get(element, llvm::APFloat::getQNaN(semantics));
    else if (padding == tile::Padding::neg_inf)
      value = FloatAttr::get(element,
                             llvm::APFloat::getInf(semantics, /*Negative=*/true));
    else if (padding == tile::Padding::pos_inf)
      value = FloatAttr::get(element, llvm::APFloat::getInf(semantics));
  }
  return LLVM::ConstantOp::create(e.b, e.loc, element, value);
}

/// Every thread reads the same element (one transaction per warp, which the
/// hardware broadcasts): the same on both code generators, as the result is
/// a scalar and no layout is involved. The indices are element indices; a
/// negative one is a large unsigned one, so one unsigned compare per
/// dimension bounds it, and the offset is computed in i64.
struct LoadScalarOpLowering : TilePattern<tile::LoadScalarOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::LoadScalarOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    ValueRange view = adaptor.getView();
    int64_t rank = op.getView().getType().getRank();
    Type element = converter().convertType(op.getType());
    std::optional<ArrayRef<int64_t>> literal = op.getStaticIndices();
    unsigned next = 0;
    Value inBounds, offset;
    for (int64_t d = 0; d < rank; ++d) {
      Value index = literal && (*literal)[d] != ShapedType::kDynamic
                        ? e.i64((*literal)[d])
                        : adaptor.getIndices()[next++].front();
      Value inside = e.ult(index, view[1 + d]);
      inBounds = inBounds ? e.logicalAnd(inBounds, inside) : inside;
      Value term = e.mul(index, view[1 + rank + d]);
      offset = offset ? e.add(offset, term) : term;
    }
    Value pointer = LLVM::GEPOp::create(rewriter, op.getLoc(),
                                        view[0].getType(), element, view[0],
                                        ValueRange{offset});
    Value value = e.ifThenElse(
        inBounds,
        [&] {
          return LLVM::LoadOp::create(
              rewriter, op.getLoc(), element, pointer,
              std::max<unsigned>(1, element.getIntOrFloatBitWidth() / 8));
        },
        paddingValue(e, element, op.getPadding()));
    rewriter.replaceOp(op, value);
    return success();
  }
};

struct LoadOpLowering : TilePattern<tile::LoadOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::LoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TileTypeConverter &converter = this->converter();
    Emitter e(rewriter, op.getLoc());
    RankedTensorType tileType = op.getType();
    auto type = cast<VectorType>(converter.convertType(tileType));
    Type element = type.getElementType();
    SmallVector<Value> indices;
    for (ValueRange index : adaptor.getIndices())
      indices.push_back(index.front());
    ViewAccess access(e, adaptor.getView(), indices, tileType, op.getOrder(),
                      element);
    BlockedLayout layout = converter.getLayout(tileType);
    Value padding = paddingValue(e, element, op.getPadding());
    Value result = e.zeros(type);
    for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
      auto [pointer, inBounds] =
          access.address(e.linearIndex(layout, r, /*clamp=*/false),
                         e.holdsElement(layout, r), tileType.getShape());
      Value value = e.ifThenElse(
          inBounds,
          [&] {
            return LLVM::LoadOp::create(rewriter, op.getLoc(), element, pointer,
                                        access.alignment());
          },
          padding);
      result = e.insert(result, value, r);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct StoreOpLowering : TilePattern<tile::StoreOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::StoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TileTypeConverter &converter = this->converter();
    Emitter e(rewriter, op.getLoc());
    RankedTensorType tileType = op.getValue().getType();
    Value tile = adaptor.getValue().front();
    Type element = cast<VectorType>(tile.getType()).getElementType();
    SmallVector<Value> indices;
    for (ValueRange index : adaptor.getIndices())
      indices.push_back(index.front());
    ViewAccess access(e, adaptor.getView(), indices, tileType, op.getOrder(),
                      element);
    BlockedLayout layout = converter.getLayout(tileType);
    for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
      auto [pointer, inBounds] =
          access.address(e.linearIndex(layout, r, /*clamp=*/false),
                         e.holdsElement(layout, r), tileType.getShape());
      Value value = e.extract(tile, r);
      e.ifThen(inBounds, [&] {
        LLVM::StoreOp::create(rewriter, op.getLoc(), value, pointer,
                              access.alignment());
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace


//===----------------------------------------------------------------------===//
// The layouts path
//===----------------------------------------------------------------------===//

namespace {

/// The registers one vector access moves (tilegpu::getVectorRun) when the
/// kernel is compiled with the vectorize facts (innermost view stride 1,
/// base 16-byte aligned, other strides and the innermost size multiples of
/// 16 bytes), so that a vector is wholly inside or outside the view. An
/// empty view has nothing to access: each access is predicated on its first
/// element's coordinates lying inside the view, and none do.
int64_t vectorWidth(const LinearLayout &layout, RankedTensorType type,
                    int64_t dim) {
  if (type.getElementType().isInteger(1))
    return 1;
  return tilegpu::getVectorRun(layout, type.getShape(), dim,
                               getSharedBytes(type.getElementType()));
}

/// Applies the vectorize facts of `op`'s view to `access` (its innermost
/// stride is then the constant 1) and returns the registers one access
/// moves: a vector run along the view's innermost dim with the facts, else
/// one.
int64_t applyVectorizeFacts(const TileTypeConverter &converter,
                            ViewAccess &access, const DistributedTile &tile,
                            Operation *op) {
  if (!converter.vectorizesAccess(op))
    return 1;
  access.assumeUnitInnermostStride();
  return vectorWidth(tile.getLayout(), tile.getType(),
                     access.innermostTileDim());
}

SmallVector<Value> indicesOf(ArrayRef<ValueRange> indices) {
  SmallVector<Value> result;
  for (ValueRange index : indices)
    result.push_back(index.front());
  return result;
}

struct DistributedLoadLowering : TilePattern<tile::LoadOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::LoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    RankedTensorType tileType = op.getType();
    VectorType type = registersOf(tileType);
    Type element = type.getElementType();
    ViewAccess access(e, adaptor.getView(), indicesOf(adaptor.getIndices()),
                      tileType, op.getOrder(), element);
    DistributedTile tile(e, tileType);
    int64_t width = applyVectorizeFacts(converter(), access, tile, op);
    Type pieceType = width == 1 ? element : VectorType::get({width}, element);
    Value padding = paddingValue(e, element, op.getPadding());
    if (width > 1)
      padding = e.splat(cast<VectorType>(pieceType), padding);
    Value result = e.zeros(type);
    RegisterAddresses addresses(e, access, tile);
    for (int64_t r = 0; r < tile.getNumRegisters(); r += width) {
      auto [pointer, inBounds] = addresses.at(r, tile.holds(e, r));
      Value piece = e.ifThenElse(
          inBounds,
          [&] {
            return LLVM::LoadOp::create(rewriter, op.getLoc(), pieceType,
                                        pointer, width * access.alignment());
          },
          padding);
      for (int64_t i = 0; i < width; ++i)
        result = e.insert(result, width == 1 ? piece : e.extract(piece, i),
                          r + i);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct DistributedStoreLowering : TilePattern<tile::StoreOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::StoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    RankedTensorType tileType = op.getValue().getType();
    Value registers = adaptor.getValue().front();
    Type element = cast<VectorType>(registers.getType()).getElementType();
    ViewAccess access(e, adaptor.getView(), indicesOf(adaptor.getIndices()),
                      tileType, op.getOrder(), element);
    DistributedTile tile(e, tileType);
    int64_t width = applyVectorizeFacts(converter(), access, tile, op);
    RegisterAddresses addresses(e, access, tile);
    for (int64_t r = 0; r < tile.getNumRegisters(); r += width) {
      std::optional<Value> owner = tile.owns(e, r);
      if (!owner)
        continue;
      auto [pointer, inBounds] = addresses.at(r, *owner);
      Value piece;
      if (width == 1) {
        piece = e.extract(registers, r);
      } else {
        SmallVector<int32_t> mask;
        for (int64_t i = 0; i < width; ++i)
          mask.push_back(int32_t(r + i));
        piece = LLVM::ShuffleVectorOp::create(rewriter, op.getLoc(), registers,
                                              registers, mask);
      }
      e.ifThen(inBounds, [&] {
        LLVM::StoreOp::create(rewriter, op.getLoc(), piece, pointer,
                              width * access.alignment());
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tilec::detail::populateMemoryPatterns(TileTypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<LoadScalarOpLowering>(converter, patterns.getContext());
  if (converter.hasLayouts())
    patterns.add<DistributedLoadLowering, DistributedStoreLowering>(
        converter, patterns.getContext());
  else
    patterns.add<LoadOpLowering, StoreOpLowering>(converter,
                                                  patterns.getContext());
}
