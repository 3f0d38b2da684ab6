//===- Passes.td - tilegpu layout passes -------------------*- tablegen -*-===//
//
// The passes of docs/codegen-layouts.md that give bound tile IR its register
// layouts. They run on bound kernels (after tile-bind-params), in the
// tile-to-llvm pipeline under --codegen=layouts (Pipeline.cpp), before
// convert-tile-to-llvm lowers the layout-carrying tiles and tilegpu ops.
//
//===----------------------------------------------------------------------===//

#ifndef TILEGPU_TRANSFORMS_PASSES
#define TILEGPU_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def TileGPUAssignLayouts : Pass<"tilegpu-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "gives every tile of a bound kernel a register layout";
  let description = [{
    Anchors: `tile.load` results and `tile.store` values get a coalesced
    blocked layout, contiguous along the tile dimension that is the view's
    innermost one, with 16 bytes per thread along it where the tile's extent
    there allows (`vectorize=false`: one element); `tile.mma` operands and
    results get the target's layouts (`sm`): the mma.sync fragment layouts
    (m16n8k16 for bf16/f16, m16n8k8 for tf32; f32 products and tiles smaller
    than one instruction keep blocked layouts), or on `sm=90` (sm_90a) for
    bf16/f16 products of whole warpgroups the wgmma accumulator layout, with
    A and B left in their producers' layouts (wgmma reads them from shared
    memory). Every other tile takes the layout its op's rule derives
    from its operands (docs/codegen-layouts.md, "as built"); constants,
    `tile.full`, `tile.arange` and broadcast results take the default blocked
    layout. Where an operand's layout differs from what its user needs, a
    `tilegpu.convert_layout` is inserted. `num_warps` comes from the kernel.

    Example: `tile-opt --tile-bind-params --tilegpu-assign-layouts`
  }];
  let options = [
    Option<"vectorize", "vectorize", "bool", /*default=*/"true",
           "assume views are contiguous and aligned (the launcher's vec "
           "variant): 16-byte accesses along the innermost dimension">,
    Option<"sm", "sm", "unsigned", /*default=*/"80",
           "the lowering's target (LoweringOptions::smVersion): 90 gives "
           "tile.mma the wgmma layouts of sm_90a">,
  ];
  let dependentDialects = ["::mlir::tilegpu::TileGPUDialect"];
}

def TileGPURemoveLayoutConversions
    : Pass<"tilegpu-remove-layout-conversions", "::mlir::ModuleOp"> {
  let summary = "moves and folds layout conversions until few remain";
  let description = [{
    Runs after `tilegpu-assign-layouts`, to a fixed point:
    - a conversion to the layout a tile already has, or of a conversion,
      folds;
    - an `scf.for` iteration argument that the body converts back at the
      yield takes the yielded layout, so an mma accumulator stays in its
      fragment layout across the loop (the conversions move before and
      after the loop);
    - a conversion of a cheap producer (constants, `tile.full`,
      `tile.arange`, broadcasts, reshapes and elementwise ops of those) is
      rematerialised: the producer is rebuilt in the wanted layout, a
      broadcast converting its smaller source instead;
    - a conversion of any other tile moves past its single user, in the
      same block, when that user is an elementwise op or `tile.where` whose
      other operands are cheap (rematerialisable), or a `tile.reduce`,
      `tile.reshape`, `tile.extract`, `tile.permute` or `tile.cumsum`, so
      anchor layouts propagate forward until they meet the next anchor; a
      conversion that `tilec::planConversion` calls free (no data movement:
      nothing, or a renaming of registers) stays where it is;
    - a conversion into a vectorised `tile.store` (its layout has vectors of
      several elements) that `tilec::planConversion` would stage through
      shared memory is dropped where the source's own registers already
      store vectors of two elements and 4 bytes or more, with the lanes
      continuing the run to at least 16 bytes (the mma accumulators): the
      store writes from them.

    Producers rebuilt for several users are then merged (CSE).

    Example: `tile-opt --tilegpu-assign-layouts --tilegpu-remove-layout-conversions`
  }];
  let dependentDialects = ["::mlir::tilegpu::TileGPUDialect"];
}

