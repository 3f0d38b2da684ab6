//===- ExpandForms.cpp - write the kernel language's shorthands out -*- C++ -*-===//
//
// The kernel language has shorthands that save the author a reshape, a
// constant or a conversion: loads and stores with `dims`, literal indices,
// `if %c` or another float type than the view's, broadcasts with `new_dims`,
// `tile.full` of a literal, `tile.arange` along a dimension, `tile.mma ...
// precision = tf32` (and `split_bf16`), the broadcasting ops (`tile.mulf`,
// `tile.cmpi`, `tile.where` ...), `tile.clamp`, `tile.pad`,
// `tile.delinearize` and the activation functions (`tile.softplus`,
// `tile.silu`). Each is defined as the longer form written here, so the
// interpreter and the lowering run this first and implement only the longer
// forms: the results cannot differ between the two spellings of a kernel.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// The value a load with `padding` reads outside its view, as an attribute
/// of the tile's element type.
TypedAttr getPaddingValue(Builder &b, Type element, Padding padding) {
  auto floatType = dyn_cast<FloatType>(element);
  if (!floatType)
    return b.getIntegerAttr(element, 0);
  const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
  switch (padding) {
  case Padding::zero:
    return b.getFloatAttr(floatType, APFloat::getZero(semantics));
  case Padding::nan:
    return b.getFloatAttr(floatType, APFloat::getQNaN(semantics));
  case Padding::neg_inf:
    return b.getFloatAttr(floatType, APFloat::getInf(semantics, true));
  case Padding::pos_inf:
    return b.getFloatAttr(floatType, APFloat::getInf(semantics, false));
  }
  llvm_unreachable("every padding is handled");
}

/// The i1 `condition != 0` of a form's `if %c` (an i1 as it is).
Value isNonZero(OpBuilder &b, Location loc, Value condition) {
  if (condition.getType().isInteger(1))
    return condition;
  Value zero =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(condition.getType()));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, condition,
                               zero);
}

/// tile.full of the f32 constant `value` with the shape of `type`.
Value fullOf(OpBuilder &b, Location loc, RankedTensorType type, double value) {
  Value scalar = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type.getElementType(), value));
  return FullOp::create(b, loc, type, scalar, TypedAttr());
}

/// `tile.load ... if %c`: scf.if (%c != 0) around the unconditional load,
/// with tile.full of the padding in the else branch.
void expandConditionalLoad(LoadOp op) {
  Value condition = op.getCondition();
  if (!condition)
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  condition = isNonZero(b, loc, condition);
  RankedTensorType type = op.getType();
  auto ifOp = scf::IfOp::create(
      b, loc, condition,
      [&](OpBuilder &then, Location at) {
        auto load = cast<LoadOp>(then.clone(*op));
        load.getConditionMutable().clear();
        scf::YieldOp::create(then, at, load.getResult());
      },
      [&](OpBuilder &otherwise, Location at) {
        TypedAttr padding =
            getPaddingValue(otherwise, type.getElementType(), op.getPadding());
        Value full = FullOp::create(otherwise, at, type, Value(), padding);
        scf::YieldOp::create(otherwise, at, full);
      });
  op.getResult().replaceAllUsesWith(ifOp.getResult(0));
  op.erase();
}

void expandConvert(ConvertOp op);

/// `type` with element type `element`.
RankedTensorType withElementType(RankedTensorType type, Type element) {
  return RankedTensorType::get(type.getShape(), element, type.getEncoding());
}

/// A load into another float type than the view's: the load of the view's
/// type, then tile.convert (written out too) to the tile's.
void expandConvertingLoad(LoadOp op) {
  RankedTensorType tile = op.getType();
  Type stored = op.getView().getType().getElementType();
  if (tile.getElementType() == stored)
    return;
  op.getResult().setType(withElementType(tile, stored));
  OpBuilder b(op);
  b.setInsertionPointAfter(op);
  auto convert = ConvertOp::create(b, op.getLoc(), tile, op.getResult());
  op.getResult().replaceAllUsesExcept(convert.getResult(), convert);
  expandConvert(convert);
}

/// `tile.store ... if %c`: scf.if (%c != 0) around the unconditional store.
void expandConditionalStore(StoreOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  scf::IfOp::create(b, loc, isNonZero(b, loc, op.getCondition()),
                    [&](OpBuilder &then, Location at) {
                      auto store = cast<StoreOp>(then.clone(*op));
                      store.getConditionMutable().clear();
                      scf::YieldOp::create(then, at);
                    });
  op.erase();
}

