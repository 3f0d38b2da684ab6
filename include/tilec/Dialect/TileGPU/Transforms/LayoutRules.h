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

/// The mma.sync layouts of one tile.mma: operand A (M x K), operand B
/// (K x N) and the accumulator and result (M x N).
struct MmaLayouts {
  DistributedLayoutAttr a, b, acc;
};
/// None for f32 operands (full-precision FMAs, no tensor core) and for tiles
/// smaller than one instruction.
std::optional<MmaLayouts>
getMmaSyncLayouts(RankedTensorType a, RankedTensorType b, unsigned numWarps);

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
