//===- TileAttrs.td - tile dialect attributes --------------*- tablegen -*-===//

#ifndef TILE_ATTRS
#define TILE_ATTRS

include "tilec/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/TensorEncoding.td"
include "mlir/IR/TensorEncoding.td"
include "mlir/IR/EnumAttr.td"

def Tile_DimsAttr : AttrDef<Tile_Dialect, "Dims",
                            [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "dims";
  let summary = "the shape of a tile in terms of compile-time parameters";
  let description = [{
    The encoding of a tile whose shape depends on kernel parameters. Each entry
    is either a number or the name of a parameter of the enclosing kernel; the
    tensor's own shape has `?` where a parameter stands. `tile-bind-params`
    replaces such a tile by its static type.

    Example: `tensor<?x64xf32, #tile.dims<[CHUNK, 64]>>`.
  }];
  let parameters = (ins "::mlir::ArrayAttr":$dims);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// Parameter name of dimension `i`, or null when it is a number.
    ::mlir::StringAttr getSymbol(unsigned i) const;
  }];
}

def Tile_Axis : I32EnumAttr<"Axis", "axis of the launch grid", [
    I32EnumAttrCase<"x", 0>, I32EnumAttrCase<"y", 1>, I32EnumAttrCase<"z", 2>]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_Padding : I32EnumAttr<"Padding", "value read outside a view", [
    I32EnumAttrCase<"zero", 0>, I32EnumAttrCase<"nan", 1>,
    I32EnumAttrCase<"neg_inf", 2>, I32EnumAttrCase<"pos_inf", 3>]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>]> {
  let cppNamespace = "::mlir::tile";
}

// How tile.mma multiplies operands that are not of one tensor-core type
// (TileOps.td, docs/semantics.md "tile.mma").
def Tile_MmaPrecision : I32EnumAttr<"MmaPrecision",
                                    "operand precision of a matrix product", [
    I32EnumAttrCase<"tf32", 0>, I32EnumAttrCase<"split_bf16", 1>]> {
  let cppNamespace = "::mlir::tile";
}

#endif // TILE_ATTRS