void expandLoad(LoadOp op) {
  expandConvertingLoad(op);
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
  RankedTensorType value = op.getValue().getType();
  Type stored = op.getView().getType().getElementType();
  if (value.getElementType() != stored) {
    OpBuilder b(op);
    op.getValueMutable().assign(ConvertOp::create(
        b, op.getLoc(), withElementType(value, stored), op.getValue()));
  }
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

void expandArange(ArangeOp op);

/// tile.arange along `dim` of a tile: the 1-D arange of that extent (from the
/// start, written out too), broadcast with the other dimensions new.
void expandArangeAlong(ArangeOp op, int64_t dim) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  auto line = ArangeOp::create(
      b, loc, makeTileType(getTileDims(type)[dim], type.getElementType()),
      op.getStart(), IntegerAttr());
  SmallVector<int64_t> others;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != dim)
      others.push_back(d);
  Value result = line.getResult();
  if (!others.empty()) {
    auto broadcast = BroadcastOp::create(b, loc, type, result,
                                         b.getDenseI64ArrayAttr(others));
    expandBroadcast(broadcast);
    result = broadcast.getResult();
  }
  op.replaceAllUsesWith(result);
  op.erase();
  expandArange(line);
}

void expandArange(ArangeOp op) {
  if (std::optional<int64_t> dim = op.getDim())
    return expandArangeAlong(op, *dim);
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

/// bf16 or f16 to tf32: the exact widening to f32, then the rounding (the
/// one conversion to tf32 the interpreter and the lowering implement).
void expandConvert(ConvertOp op) {
  RankedTensorType source = op.getSource().getType();
  Type from = source.getElementType();
  if (!isa<FloatTF32Type>(op.getType().getElementType()) ||
      isa<Float32Type, FloatTF32Type>(from))
    return;
  OpBuilder b(op);
  auto wide = RankedTensorType::get(source.getShape(), b.getF32Type(),
                                    source.getEncoding());
  op.getSourceMutable().assign(
      ConvertOp::create(b, op.getLoc(), wide, op.getSource()));
}

/// The bf16 halves of an mma operand: hi = bf16(v) and lo = bf16(v - hi)
/// (v widened to f32 first, exactly), lo null for a bf16 operand, which is
/// its own hi.
std::pair<Value, Value> splitToBf16(OpBuilder &b, Location loc, Value operand) {
  auto type = cast<RankedTensorType>(operand.getType());
  if (type.getElementType().isBF16())
    return {operand, Value()};
  auto withElement = [&](Type to) {
    return RankedTensorType::get(type.getShape(), to, type.getEncoding());
  };
  RankedTensorType wide = withElement(b.getF32Type());
  RankedTensorType half = withElement(b.getBF16Type());
  Value value = operand;
  if (!type.getElementType().isF32())
    value = ConvertOp::create(b, loc, wide, value);
  Value hi = ConvertOp::create(b, loc, half, value);
  Value rest = arith::SubFOp::create(b, loc, value,
                                     ConvertOp::create(b, loc, wide, hi));
  return {hi, ConvertOp::create(b, loc, half, rest)};
}

/// `precision = split_bf16`: acc + a_hi b_lo + a_lo b_hi + a_hi b_hi, the
/// small terms first, each a plain bf16 tile.mma on the previous sum (terms
/// with a missing lo left out).
void expandSplitBf16(MmaOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto [aHi, aLo] = splitToBf16(b, loc, op.getA());
  auto [bHi, bLo] = splitToBf16(b, loc, op.getB());
  Value sum = op.getAcc();
  auto add = [&](Value x, Value y) {
    sum = MmaOp::create(b, loc, op.getType(), x, y, sum, MmaPrecisionAttr());
  };
  if (bLo)
    add(aHi, bLo);
  if (aLo)
    add(aLo, bHi);
  add(aHi, bHi);
  op.replaceAllUsesWith(sum);
  op.erase();
}

void expandMma(MmaOp op) {
  std::optional<MmaPrecision> precision = op.getPrecision();
  if (!precision)
    return;
  if (*precision == MmaPrecision::split_bf16)
    return expandSplitBf16(op);
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

/// A broadcasting arithmetic op becomes `ArithOp` of its broadcast operands.
template <typename ArithOp, typename Op> void expandBroadcasting(Op op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  Value result = ArithOp::create(b, loc, broadcastTo(b, loc, op.getLhs(), type),
                                 broadcastTo(b, loc, op.getRhs(), type));
  op.replaceAllUsesWith(result);
  op.erase();
}

/// A broadcasting comparison becomes `ArithOp` (arith.cmpi or arith.cmpf)
/// of its operands broadcast to the result's shape in their element type.
template <typename ArithOp, typename Op> void expandBroadcastingCompare(Op op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType operands = makeTileType(
      getTileDims(op.getType()), getElementTypeOrSelf(op.getLhs().getType()));
  Value result = ArithOp::create(b, loc, op.getCmpPredicate(),
                                 broadcastTo(b, loc, op.getLhs(), operands),
                                 broadcastTo(b, loc, op.getRhs(), operands));
  op.replaceAllUsesWith(result);
  op.erase();
}

/// A broadcasting tile.where becomes the plain one of its operands broadcast
/// to the result (the condition in i1).
void expandWhere(WhereOp op) {
  if (op.isPlain())
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  RankedTensorType mask = makeTileType(getTileDims(type), b.getI1Type());
  Value condition = broadcastTo(b, loc, op.getCondition(), mask);
  Value trueValue = broadcastTo(b, loc, op.getTrueValue(), type);
  Value falseValue = broadcastTo(b, loc, op.getFalseValue(), type);
  auto plain = WhereOp::create(b, loc, type, condition, trueValue, falseValue);
  op.replaceAllUsesWith(plain.getResult());
  op.erase();
}

/// softplus(x): where(x <= 20, log1p(exp(x)), x).
Value buildSoftplus(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  Value soft = math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, x));
  Value threshold = fullOf(b, loc, type, 20.0);
  Value small = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, x,
                                      threshold);
  return WhereOp::create(b, loc, type, small, soft, x);
}

