//===- LayoutRules.h - the layouts tile ops need and derive -----*- C++ -*-===//
//
// What the layout passes agree on: the anchor layouts (coalesced blocked for
// memory, mma.sync fragments for products), the default layout, and for each
// tile op that moves elements without computing, the layout its result has
// given its operand's (or the operand's given the result's). The lowering
// implements exactly these pairs; docs/codegen-layouts.md lists them.
//
//===----------------------------------------------------------------------===//

#ifndef TILEGPU_TRANSFORMS_LAYOUTRULES_H
#define TILEGPU_TRANSFORMS_LAYOUTRULES_H

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::tilegpu {

/// The output dims of a linear layout of a tile of `shape`: one per tile
/// dimension, each extent padded to a power of two.
SmallVector<tilec::LayoutDim> getPaddedOutDims(ArrayRef<int64_t> shape);

/// `layout` with every basis rewritten by `map`, over the output dims of a
/// tile of `newShape`.
tilec::LinearLayout
mapBases(const tilec::LinearLayout &layout, ArrayRef<int64_t> newShape,
         function_ref<tilec::LinearLayout::Basis(ArrayRef<int64_t>)> map);

/// The tile type with `layout` as its encoding.
RankedTensorType withLayout(Type tile, DistributedLayoutAttr layout);

/// Gives a tile constant the type `type` (the same elements in another
/// layout): its value attribute is retyped with it.
void retypeConstant(arith::ConstantOp constant, RankedTensorType type);

/// A blocked layout over `numWarps` warps with `contiguousDim` fastest and
/// `vectorElements` consecutive elements per thread along it; lanes and
/// warps fill the dims fastest first, the others from the last to the first.
DistributedLayoutAttr getBlockedLayout(MLIRContext *context,
                                       ArrayRef<int64_t> shape,
                                       unsigned contiguousDim,
                                       int64_t vectorElements,
                                       unsigned numWarps);

/// The layout a memory access of a tile uses: contiguous along
/// `contiguousDim`, 16 bytes per thread when `vectorize` and the extent there
/// is a multiple of that many elements (else the largest power of two that
/// divides it), one element without `vectorize`.
DistributedLayoutAttr getAccessLayout(RankedTensorType tile,
                                      unsigned contiguousDim, bool vectorize,
                                      unsigned numWarps);

/// The layout of tiles that have no anchor: last dim fastest, one element.
DistributedLayoutAttr getDefaultLayout(RankedTensorType tile,
                                       unsigned numWarps);

/// The layouts of one tile.mma: operand A (M x K), operand B (K x N) and the
/// accumulator and result (M x N); a null operand layout takes any layout.
struct MmaLayouts {
  DistributedLayoutAttr a, b, acc;
  /// The product is a wgmma (sm_90a) one.
  bool wgmma = false;
};
/// None for f32 operands (full-precision FMAs, no tensor core) and for tiles
/// smaller than one instruction.
std::optional<MmaLayouts>
getMmaSyncLayouts(RankedTensorType a, RankedTensorType b, unsigned numWarps);

/// How the warpgroups of a kernel split one wgmma product (sm_90a): each
/// warpgroup computes a (M / warpgroupsM) x (N / warpgroupsN) part of the
/// accumulator with m64nNk16 (tf32: m64nNk8) instructions of N = instrN,
/// side by side.
struct WgmmaShape {
  int64_t warpgroupsM, warpgroupsN, instrN;
};
/// The split of a product of A (M x K) and B (K x N), or none where wgmma
/// does not apply: operands other than bf16/f16/tf32, a warp count that is
/// not a multiple of 4, a padded M below 64, K below one instruction (16;
/// tf32 8) or a part of N below 16
/// (the operands' shared rows must span the 32-byte swizzle at least), or
/// A and B together above 128 KiB (they are staged in shared memory).
std::optional<WgmmaShape> getWgmmaShape(RankedTensorType a, RankedTensorType b,
                                        unsigned numWarps);
/// The wgmma layouts: the accumulator in the warpgroup accumulator layout
/// (warpgroups stacked along M, then side by side along N); A and B null,
/// as they are read from shared memory (the lowering stores them there from
/// whatever layout they have, so they need no conversion) or, for an A in
/// getWgmmaRegisterALayout's layout, from registers.
std::optional<MmaLayouts>
getWgmmaLayouts(RankedTensorType a, RankedTensorType b, unsigned numWarps);

/// The layout in which a wgmma product reads its operand A from registers
/// instead of shared memory (bf16/f16 A of a product getWgmmaShape takes):
/// per warp the m16n8k16 A fragment, warp w of a warpgroup on rows 16 w,
/// warpgroups on the accumulator's rows (replicated where they share N);
/// null for other products. tilegpu-assign-layouts gives it to an A that is
/// computed in registers from loads and broadcasts, so that A is formed in
/// the fragment layout and the store to shared memory, its fence and its
/// barriers disappear.
DistributedLayoutAttr getWgmmaRegisterALayout(RankedTensorType a,
                                              RankedTensorType b,
                                              unsigned numWarps);

/// The unit attribute tilegpu-assign-layouts puts on a tile.mma it gave the
/// wgmma layouts: the lowering issues wgmma.mma_async for it.
constexpr llvm::StringLiteral kWgmmaAttrName = "tilegpu.wgmma";
/// The i32 attribute tilegpu-pipeline puts on a wgmma product in an scf.for
/// whose A and B both come from the loop's ring (which then has a spare
/// stage) and whose accumulator only the next product reads: the lowering
/// may leave that many of its groups in flight at the end of an iteration
/// (wgmma.wait_group N instead of 0) and waits for all after the loop.
constexpr llvm::StringLiteral kWgmmaPendingAttrName = "tilegpu.wgmma_pending";

/// The layouts tile.mma gets for the target `sm` (LoweringOptions::smVersion:
/// 90 is sm_90a, the Hopper path): wgmma's where they apply on 90, else
/// mma.sync's; none where neither applies.
std::optional<MmaLayouts> getMmaLayouts(RankedTensorType a, RankedTensorType b,
                                        unsigned numWarps, unsigned sm);

/// tile.broadcast: the source layout for a result in `result` layout (the
/// result's with the broadcast dims projected away and the registers that
/// only walked them dropped).
DistributedLayoutAttr getBroadcastSourceLayout(DistributedLayoutAttr result,
                                               ArrayRef<int64_t> resultShape,
                                               ArrayRef<int64_t> sourceShape);

/// tile.reshape: the layout of the reshaped tile (the same registers hold
/// the same elements), or null where padding to powers of two does not
/// commute with the reshape (extents that are not powers of two other than
/// in dims kept as they are).
DistributedLayoutAttr getReshapedLayout(DistributedLayoutAttr layout,
                                        ArrayRef<int64_t> fromShape,
                                        ArrayRef<int64_t> toShape);

/// tile.reduce: the result's layout (the source's without `axis`).
DistributedLayoutAttr getReducedLayout(DistributedLayoutAttr source,
                                       ArrayRef<int64_t> shape, unsigned axis);

/// tile.extract: the sub-tile's layout (coordinates modulo its extents,
/// registers that selected the sub-tile dropped), or null when an extent of
/// the sub-tile other than a whole dim is not a power of two.
DistributedLayoutAttr getExtractedLayout(DistributedLayoutAttr source,
                                         ArrayRef<int64_t> sourceShape,
                                         ArrayRef<int64_t> resultShape);

/// tile.permute: result dim k is source dim permutation[k].
DistributedLayoutAttr getPermutedLayout(DistributedLayoutAttr source,
                                        ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> permutation);

/// Whether converting a `type` tile from `from` to `to` moves no data (the
/// planner calls it free or a renaming of registers).
bool isFreeConversion(RankedTensorType type, DistributedLayoutAttr from,
                      DistributedLayoutAttr to);

} // namespace mlir::tilegpu

#endif // TILEGPU_TRANSFORMS_LAYOUTRULES_H
