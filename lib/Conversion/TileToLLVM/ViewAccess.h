//===- ViewAccess.h - addresses of a tile's elements in a view --*- C++ -*-===//
//
// Used by tile.load / tile.store (LowerMemory.cpp) and tilegpu.async_copy
// (LowerAsyncCopy.cpp): the element's view coordinates are the tile's
// origin (tile index times tile extent) plus its coordinates in the tile,
// the offset sum(coord_d * stride_d) in i64.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_TILETOLLVM_VIEWACCESS_H
#define TILEC_LIB_CONVERSION_TILETOLLVM_VIEWACCESS_H

#include "Lowering.h"

namespace tilec::detail {

using mlir::ArrayRef;
using mlir::RankedTensorType;
using mlir::SmallVector;
using mlir::Type;
using mlir::Value;
using mlir::ValueRange;

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
    Value pointer = mlir::LLVM::GEPOp::create(e.b, e.loc, base.getType(), element,
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

} // namespace tilec::detail

#endif // TILEC_LIB_CONVERSION_TILETOLLVM_VIEWACCESS_H