def TileGPUPipeline : Pass<"tilegpu-pipeline", "::mlir::ModuleOp"> {
  let summary = "moves mma-operand loads global -> shared by cp.async, "
                "prefetched `latency` iterations ahead in loops";
  let description = [{
    Runs after `tilegpu-remove-layout-conversions` on the `vec` variant. A
    `tile.load` (zero padding) whose result only reaches a
    `tilegpu.convert_layout` staged through shared memory, through
    single-use `tile.reshape` (of unit dims) and `tile.convert` ops, is
    rewritten so that the tile never sits in registers in the load's layout:
    a `tilegpu.local_alloc` in a 128/64/32-byte swizzled layout (the widest
    the rows allow), a `tilegpu.async_copy kind = cp_async` in the load's
    layout (runs of up to 16 bytes per thread along the view's innermost
    dimension, zero-filled outside the view), `tilegpu.async_commit`,
    `tilegpu.async_wait pending = 0`, `tilegpu.barrier`, and a
    `tilegpu.local_load` straight into the conversion's destination layout,
    followed by the reshapes and element conversions in that layout. A
    barrier before the copy lets every thread finish reading the bytes
    first. Loads whose copy would move less than 4 bytes per thread are left
    alone.

    A bf16/f16 operand of a `tile.mma` marked `tilegpu.wgmma` (reached
    through single-use reshapes of unit dims only) is copied the same way,
    with no conversion: the buffer's swizzled rows are what wgmma's matrix
    descriptors read, so the lowering hands the buffer to wgmma (K-major,
    or M/N-major through the descriptor's transpose bits) and the
    `local_load` in the operand's layout is dead. After the wait for such a
    buffer each thread fences its copies for the async proxy
    (`tilegpu.fence_async_shared`) before the barrier. tf32 operands stay
    in registers (wgmma reads the f32 bits of rounded values).

    Inside an `scf.for`, loads with `latency = n >= 2` whose indices are
    loop-invariant or computed from the induction variable by pure ops in
    the body become an (n+1)-stage ring (one ring depth per loop: the
    largest latency among its loads): the prologue issues iterations
    0 .. n-1 (one commit group each), the body waits until at most n-1 groups
    are pending, passes a barrier, issues iteration i+n into stage
    (i+n) mod (n+1) (guarded by i+n < upper bound; the commit is not, so
    every iteration commits one group) and reads stage i mod (n+1); where
    a product (mma.sync) reads both operands from the ring's conversions,
    the copies are issued at the end of the body instead, after the reads
    and the product. In a
    loop that no other loop encloses, a wgmma product whose A and B both
    come from the ring and whose accumulator only passes from one product to
    the next gets `tilegpu.wgmma_pending = 1` (it may stay in flight for
    one iteration), and the ring one stage more (n+2), so that the copy
    issued in iteration i+1 fills the stage read in i-1, not the one the
    product of iteration i may still read. Such a loop's last iteration
    is peeled: `scf.if lb < ub { scf.for lb to last { body }; body at
    last }` (else the initial values), the copy's products not pending, so
    that the wait for every product lies on the one path from the loop
    (ptxas otherwise injects a wait at the loop's latch, C7517).

    With `interior-copies`, every copy it makes is marked
    `tilegpu.interior_copies`: its lowering branches (uniformly: the box
    depends on tile indices only) on whether the whole box lies inside the
    view, and copies such a box with no bounds check and no src-size select
    per run; boxes at the view's edges take the checked copies. Off by
    default (not yet timed on a GPU: docs/performance.md).

    Example: `tile-opt --tilegpu-assign-layouts --tilegpu-remove-layout-conversions --tilegpu-pipeline`
  }];
  let options = [
    Option<"interiorCopies", "interior-copies", "bool", /*default=*/"false",
           "copy boxes wholly inside their view with no bounds check per "
           "run, behind one uniform branch">,
  ];
  let dependentDialects = ["::mlir::tilegpu::TileGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileGPUPrefetchRegisters
    : Pass<"tilegpu-prefetch-registers", "::mlir::ModuleOp"> {
  let summary = "issues loads that stay in registers one loop iteration "
                "ahead";
  let description = [{
    Runs after `tilegpu-pipeline`, on the loads it left in registers. Inside
    an `scf.for` over `index`, a `tile.load` directly in the body with
    `latency = n >= 1` and no `if` condition is read one iteration ahead
    when its indices are loop-invariant or affine in the induction variable
    (sums, differences, products with invariants), its view (or a view it
    is derived from) is written nowhere in the kernel, and nothing in the
    loop writes a view (two views may share their bytes). The load of the
    first iteration moves before the loop, the load of iteration i+1 takes
    the original load's place in iteration i, and the tile is carried as a
    new iteration argument. Every issued load is guarded (`scf.if`) by its
    iteration being below the upper bound, so nothing past the loop's end
    is read.

    The carried tiles cost registers across the whole loop: a loop's loads
    are prefetched all or none, only when the registers per thread their
    layouts hold (32-bit words) add up to at most the budget, the smaller
    of `max-carried-registers` and an eighth of the registers per thread
    the kernel's `occupancy` leaves (min(255, 65536 / (threads x
    occupancy))). A kernel opts a load out by giving it no `latency`.

    Example: `tile-opt --tilegpu-assign-layouts --tilegpu-prefetch-registers`
  }];
  let options = [
    Option<"maxCarriedRegisters", "max-carried-registers", "int64_t",
           /*default=*/"32",
           "registers per thread that a loop's prefetched tiles may hold">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileGPUAllocateShared : Pass<"tilegpu-allocate-shared", "::mlir::ModuleOp"> {
  let summary = "places shared buffers by their lifetimes";
  let description = [{
    Gives every `tilegpu.local_alloc` and every `tilegpu.convert_layout` that
    `tilec::planConversion` stages through shared memory a byte offset
    (`tilegpu.offset`), and each kernel its total (`tilegpu.shared_bytes`).
    A buffer lives from its allocation to its last use, extended to the end
    of every loop that uses it but does not allocate it and to every wgmma
    product that takes a read of it as an operand (wgmma reads the buffer
    itself); a conversion's staging buffer lives at the conversion only. Largest buffer first, each
    at the lowest offset, aligned to 16 bytes (1024 for a layout that is
    not row-major: the swizzle atom of TMA and wgmma), that no buffer
    alive at the same time occupies.

    With `conversions=false` only the `local_alloc` buffers are placed: the
    lowering stages conversions through its own scratch area and puts these
    buffers above it (the layouts pipeline).

    Example: `tile-opt --tilegpu-allocate-shared`
  }];
  let options = [
    Option<"conversions", "conversions", "bool", /*default=*/"true",
           "also place the staging buffers of convert_layout ops">,
  ];
}

def TileGPUPrintConversionPlans
    : Pass<"tilegpu-print-conversion-plans", "::mlir::ModuleOp"> {
  let summary = "reports how each layout conversion will be lowered";
  let description = [{
    Emits a remark at every `tilegpu.convert_layout` with the plan of
    `tilec::planConversion`: free, a register permutation, warp shuffles
    (with the number of rounds) or shared memory (with the vector width and
    staging buffer size), so a kernel's remaining data movement can be read
    before the lowering exists.

    Example: `tile-opt --tilegpu-print-conversion-plans`
  }];
}

#endif // TILEGPU_TRANSFORMS_PASSES
