//===- TileGPUTypes.td - tilegpu types ---------------------*- tablegen -*-===//

#ifndef TILEGPU_TYPES
#define TILEGPU_TYPES

include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.td"
include "mlir/IR/AttrTypeBase.td"

def TileGPU_SmemType : TypeDef<TileGPU_Dialect, "Smem"> {
  let mnemonic = "smem";
  let summary = "a buffer in shared memory";
  let description = [{
    A tile-shaped buffer in the CTA's shared memory, laid out by a
    `#tilegpu.shared` layout. When the shape has one more dimension than the
    layout, the leading one counts pipeline stages: stage s is a whole tile
    at element offset s * (tile elements). `mutable` buffers may be written
    after allocation (local_store, async_copy); the others only hold the
    value they were allocated with. Where a buffer lives is decided by the
    shared-memory allocator from the liveness of these values.

    Example: `!tilegpu.smem<3x64x64xbf16, #tilegpu.shared<offset = [...]>, mutable>`
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType,
                        "SharedLayoutAttr":$layout, "bool":$isMutable);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether the leading dimension counts stages.
    bool isStaged() const { return getShape().size() == getLayout().getRank() + 1; }
    /// The shape of the tile one stage holds.
    ::llvm::ArrayRef<int64_t> getTileShape() const {
      return getShape().drop_front(isStaged() ? 1 : 0);
    }
  }];
}

def TileGPU_TokenType : TypeDef<TileGPU_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "an asynchronous copy, or a committed group of them";
  let description = [{
    Produced by `tilegpu.async_copy` and `tilegpu.async_commit`; waited for by
    `tilegpu.async_wait`. Example: `!tilegpu.token`
  }];
}

#endif // TILEGPU_TYPES
