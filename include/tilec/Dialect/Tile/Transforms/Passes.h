//===- Passes.h - tile dialect transformations ------------------*- C++ -*-===//

#ifndef TILE_TRANSFORMS_PASSES_H
#define TILE_TRANSFORMS_PASSES_H

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "mlir/Pass/Pass.h"

#include <optional>
#include <string>

namespace mlir::tile {

#define GEN_PASS_DECL
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"

/// Rewrites the language's shorthands (loads and stores with `dims` or
/// literal indices, broadcasts with `new_dims`, `tile.full` of a literal,
/// `tile.arange` from a start, `tile.mma ... precision = tf32`, the
/// broadcasting float ops `tile.addf`/`subf`/`mulf`/`divf`) in `root`
/// into the ops they stand for. The ops verify before and after; the
/// interpreter and the lowering call this so that they implement only the
/// longer forms.
void expandForms(Operation *root);

/// An op that tile-bind-params would have changed, and why, in words that
/// follow the op's name in an error.
struct Unbound {
  Operation *op;
  std::string message;
};

/// The first op in `root`, outer ops first, that is a `tile.param` or has a
/// tile whose shape names a parameter (a result, or an argument of one of
/// its blocks); none when tile-bind-params has run. The interpreter and the
/// lowering take only bound kernels and report this.
std::optional<Unbound> findUnbound(Operation *root);

#define GEN_PASS_REGISTRATION
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace mlir::tile

#endif // TILE_TRANSFORMS_PASSES_H
