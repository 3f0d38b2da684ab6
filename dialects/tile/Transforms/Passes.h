//===- Passes.h - tile dialect transformations ------------------*- C++ -*-===//

#ifndef TILE_TRANSFORMS_PASSES_H
#define TILE_TRANSFORMS_PASSES_H

#include "tile/IR/Tile.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tile {

#define GEN_PASS_DECL
#include "tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tile/Transforms/Passes.h.inc"

} // namespace mlir::tile

#endif // TILE_TRANSFORMS_PASSES_H
