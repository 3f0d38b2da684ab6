//===- TileAttrNames.h - attributes the lowering sets for Target *- C++ -*-===//
//
// The attributes the lowering (lib/Conversion) sets on a lowered kernel and
// the target (lib/Target) reads back to launch it. Here, in the dialect whose
// prefix they carry, so that the target does not depend on the lowering.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEATTRNAMES_H
#define TILEC_DIALECT_TILE_IR_TILEATTRNAMES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::tile {

/// Warps per CTA of the lowered kernel (i32).
inline constexpr llvm::StringLiteral kNumWarpsAttrName = "tile.num_warps";
/// Dynamic shared memory, in bytes, to launch the lowered kernel with (i64).
inline constexpr llvm::StringLiteral kSharedBytesAttrName = "tile.shared_bytes";

/// A unit attribute on a view argument of a tile.kernel: the view may have
/// any strides (a broadcast with stride 0, a transposed or unaligned view).
/// Every variant accesses it one element at a time and the launcher does not
/// ask it for the vectorize facts (docs/codegen-layouts.md, "Vectorised
/// global access and view facts").
inline constexpr llvm::StringLiteral kAnyStridesAttrName = "tile.any_strides";

} // namespace mlir::tile

#endif // TILEC_DIALECT_TILE_IR_TILEATTRNAMES_H
