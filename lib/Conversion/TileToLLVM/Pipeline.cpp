//===- Pipeline.cpp - tile IR to LLVM + NVVM, end to end --------*- C++ -*-===//

#include "tilec/Conversion/Pipeline.h"
#include "tilec/Conversion/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tilec::buildTileToLLVMPipeline(OpPassManager &pm,
                                    const LoweringOptions &options) {
  // The shorthands become the reshapes, constants and conversions they stand
  // for; then identity reshapes, broadcasts and permutes (among them those
  // the shorthands leave) fold before they cost a trip through shared memory.
  pm.addPass(tile::createTileExpandForms());
  pm.addPass(createCanonicalizerPass());
  if (options.codegen == Codegen::Layouts) {
    tilegpu::TileGPUAssignLayoutsOptions assign;
    assign.vectorize = options.vectorize;
    assign.sm = options.smVersion;
    pm.addPass(tilegpu::createTileGPUAssignLayouts(assign));
    pm.addPass(tilegpu::createTileGPURemoveLayoutConversions());
    // The vec variant's facts keep 4- to 16-byte runs wholly inside or
    // outside a view: what cp.async with a zero-filling src-size needs.
    if (options.vectorize) {
      tilegpu::TileGPUPipelineOptions pipeline;
      pipeline.interiorCopies = options.interiorCopies;
      pm.addPass(tilegpu::createTileGPUPipeline(pipeline));
      // Only for sm >= 90 (sm_90a, sm_100a): on sm_80 the mma.sync kernels
      // already spill at their occupancy and prefetching added spills
      // (docs/codegen-layouts.md).
      if (options.smVersion >= 90)
        pm.addPass(tilegpu::createTileGPUPrefetchRegisters());
      tilegpu::TileGPUAllocateSharedOptions allocate;
      allocate.conversions = false;
      pm.addPass(tilegpu::createTileGPUAllocateShared(allocate));
    }
  }
  ConvertTileToLLVMOptions tileOptions;
  tileOptions.sm = options.smVersion;
  tileOptions.vectorize = options.vectorize;
  pm.addPass(createConvertTileToLLVM(tileOptions));
  // What convert-tile-to-llvm leaves: scf control flow (the user's and the
  // lowering's own), scalar and per-thread vector arith and math, and NVVM
  // ops with no LLVM intrinsic (wgmma.mma_async, as inline PTX). Both
  // conversions without pattern rollback (Passes.td, ConvertScalarsToLLVM).
  SCFToControlFlowPassOptions scfToCF;
  scfToCF.allowPatternRollback = false;
  pm.addPass(createSCFToControlFlowPass(scfToCF));
  pm.addPass(createConvertScalarsToLLVM());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // Folds and dead code only: LLVM's pipeline merges and erases blocks
  // itself, and leaving it to LLVM saves 0.5 of the Mamba-2 library's 36
  // CPU s with the same output (docs/performance.md).
  GreedyRewriteConfig noRegionSimplification;
  noRegionSimplification.setRegionSimplificationLevel(
      GreedySimplifyRegionLevel::Disabled);
  pm.addPass(createCanonicalizerPass(noRegionSimplification));
  pm.addPass(createCSEPass());
}

namespace {
struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  Option<unsigned> sm{*this, "sm",
                      llvm::cl::desc("compute capability times 10"),
                      llvm::cl::init(80)};
  Option<std::string> codegen{
      *this, "codegen",
      llvm::cl::desc("simple (one blocked layout) or layouts (register "
                     "layouts, mma.sync on registers)"),
      llvm::cl::init("simple")};
  Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("layouts: views are contiguous and aligned (16-byte "
                     "accesses)"),
      llvm::cl::init(false)};
  Option<bool> interiorCopies{
      *this, "interior-copies",
      llvm::cl::desc("layouts, vectorize: cp.async boxes wholly inside "
                     "their view copy with no bounds check per run"),
      llvm::cl::init(false)};
};
} // namespace

void tilec::registerConversionPasses() {
  registerTilecConversionPasses();
  PassPipelineRegistration<PipelineOptions>(
      "tile-to-llvm",
      "bound tile kernels to LLVM + NVVM, ready for mlir-translate "
      "(buildTileToLLVMPipeline)",
      [](OpPassManager &pm, const PipelineOptions &options) {
        LoweringOptions lowering;
        lowering.smVersion = options.sm;
        lowering.codegen = options.codegen == "layouts" ? Codegen::Layouts
                                                        : Codegen::Simple;
        lowering.vectorize = options.vectorize;
        lowering.interiorCopies = options.interiorCopies;
        buildTileToLLVMPipeline(pm, lowering);
      });
}
