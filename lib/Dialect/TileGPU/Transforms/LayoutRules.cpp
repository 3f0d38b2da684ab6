//===- LayoutRules.cpp - the layouts tile ops need and derive ---*- C++ -*-===//

#include "tilec/Dialect/TileGPU/Transforms/LayoutRules.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilegpu;
using tilec::LayoutDim;
using tilec::LinearLayout;

SmallVector<LayoutDim> mlir::tilegpu::getPaddedOutDims(ArrayRef<int64_t> shape) {
  SmallVector<LayoutDim> outs;
  for (auto [i, extent] : llvm::enumerate(getPaddedShape(shape)))
    outs.push_back({tilec::tensorDimName(i), llvm::Log2_64(uint64_t(extent))});
  return outs;
}

LinearLayout mlir::tilegpu::mapBases(
    const LinearLayout &layout, ArrayRef<int64_t> newShape,
    function_ref<LinearLayout::Basis(ArrayRef<int64_t>)> map) {
  SmallVector<LinearLayout::InDim> ins = layout.getBases();
  for (LinearLayout::InDim &in : ins)
    for (LinearLayout::Basis &basis : in.bases)
      basis = map(basis);
  return LinearLayout(ins, getPaddedOutDims(newShape));
}

RankedTensorType mlir::tilegpu::withLayout(Type tile,
                                           DistributedLayoutAttr layout) {
  auto tensor = cast<RankedTensorType>(tile);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                               layout);
}

void mlir::tilegpu::retypeConstant(arith::ConstantOp constant,
                                   RankedTensorType type) {
  auto value = cast<DenseElementsAttr>(constant.getValue());
  constant.setValueAttr(value.reshape(type));
  constant.getResult().setType(type);
}

DistributedLayoutAttr mlir::tilegpu::getBlockedLayout(MLIRContext *context,
                                                      ArrayRef<int64_t> shape,
                                                      unsigned contiguousDim,
                                                      int64_t vectorElements,
                                                      unsigned numWarps) {
  SmallVector<int64_t> padded = getPaddedShape(shape);
  unsigned rank = padded.size();
  SmallVector<unsigned> order{contiguousDim};
  for (unsigned d = rank; d-- > 0;)
    if (d != contiguousDim)
      order.push_back(d);
  SmallVector<int64_t> sizePerThread(rank, 1), threads(rank, 1), warps(rank, 1);
  sizePerThread[contiguousDim] =
      std::min<int64_t>(vectorElements, padded[contiguousDim]);
  // Lanes, then warps, fill the dims fastest first; what is left over
  // replicates along the slowest dim.
  auto fill = [&](SmallVectorImpl<int64_t> &counts, int64_t available,
                  auto covered) {
    for (unsigned d : order) {
      int64_t room = std::max<int64_t>(1, padded[d] / covered(d));
      counts[d] = std::min(available, room);
      available /= counts[d];
    }
    counts[order.back()] *= available;
  };
  fill(threads, 32, [&](unsigned d) { return sizePerThread[d]; });
  fill(warps, numWarps,
       [&](unsigned d) { return sizePerThread[d] * threads[d]; });
  return DistributedLayoutAttr::get(
      context,
      tilec::blockedLayout(padded, sizePerThread, threads, warps, order));
}

DistributedLayoutAttr mlir::tilegpu::getAccessLayout(RankedTensorType tile,
                                                     unsigned contiguousDim,
                                                     bool vectorize,
                                                     unsigned numWarps) {
  int64_t vector = 1;
  if (vectorize) {
    int64_t extent = tile.getShape()[contiguousDim];
    vector = 16 / getElementBytes(tile.getElementType());
    while (extent % vector != 0)
      vector /= 2;
  }
  return getBlockedLayout(tile.getContext(), tile.getShape(), contiguousDim,
                          vector, numWarps);
}

DistributedLayoutAttr mlir::tilegpu::getDefaultLayout(RankedTensorType tile,
                                                      unsigned numWarps) {
  return getBlockedLayout(tile.getContext(), tile.getShape(),
                          tile.getRank() - 1, 1, numWarps);
}

