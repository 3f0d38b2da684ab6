//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//

#ifndef TILE_TYPES
#define TILE_TYPES

include "tilec/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Tile_ViewType : TypeDef<Tile_Dialect, "View"> {
  let mnemonic = "view";
  let summary = "a strided view of global memory";
  let description = [{
    A kernel argument that names an array in global memory: a pointer, and at
    run time a shape and strides (in elements) for each of its `rank`
    dimensions. Only the rank and the element type are known at compile time.

    Example: `!tile.view<4, bf16>` is x of Mamba-2, (batch, seqlen, heads,
    headdim) in bf16.
  }];
  let parameters = (ins "unsigned":$rank, "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $rank `,` $elementType `>`";
  let genVerifyDecl = 1;
}

def Tile_AnyView : Type<CPred<"::llvm::isa<::mlir::tile::ViewType>($_self)">,
                        "global-memory view", "::mlir::tile::ViewType">;

#endif // TILE_TYPES
