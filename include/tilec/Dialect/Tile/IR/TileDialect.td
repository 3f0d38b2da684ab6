//===- TileDialect.td - the tile dialect -------------------*- tablegen -*-===//
//
// The `tile` dialect: kernels over tiles (statically shaped values) that read
// and write global-memory views.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT
#define TILE_DIALECT

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Tile-level kernels for NVIDIA GPUs";
  let description = [{
    A `tile.kernel` is one program instance of a grid. Its arguments are
    global-memory views (`!tile.view`) and scalars; its values are tiles,
    builtin ranked tensors whose shape is static once the kernel's
    compile-time parameters are bound (docs/dialect.md explains the choice).
    Elementwise arithmetic on tiles reuses `arith` and `math`; control flow is
    `scf`.
  }];
  // Custom: `!tile.tile<...>` parses as a builtin tensor (TileDialect.cpp).
  let useDefaultTypePrinterParser = 0;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    ::mlir::Type parseType(::mlir::DialectAsmParser &parser) const override;
    void printType(::mlir::Type type,
                   ::mlir::DialectAsmPrinter &printer) const override;
  }];
  let hasConstantMaterializer = 1;
  // `tile.any_strides` on kernel arguments.
  let hasRegionArgAttrVerify = 1;
  // The shorthands are written out as these dialects' ops (tile-expand-forms:
  // math for tile.softplus and tile.silu, scf.if for the `if %c` forms)
  // wherever a kernel is expanded, also by a direct call of expandForms.
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILE_DIALECT
