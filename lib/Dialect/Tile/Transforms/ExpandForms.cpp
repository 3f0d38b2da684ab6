//===- ExpandForms.cpp - write the kernel language's shorthands out -*- C++ -*-===//
//
// The kernel language has shorthands that save the author a reshape, a
// constant or a conversion: loads and stores with `dims` and literal
// indices, broadcasts with `new_dims`, `tile.full` of a literal,
// `tile.mma ... precision = tf32` and the broadcasting float ops
// (`tile.mulf` ...). Each is defined as the longer form written
// here, so the interpreter and the lowering run this first and implement
// only the longer forms: the results cannot differ between the two
// spellings of a kernel.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEEXPANDFORMS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The indices of an access with every literal index an arith.constant.
SmallVector<Value> materializeIndices(OpBuilder &b, Location loc,
                                      ValueRange dynamic,
                                      std::optional<ArrayRef<int64_t>> mixed) {
  if (!mixed)
    return SmallVector<Value>(dynamic);
  SmallVector<Value> indices;
  unsigned next = 0;
  for (int64_t index : *mixed)
    indices.push_back(index == ShapedType::kDynamic
                          ? dynamic[next++]
                          : arith::ConstantIndexOp::create(b, loc, index));
  return indices;
}

void expandLoad(LoadOp op) {
  if (!op.getStaticIndices() && !op.getDims())
    return;
  OpBuilder b(op);
  op.getIndicesMutable().assign(materializeIndices(
      b, op.getLoc(), op.getIndices(), op.getStaticIndices()));
  op.removeStaticIndicesAttr();
  std::optional<ArrayRef<int64_t>> dims = op.getDims();
  if (!dims)
    return;
  RankedTensorType tile = op.getType();
  FullRankAccess access =
      getFullRankAccess(tile, op.getView().getType().getRank(), *dims);
  op.removeDimsAttr();
  if (!access.order.empty())
    op.setOrder(access.order);
  op.getResult().setType(access.type);
  b.setInsertionPointAfter(op);
  auto reshape = ReshapeOp::create(b, op.getLoc(), tile, op.getResult());
  op.getResult().replaceAllUsesExcept(reshape.getResult(), reshape);
}

void expandStore(StoreOp op) {
  if (!op.getStaticIndices() && !op.getDims())
    return;
  OpBuilder b(op);
  op.getIndicesMutable().assign(materializeIndices(
      b, op.getLoc(), op.getIndices(), op.getStaticIndices()));
  op.removeStaticIndicesAttr();
  std::optional<ArrayRef<int64_t>> dims = op.getDims();
  if (!dims)
    return;
  FullRankAccess access = getFullRankAccess(
      op.getValue().getType(), op.getView().getType().getRank(), *dims);
  op.removeDimsAttr();
  if (!access.order.empty())
    op.setOrder(access.order);
  op.getValueMutable().assign(
      ReshapeOp::create(b, op.getLoc(), access.type, op.getValue()));
}

void expandBroadcast(BroadcastOp op) {
  if (!op.getNewDims())
    return;
  OpBuilder b(op);
  Value expanded = ReshapeOp::create(b, op.getLoc(),
                                     op.getExpandedSourceType(), op.getSource());
  op.getSourceMutable().assign(expanded);
  op.removeNewDimsAttr();
}

void expandFull(FullOp op) {
  std::optional<TypedAttr> constant = op.getConstant();
  if (!constant)
    return;
  OpBuilder b(op);
  op.getValueMutable().assign(
      arith::ConstantOp::create(b, op.getLoc(), *constant));
  op.removeConstantAttr();
}

void expandArange(ArangeOp op) {
  Value start = op.getStart();
  if (!start)
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  Value first =
      arith::IndexCastOp::create(b, loc, type.getElementType(), start);
  Value firsts = FullOp::create(b, loc, type, first, TypedAttr());
  op.getStartMutable().clear();
  b.setInsertionPointAfter(op);
  auto sum = arith::AddIOp::create(b, loc, op.getResult(), firsts);
  op.getResult().replaceAllUsesExcept(sum.getResult(), sum);
}

/// An mma operand rounded to tf32 as tile.convert does: through f32, which
/// every other float converts to exactly.
Value roundToTf32(OpBuilder &b, Location loc, Value operand) {
  auto type = cast<RankedTensorType>(operand.getType());
  Type element = type.getElementType();
  if (isa<FloatTF32Type>(element))
    return operand;
  auto withElement = [&](Type to) {
    return RankedTensorType::get(type.getShape(), to, type.getEncoding());
  };
  if (!isa<Float32Type>(element))
    operand = ConvertOp::create(b, loc, withElement(b.getF32Type()), operand);
  return ConvertOp::create(b, loc, withElement(b.getTF32Type()), operand);
}

void expandMma(MmaOp op) {
  if (!op.getPrecision())
    return;
  OpBuilder b(op);
  op.getAMutable().assign(roundToTf32(b, op.getLoc(), op.getA()));
  op.getBMutable().assign(roundToTf32(b, op.getLoc(), op.getB()));
  op.removePrecisionAttr();
}

/// `operand` broadcast to `type`: itself when it has that type, tile.full of
/// a scalar, or tile.broadcast with the dimensions it lacks in front (as
/// new_dims, written out here too).
Value broadcastTo(OpBuilder &b, Location loc, Value operand,
                  RankedTensorType type) {
  if (operand.getType() == type)
    return operand;
  auto tile = dyn_cast<RankedTensorType>(operand.getType());
  if (!tile)
    return FullOp::create(b, loc, type, operand, TypedAttr());
  DenseI64ArrayAttr newDims;
  if (int64_t missing = type.getRank() - tile.getRank())
    newDims =
        b.getDenseI64ArrayAttr(llvm::to_vector(llvm::seq<int64_t>(0, missing)));
  auto broadcast = BroadcastOp::create(b, loc, type, operand, newDims);
  expandBroadcast(broadcast);
  return broadcast.getResult();
}

/// A broadcasting float op becomes `ArithOp` of its broadcast operands.
template <typename ArithOp, typename Op> void expandBroadcasting(Op op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  Value result = ArithOp::create(b, loc, broadcastTo(b, loc, op.getLhs(), type),
                                 broadcastTo(b, loc, op.getRhs(), type));
  op.replaceAllUsesWith(result);
  op.erase();
}

struct TileExpandFormsPass
    : public tile::impl::TileExpandFormsBase<TileExpandFormsPass> {
  void runOnOperation() override { expandForms(getOperation()); }
};

} // namespace

void tile::expandForms(Operation *root) {
  root->walk([](Operation *op) {
    if (auto load = dyn_cast<LoadOp>(op))
      expandLoad(load);
    else if (auto store = dyn_cast<StoreOp>(op))
      expandStore(store);
    else if (auto broadcast = dyn_cast<BroadcastOp>(op))
      expandBroadcast(broadcast);
    else if (auto full = dyn_cast<FullOp>(op))
      expandFull(full);
    else if (auto mma = dyn_cast<MmaOp>(op))
      expandMma(mma);
    else if (auto arange = dyn_cast<ArangeOp>(op))
      expandArange(arange);
    else if (auto add = dyn_cast<AddFOp>(op))
      expandBroadcasting<arith::AddFOp>(add);
    else if (auto sub = dyn_cast<SubFOp>(op))
      expandBroadcasting<arith::SubFOp>(sub);
    else if (auto mul = dyn_cast<MulFOp>(op))
      expandBroadcasting<arith::MulFOp>(mul);
    else if (auto div = dyn_cast<DivFOp>(op))
      expandBroadcasting<arith::DivFOp>(div);
  });
}