std::optional<MmaLayouts> mlir::tilegpu::getMmaSyncLayouts(RankedTensorType a,
                                                           RankedTensorType b,
                                                           unsigned numWarps) {
  Type element = a.getElementType();
  tilec::MmaSyncShape instruction;
  int64_t k;
  if (isa<BFloat16Type, Float16Type>(element)) {
    instruction = tilec::MmaSyncShape::M16N8K16;
    k = 16;
  } else if (isa<FloatTF32Type>(element)) {
    instruction = tilec::MmaSyncShape::M16N8K8;
    k = 8;
  } else {
    return std::nullopt;
  }
  SmallVector<int64_t> aShape = getPaddedShape(a.getShape());
  SmallVector<int64_t> bShape = getPaddedShape(b.getShape());
  int64_t m = aShape[0], kExtent = aShape[1], n = bShape[1];
  if (m < 16 || n < 8 || kExtent < k)
    return std::nullopt;
  // Warps split the larger remaining extent, in units of one instruction.
  int64_t wm = 1, wn = 1;
  while (wm * wn < numWarps) {
    bool mHasRoom = m / (16 * wm) > 1, nHasRoom = n / (8 * wn) > 1;
    if (mHasRoom && (m / wm >= n / wn || !nHasRoom))
      wm *= 2;
    else if (nHasRoom)
      wn *= 2;
    else
      wm *= 2;
  }
  MLIRContext *context = a.getContext();
  SmallVector<int64_t> accShape{m, n};
  return MmaLayouts{
      DistributedLayoutAttr::get(
          context, tilec::mmaSyncOperandLayout(
                       instruction, tilec::MmaOperand::A, aShape, {wm, wn})),
      DistributedLayoutAttr::get(
          context, tilec::mmaSyncOperandLayout(
                       instruction, tilec::MmaOperand::B, bShape, {wm, wn})),
      DistributedLayoutAttr::get(
          context, tilec::mmaSyncAccumulatorLayout(accShape, {wm, wn}))};
}

std::optional<WgmmaShape> mlir::tilegpu::getWgmmaShape(RankedTensorType a,
                                                      RankedTensorType b,
                                                      unsigned numWarps) {
  if (!isa<BFloat16Type, Float16Type, FloatTF32Type>(a.getElementType()) ||
      numWarps % 4 != 0)
    return std::nullopt;
  // tf32 elements are their f32 bits in shared memory.
  int64_t bytes = isa<FloatTF32Type>(a.getElementType()) ? 4 : 2;
  SmallVector<int64_t> aShape = getPaddedShape(a.getShape());
  SmallVector<int64_t> bShape = getPaddedShape(b.getShape());
  int64_t m = aShape[0], k = aShape[1], n = bShape[1];
  int64_t warpgroups = numWarps / 4;
  // One instruction reads 32 bytes of K per row (k16 for 16-bit types, k8
  // for tf32). The operands are staged in shared memory: at most 128 KiB of
  // the 227 KiB a CTA may have.
  if (m < 64 || k * bytes < 32 || (m * k + k * n) * bytes > 128 * 1024)
    return std::nullopt;
  // Warpgroups stack along M while there are 64-row blocks for them, then
  // share N; one instruction covers at most 256 columns.
  int64_t alongM = std::min(warpgroups, m / 64);
  int64_t alongN = warpgroups / alongM;
  if (n / alongN < 16)
    return std::nullopt;
  return WgmmaShape{alongM, alongN, std::min<int64_t>(n / alongN, 256)};
}

std::optional<MmaLayouts> mlir::tilegpu::getWgmmaLayouts(RankedTensorType a,
                                                         RankedTensorType b,
                                                         unsigned numWarps) {
  std::optional<WgmmaShape> shape = getWgmmaShape(a, b, numWarps);
  if (!shape)
    return std::nullopt;
  int64_t m = getPaddedShape(a.getShape())[0];
  int64_t n = getPaddedShape(b.getShape())[1];
  // One warpgroup's layout over the whole tile (its register repetitions
  // walk N, then M), whose lowest repetition bits along M, then along N,
  // become the warpgroup bits of the warp index.
  LinearLayout one = tilec::wgmmaAccumulatorLayout({m, n}, shape->instrN, 4);
  SmallVector<LinearLayout::InDim> ins = one.getBases();
  LinearLayout::InDim *registers = nullptr, *warps = nullptr;
  for (LinearLayout::InDim &in : ins) {
    if (in.name == tilec::kRegister)
      registers = &in;
    if (in.name == tilec::kWarp)
      warps = &in;
  }
  auto moveToWarps = [&](LinearLayout::Basis image) {
    auto it = llvm::find(registers->bases, image);
    assert(it != registers->bases.end() && "a repetition of the tile");
    warps->bases.push_back(image);
    registers->bases.erase(it);
  };
  for (int64_t rows = 64; rows < 64 * shape->warpgroupsM; rows *= 2)
    moveToWarps({rows, 0});
  for (int64_t cols = shape->instrN;
       cols < shape->instrN * shape->warpgroupsN; cols *= 2)
    moveToWarps({0, cols});
  LinearLayout layout(ins, one.getOutDims());
  return MmaLayouts{nullptr, nullptr,
                    DistributedLayoutAttr::get(a.getContext(), layout),
                    /*wgmma=*/true};
}

