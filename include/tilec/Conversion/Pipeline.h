//===- Pipeline.h - tile IR to LLVM + NVVM ----------------------*- C++ -*-===//
//
// The lowering from bound tile IR to the LLVM and NVVM dialects, per target.
//
// Kernel ABI of the lowered code (what generated launchers pass): each
// `tile.kernel` becomes an `llvm.func` of the same name with `nvvm.kernel`,
// taking, for each tile argument in order,
//   - a view of rank r: `!llvm.ptr<1>` (global address), r x i64 sizes,
//     r x i64 strides (in elements);
//   - a scalar: its LLVM type (`index` as i64).
// It is launched with 32 * num_warps threads per block in x. The function
// carries `tile.num_warps` (i32) and `tile.shared_bytes` (i64: the dynamic
// shared memory to launch it with, 0 when none).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_PIPELINE_H
#define TILEC_CONVERSION_PIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace tilec {

/// Which code generator lowers the tiles.
enum class Codegen {
  /// The first lowering (docs/codegen.md): one blocked layout per tile,
  /// data exchanged through shared memory.
  Simple,
  /// The layout-driven one (docs/codegen-layouts.md): tilegpu-assign-layouts
  /// and tilegpu-remove-layout-conversions give every tile a register
  /// layout, and convert-tile-to-llvm lowers each op in its layouts
  /// (mma.sync on registers, conversions as planned).
  Layouts,
};

struct LoweringOptions {
  /// Compute capability times 10: 80 (portable), 90 (Hopper), 100 (Blackwell).
  unsigned smVersion = 80;
  Codegen codegen = Codegen::Simple;
  /// The kernels' views satisfy the vectorize facts (innermost stride 1,
  /// base address 16-byte aligned, every other stride and the innermost size
  /// multiples of 16 / element bytes), so the layouts path moves up to 16
  /// bytes per access without checking them; without it (the generic
  /// variant) every access is one element. The launcher checks the facts at
  /// run time and launches such a variant only where they hold
  /// (docs/codegen-layouts.md, docs/target.md); the simple path ignores it.
  bool vectorize = false;
  /// The vec variant's cp.async copies of boxes wholly inside their view
  /// skip the per-run bounds checks (tilegpu-pipeline interior-copies).
  bool interiorCopies = false;
};

/// Appends the passes that take a module of bound tile kernels (every tile
/// shape static) to the LLVM and NVVM dialects, ready for translation to LLVM
/// IR.
void buildTileToLLVMPipeline(mlir::OpPassManager &pm,
                             const LoweringOptions &options);

} // namespace tilec

#endif // TILEC_CONVERSION_PIPELINE_H
