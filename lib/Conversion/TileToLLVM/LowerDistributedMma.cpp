//===- LowerDistributedMma.cpp - tile.mma on the layouts path ---*- C++ -*-===//
//
// tile.mma through the MmaTarget its layouts were chosen for (MmaTarget.h:
// mma.sync on registers, wgmma from shared memory on sm_90a). f32
// products, and layouts that no target takes, are fused multiply-adds
// through the scratch area (the v1 algorithm: each thread sums its own
// accumulator elements over K in order).
//
//===----------------------------------------------------------------------===//

#include "MmaTarget.h"

#include "tilec/Dialect/TileGPU/Transforms/LayoutRules.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

namespace {

int64_t fmaOffsetB(tile::MmaOp op) {
  return llvm::alignTo(getScratchBytes(op.getA().getType()), 16);
}

/// acc[i, j] + sum_k A[i, k] B[k, j] by fused multiply-adds in k order, A
/// and B from the scratch area.
Value emitFma(Emitter &e, tile::MmaOp op, Value a, Value b, Value acc) {
  RankedTensorType aType = op.getA().getType(), bType = op.getB().getType();
  storeToScratch(e, DistributedTile(e, aType), a);
  storeToScratch(e, DistributedTile(e, bType), b, fmaOffsetB(op));
  e.barrier();
  Type element = TileTypeConverter::getRegisterType(aType.getElementType());
  Type f32 = e.b.getF32Type();
  SharedLayout sharedA =
      SharedLayout::rowMajor(aType.getShape(), getSharedBytes(element), 0);
  SharedLayout sharedB = SharedLayout::rowMajor(
      bType.getShape(), getSharedBytes(element), fmaOffsetB(op));
  auto load = [&](const SharedLayout &layout, Value row, Value col) {
    Value value = e.loadShared(
        element,
        e.sharedAddress(layout, element, e.dot({row, col}, layout.strides)));
    return toAccumulator(e, value, f32);
  };
  DistributedTile tile(e, op.getAcc().getType());
  Value result = acc;
  for (int64_t r = 0; r < tile.getNumRegisters(); ++r) {
    SmallVector<Value> coords = tile.coords(e, r, /*clamp=*/true);
    Value sum = e.loop(e.i32(0), e.i32(aType.getDimSize(1)),
                       e.extract(result, r), [&](Value k, ValueRange partial) {
                         return SmallVector<Value>{LLVM::FMAOp::create(
                             e.b, e.loc, load(sharedA, coords[0], k),
                             load(sharedB, k, coords[1]), partial[0])};
                       })[0];
    result = e.insert(result, sum, r);
  }
  e.barrier();
  return result;
}

/// The address of the first element of the buffer stage `operand` is read
/// from (findBufferRead), or null.
Value lowerBufferRead(Emitter &e, ConversionPatternRewriter &rewriter,
                      Value operand) {
  std::optional<BufferRead> found = findBufferRead(operand);
  if (!found)
    return Value();
  tilegpu::LocalLoadOp read = found->read;
  Value stage = read.getStage() ? rewriter.getRemappedValue(read.getStage())
                                : Value();
  return stageBase(e, read.getBuffer().getType(),
                   rewriter.getRemappedValue(read.getBuffer()), stage);
}

struct DistributedMmaLowering : TilePattern<tile::MmaOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::MmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    Value result;
    if (const MmaTarget *target = selectMmaTarget(op)) {
      MmaSharedOperands shared;
      if (target->readsSharedOperands()) {
        shared.a = lowerBufferRead(e, rewriter, op.getA());
        shared.b = lowerBufferRead(e, rewriter, op.getB());
      }
      auto lowered = [&](Value value) {
        return rewriter.getRemappedValue(value);
      };
      shared.lowered = lowered;
      result = target->emitMma(e, op, adaptor.getA(), adaptor.getB(),
                               adaptor.getAcc(), shared);
    } else if (op->hasAttr(tilegpu::kWgmmaAttrName)) {
      return op.emitOpError()
             << "is marked for wgmma but its accumulator is not in the "
                "wgmma accumulator layout";
    } else {
      result = emitFma(e, op, adaptor.getA(), adaptor.getB(), adaptor.getAcc());
    }
    // The result takes the accumulator's layout unless told otherwise.
    if (op.getType() != op.getAcc().getType())
      result = convertDistributed(
          e, DistributedTile(e, op.getAcc().getType()), result,
          getDistributedLinearLayout(op.getType()), registersOf(op.getType()));
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

LogicalResult tilec::detail::checkMmaTargets(ModuleOp module, unsigned sm) {
  WalkResult result = module.walk([&](tile::MmaOp op) {
    if (!op->hasAttr(tilegpu::kWgmmaAttrName) || sm == 90)
      return WalkResult::advance();
    op.emitOpError() << "has the wgmma layouts of sm_90a "
                        "(tilegpu-assign-layouts sm=90) but is lowered for sm="
                     << sm;
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

const MmaTarget *tilec::detail::selectMmaTarget(tile::MmaOp op) {
  if (op->hasAttr(tilegpu::kWgmmaAttrName))
    return getWgmmaTarget().matches(op) ? &getWgmmaTarget() : nullptr;
  if (getMmaSyncTarget().matches(op))
    return &getMmaSyncTarget();
  return nullptr;
}

int64_t tilec::detail::getDistributedMmaScratchBytes(tile::MmaOp op) {
  int64_t bytes = 0;
  if (const MmaTarget *target = selectMmaTarget(op))
    bytes = target->getScratchBytes(op);
  else
    bytes = fmaOffsetB(op) + getScratchBytes(op.getB().getType());
  if (op.getType() != op.getAcc().getType())
    bytes = std::max(bytes, getConversionScratchBytes(
                                op.getAcc().getType(),
                                getDistributedLinearLayout(op.getType())));
  return bytes;
}

void tilec::detail::populateDistributedMmaPatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DistributedMmaLowering>(converter, patterns.getContext());
}
