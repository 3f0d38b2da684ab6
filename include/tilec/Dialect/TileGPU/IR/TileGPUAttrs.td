//===- TileGPUAttrs.td - tilegpu layouts and enums ---------*- tablegen -*-===//

#ifndef TILEGPU_ATTRS
#define TILEGPU_ATTRS

include "tilec/Dialect/TileGPU/IR/TileGPUDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/TensorEncoding.td"
include "mlir/IR/EnumAttr.td"

def TileGPU_DistributedLayoutAttr : AttrDef<TileGPU_Dialect, "DistributedLayout",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "dist";
  let summary = "where each element of a tile lives in the CTA's registers";
  let description = [{
    The encoding of a tile in registers: a linear layout over GF(2) from
    (register, lane, warp) to the tile's coordinates, written as the image of
    each input bit (one coordinate per tile dimension). The element held by
    register r of lane l of warp w is at the XOR of the images of the set bits
    of r, l and w. There are always 5 lane bits (32 lanes); the warp bits give
    the CTA's warps. An image of all zeros means that bit replicates. Tiles
    whose extents are not powers of two are described padded to the next
    power of two. Blocked, slice and mma.sync/wgmma fragment layouts all have
    this one form (the factories of LinearLayout.h build them).

    Example, the 16 x 8 mma.sync accumulator of one warp:
    ```mlir
    tensor<16x8xf32, #tilegpu.dist<register = [[0, 1], [8, 0]],
        lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>>
    ```
  }];
  let parameters = (ins "unsigned":$rank,
                        ArrayRefParameter<"int64_t">:$registerBases,
                        ArrayRefParameter<"int64_t">:$laneBases,
                        ArrayRefParameter<"int64_t">:$warpBases);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The attribute of a layout with inputs (register, lane, warp), any of
    /// them absent, and outputs dim0..dimN-1.
    static DistributedLayoutAttr get(::mlir::MLIRContext *context,
                                     const ::tilec::LinearLayout &layout);
    /// The layout of a tile of `shape` (padded to powers of two); the
    /// attribute must verify as that tile's encoding.
    ::tilec::LinearLayout getLinearLayout(::llvm::ArrayRef<int64_t> shape) const;
    unsigned getNumWarps() const {
      return 1u << (getWarpBases().size() / getRank());
    }
  }];
}

def TileGPU_SharedLayoutAttr : AttrDef<TileGPU_Dialect, "SharedLayout"> {
  let mnemonic = "shared";
  let summary = "where each element of a tile lives in a shared-memory buffer";
  let description = [{
    A bijective linear layout from the element offset in a buffer to the
    tile's coordinates, written as the image of each offset bit. Row-major
    storage has the images 1, 2, 4, ... of the last dimension first; the
    32/64/128-byte swizzles (the TMA and wgmma modes) XOR column bits with
    row bits. `swizzledSharedLayout` in LinearLayout.h builds them.

    Example, a row-major 4 x 4 tile: `#tilegpu.shared<offset = [[0, 1], [0, 2], [1, 0], [2, 0]]>`
  }];
  let parameters = (ins "unsigned":$rank, ArrayRefParameter<"int64_t">:$offsetBases);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static SharedLayoutAttr get(::mlir::MLIRContext *context,
                                const ::tilec::LinearLayout &layout);
    /// Why the attribute does not describe a tile of `shape`, or success.
    ::mlir::LogicalResult
    verifyTile(::llvm::ArrayRef<int64_t> shape,
               ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError) const;
    ::tilec::LinearLayout getLinearLayout(::llvm::ArrayRef<int64_t> shape) const;
  }];
}

def TileGPU_CopyKind : I32EnumAttr<"CopyKind", "how an async copy moves data", [
    I32EnumAttrCase<"cp_async", 0>, I32EnumAttrCase<"tma", 1>]> {
  let cppNamespace = "::mlir::tilegpu";
}

#endif // TILEGPU_ATTRS