DistributedLayoutAttr mlir::tilegpu::getWgmmaRegisterALayout(
    RankedTensorType a, RankedTensorType b, unsigned numWarps) {
  if (!isa<BFloat16Type, Float16Type>(a.getElementType()) ||
      !getWgmmaShape(a, b, numWarps))
    return {};
  // wgmmaOperandALayout stacks warpgroups along M as getWgmmaLayouts does;
  // its warp bits past the tile's rows are zero, so warpgroups that share N
  // hold the same rows of A.
  return DistributedLayoutAttr::get(
      a.getContext(),
      tilec::wgmmaOperandALayout(getPaddedShape(a.getShape()), numWarps));
}

std::optional<MmaLayouts> mlir::tilegpu::getMmaLayouts(RankedTensorType a,
                                                       RankedTensorType b,
                                                       unsigned numWarps,
                                                       unsigned sm) {
  if (sm == 90)
    if (std::optional<MmaLayouts> wgmma = getWgmmaLayouts(a, b, numWarps))
      return wgmma;
  return getMmaSyncLayouts(a, b, numWarps);
}

DistributedLayoutAttr
mlir::tilegpu::getBroadcastSourceLayout(DistributedLayoutAttr result,
                                        ArrayRef<int64_t> resultShape,
                                        ArrayRef<int64_t> sourceShape) {
  LinearLayout projected =
      mapBases(result.getLinearLayout(resultShape), sourceShape,
               [&](ArrayRef<int64_t> basis) {
                 LinearLayout::Basis kept(basis.begin(), basis.end());
                 for (auto [d, extent] : llvm::enumerate(sourceShape))
                   if (extent == 1)
                     kept[d] = 0;
                 return kept;
               });
  return DistributedLayoutAttr::get(
      result.getContext(), projected.removeZeroBases(tilec::kRegister));
}

DistributedLayoutAttr
mlir::tilegpu::getReshapedLayout(DistributedLayoutAttr layout,
                                 ArrayRef<int64_t> fromShape,
                                 ArrayRef<int64_t> toShape) {
  auto nonUnit = [](ArrayRef<int64_t> shape) {
    SmallVector<int64_t> kept;
    for (int64_t extent : shape)
      if (extent != 1)
        kept.push_back(extent);
    return kept;
  };
  auto powersOfTwo = [](ArrayRef<int64_t> shape) {
    return llvm::all_of(shape,
                        [](int64_t e) { return llvm::isPowerOf2_64(e); });
  };
  if (nonUnit(fromShape) != nonUnit(toShape) &&
      !(powersOfTwo(fromShape) && powersOfTwo(toShape)))
    return {};
  return DistributedLayoutAttr::get(
      layout.getContext(),
      layout.getLinearLayout(fromShape).reshapeOuts(getPaddedOutDims(toShape)));
}

DistributedLayoutAttr
mlir::tilegpu::getReducedLayout(DistributedLayoutAttr source,
                                ArrayRef<int64_t> shape, unsigned axis) {
  return DistributedLayoutAttr::get(
      source.getContext(),
      tilec::sliceLayout(source.getLinearLayout(shape), axis));
}

DistributedLayoutAttr
mlir::tilegpu::getExtractedLayout(DistributedLayoutAttr source,
                                  ArrayRef<int64_t> sourceShape,
                                  ArrayRef<int64_t> resultShape) {
  for (auto [from, to] : llvm::zip(sourceShape, resultShape))
    if (from != to && !llvm::isPowerOf2_64(to))
      return {};
  SmallVector<int64_t> padded = getPaddedShape(resultShape);
  LinearLayout extracted =
      mapBases(source.getLinearLayout(sourceShape), resultShape,
               [&](ArrayRef<int64_t> basis) {
                 LinearLayout::Basis kept(basis.begin(), basis.end());
                 for (auto [d, extent] : llvm::enumerate(padded))
                   kept[d] &= extent - 1;
                 return kept;
               });
  return DistributedLayoutAttr::get(
      source.getContext(), extracted.removeZeroBases(tilec::kRegister));
}

DistributedLayoutAttr
mlir::tilegpu::getPermutedLayout(DistributedLayoutAttr source,
                                 ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> permutation) {
  SmallVector<std::string> order;
  for (int64_t d : permutation)
    order.push_back(tilec::tensorDimName(d));
  return DistributedLayoutAttr::get(
      source.getContext(), source.getLinearLayout(shape).transposeOuts(order));
}

bool mlir::tilegpu::isFreeConversion(RankedTensorType type,
                                     DistributedLayoutAttr from,
                                     DistributedLayoutAttr to) {
  if (from == to)
    return true;
  if (from.getNumWarps() != to.getNumWarps())
    return false;
  llvm::Expected<tilec::ConversionPlan> plan =
      tilec::planConversion(from.getLinearLayout(type.getShape()),
                            to.getLinearLayout(type.getShape()),
                            getElementBytes(type.getElementType()));
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return false;
  }
  return plan->kind == tilec::ConversionPlan::Kind::Free ||
         plan->kind == tilec::ConversionPlan::Kind::RegisterPermutation;
}
