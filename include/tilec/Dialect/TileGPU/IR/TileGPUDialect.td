//===- TileGPUDialect.td - the tilegpu dialect -------------*- tablegen -*-===//
//
// The lowering-level GPU dialect of docs/codegen-layouts.md: what bound tile
// IR becomes once every tile has a register layout, shared memory is a value
// and copies and barriers are explicit. Kernel authors and the interpreter
// never see it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEGPU_DIALECT
#define TILEGPU_DIALECT

include "mlir/IR/OpBase.td"

def TileGPU_Dialect : Dialect {
  let name = "tilegpu";
  let cppNamespace = "::mlir::tilegpu";
  let summary = "Tiles with layouts, shared memory and async copies for NVIDIA GPUs";
  let description = [{
    The level between bound `tile` IR and LLVM/NVVM. A tile (a ranked tensor)
    carries its register layout as its encoding, `#tilegpu.dist`: a linear
    layout over GF(2) from (register, lane, warp) to the tile's coordinates
    (include/tilec/Layout/LinearLayout.h). Shared memory is an SSA value of
    type `!tilegpu.smem` whose `#tilegpu.shared` layout maps element offsets
    to coordinates; `tilegpu.convert_layout` is the only op that moves a tile
    between register layouts. docs/codegen-layouts.md is the design.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

class TileGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileGPU_Dialect, mnemonic, traits>;

#endif // TILEGPU_DIALECT
