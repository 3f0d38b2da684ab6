//===- InitAll.h - dialects and passes the tools register -------*- C++ -*-===//

#ifndef TILEC_INITALL_H
#define TILEC_INITALL_H

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"
#include "tilec/Dialect/TileGPU/Transforms/Passes.h"
#include "tilec/Conversion/Passes.h"

#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace tilec {

/// The dialects a tile kernel may contain.
inline void registerKernelDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::tile::TileDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect>();
}

/// The lowering-level dialect (docs/codegen-layouts.md): what the layout
/// passes produce, and the dialects the conversions produce (so that
/// tile-opt reads back what it writes, and a conversion's test can start
/// from its own input). Kernel authors and the interpreter never see them.
inline void registerLoweringDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::tilegpu::TileGPUDialect, mlir::cf::ControlFlowDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect>();
}

/// The project's passes and the upstream ones its pipelines use.
inline void registerPasses() {
  mlir::tile::registerTileTransformsPasses();
  mlir::tilegpu::registerTileGPUTransformsPasses();
  tilec::registerConversionPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerInlinerPass();
  mlir::registerPass([] { return mlir::createSCFToControlFlowPass(); });
}

} // namespace tilec

#endif // TILEC_INITALL_H
