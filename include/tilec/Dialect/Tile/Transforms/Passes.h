//===- Passes.h - tile dialect transformations ------------------*- C++ -*-===//

#ifndef TILE_TRANSFORMS_PASSES_H
#define TILE_TRANSFORMS_PASSES_H

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tile {

#define GEN_PASS_DECL
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"

/// Rewrites the language's shorthands (loads and stores with `dims` or
/// literal indices, broadcasts with `new_dims`, `tile.full` of a literal,
/// `tile.arange` from a start, `tile.mma ... precision = tf32`) in `root`
/// into the ops they stand for. The ops verify before and after; the
/// interpreter and the lowering call this so that they implement only the
/// longer forms.
void expandForms(Operation *root);

#define GEN_PASS_REGISTRATION
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace mlir::tile

#endif // TILE_TRANSFORMS_PASSES_H
