//===- LoopIndices.h - a load's indices at another iteration ----*- C++ -*-===//
//
// The passes that issue a loop's loads ahead (tilegpu-pipeline,
// tilegpu-prefetch-registers) recompute a load's indices for another value
// of the induction variable.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_TRANSFORMS_LOOPINDICES_H
#define TILEC_DIALECT_TILEGPU_TRANSFORMS_LOOPINDICES_H

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::tilegpu {

/// The indices of `load` (in `loop`'s body) for induction variable `iv`:
/// the body's ops they depend on, cloned at `b` with the induction variable
/// replaced; values defined outside the loop are used as they are.
SmallVector<Value> indicesAt(OpBuilder &b, scf::ForOp loop, tile::LoadOp load,
                             Value iv);

} // namespace mlir::tilegpu

#endif // TILEC_DIALECT_TILEGPU_TRANSFORMS_LOOPINDICES_H
