//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//

#ifndef TILE_OPS
#define TILE_OPS

include "tilec/Dialect/Tile/IR/TileDialect.td"
include "tilec/Dialect/Tile/IR/TileAttrs.td"
include "tilec/Dialect/Tile/IR/TileTypes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Element types a tile may hold; an element-type parameter stands for one
// of them until tile-bind-params binds it (the module is verified again
// then, with the concrete type).
def Tile_TypeParam : Type<CPred<"::llvm::isa<::mlir::tile::TypeParamType>($_self)">,
                          "element-type parameter", "::mlir::tile::TypeParamType">;
def Tile_Element : AnyTypeOf<[F32, F16, BF16, TF32, I1, I8, I16, I32, I64,
                              Tile_TypeParam]>;
def Tile : RankedTensorOf<[Tile_Element]>;
def Tile_Float : RankedTensorOf<[F32, F16, BF16, TF32]>;
def Tile_MmaOperand : RankedTensorOf<[F32, F16, BF16, TF32, Tile_TypeParam]>;
def Tile_Numeric : RankedTensorOf<[F32, F16, BF16, I32, I64]>;
def Tile_Mask : RankedTensorOf<[I1]>;
def Tile_Scalar : AnyTypeOf<[F32, F16, BF16, I1, I8, I16, I32, I64, Index,
                             Tile_TypeParam]>;

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    FunctionOpInterface, IsolatedFromAbove, Symbol, OpAsmOpInterface,
    AutomaticAllocationScope]> {
  let summary = "a GPU kernel written on tiles";
  let description = [{
    One program instance of a launch grid. Arguments are global-memory views
    and scalars; there are no results. The grid is chosen by the caller; a
    program reads its coordinates with `tile.block_id`.

    `num_warps` is the number of warps of a program (a CTA); `occupancy` the
    number of programs the compiler should try to fit on one multiprocessor.
    Either may be an extent parameter instead (`warps WARPS occupancy OCC`
    in the header; `num_warps_param` and `occupancy_param` name it, and the
    number is the parameter's value): `tile-bind-params` sets the number
    from the binding, so each instance of a kernel picks its own.
    `mma_sync_occupancy` (header `mma_sync_occupancy N` or a parameter; by
    default `occupancy`) is the occupancy of the lowering whose products
    are mma.sync (sm_80 up to sm_90 without the a, and the portable PTX
    other GPUs compile): its operand fragments live in registers where
    wgmma's are read from shared memory, so the same tiles need more
    registers per thread there, and one number cannot serve both.
    `params` declares compile-time parameters with their default values:
    extents (positive integers), which tile shapes (through `#tile.dims`)
    and `tile.param` refer to, and element types (`XT = bf16`, written
    `XT : type = bf16` in the header), which tiles, views and scalars name
    as `!tile.type_param<XT>`; `tile-bind-params` binds them.

    Example:
    ```mlir
    tile.kernel @scale(%x: !tile.view<1, f32>, %s: f32)
        attributes {num_warps = 4 : i32, params = {BLOCK = 128 : i64}} {
      %i = tile.block_id x
      %t = tile.load %x[%i] : !tile.view<1, f32> -> tensor<?xf32, #tile.dims<[BLOCK]>>
      %f = tile.full %s : tensor<?xf32, #tile.dims<[BLOCK]>>
      %y = arith.mulf %t, %f : tensor<?xf32, #tile.dims<[BLOCK]>>
      tile.store %y, %x[%i] : tensor<?xf32, #tile.dims<[BLOCK]>>, !tile.view<1, f32>
      tile.return
    }
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    OptionalAttr<StrAttr>:$sym_visibility,
    OptionalAttr<DictArrayAttr>:$arg_attrs,
    OptionalAttr<DictArrayAttr>:$res_attrs,
    DefaultValuedAttr<I32Attr, "4">:$num_warps,
    DefaultValuedAttr<I32Attr, "1">:$occupancy,
    OptionalAttr<DictionaryAttr>:$params,
    OptionalAttr<StrAttr>:$num_warps_param,
    OptionalAttr<StrAttr>:$occupancy_param,
    OptionalAttr<I32Attr>:$mma_sync_occupancy,
    OptionalAttr<StrAttr>:$mma_sync_occupancy_param);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    /// Value of extent parameter `name` (its default until bound), if
    /// declared.
    std::optional<int64_t> getParamValue(::llvm::StringRef name);
    /// Value of element-type parameter `name` (its default until bound), or
    /// null when the kernel declares no type parameter of that name.
    ::mlir::Type getTypeParamValue(::llvm::StringRef name);
    static ::llvm::StringRef getDefaultDialect() { return "tile"; }
  }];
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, HasParent<"KernelOp">, Terminator,
                                       ReturnLike]> {
  let summary = "ends a kernel";
  let description = [{
    The terminator of `tile.kernel`; kernels return nothing.

    Example: `tile.return`
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_ForOp : Tile_Op<"for", [RecursiveMemoryEffects,
    AttrSizedOperandSegments, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a loop over range(n), or over the tiles of an extent";
  let description = [{
    `tile.for %k in range(%n)` runs its body for k = 0, 1, ..., n - 1
    (Python's and cuTile's `for k in range(n)`); `tile.for %k in
    tiles(%extent, %size)` for the indices of the tiles of `size` elements
    that cover `extent` elements, range(ceildiv(extent, size)) (cuTile's
    `range(ct.cdiv(extent, size))`): the loop of a kernel that walks a
    dimension a tile at a time, with `k` the tile index `tile.load` takes.
    `iter_args` carry values from one step to the next as `scf.for`'s do:
    the body ends in `tile.yield` of their next values (left out when there
    are none), and the results are their last values (the initial ones when
    the body does not run). tile-expand-forms writes `scf.for` from 0 to the
    count (`arith.ceildivui` of the extent by the size) in steps of 1, with
    the same body.

    Example:
    ```mlir
    %acc = tile.for %n in tiles(%dstate, %blockN) iter_args(%sum = %zero)
        -> !tile.tile<BLOCK_M x BLOCK_P x f32> {
      ...
      tile.yield %next : !tile.tile<BLOCK_M x BLOCK_P x f32>
    }
    ```
  }];
  let arguments = (ins Index:$count, Optional<Index>:$tile_size,
                   Variadic<AnyType>:$inits);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$count,
      "::mlir::Value":$tileSize, "::mlir::ValueRange":$inits)>];
  let extraClassDeclaration = [{
    /// The step's index, the body's first argument.
    ::mlir::BlockArgument getInductionVar() {
      return getBody().front().getArgument(0);
    }
  }];
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, HasParent<"ForOp">, Terminator,
                                     ReturnLike]> {
  let summary = "ends a step of tile.for with the next values of its iter_args";
  let description = [{
    The terminator of `tile.for`: one value per `iter_args` entry, of its
    type, which the next step (or the loop's results, after the last)
    receives. Without iter_args the parser adds it.

    Example: `tile.yield %next : !tile.tile<BLOCK_M x BLOCK_P x f32>`
  }];
  let arguments = (ins Variadic<AnyType>:$results);
  let builders = [OpBuilder<(ins), [{ /* a loop without iter_args */ }]>];
  let assemblyFormat = "attr-dict ($results^ `:` type($results))?";
}

def Tile_BlockIdOp : Tile_Op<"block_id", [Pure]> {
  let summary = "the program's coordinates along grid axes";
  let description = [{
    The index of this program along each of `axes` of the launch grid, from
    0 to `tile.num_blocks axis` - 1: one result per axis, in the order
    written.

    Example:
    ```mlir
    %b = tile.block_id y
    %chunk, %batch, %head = tile.block_id x, y, z
    ```
  }];
  let arguments = (ins DenseI32ArrayAttr:$axes);
  let results = (outs Variadic<Index>:$results);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The grid axis of result `i`.
    Axis getAxis(unsigned i) { return static_cast<Axis>(getAxes()[i]); }
  }];
}

def Tile_NumBlocksOp : Tile_Op<"num_blocks", [Pure]> {
  let summary = "the size of the launch grid along an axis";
  let description = [{
    The number of programs along `axis` of the launch grid.

    Example: `%n = tile.num_blocks x`
  }];
  let arguments = (ins Tile_Axis:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_ParamOp : Tile_Op<"param", [Pure]> {
  let summary = "the values of compile-time parameters";
  let description = [{
    The value of each parameter `names` names, of the enclosing kernel, as an
    index: one result per name. Once parameters are bound
    (`tile-bind-params`) each becomes a constant.

    Example:
    ```mlir
    %chunk = tile.param "CHUNK"
    %blockM, %blockK = tile.param "BLOCK_M", "BLOCK_K"
    ```
  }];
  let arguments = (ins StrArrayAttr:$names);
  let results = (outs Variadic<Index>:$results);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The parameter of result `i`.
    ::llvm::StringRef getName(unsigned i) {
      return ::llvm::cast<::mlir::StringAttr>(getNames()[i]).getValue();
    }
  }];
}

def Tile_DimOp : Tile_Op<"dim", [Pure]> {
  let summary = "the sizes of a view along some of its dimensions";
  let description = [{
    The run-time extent of each dimension `dims` names of `view`, in
    elements: one result per dimension.

    Example:
    ```mlir
    %seqlen = tile.dim %x[1] : !tile.view<4, bf16>
    %heads, %headdim = tile.dim %x[2, 3] : !tile.view<4, bf16>
    ```
  }];
  let arguments = (ins Tile_AnyView:$view, DenseI64ArrayAttr:$dims);
  let results = (outs Variadic<Index>:$results);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_DelinearizeOp : Tile_Op<"delinearize", [Pure]> {
  let summary = "splits an index into coordinates of a row-major grid";
  let description = [{
    `%a, %b, %c = tile.delinearize %x by %B, %C` splits `x` as the row-major
    linear index of a grid whose inner extents are `B` and `C`:
    c = x mod C, b = (x / C) mod B and a = (x / C) / B, unsigned (the outer
    coordinate is not reduced: it has no extent). There is one result more
    than there are extents. It is how a program splits a block id that
    enumerates several tile coordinates (the `divui`/`remui` chain it
    replaces, which tile-expand-forms writes: for each extent from the last,
    the quotient and the remainder).

    An extent may be written `tiles(%e, %s)`: the number of tiles of `s`
    elements that cover `e` elements, ceildiv(e, s), as `tile.for` counts
    them (a grid that enumerates the tiles of a dimension). `tiled` marks
    those extents; each takes two operands, `e` and `s`, and
    tile-expand-forms writes `arith.ceildivui` of them first.

    Example:
    ```mlir
    // mp enumerates (row tile, column tile) with numP column tiles.
    %m, %pt = tile.delinearize %mp by %numP
    %c, %mInChunk, %p = tile.delinearize %mp by %rowTilesPerChunk, %numP
    // The same with the column tiles counted from headdim: BLOCK_P each.
    %m2, %pt2 = tile.delinearize %mp by tiles(%headdim, %blockP)
    ```
  }];
  let arguments = (ins Index:$index, Variadic<Index>:$extents,
                   OptionalAttr<DenseBoolArrayAttr>:$tiled);
  let results = (outs Variadic<Index>:$results);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of extents (a `tiles(%e, %s)` is one).
    unsigned getNumExtents();
  }];
}

def Tile_LinearizeOp : Tile_Op<"linearize", [Pure, AttrSizedOperandSegments]> {
  let summary = "the row-major linear index of coordinates in a grid";
  let description = [{
    `%x = tile.linearize %a, %b, %c by %B, %C` is the row-major linear index
    of coordinates (a, b, c) of a grid whose inner extents are `B` and `C`:
    (a * B + b) * C + c, the inverse of `tile.delinearize` (and MLIR's
    `affine.linearize_index`). The outer coordinate needs no extent, so there
    is one extent fewer than coordinates. A kernel that walks the tiles of a
    chunk reads the same rows of a per-sequence view at the tile index of the
    sequence: `tile.linearize %chunk, %k by %tilesPerChunk`. An extent may
    be `tiles(%e, %s)`, as in `tile.delinearize`. tile-expand-forms writes
    `arith.muli` and `arith.addi` for each extent, from the outer coordinate
    in.

    Example:
    ```mlir
    // Column tile k of chunk c, counted from the start of the sequence.
    %kSeq = tile.linearize %c, %k by %colTilesPerChunk
    // The same, with BLOCK_K-step tiles of a CHUNK-step chunk.
    %kSeq2 = tile.linearize %c, %k by tiles(%chunkSize, %blockK)
    ```
  }];
  let arguments = (ins Variadic<Index>:$coords, Variadic<Index>:$extents,
                   OptionalAttr<DenseBoolArrayAttr>:$tiled);
  let results = (outs Index:$result);
  let assemblyFormat = [{
    $coords `by` custom<Extents>($extents, $tiled) attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of extents (a `tiles(%e, %s)` is one).
    unsigned getNumExtents();
  }];
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [MemoryEffects<[MemRead]>,
                                   AttrSizedOperandSegments]> {
  let summary = "reads one tile of a view";
  let description = [{
    Reads the tile at tile index `indices` of `view`, one index per view
    dimension; an index is an SSA `index` or a literal number. In the view's
    order of dimensions the tile has extents T' and covers elements
    [indices[d] * T'[d], (indices[d] + 1) * T'[d]) along each dimension d.
    Elements outside the view read as `padding` (default `zero`).

    The tile may hold another float type than the view (`-> !tile.tile<...
    x f32>` from a bf16 view): the load then converts as `tile.convert` does
    (tile-expand-forms writes the load of the view's type and the
    conversion).

    With `order = p` the tile is read transposed: result dimension k is view
    dimension p[k], so T'[p[k]] = T[k] for a result of shape T. This is
    `tile.permute` of the plain load, without the copy.

    With `dims = m` the tile may have a lower rank than the view: result
    dimension k is view dimension m[k] (so m also transposes), and along every
    view dimension m does not name the tile has extent 1, so that dimension's
    index is an element index. This is the full-rank load followed by a
    `tile.reshape`, without writing either.

    `latency` is a hint: how many loop iterations ahead the compiler may
    issue the read.

    With `if %c` (a scalar integer or index) the load reads only when `%c`
    is non-zero; otherwise the result is the padding everywhere and no
    memory is touched (`scf.if` around the load, with `tile.full` of the
    padding in the else branch, which is what tile-expand-forms writes).
    `unless %c` is the opposite: the load reads only when `%c` is zero (a
    kernel flag is often the i1 kernel argument that says which of two
    things to do).

    Example:
    ```mlir
    // The initial state when there is one, else zeros.
    %h0 = tile.load %init[%b, %h] if %has_init : !tile.view<2, f32>, i32
        -> !tile.tile<64 x 64 x f32>
    // The 64x32 tile (1, j) of a 2-D view, padded with zeros.
    %t = tile.load %v[1, %j] : !tile.view<2, bf16> -> tensor<64x32xbf16>
    // The same elements, transposed.
    %u = tile.load %v[1, %j] order = [1, 0] : !tile.view<2, bf16> -> tensor<32x64xbf16>
    // x[b, 64 k : 64 (k + 1), h, :] of a 4-D view, transposed, as a 2-D tile.
    %w = tile.load %x[%b, %k, %h, 0] dims = [3, 1]
        : !tile.view<4, bf16> -> !tile.tile<32 x 64 x bf16>
    // The same elements converted to f32 as they are read.
    %f = tile.load %x[%b, %k, %h, 0] dims = [3, 1]
        : !tile.view<4, bf16> -> !tile.tile<32 x 64 x f32>
    ```
  }];
  let arguments = (ins Tile_AnyView:$view, Variadic<Index>:$indices,
                   Optional<AnySignlessIntegerOrIndex>:$condition,
                   UnitAttr:$unless,
                   OptionalAttr<DenseI64ArrayAttr>:$static_indices,
                   DefaultValuedAttr<Tile_Padding, "Padding::zero">:$padding,
                   OptionalAttr<DenseI64ArrayAttr>:$order,
                   OptionalAttr<DenseI64ArrayAttr>:$dims,
                   OptionalAttr<I32Attr>:$latency);
  let results = (outs Tile:$result);
  let assemblyFormat = [{
    $view `` custom<TileIndices>($indices, $static_indices)
    custom<Condition>($condition, $unless)
    (`padding` `=` $padding^)? (`order` `=` $order^)? (`dims` `=` $dims^)?
    (`latency` `=` $latency^)? attr-dict `:` type($view)
    (`,` type($condition)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>,
                                     AttrSizedOperandSegments]> {
  let summary = "writes one tile into a view";
  let description = [{
    Writes `value` to the tile at tile index `indices` of `view` (the same
    element mapping as `tile.load`, including `order`, `dims` and literal
    indices). Elements that fall outside the view are not written. A float
    tile stored into a view of another float type is converted first, as
    `tile.convert` does (rounding to nearest even).

    With `if %c` (a scalar integer or index) the store writes only when `%c`
    is non-zero (`scf.if` around the store, which is what tile-expand-forms
    writes): a kernel that writes one of two outputs by a flag says so in
    the stores, `if %flag` and `unless %flag` (which writes only when `%c`
    is zero).

    Example:
    ```mlir
    tile.store %t, %v[%i, %j] : tensor<64x32xf32>, !tile.view<2, f32>
    // A (time, head) tile into G[b, h, c, :], time along the last axis.
    tile.store %g, %G[%b, %h, %c, 0] dims = [3, 1]
        : !tile.tile<CHUNK x BLOCK_H x f32>, !tile.view<4, f32>
    // f32 results into a bf16 array, rounded, when %to_bf16 is non-zero.
    tile.store %y, %out[%m, %p] if %to_bf16
        : !tile.tile<64 x 64 x f32>, !tile.view<2, bf16>, i32
    tile.store %y, %out_f32[%m, %p] unless %to_bf16
        : !tile.tile<64 x 64 x f32>, !tile.view<2, f32>, i32
    ```
  }];
  let arguments = (ins Tile:$value, Tile_AnyView:$view, Variadic<Index>:$indices,
                   Optional<AnySignlessIntegerOrIndex>:$condition,
                   UnitAttr:$unless,
                   OptionalAttr<DenseI64ArrayAttr>:$static_indices,
                   OptionalAttr<DenseI64ArrayAttr>:$order,
                   OptionalAttr<DenseI64ArrayAttr>:$dims);
  let assemblyFormat = [{
    $value `,` $view `` custom<TileIndices>($indices, $static_indices)
    custom<Condition>($condition, $unless) (`order` `=` $order^)? (`dims` `=` $dims^)? attr-dict
    `:` type($value) `,` type($view) (`,` type($condition)^)?
  }];
  let hasVerifier = 1;
}

def Tile_LoadScalarOp : Tile_Op<"load_scalar", [MemoryEffects<[MemRead]>]> {
  let summary = "reads one element of a view, the same in every thread";
  let description = [{
    Reads the element at `indices` of `view`, one element index per view
    dimension (an SSA `index` or a literal number; element units, not tile
    units as in `tile.load`). The result is a scalar of the view's element
    type, uniform across the program: every thread reads the same element.
    With `arith.index_cast` it can index another view, bound a loop or pick
    a branch, as a device-resident index table or `cu_seqlens` needs.

    An index outside the view (negative, or not below the extent) reads
    `padding` (default `zero`) and touches no memory, as `tile.load` does;
    paddings other than zero need a float view. A view of a type parameter
    (`!tile.view<1, XT>`) gives a scalar of it (`!tile.type_param<XT>`),
    bound with the kernel; the padding is checked again then.

    Example:
    ```mlir
    // The state row of batch entry b: row = state_indices[b].
    %r = tile.load_scalar %state_indices[%b] : !tile.view<1, i64> -> i64
    %row = arith.index_cast %r : i64 to index
    // cu_seqlens[s + 1], and a float with a NaN outside the view.
    %end = tile.load_scalar %cu_seqlens[%next] : !tile.view<1, i32> -> i32
    %a = tile.load_scalar %A[%h, 0] padding = nan : !tile.view<2, f32> -> f32
    ```
  }];
  let arguments = (ins Tile_AnyView:$view, Variadic<Index>:$indices,
                   OptionalAttr<DenseI64ArrayAttr>:$static_indices,
                   DefaultValuedAttr<Tile_Padding, "Padding::zero">:$padding);
  let results = (outs AnyTypeOf<[F32, F16, BF16, I8, I16, I32, I64,
                                  Tile_TypeParam]>:$result);
  let assemblyFormat = [{
    $view `` custom<TileIndices>($indices, $static_indices)
    (`padding` `=` $padding^)? attr-dict `:` type($view) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tile construction and movement
//===----------------------------------------------------------------------===//

def Tile_FullOp : Tile_Op<"full", [Pure]> {
  let summary = "a tile with every element equal to a scalar";
  let description = [{
    The scalar is an SSA value of the tile's element type, or a literal
    number, which is a constant of that type (so no `arith.constant` is
    needed for it).

    Example:
    ```mlir
    %z = tile.full %zero : tensor<64x32xf32>
    %l = tile.full 1.4426950408889634 : !tile.tile<BLOCK_H x f32>
    ```
  }];
  let arguments = (ins Optional<Tile_Scalar>:$value,
                   OptionalAttr<TypedAttrInterface>:$constant);
  let results = (outs Tile:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_ArangeOp : Tile_Op<"arange", [Pure]> {
  let summary = "the tile start, start + 1, ..., start + n - 1";
  let description = [{
    Without `start` the tile counts from 0. `start` is an index, converted
    to the element type as `arith.index_cast` does (so the tile is
    `index_cast(start) + i`, in the element type's wrapping arithmetic).
    Without `dim` the tile is 1-D; with it, the tile has any rank and counts
    along dimension `dim`, the same along the others (a 1-D arange broadcast
    with the other dimensions as `new_dims`: cuTile's `arange(n)[:, None]`
    is `dim 0`), which tile-expand-forms writes out.

    Example:
    ```mlir
    %i = tile.arange : tensor<64xi32>
    %rows = tile.arange %rowStart : !tile.tile<BLOCK_M x i32>
    %rowOfEach = tile.arange %rowStart dim 0 : !tile.tile<BLOCK_M x BLOCK_K x i32>
    ```
  }];
  let arguments = (ins Optional<Index>:$start, OptionalAttr<I64Attr>:$dim);
  let results = (outs RankedTensorOf<[I32, I64]>:$result);
  let assemblyFormat = "($start^)? (`dim` $dim^)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_ExtractOp : Tile_Op<"extract", [Pure]> {
  let summary = "a sub-tile at a tile index";
  let description = [{
    The sub-tile of `source` with the result's shape S at tile index
    `indices`: elements [indices[d] * S[d], (indices[d] + 1) * S[d]) along each
    dimension d. Each extent of the source must be a multiple of the result's,
    and the sub-tile must lie inside the source (an index outside it is
    undefined behaviour, as an out-of-range register index would be).

    Example: `%row = tile.extract %t[%c63, %c0] : tensor<64x32xf32> -> tensor<1x32xf32>`
  }];
  let arguments = (ins Tile:$source, Variadic<Index>:$indices);
  let results = (outs Tile:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "repeats a tile along its extent-1 dimensions and new ones";
  let description = [{
    Each dimension of the source is either equal to the result's or 1; the
    latter is repeated. `new_dims` lists result dimensions the source does
    not have (cuTile's `x[None, :]` is `new_dims = [0]`); the source's
    dimensions are the other result dimensions, in order. Without it the
    ranks are equal.

    Example:
    ```mlir
    %r = tile.broadcast %row : tensor<1x32xf32> -> tensor<64x32xf32>
    %c = tile.broadcast %col new_dims = [1] : tensor<64xf32> -> tensor<64x32xf32>
    ```
  }];
  let arguments = (ins Tile:$source,
                   OptionalAttr<DenseI64ArrayAttr>:$new_dims);
  let results = (outs Tile:$result);
  let assemblyFormat = [{
    $source (`new_dims` `=` $new_dims^)? attr-dict `:` type($source) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The source's type with an extent-1 axis at each of `new_dims`: what
    /// the source is reshaped to before an equal-rank broadcast.
    ::mlir::RankedTensorType getExpandedSourceType();
  }];
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "the same elements in row-major order under another shape";
  let description = [{
    Example: `%r = tile.reshape %t : tensor<1x64x1x16xbf16> -> tensor<64x16xbf16>`
  }];
  let arguments = (ins Tile:$source);
  let results = (outs Tile:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_PermuteOp : Tile_Op<"permute", [Pure]> {
  let summary = "transposes a tile";
  let description = [{
    Result dimension k is source dimension `permutation[k]`.

    Example: `%t = tile.permute %s [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>`
  }];
  let arguments = (ins Tile:$source, DenseI64ArrayAttr:$permutation);
  let results = (outs Tile:$result);
  let assemblyFormat = [{
    $source $permutation attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ConvertOp : Tile_Op<"convert", [Pure]> {
  let summary = "converts the elements of a tile to another type";
  let description = [{
    Float to float rounds to nearest even, except to `tf32`, which rounds to
    nearest with ties away from zero as `cvt.rna.tf32.f32` does (the value
    keeps its 32-bit storage, its low 13 mantissa bits cleared). Any float
    converts to tf32 directly: bf16 and f16 widen to f32 exactly first, so
    `bf16 -> tf32` is `bf16 -> f32 -> tf32` in one op. Float to
    integer truncates toward zero (saturating; NaN gives 0); integer to float
    rounds to nearest even; integers are sign-extended or truncated; i1 is
    0 or 1.

    Example: `%h = tile.convert %t : tensor<64x64xf32> -> tensor<64x64xtf32>`
  }];
  let arguments = (ins Tile:$source);
  let results = (outs Tile:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

def Tile_CumsumOp : Tile_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "inclusive prefix sum along an axis";
  let description = [{
    result[..., i, ...] = source[..., 0, ...] + ... + source[..., i, ...] along
    `axis`. Floats accumulate in f32 in index order.

    Example: `%g = tile.cumsum %a axis = 0 : tensor<64x8xf32>`
  }];
  let arguments = (ins Tile_Numeric:$source, I64Attr:$axis);
  let results = (outs Tile_Numeric:$result);
  let assemblyFormat = "$source `axis` `=` $axis attr-dict `:` type($source)";
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduces a tile along an axis";
  let description = [{
    Sum, max or min along `axis`; the result drops that axis. Sums of floats
    accumulate in f32; max and min of floats propagate NaN.

    Example: `%m = tile.reduce max %t axis = 1 : tensor<64x32xf32> -> tensor<64xf32>`
  }];
  let arguments = (ins Tile_ReduceKind:$kind, Tile_Numeric:$source, I64Attr:$axis);
  let results = (outs Tile_Numeric:$result);
  let assemblyFormat = [{
    $kind $source `axis` `=` $axis attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_MmaOp : Tile_Op<"mma", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix product with accumulation: acc + a @ b";
  let description = [{
    result = acc + a @ b with a of shape MxK, b of shape KxN and acc of shape
    MxN in f32. a and b have the same element type: bf16, f16 or tf32 (the
    tensor cores' operand types; products are exact and sums are in f32), or
    f32 (full-precision fused multiply-adds).

    With `precision = tf32`, a and b may hold any float types: each is
    converted to tf32 first, as `tile.convert` to f32 (exact from bf16 and
    f16) and then to tf32 would, and the product is the tf32 one.

    With `precision = split_bf16`, a and b hold bf16, f16 or f32 (not
    tf32): each operand v that is not bf16 is split into two bf16 halves,
    hi = bf16(v) and lo = bf16(v - hi) (exact for f16, within 2^-16 of v
    relative for f32), and the result is
    acc + a_hi @ b_lo + a_lo @ b_hi + a_hi @ b_hi (a bf16 operand is its own
    hi and has no lo: with one bf16 operand two products, with none three;
    a_lo @ b_lo, below 2^-16 of the product, is dropped). Every product is
    a bf16 one, which the tensor cores read from shared memory in either
    major order: more accurate than tf32 (2^-11) at the cost of a second or
    third product.

    Example:
    ```mlir
    %d = tile.mma %a, %b, %c : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
    %e = tile.mma %x, %w, %c precision = tf32
        : tensor<64x16xbf16>, tensor<16x32xf32>, tensor<64x32xf32>
    %s = tile.mma %x, %w, %c precision = split_bf16
        : tensor<64x16xbf16>, tensor<16x32xf32>, tensor<64x32xf32>
    ```
  }];
  let arguments = (ins Tile_MmaOperand:$a, Tile_MmaOperand:$b, RankedTensorOf<[F32]>:$acc,
                   OptionalAttr<Tile_MmaPrecision>:$precision);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`precision` `=` $precision^)? attr-dict `:` type($a)
    `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Tile_Exp2Op : Tile_Op<"exp2", [Pure, SameOperandsAndResultType]> {
  let summary = "2 to the power of each element";
  let description = [{
    2^x for each element of an f32 tile, to within 2 ulp (the GPU's
    `ex2.approx.f32`): exp2(-inf) = 0, arguments above 128 give +inf,
    arguments below -126 may flush to 0, NaN stays NaN.

    Example: `%d = tile.exp2 %g : tensor<64x64xf32>`
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$source);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = "$source attr-dict `:` type($source)";
}

//===----------------------------------------------------------------------===//
// Float arithmetic with broadcasting
//===----------------------------------------------------------------------===//

// An operand of the broadcasting ops: a float tile, or a float scalar.
def Tile_FloatOperand : AnyTypeOf<[Tile_Float, F32, F16, BF16]>;

class Tile_BroadcastingFloatOp<string mnemonic, string arithOp>
    : Tile_Op<mnemonic, [Pure]> {
  let summary = "`" # arithOp # "` of operands broadcast to the result";
  let description = !strconcat("`tile.", mnemonic, " %a, %b` is `", arithOp,
      [{` of `%a` and `%b` broadcast to the result's shape. Each operand is
    a scalar of the result's element type (splat over the result, as
    `tile.full` does) or a tile of that element type whose shape, aligned with
    the result's last dimensions, has the result's extent or 1 at each
    dimension (numpy's rule: `BLOCK_N` and `1 x BLOCK_N` both broadcast to
    `BLOCK_M x BLOCK_N`; a column is a `BLOCK_M x 1` tile). tile-expand-forms
    writes it out as `tile.broadcast` or `tile.full` of each operand whose type
    is not the result's, then the arith op, so it rounds exactly as that op
    does.

    Example:
    ```mlir
    %w = tile.}], mnemonic, [{ %scores, %dt : !tile.tile<BLOCK_M x BLOCK_K x f32>,
        !tile.tile<BLOCK_K x f32> -> !tile.tile<BLOCK_M x BLOCK_K x f32>
    ```
  }]);
  let arguments = (ins Tile_FloatOperand:$lhs, Tile_FloatOperand:$rhs);
  let results = (outs Tile_Float:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_AddFOp : Tile_BroadcastingFloatOp<"addf", "arith.addf">;
def Tile_SubFOp : Tile_BroadcastingFloatOp<"subf", "arith.subf">;
def Tile_MulFOp : Tile_BroadcastingFloatOp<"mulf", "arith.mulf">;
def Tile_DivFOp : Tile_BroadcastingFloatOp<"divf", "arith.divf">;
def Tile_MaximumFOp : Tile_BroadcastingFloatOp<"maximumf", "arith.maximumf">;
def Tile_MinimumFOp : Tile_BroadcastingFloatOp<"minimumf", "arith.minimumf">;

def Tile_ClampOp : Tile_Op<"clamp", [Pure, AllTypesMatch<["source", "result"]>]> {
  let summary = "limits each element to [low, high]";
  let description = [{
    `tile.clamp %x, %low, %high` is `tile.minimumf` of `tile.maximumf %x,
    %low` and `%high`, which is what tile-expand-forms writes: a NaN stays
    NaN, and where `low > high` the result is `high`. `low` and `high` are
    scalars of the tile's element type or tiles that broadcast to it by the
    rule of `tile.addf` (per-row limits are a `M x 1` tile).

    Example:
    ```mlir
    %dt = tile.clamp %dtSoft, %dt_min, %dt_max
        : !tile.tile<CHUNK x BLOCK_H x f32>, f32, f32
    ```
  }];
  let arguments = (ins Tile_Float:$source, Tile_FloatOperand:$low,
                   Tile_FloatOperand:$high);
  let results = (outs Tile_Float:$result);
  let assemblyFormat = [{
    $source `,` $low `,` $high attr-dict `:` type($source) `,` type($low) `,`
    type($high)
  }];
  let hasVerifier = 1;
}

def Tile_PadOp : Tile_Op<"pad", [Pure, AllTypesMatch<["source", "result"]>]> {
  let summary = "the padding in place of the elements past an extent";
  let description = [{
    `tile.pad %x dim d past %extent at %i` treats `x` as tile `i` of a
    sequence of tiles of its shape along dimension `d` (elements
    [i * E, (i + 1) * E) for the tile's extent E there, as `tile.load`
    counts tile indices) and replaces the elements at or past element
    `extent` along `d` by `padding` (default `zero`; `nan`, `neg_inf` and
    `pos_inf` need a float tile). The other elements are `x`'s. It is the
    mask of a ragged last tile (cuTile's `where(arange(E) + i * E < n, x,
    0)`) after `x` was computed from values that padding no longer is.

    tile-expand-forms writes it out as the elements left in the tile,
    `min(max(extent - i * E, 0), E)` in `index` and then narrowed to i32
    (so an extent past 2^31 cannot wrap), a `tile.arange` along `d`
    compared with it (`slt`), and `tile.where` of that mask, `x` and
    `tile.full` of the padding.

    Example:
    ```mlir
    // Time steps past seqlen in the last chunk read as 0.
    %dt = tile.pad %dtClamped dim 0 past %seqlen at %chunk
        : !tile.tile<CHUNK x BLOCK_H x f32>
    ```
  }];
  let arguments = (ins Tile:$source, I64Attr:$dim, Index:$extent,
                   Index:$tile_index,
                   DefaultValuedAttr<Tile_Padding, "Padding::zero">:$padding);
  let results = (outs Tile:$result);
  let assemblyFormat = [{
    $source `dim` $dim `past` $extent `at` $tile_index
    (`padding` `=` $padding^)? attr-dict `:` type($source)
  }];
  let hasVerifier = 1;
}

def Tile_TriOp : Tile_Op<"tri", [Pure]> {
  let summary = "a tile of the lower-triangular mask";
  let description = [{
    `tile.tri at %r, %c : !tile.tile<M x K x i1>` is tile (r, c) of numpy's
    `tri` (true at and below the diagonal) cut into M x K tiles, as
    `tile.load` counts tile indices: element (i, j) is
    `r * M + i >= c * K + j`. It is the causal mask of attention and of a
    chunked scan (cuTile's `offs_m[:, None] >= offs_k[None, :]`), for the
    row tile r and the column tile c of one square matrix.
    tile-expand-forms writes the row and column starts (`arith.muli` by the
    extents), `tile.arange` of each along dimension 0 and 1 (i32 positions,
    as tile.arange makes them) and `arith.cmpi sge`.

    Example:
    ```mlir
    // Row tile m and column tile k of a chunk: which (i, j) have j <= i.
    %causal = tile.tri at %m, %k : !tile.tile<BLOCK_M x BLOCK_K x i1>
    ```
  }];
  let arguments = (ins Index:$row, Index:$col);
  let results = (outs Tile_Mask:$result);
  let assemblyFormat = "`at` $row `,` $col attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Integer arithmetic and comparisons with broadcasting
//===----------------------------------------------------------------------===//

def Tile_Integer : RankedTensorOf<[I1, I8, I16, I32, I64]>;
// An operand of the broadcasting integer ops: an integer tile or scalar.
def Tile_IntegerOperand : AnyTypeOf<[Tile_Integer, I1, I8, I16, I32, I64]>;

class Tile_BroadcastingIntegerOp<string mnemonic, string arithOp>
    : Tile_Op<mnemonic, [Pure]> {
  let summary = "`" # arithOp # "` of operands broadcast to the result";
  let description = !strconcat("`tile.", mnemonic, " %a, %b` is `", arithOp,
      [{` of `%a` and `%b` broadcast to the result's shape, by the rule of
    the broadcasting float ops (`tile.addf`): each operand is a scalar of
    the result's element type or a tile of it whose shape, aligned with the
    result's last dimensions, has the result's extent or 1 at each
    dimension. tile-expand-forms writes it out as `tile.broadcast` or
    `tile.full` of each operand and the arith op, so it wraps exactly as
    that op does.

    Example:
    ```mlir
    %kept = tile.}], mnemonic, [{ %causal, %same : !tile.tile<M x K x i1>,
        !tile.tile<M x K x i1> -> !tile.tile<M x K x i1>
    ```
  }]);
  let arguments = (ins Tile_IntegerOperand:$lhs, Tile_IntegerOperand:$rhs);
  let results = (outs Tile_Integer:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_AddIOp : Tile_BroadcastingIntegerOp<"addi", "arith.addi">;
def Tile_SubIOp : Tile_BroadcastingIntegerOp<"subi", "arith.subi">;
def Tile_MulIOp : Tile_BroadcastingIntegerOp<"muli", "arith.muli">;
def Tile_AndIOp : Tile_BroadcastingIntegerOp<"andi", "arith.andi">;
def Tile_OrIOp : Tile_BroadcastingIntegerOp<"ori", "arith.ori">;

class Tile_BroadcastingCompareOp<string mnemonic, string arithOp,
                                 Type operand, string example>
    : Tile_Op<mnemonic, [Pure]> {
  let summary = "`" # arithOp # "` of operands broadcast to the result";
  let description = !strconcat("`tile.", mnemonic, " pred, %a, %b` is `",
      arithOp, [{` with predicate `pred` (arith's names: `eq`, `slt`, ...)
    of `%a` and `%b` broadcast to the result's shape. The operands have one
    element type; each is a scalar of it or a tile of it that broadcasts to
    the result's shape by the rule of `tile.addf`. The result is an i1 tile.
    tile-expand-forms writes it out as the broadcasts and the arith op.

    Example:
    ```mlir
    }], example, [{
    ```
  }]);
  let arguments = (ins I64Attr:$predicate, operand:$lhs, operand:$rhs);
  let results = (outs Tile_Mask:$result);
  let hasVerifier = 1;
}

def Tile_CmpIOp : Tile_BroadcastingCompareOp<"cmpi", "arith.cmpi",
    Tile_IntegerOperand, [{%same = tile.cmpi eq, %rowSeq, %colSeq
        : !tile.tile<M x 1 x i32>, !tile.tile<K x i32> -> !tile.tile<M x K x i1>}]> {
  let assemblyFormat = [{
    custom<CmpIPredicate>($predicate) `,` $lhs `,` $rhs attr-dict `:`
    type($lhs) `,` type($rhs) `->` type($result)
  }];
  let extraClassDeclaration = [{
    ::mlir::arith::CmpIPredicate getCmpPredicate() {
      return static_cast<::mlir::arith::CmpIPredicate>(getPredicate());
    }
  }];
}

def Tile_CmpFOp : Tile_BroadcastingCompareOp<"cmpf", "arith.cmpf",
    Tile_FloatOperand, [{%small = tile.cmpf ole, %x, %threshold
        : !tile.tile<M x N x f32>, f32 -> !tile.tile<M x N x i1>}]> {
  let assemblyFormat = [{
    custom<CmpFPredicate>($predicate) `,` $lhs `,` $rhs attr-dict `:`
    type($lhs) `,` type($rhs) `->` type($result)
  }];
  let extraClassDeclaration = [{
    ::mlir::arith::CmpFPredicate getCmpPredicate() {
      return static_cast<::mlir::arith::CmpFPredicate>(getPredicate());
    }
  }];
}

// A value `tile.where` chooses: a tile, or a scalar that splats.
def Tile_WhereValue : AnyTypeOf<[Tile, F32, F16, BF16, I1, I8, I16, I32, I64,
                                 Tile_TypeParam]>;

def Tile_WhereOp : Tile_Op<"where", [Pure]> {
  let summary = "chooses elementwise between two tiles";
  let description = [{
    result[i] = condition[i] ? true_value[i] : false_value[i]. The unchosen
    value never reaches the result, so a tile of exp2 of masked-off
    arguments cannot leak an inf or a NaN.

    With the types written `: C, T` the condition and both values have T's
    shape and the values are T. With `: C, A, B -> R` the condition and the
    values broadcast to the result R by the rule of `tile.addf` (aligned
    with R's last dimensions, each extent 1 or R's; a scalar value splats):
    a column mask `M x 1` chooses along whole rows, and a constant side is a
    scalar rather than a `tile.full`. tile-expand-forms writes that form out
    as `tile.broadcast` or `tile.full` of each operand whose type is not
    R's, then the plain `tile.where`.

    A scalar i1 condition (a kernel flag) chooses one value for the whole
    tile, as `arith.select` does: tile-expand-forms writes `scf.if` of it,
    each branch yielding its value, and moves into a branch the side-effect
    free ops whose results only that branch uses, so the value that is not
    chosen is not computed (a gate `y * silu(z)` costs nothing when the flag
    is off).

    Example:
    ```mlir
    %y = tile.where %causal, %x, %zero : tensor<64x64xi1>, tensor<64x64xf32>
    %m = tile.where %kept, %segment, %negInf
        : !tile.tile<M x K x i1>, !tile.tile<M x K x f32>, f32
          -> !tile.tile<M x K x f32>
    %gated = tile.where %has_z, %yz, %y
        : i1, !tile.tile<M x P x f32>, !tile.tile<M x P x f32>
          -> !tile.tile<M x P x f32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Tile_Mask, I1]>:$condition,
                   Tile_WhereValue:$true_value,
                   Tile_WhereValue:$false_value);
  let results = (outs Tile:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    custom<WhereTypes>(type($condition), type($true_value),
                       type($false_value), type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// Whether the condition and both values already have the result's
    /// shape and type (the form the interpreter and the lowering take).
    bool isPlain();
  }];
}

//===----------------------------------------------------------------------===//
// Activation functions
//===----------------------------------------------------------------------===//

def Tile_SoftplusOp : Tile_Op<"softplus", [Pure,
                                         AllTypesMatch<["source", "result"]>]> {
  let summary = "softplus as mamba_ssm and PyTorch compute it";
  let description = [{
    softplus(x) = log1p(exp(x)) for x <= 20 and x itself above, where
    exp(x) would overflow first and log1p(exp(x)) rounds to x in f32 anyway
    (PyTorch's `softplus` with beta 1 and threshold 20, which mamba_ssm
    applies to dt). With `if %c` (a scalar integer or index) it applies
    only when `%c` is non-zero and is the identity otherwise (mamba_ssm's
    `dt_softplus` flag).

    tile-expand-forms writes it out as `math.exp`, `math.log1p`,
    `arith.cmpf ole` against 20 and `tile.where` (in an `scf.if` on
    `%c != 0` when there is a condition), so it rounds as those ops do.

    Example:
    ```mlir
    %dtSoft = tile.softplus %dtBiased if %softplus
        : !tile.tile<CHUNK x BLOCK_H x f32>, i32
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$source,
                   Optional<AnySignlessIntegerOrIndex>:$condition);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $source (`if` $condition^)? attr-dict `:` type($source)
    (`,` type($condition)^)?
  }];
}

def Tile_SiluOp : Tile_Op<"silu", [Pure, SameOperandsAndResultType]> {
  let summary = "silu(x) = x * sigmoid(x), as x / (1 + exp(-x))";
  let description = [{
    The gate mamba_ssm applies to y with z (y * silu(z)). Computed as
    x / (1 + exp(-x)): for very negative x, exp(-x) is +inf and the result
    is -0, not a NaN. tile-expand-forms writes it out as `arith.negf`,
    `math.exp`, `arith.addf` of 1 and `arith.divf`, so it rounds as those
    ops do.

    Example: `%gate = tile.silu %z : !tile.tile<BLOCK_M x BLOCK_P x f32>`
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$source);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = "$source attr-dict `:` type($source)";
}

#endif // TILE_OPS
