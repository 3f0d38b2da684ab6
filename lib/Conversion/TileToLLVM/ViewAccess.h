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
    extents.resize(rank);
    for (int64_t k = 0; k < rank; ++k) {
      int64_t d = viewDims[k];
      int64_t extent = tileType.getDimSize(k);
      extents[d] = extent;
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
    return {pointerAt(offset), inBounds};
  }

  /// One element's place, from which addressFrom addresses the elements a
  /// constant tile offset away: per element an add and a compare against a
  /// value computed once, instead of addressAt's index, compare, multiply
  /// and add per dim.
  struct Anchor {
    Value pointer;
    /// Per tile dim, the view's size minus the element's view index (i64;
    /// both lie in [0, 2^63), so the difference does not wrap): an element
    /// `delta` further along is inside the view where delta < room.
    SmallVector<Value> room;
  };
  /// The anchor at tile coordinates `coords` (i32).
  Anchor anchorAt(ArrayRef<Value> coords) {
    Anchor anchor;
    Value offset;
    for (auto [k, coord] : llvm::enumerate(coords)) {
      int64_t d = viewDims[k];
      Value index = e.add(origin[d], e.toI64(coord));
      anchor.room.push_back(
          mlir::arith::SubIOp::create(e.b, e.loc, sizes[d], index));
      Value term = e.mul(index, strides[d]);
      offset = offset ? e.add(offset, term) : term;
    }
    anchor.pointer = pointerAt(offset);
    return anchor;
  }
  /// addressAt for the element at `anchor`'s coordinates plus `delta`.
  std::pair<Value, Value> addressFrom(const Anchor &anchor,
                                      ArrayRef<int64_t> delta, Value valid) {
    Value inBounds = e.logicalAnd(valid, tileInView);
    Value offset;
    for (auto [k, step] : llvm::enumerate(delta)) {
      int64_t d = viewDims[k];
      inBounds = e.logicalAnd(
          inBounds, mlir::arith::CmpIOp::create(
                        e.b, e.loc, mlir::arith::CmpIPredicate::slt,
                        e.i64(step), anchor.room[k]));
      if (step == 0)
        continue;
      Value term = e.mul(e.i64(step), strides[d]);
      offset = offset ? e.add(offset, term) : term;
    }
    if (!offset)
      return {anchor.pointer, inBounds};
    Value pointer = mlir::LLVM::GEPOp::create(
        e.b, e.loc, base.getType(), element, anchor.pointer, ValueRange{offset});
    return {pointer, inBounds};
  }

  /// Whether the whole tile lies inside the view (i1): then no element
  /// needs its own bounds check. size - origin is negative (as i64) for a
  /// tile past the view's end, whose index tileInView also rejects.
  Value tileInside() {
    Value inside = tileInView;
    for (auto [size, start, extent] : llvm::zip(sizes, origin, extents)) {
      Value room = mlir::arith::SubIOp::create(e.b, e.loc, size, start);
      inside = e.logicalAnd(
          inside, mlir::arith::CmpIOp::create(e.b, e.loc,
                                              mlir::arith::CmpIPredicate::sge,
                                              room, e.i64(extent)));
    }
    return inside;
  }

  /// The vec variant's facts give the view innermost stride 1 (or no
  /// element, when every access is predicated off): the addresses then
  /// multiply nothing by it.
  void assumeUnitInnermostStride() { strides.back() = e.i64(1); }

  /// The tile dim that walks the view's innermost dim.
  int64_t innermostTileDim() const {
    return llvm::find(viewDims, int64_t(viewDims.size()) - 1) -
           viewDims.begin();
  }

  int64_t alignment() const {
    return std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  }

private:
  /// The address `offset` (i64, elements; null for 0) past the view's base.
  Value pointerAt(Value offset) {
    if (!offset)
      offset = e.i64(0);
    return mlir::LLVM::GEPOp::create(e.b, e.loc, base.getType(), element, base,
                                     ValueRange{offset});
  }

  Emitter &e;
  Type element;
  Value base;
  SmallVector<Value> sizes, strides, origin;
  /// Per view dim, the tile's extent along it.
  SmallVector<int64_t> extents;
  /// Whether every tile index is that of a tile overlapping the view.
  Value tileInView;
  SmallVector<int64_t> viewDims;
};

/// The addresses of one thread's registers of a distributed tile in a view.
/// A register whose coordinates lie a constant offset from register 0's in
/// every thread (ThreadLayout::offsetFromFirst: no lane or warp bit reaches
/// its image) is addressed from register 0's anchor, made at the first such
/// register: per dim a compare against a room computed once, and a constant
/// times the stride added to one pointer, where addressAt forms the index,
/// compares it, multiplies it by the stride and adds it. The anchor must
/// dominate its uses: one RegisterAddresses per region they are made in.
class RegisterAddresses {
public:
  RegisterAddresses(Emitter &e, ViewAccess &access, const DistributedTile &tile)
      : e(e), access(access), tile(tile) {}

  /// The address of register `reg` and whether it lies inside the view (the
  /// bounds check folds in `valid`, which may be null).
  std::pair<Value, Value> at(int64_t reg, Value valid) {
    std::optional<SmallVector<int64_t>> delta =
        tile.getThreadLayout().offsetFromFirst(reg);
    if (!delta)
      return access.addressAt(tile.coords(e, reg), valid);
    if (!anchor)
      anchor = access.anchorAt(tile.coords(e, 0));
    return access.addressFrom(*anchor, *delta, valid);
  }

private:
  Emitter &e;
  ViewAccess &access;
  const DistributedTile &tile;
  std::optional<ViewAccess::Anchor> anchor;
};

} // namespace tilec::detail

#endif // TILEC_LIB_CONVERSION_TILETOLLVM_VIEWACCESS_H
