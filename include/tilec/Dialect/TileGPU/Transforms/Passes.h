//===- Passes.h - tilegpu layout passes -------------------------*- C++ -*-===//

#ifndef TILEGPU_TRANSFORMS_PASSES_H
#define TILEGPU_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

namespace mlir::tilegpu {

#define GEN_PASS_DECL
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"

} // namespace mlir::tilegpu

#endif // TILEGPU_TRANSFORMS_PASSES_H
