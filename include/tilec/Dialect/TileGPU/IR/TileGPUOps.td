//===- TileGPUOps.td - tilegpu operations ------------------*- tablegen -*-===//

#ifndef TILEGPU_OPS
#define TILEGPU_OPS

include "tilec/Dialect/TileGPU/IR/TileGPUTypes.td"
include "tilec/Dialect/Tile/IR/TileAttrs.td"
include "tilec/Dialect/Tile/IR/TileTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TileGPU_Tile : RankedTensorOf<[F32, F16, BF16, TF32, I1, I8, I16, I32, I64]>;
def TileGPU_Smem : Type<CPred<"::llvm::isa<::mlir::tilegpu::SmemType>($_self)">,
                        "shared-memory buffer", "::mlir::tilegpu::SmemType">;
def TileGPU_Token : Type<CPred<"::llvm::isa<::mlir::tilegpu::TokenType>($_self)">,
                         "async copy token", "::mlir::tilegpu::TokenType">,
                    BuildableType<"::mlir::tilegpu::TokenType::get($_builder.getContext())">;

//===----------------------------------------------------------------------===//
// Register layouts
//===----------------------------------------------------------------------===//

def TileGPU_ConvertLayoutOp : TileGPU_Op<"convert_layout", [Pure]> {
  let summary = "moves a tile to another register layout";
  let description = [{
    The same tile, held by the threads as the result's `#tilegpu.dist` says.
    The only op that moves data between register layouts: the lowering plans
    it (tilec::planConversion) as nothing, a renaming of registers, warp
    shuffles or a round trip through swizzled shared memory.

    Example:
    ```mlir
    %b = tilegpu.convert_layout %a : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
    ```
  }];
  let arguments = (ins TileGPU_Tile:$source);
  let results = (outs TileGPU_Tile:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

def TileGPU_LocalAllocOp : TileGPU_Op<"local_alloc", [
    MemoryEffects<[MemAlloc, MemWrite]>]> {
  let summary = "a shared-memory buffer, optionally holding a tile";
  let description = [{
    A new buffer. With `init` it holds that tile (all threads store their
    elements, then the buffer may be read); without, it must be `mutable` and
    is written by `tilegpu.local_store` or `tilegpu.async_copy`. The buffer
    lives as long as its value is used; the shared-memory allocator places it.

    Example:
    ```mlir
    %ring = tilegpu.local_alloc : () -> !tilegpu.smem<3x64x64xbf16, #swizzled, mutable>
    %b = tilegpu.local_alloc %t : (tensor<64x64xbf16, #blocked>) -> !tilegpu.smem<64x64xbf16, #swizzled>
    ```
  }];
  let arguments = (ins Optional<TileGPU_Tile>:$init);
  let results = (outs TileGPU_Smem:$result);
  let assemblyFormat = "($init^)? attr-dict `:` functional-type($init, $result)";
  let hasVerifier = 1;
}

def TileGPU_LocalLoadOp : TileGPU_Op<"local_load", [MemoryEffects<[MemRead]>]> {
  let summary = "reads a tile from shared memory into registers";
  let description = [{
    Every thread reads the elements the result's layout gives it. A staged
    buffer is read at stage `stage`.

    Example:
    ```mlir
    %t = tilegpu.local_load %ring[%s] : !tilegpu.smem<3x64x64xbf16, #swizzled, mutable> -> tensor<64x64xbf16, #blocked>
    ```
  }];
  let arguments = (ins TileGPU_Smem:$buffer, Optional<Index>:$stage);
  let results = (outs TileGPU_Tile:$result);
  let assemblyFormat = [{
    $buffer (`[` $stage^ `]`)? attr-dict `:` type($buffer) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TileGPU_LocalStoreOp : TileGPU_Op<"local_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "writes a tile from registers into shared memory";
  let description = [{
    Every thread writes the elements the value's layout gives it into a
    mutable buffer (at stage `stage` of a staged one). Other threads see them
    after a `tilegpu.barrier`.

    Example:
    ```mlir
    tilegpu.local_store %t, %buf : tensor<64x64xf32, #mma>, !tilegpu.smem<64x64xf32, #shared, mutable>
    ```
  }];
  let arguments = (ins TileGPU_Tile:$value, TileGPU_Smem:$buffer,
                   Optional<Index>:$stage);
  let assemblyFormat = [{
    $value `,` $buffer (`[` $stage^ `]`)? attr-dict `:` type($value) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

def TileGPU_AsyncCopyOp : TileGPU_Op<"async_copy", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "starts copying one tile of a view into shared memory";
  let description = [{
    Copies the tile at tile index `indices` of `view` (the element mapping of
    `tile.load`: the buffer's tile shape in the view's order of dimensions)
    into a mutable buffer, at stage `stage` of a staged one, without waiting.
    Elements outside the view are written as `padding`. The data may be read
    once a `tilegpu.async_wait` has retired the copy's group and a barrier
    has passed.

    `kind` chooses the hardware: `cp_async` (sm_80+, `cp.async` of 4 to 16
    bytes per thread) or `tma` (sm_90a+, one `cp.async.bulk.tensor` of the
    whole box through a tensor map; its out-of-bounds fill is zero or NaN).

    `layout` (a `#tilegpu.dist` of the box, in the view's order of
    dimensions) says which thread copies which elements for `cp_async`: each
    thread copies its registers, a run of registers that walks consecutive
    elements of the view's innermost dimension as one copy of up to 16 bytes
    (the lowering needs it; `tilegpu-pipeline` takes the layout of the
    `tile.load` it replaces).

    Example:
    ```mlir
    %t = tilegpu.async_copy %B[%i, %k] -> %ring[%s] kind = cp_async : !tile.view<2, bf16>, !tilegpu.smem<3x64x64xbf16, #swizzled, mutable>
    ```
  }];
  let arguments = (ins Tile_AnyView:$view, Variadic<Index>:$indices,
                   TileGPU_Smem:$buffer, Optional<Index>:$stage,
                   TileGPU_CopyKind:$kind,
                   DefaultValuedAttr<Tile_Padding, "::mlir::tile::Padding::zero">:$padding,
                   OptionalAttr<TileGPU_DistributedLayoutAttr>:$layout);
  let results = (outs TileGPU_Token:$token);
  let assemblyFormat = [{
    $view `[` $indices `]` `->` $buffer (`[` $stage^ `]`)? `kind` `=` $kind
    (`padding` `=` $padding^)? (`layout` `=` $layout^)? attr-dict `:`
    type($view) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncCommitOp : TileGPU_Op<"async_commit", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "closes a group of async copies";
  let description = [{
    The copies issued by this thread since the last commit form one group
    (`cp.async.commit_group`); the result names it for `tilegpu.async_wait`.

    Example: `%g = tilegpu.async_commit %t0, %t1`
  }];
  let arguments = (ins Variadic<TileGPU_Token>:$tokens);
  let results = (outs TileGPU_Token:$group);
  let assemblyFormat = "$tokens attr-dict";
}

def TileGPU_AsyncWaitOp : TileGPU_Op<"async_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "waits until at most `pending` copy groups are in flight";
  let description = [{
    Blocks the thread until no more than `pending` of its committed groups
    are unfinished (`cp.async.wait_group pending`); the groups named by the
    operands are among those that must be done. Other threads' copies are
    visible after a following `tilegpu.barrier`.

    Example: `tilegpu.async_wait %g pending = 1`
  }];
  let arguments = (ins Variadic<TileGPU_Token>:$groups, I32Attr:$pending);
  let assemblyFormat = "$groups `pending` `=` $pending attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Barriers and fences
//===----------------------------------------------------------------------===//

def TileGPU_BarrierOp : TileGPU_Op<"barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "waits for every thread of the CTA (bar.sync)";
  let description = [{
    Shared-memory writes before the barrier are visible to every thread of
    the CTA after it. Today `tilegpu-pipeline` places them, by
    construction: one before a buffer is first written and one after each
    `tilegpu.async_wait`. A `tilegpu-insert-barriers` pass that places one
    only where two threads' accesses to the same bytes conflict is planned,
    not built.

    Example: `tilegpu.barrier`
  }];
  let assemblyFormat = "attr-dict";
}

def TileGPU_FenceAsyncSharedOp : TileGPU_Op<"fence_async_shared", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "orders generic shared-memory writes before async-proxy reads";
  let description = [{
    `fence.proxy.async.shared::cta`: shared memory written by ordinary stores
    becomes visible to the async proxy (wgmma operands, TMA stores).

    Example: `tilegpu.fence_async_shared`
  }];
  let assemblyFormat = "attr-dict";
}

#endif // TILEGPU_OPS
