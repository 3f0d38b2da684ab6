//===- TileGPU.h - the tilegpu dialect --------------------------*- C++ -*-===//
//
// Everything a user of the tilegpu dialect includes: the dialect, its layout
// attributes, types and operations.
//
//===----------------------------------------------------------------------===//

#ifndef TILEGPU_IR_TILEGPU_H
#define TILEGPU_IR_TILEGPU_H

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Layout/LinearLayout.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h.inc"
#include "tilec/Dialect/TileGPU/IR/TileGPUEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUTypes.h.inc"
#define GET_OP_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.h.inc"

namespace mlir::tilegpu {

/// The byte offset tilegpu-allocate-shared gives a buffer (and the lowering
/// moves above its scratch area), and the bytes it gives a kernel.
inline constexpr llvm::StringLiteral kSharedOffsetAttrName = "tilegpu.offset";
inline constexpr llvm::StringLiteral kKernelSharedBytesAttrName =
    "tilegpu.shared_bytes";
/// On a tilegpu.async_copy (tilegpu-pipeline interior-copies=1): the
/// lowering branches on whether the whole box lies inside the view, and
/// inside it copies with no bounds check per run.
inline constexpr llvm::StringLiteral kInteriorCopiesAttrName =
    "tilegpu.interior_copies";

/// The register layout of a tile, or null when it has none.
inline DistributedLayoutAttr getDistributedLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? dyn_cast_or_null<DistributedLayoutAttr>(tensor.getEncoding())
                : DistributedLayoutAttr();
}

/// Each extent rounded up to a power of two: the tile a layout describes.
SmallVector<int64_t> getPaddedShape(ArrayRef<int64_t> shape);

/// Bytes of one element of a tile (i1 and i8 take one).
unsigned getElementBytes(Type elementType);

/// "64x32".
std::string formatShape(ArrayRef<int64_t> shape);

/// How many registers of `layout` (a layout of a tile of `shape`), from a
/// multiple of that number on, walk consecutive elements of tile dim `dim`
/// (register bit k's image is 2^k along it and 0 elsewhere), at most 16
/// bytes of `elementBytes`-byte elements and dividing the extent: the
/// elements one vector access (ld.global.v4, cp.async of 16 bytes) moves.
int64_t getVectorRun(const tilec::LinearLayout &layout, ArrayRef<int64_t> shape,
                     int64_t dim, unsigned elementBytes);

} // namespace mlir::tilegpu

#endif // TILEGPU_IR_TILEGPU_H
