//===- Tile.h - the tile dialect --------------------------------*- C++ -*-===//
//
// Everything a user of the tile dialect includes: the dialect, its types,
// attributes and operations, and helpers for symbolic tile shapes.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILE_H
#define TILE_IR_TILE_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h.inc"
#include "tilec/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileTypes.h.inc"
#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/IR/TileOps.h.inc"

namespace mlir::tile {

/// One extent of a tile: a number, or the name of a kernel parameter whose
/// value is not bound yet. A `?` extent with no name (rejected inside kernels)
/// is neither: its size is ShapedType::kDynamic and it has no symbol.
struct TileDim {
  int64_t size = ShapedType::kDynamic;
  StringAttr symbol;

  /// Not a parameter name (a number, or an unnamed `?`).
  bool isStatic() const { return !symbol; }
  /// Whether the extents can be equal once parameters are bound. Two
  /// different numbers cannot, and neither can two different parameters: a
  /// kernel must not rely on two parameters being bound to the same value. A
  /// parameter may equal any number; the verifier checks again after binding.
  bool mayEqual(const TileDim &other) const;
  /// True only when both are known to be equal.
  bool knownEqual(const TileDim &other) const;
  /// "64", "CHUNK" or "?".
  std::string str() const;
};

/// The extents of a tile type, symbolic where a `#tile.dims` encoding says so.
SmallVector<TileDim> getTileDims(RankedTensorType type);

/// "64x32" or "CHUNKx32": a tile shape as a user wrote it.
std::string formatTileShape(RankedTensorType type);

/// Product of the extents; nullopt when one of them is symbolic or the
/// product does not fit in int64_t.
std::optional<int64_t> getStaticElementCount(RankedTensorType type);

/// The most registers a thread of a `numThreads`-thread program may have: a
/// multiprocessor's 65536 32-bit registers shared by its threads, and at most
/// 255 each (every target tilec compiles for, sm_80 to sm_100).
int64_t getMaxRegistersPerThread(int64_t numThreads);

/// The 32-bit registers each of `numThreads` threads needs to hold one tile
/// of `type` (static shape) in the blocked layout: its elements spread over
/// the threads, one register per element of up to 32 bits. nullopt when the
/// element count overflows.
std::optional<int64_t> getTileRegistersPerThread(RankedTensorType type,
                                                 int64_t numThreads);

/// Whether `type` is a (concrete) element type of tiles: f32, f16, bf16,
/// tf32, i1, i8, i16, i32 or i64; what a type parameter may be bound to.
bool isTileElementType(Type type);

/// Whether `name` can name a kernel: a PTX identifier that is also a C++
/// one (the launcher has the kernel's name), [A-Za-z_][A-Za-z0-9_]*, other
/// than a lone `_`.
bool isValidKernelName(StringRef name);

/// The tile type with extents `dims` (a `#tile.dims` encoding where one
/// names a parameter): the inverse of getTileDims.
RankedTensorType makeTileType(ArrayRef<TileDim> dims, Type elementType);

/// What a tile.load or tile.store with `dims` accesses: a tile of the view's
/// rank (extent 1 along the view dimensions `dims` leaves out) read or
/// written through `order` (empty for the view's own order), which the
/// access's tile is a reshape of. Kept in the view's order when `dims`
/// increases once its extent-1 tile dimensions are left out; otherwise the
/// left-out dimensions come first.
struct FullRankAccess {
  RankedTensorType type;
  SmallVector<int64_t> order;
};
FullRankAccess getFullRankAccess(RankedTensorType tile, unsigned viewRank,
                                 ArrayRef<int64_t> dims);

/// Whether `view` is an argument of a tile.kernel marked `tile.any_strides`:
/// a view no variant may assume the vectorize facts of.
bool hasAnyStrides(Value view);

} // namespace mlir::tile

#endif // TILE_IR_TILE_H