/// tile.softplus, in scf.if (%c != 0) with the identity in the else branch
/// when it has a condition.
void expandSoftplus(SoftplusOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getSource();
  Value result;
  if (Value condition = op.getCondition()) {
    auto ifOp = scf::IfOp::create(
        b, loc, isNonZero(b, loc, condition),
        [&](OpBuilder &then, Location at) {
          scf::YieldOp::create(then, at, buildSoftplus(then, at, x));
        },
        [&](OpBuilder &otherwise, Location at) {
          scf::YieldOp::create(otherwise, at, x);
        });
    result = ifOp.getResult(0);
  } else {
    result = buildSoftplus(b, loc, x);
  }
  op.replaceAllUsesWith(result);
  op.erase();
}

/// silu(x) = x / (1 + exp(-x)).
void expandSilu(SiluOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getSource();
  Value expNeg =
      math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  Value one = fullOf(b, loc, op.getType(), 1.0);
  Value denominator = arith::AddFOp::create(b, loc, one, expNeg);
  Value result = arith::DivFOp::create(b, loc, x, denominator);
  op.replaceAllUsesWith(result);
  op.erase();
}

/// clamp(x, low, high) = minimumf(maximumf(x, low), high).
void expandClamp(ClampOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  Value low = arith::MaximumFOp::create(
      b, loc, op.getSource(), broadcastTo(b, loc, op.getLow(), type));
  Value result = arith::MinimumFOp::create(
      b, loc, low, broadcastTo(b, loc, op.getHigh(), type));
  op.replaceAllUsesWith(result);
  op.erase();
}

/// The extent of `type` along `dim` as an index: a constant, or tile.param
/// of the parameter that names it.
Value extentOf(OpBuilder &b, Location loc, RankedTensorType type,
               int64_t dim) {
  TileDim extent = getTileDims(type)[dim];
  if (extent.isStatic())
    return arith::ConstantIndexOp::create(b, loc, extent.size);
  return ParamOp::create(b, loc, TypeRange{b.getIndexType()},
                         b.getStrArrayAttr({extent.symbol.getValue()}))
      .getResult(0);
}

