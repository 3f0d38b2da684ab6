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

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

namespace {

/// The elements one tile access touches in a view.
class ViewAccess {
public:
  /// `view` is the lowered view (pointer, sizes, strides), `indices` the
  /// tile index per view dimension (i64), `order` the view dimension of
  /// each tile dimension.
  ViewAccess(Emitter &e, ValueRange view, ValueRange indices,
             RankedTensorType tileType, std::optional<ArrayRef<int64_t>> order,
             Type element)
      : e(e), element(element) {
    int64_t rank = tileType.getRank();
    base = view[0];
    sizes.assign(view.begin() + 1, view.begin() + 1 + rank);
    strides.assign(view.begin() + 1 + rank, view.end());
    viewDims.resize(rank);
    for (int64_t k = 0; k < rank; ++k)
      viewDims[k] = order ? (*order)[k] : k;
    // The tile spans T'[viewDims[k]] = shape[k] elements of each view
    // dimension, from origin index * T'.
    origin.resize(rank);
    for (int64_t k = 0; k < rank; ++k) {
      int64_t d = viewDims[k];
      int64_t extent = tileType.getDimSize(k);
      origin[d] = e.mul(indices[d], e.i64(extent));
      // index * extent wraps in i64 for a large enough index (2^62 * 4 is
      // 0), so the tile index itself must lie in [0, ceil(size / extent)):
      // then the product does not wrap. The verifier bounds extents far
      // below 2^32 and sizes are below 2^63, so size + extent - 1 does not
      // wrap either.
      Value numTiles = e.udiv(e.add(sizes[d], e.i64(extent - 1)), extent);
      tileInView = e.logicalAnd(tileInView, e.ult(indices[d], numTiles));
    }
  }

  /// The address of the element at row-major index `linear` of the tile and
  /// whether it lies inside the view (the bounds check folds in `valid`).
  std::pair<Value, Value> address(Value linear, Value valid,
                                  ArrayRef<int64_t> shape) {
    return addressAt(e.delinearize(linear, shape), valid);
  }

  /// The same for the element at tile coordinates `coords` (i32).
  std::pair<Value, Value> addressAt(ArrayRef<Value> coords, Value valid) {
    Value inBounds = e.logicalAnd(valid, tileInView);
    Value offset;
    for (auto [k, coord] : llvm::enumerate(coords)) {
      int64_t d = viewDims[k];
      Value index = e.add(origin[d], e.toI64(coord));
      inBounds = e.logicalAnd(inBounds, e.ult(index, sizes[d]));
      Value term = e.mul(index, strides[d]);
      offset = offset ? e.add(offset, term) : term;
    }
    if (!offset)
      offset = e.i64(0);
    Value pointer = LLVM::GEPOp::create(e.b, e.loc, base.getType(), element,
                                        base, ValueRange{offset});
    return {pointer, inBounds};
  }

  /// The tile dim that walks the view's innermost dim.
  int64_t innermostTileDim() const {
    return llvm::find(viewDims, int64_t(viewDims.size()) - 1) -
           viewDims.begin();
  }

  int64_t alignment() const {
    return std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  }

private:
  Emitter &e;
  Type element;
  Value base;
  SmallVector<Value> sizes, strides, origin;
  /// Whether every tile index is that of a tile overlapping the view.
  Value tileInView;
  SmallVector<int64_t> viewDims;
};

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

/// How many registers from a multiple of it on walk consecutive elements of
/// tile dim `dim` (register bit k's image is 2^k along it, 0 elsewhere), at
/// most 16 bytes and dividing the extent: one vector access each when the
/// kernel is compiled with the vectorize facts (innermost view stride 1,
/// base 16-byte aligned, other strides and the innermost size multiples of
/// 16 bytes), so that a vector is wholly inside or outside the view. An
/// empty view has nothing to access: each access is predicated on its first
/// element's coordinates lying inside the view, and none do.
int64_t vectorWidth(const LinearLayout &layout, RankedTensorType type,
                    int64_t dim) {
  int64_t bytes = getSharedBytes(type.getElementType());
  if (type.getElementType().isInteger(1))
    return 1;
  int64_t width = 1;
  unsigned bits = llvm::Log2_64(uint64_t(layout.getInDimSize(kRegister)));
  for (unsigned bit = 0; bit < bits; ++bit) {
    LinearLayout::Basis image = layout.getBasis(kRegister, bit);
    bool unit = true;
    for (auto [d, coord] : llvm::enumerate(image))
      unit &= coord == (int64_t(d) == dim ? int64_t(1) << bit : 0);
    if (!unit || 2 * width * bytes > 16 ||
        type.getDimSize(dim) % (2 * width) != 0)
      break;
    width *= 2;
  }
  return width;
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
    int64_t width = converter().vectorizesAccess(op)
                        ? vectorWidth(tile.getLayout(), tileType,
                                      access.innermostTileDim())
                        : 1;
    Type pieceType = width == 1 ? element : VectorType::get({width}, element);
    Value padding = paddingValue(e, element, op.getPadding());
    if (width > 1)
      padding = e.splat(cast<VectorType>(pieceType), padding);
    Value result = e.zeros(type);
    for (int64_t r = 0; r < tile.getNumRegisters(); r += width) {
      auto [pointer, inBounds] =
          access.addressAt(tile.coords(e, r), tile.holds(e, r));
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
    int64_t width = converter().vectorizesAccess(op)
                        ? vectorWidth(tile.getLayout(), tileType,
                                      access.innermostTileDim())
                        : 1;
    for (int64_t r = 0; r < tile.getNumRegisters(); r += width) {
      std::optional<Value> owner = tile.owns(e, r);
      if (!owner)
        continue;
      auto [pointer, inBounds] = access.addressAt(tile.coords(e, r), *owner);
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
  if (converter.hasLayouts())
    patterns.add<DistributedLoadLowering, DistributedStoreLowering>(
        converter, patterns.getContext());
  else
    patterns.add<LoadOpLowering, StoreOpLowering>(converter,
                                                  patterns.getContext());
}
