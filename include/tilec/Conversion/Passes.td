//===- Passes.td - tile IR conversions ---------------------*- tablegen -*-===//

#ifndef TILEC_CONVERSION_PASSES
#define TILEC_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTileToLLVM : Pass<"convert-tile-to-llvm", "::mlir::ModuleOp"> {
  let summary = "lowers bound tile kernels to the LLVM and NVVM dialects";
  let description = [{
    Turns each `tile.kernel` into an `llvm.func` with the kernel ABI of
    `tilec/Conversion/Pipeline.h`. One program is one CTA of 32 * num_warps
    threads; every tile value lives in registers in one blocked layout (see
    `tilec/Conversion/Layout.h` and docs/codegen.md), and ops that move data
    between threads go through dynamic shared memory. `tile.mma` uses
    `mma.sync` (bf16, f16 and tf32 operands) or fused multiply-adds (f32).

    Elementwise `arith` and `math` ops on tiles become the same ops on the
    per-thread vectors, and scalar `arith`, `math` and `scf` ops stay: the
    `tile-to-llvm` pipeline lowers them with the upstream conversions.

    Kernels whose tiles carry `#tilegpu.dist` layouts (the tilegpu layout
    passes ran: `tilegpu-assign-layouts`, `tilegpu-remove-layout-conversions`)
    take the layouts path instead (docs/codegen-layouts.md, "As built"): each
    tile is the vector of one thread's registers in its layout, `tile.mma`
    in the mma.sync layouts is mma.sync on those registers, and
    `tilegpu.convert_layout` moves data as `tilec::planConversion` plans it.

    Every parameter must be bound (`tile-bind-params`) first.

    Example: `tile-opt --tile-bind-params --convert-tile-to-llvm="sm=80"`
  }];
  let options = [
    Option<"sm", "sm", "unsigned", "80",
           "compute capability times 10 of the target GPU (80 or above)">,
    Option<"vectorize", "vectorize", "bool", "false",
           "on the layouts path: views are contiguous and aligned (the "
           "launcher's vec variant), so accesses may move 16 bytes">,
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
  ];
}

#endif // TILEC_CONVERSION_PASSES
