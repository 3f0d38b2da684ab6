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
  // Custom so that an element-type parameter is written by its name alone,
  // `!tile.view<4, XT>`, as in `!tile.tile<...>`.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_TypeParamType : TypeDef<Tile_Dialect, "TypeParam"> {
  let mnemonic = "type_param";
  let summary = "an element type that is a kernel parameter";
  let description = [{
    The element type of a tile, a view or a scalar that the kernel declares
    as a type parameter (`tile.kernel @k<XT : type = bf16>`) and
    `tile-bind-params` replaces by the bound type. Inside `!tile.tile<...>`
    and `!tile.view<...>` it is written by its name alone; elsewhere as
    `!tile.type_param<XT>`. Until it is bound, a tile of it can be loaded,
    stored, converted, moved (broadcast, reshape, permute, extract), chosen
    by `tile.where` and multiplied by `tile.mma`; `arith` and `math` ops
    need a concrete type, so a kernel converts to one first.

    Example: `!tile.tile<BLOCK_M x BLOCK_N x XT>` is
    `tensor<?x?x!tile.type_param<XT>, #tile.dims<[BLOCK_M, BLOCK_N]>>`.
  }];
  let parameters = (ins "::mlir::StringAttr":$name);
  let hasCustomAssemblyFormat = 1;
}

def Tile_AnyView : Type<CPred<"::llvm::isa<::mlir::tile::ViewType>($_self)">,
                        "global-memory view", "::mlir::tile::ViewType">;

#endif // TILE_TYPES