/// tile.pad: where(arange along dim < the elements left in the tile, x,
/// padding), the elements left computed in index, clamped to [0, E] and
/// only then narrowed to i32.
void expandPad(PadOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  int64_t dim = op.getDim();
  Value extent = extentOf(b, loc, type, dim);
  Value start = arith::MulIOp::create(b, loc, op.getTileIndex(), extent);
  Value left = arith::SubIOp::create(b, loc, op.getExtent(), start);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value leftInTile = arith::MinUIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, left, zero), extent);
  Value leftI32 =
      arith::IndexCastOp::create(b, loc, b.getI32Type(), leftInTile);
  SmallVector<TileDim> lineDims(type.getRank(), TileDim{1, StringAttr()});
  lineDims[dim] = getTileDims(type)[dim];
  auto positions = ArangeOp::create(
      b, loc, makeTileType(lineDims, b.getI32Type()), Value(),
      b.getI64IntegerAttr(dim));
  RankedTensorType indices = makeTileType(getTileDims(type), b.getI32Type());
  Value inside = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::slt,
      broadcastTo(b, loc, positions.getResult(), indices),
      broadcastTo(b, loc, leftI32, indices));
  expandArange(positions);
  TypedAttr padding =
      getPaddingValue(b, type.getElementType(), op.getPadding());
  Value pads = FullOp::create(b, loc, type, Value(), padding);
  expandFull(cast<FullOp>(pads.getDefiningOp()));
  auto where = WhereOp::create(b, loc, type, inside, op.getSource(), pads);
  op.replaceAllUsesWith(where.getResult());
  op.erase();
}

/// tile.delinearize: for each extent from the last, the remainder is a
/// coordinate and the quotient is split further; the last quotient is the
/// outer coordinate.
void expandDelinearize(DelinearizeOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value rest = op.getIndex();
  SmallVector<Value> coords(op.getNumResults());
  for (int64_t i = op.getExtents().size() - 1; i >= 0; --i) {
    Value extent = op.getExtents()[i];
    Value quotient = arith::DivUIOp::create(b, loc, rest, extent);
    coords[i + 1] = arith::RemUIOp::create(b, loc, rest, extent);
    rest = quotient;
  }
  coords[0] = rest;
  op.replaceAllUsesWith(coords);
  op.erase();
}

struct TileExpandFormsPass
    : public tile::impl::TileExpandFormsBase<TileExpandFormsPass> {
  void runOnOperation() override { expandForms(getOperation()); }
};

} // namespace

void tile::expandForms(Operation *root) {
  // First, as they move loads and stores into new regions, which the walk
  // below then expands like any other.
  SmallVector<LoadOp> conditionalLoads;
  SmallVector<StoreOp> conditionalStores;
  root->walk([&](Operation *op) {
    if (auto load = dyn_cast<LoadOp>(op); load && load.getCondition())
      conditionalLoads.push_back(load);
    if (auto store = dyn_cast<StoreOp>(op); store && store.getCondition())
      conditionalStores.push_back(store);
  });
  for (LoadOp load : conditionalLoads)
    expandConditionalLoad(load);
  for (StoreOp store : conditionalStores)
    expandConditionalStore(store);
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
    else if (auto convert = dyn_cast<ConvertOp>(op))
      expandConvert(convert);
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
    else if (auto max = dyn_cast<MaximumFOp>(op))
      expandBroadcasting<arith::MaximumFOp>(max);
    else if (auto min = dyn_cast<MinimumFOp>(op))
      expandBroadcasting<arith::MinimumFOp>(min);
    else if (auto addi = dyn_cast<AddIOp>(op))
      expandBroadcasting<arith::AddIOp>(addi);
    else if (auto subi = dyn_cast<SubIOp>(op))
      expandBroadcasting<arith::SubIOp>(subi);
    else if (auto muli = dyn_cast<MulIOp>(op))
      expandBroadcasting<arith::MulIOp>(muli);
    else if (auto andi = dyn_cast<AndIOp>(op))
      expandBroadcasting<arith::AndIOp>(andi);
    else if (auto ori = dyn_cast<OrIOp>(op))
      expandBroadcasting<arith::OrIOp>(ori);
    else if (auto cmpi = dyn_cast<CmpIOp>(op))
      expandBroadcastingCompare<arith::CmpIOp>(cmpi);
    else if (auto cmpf = dyn_cast<CmpFOp>(op))
      expandBroadcastingCompare<arith::CmpFOp>(cmpf);
    else if (auto where = dyn_cast<WhereOp>(op))
      expandWhere(where);
    else if (auto softplus = dyn_cast<SoftplusOp>(op))
      expandSoftplus(softplus);
    else if (auto silu = dyn_cast<SiluOp>(op))
      expandSilu(silu);
    else if (auto clamp = dyn_cast<ClampOp>(op))
      expandClamp(clamp);
    else if (auto pad = dyn_cast<PadOp>(op))
      expandPad(pad);
    else if (auto delinearize = dyn_cast<DelinearizeOp>(op))
      expandDelinearize(delinearize);
  });
}
