//===- ExpandForms.cpp - write the kernel language's shorthands out -*- C++ -*-===//
//
// The kernel language has shorthands that save the author a reshape, a
// constant or a conversion: loads and stores with `dims`, literal indices,
// `if %c` or another float type than the view's, broadcasts with `new_dims`,
// `tile.full` of a literal, `tile.arange` along a dimension, `tile.mma ...
// precision = tf32` (and `split_bf16`), the broadcasting ops (`tile.mulf`,
// `tile.cmpi`, `tile.where` ...), `tile.clamp`, `tile.pad`,
// `tile.delinearize` and `tile.linearize` (with `tiles(...)` extents),
// `tile.tri`, `tile.for`, `tile.where` of a scalar flag, `unless` on loads
// and stores, and the activation functions (`tile.softplus`, `tile.silu`).
// Each is defined as the longer form written here, so the
// interpreter and the lowering run this first and implement only the longer
// forms: the results cannot differ between the two spellings of a kernel.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

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

/// The i1 of a load's or store's `if %c` (`%c != 0`) or `unless %c`
/// (`%c == 0`; an i1 negated).
Value accessCondition(OpBuilder &b, Location loc, Value condition,
                      bool unless) {
  if (!unless)
    return isNonZero(b, loc, condition);
  if (condition.getType().isInteger(1))
    return arith::XOrIOp::create(
        b, loc, condition, arith::ConstantIntOp::create(b, loc, 1, 1));
  Value zero =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(condition.getType()));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, condition,
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
  condition = accessCondition(b, loc, condition, op.getUnless());
  RankedTensorType type = op.getType();
  auto ifOp = scf::IfOp::create(
      b, loc, condition,
      [&](OpBuilder &then, Location at) {
        auto load = cast<LoadOp>(then.clone(*op));
        load.getConditionMutable().clear();
        load.setUnless(false);
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
  Value condition =
      accessCondition(b, loc, op.getCondition(), op.getUnless());
  scf::IfOp::create(b, loc, condition,
                    [&](OpBuilder &then, Location at) {
                      auto store = cast<StoreOp>(then.clone(*op));
                      store.getConditionMutable().clear();
                      store.setUnless(false);
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
  // Two bf16 (or two f16) operands convert to tf32 exactly, and their
  // products are exact in either format: the plain 16-bit product is the
  // same one at twice the tensor cores' tf32 rate (compute_out's state term
  // with a bf16 state).
  Type aElement = op.getA().getType().getElementType();
  if (aElement == op.getB().getType().getElementType() &&
      isa<BFloat16Type, Float16Type>(aElement)) {
    op.removePrecisionAttr();
    return;
  }
  OpBuilder b(op);
  op.getAMutable().assign(roundToTf32(b, op.getLoc(), op.getA()));
  op.getBMutable().assign(roundToTf32(b, op.getLoc(), op.getB()));
  op.removePrecisionAttr();
}

/// The op before which a value computed from `value` alone is best placed
/// for `op`: the outermost scf.for around `op` that `value` is defined
/// outside of (so the value is not formed again in every step), else `op`.
Operation *hoistedPlace(Operation *op, Value value) {
  Operation *place = op;
  Region *defined = value.getParentRegion();
  for (Operation *loop = op->getParentOp(); isa_and_nonnull<scf::ForOp>(loop);
       loop = loop->getParentOp()) {
    if (loop->isAncestor(defined->getParentOp()))
      break;
    place = loop;
  }
  return place;
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

/// `operand` broadcast to `type` for `op`, formed before the loops around
/// `op` that do not define `operand` (a row broadcast once, not per step).
Value broadcastOperand(Operation *op, Value operand, RankedTensorType type) {
  OpBuilder at(hoistedPlace(op, operand));
  return broadcastTo(at, op->getLoc(), operand, type);
}

/// A broadcasting arithmetic op becomes `ArithOp` of its broadcast operands.
template <typename ArithOp, typename Op> void expandBroadcasting(Op op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  Value result =
      ArithOp::create(b, loc, broadcastOperand(op, op.getLhs(), type),
                      broadcastOperand(op, op.getRhs(), type));
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
                                 broadcastOperand(op, op.getLhs(), operands),
                                 broadcastOperand(op, op.getRhs(), operands));
  op.replaceAllUsesWith(result);
  op.erase();
}

/// Moves into `block` (at its start) the producers of `value` that have no
/// side effect and no region and whose results only `block` uses, from
/// `value`'s own producer up: what only one branch of an scf.if needs is
/// computed in that branch. An op is moved once all its users are inside,
/// and its operands' producers after it, each to the front, so every op
/// still follows what it uses.
void sinkProducers(Block &block, Value value) {
  Operation *branch = block.getParentOp();
  SmallVector<Operation *> worklist;
  if (Operation *def = value.getDefiningOp())
    worklist.push_back(def);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (op->getBlock() != branch->getBlock() || op->getNumRegions() != 0 ||
        !isMemoryEffectFree(op))
      continue;
    bool onlyInside = llvm::all_of(op->getUsers(), [&](Operation *user) {
      return block.findAncestorOpInBlock(*user) != nullptr;
    });
    if (!onlyInside)
      continue;
    op->moveBefore(&block.front());
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
  }
}

/// tile.where of a scalar i1: scf.if yielding either value (broadcast to
/// the result), each computed in its branch where only that branch uses it.
void expandScalarWhere(WhereOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  auto ifOp = scf::IfOp::create(
      b, loc, op.getCondition(),
      [&](OpBuilder &then, Location at) {
        scf::YieldOp::create(then, at,
                             broadcastTo(then, at, op.getTrueValue(), type));
      },
      [&](OpBuilder &otherwise, Location at) {
        scf::YieldOp::create(
            otherwise, at, broadcastTo(otherwise, at, op.getFalseValue(), type));
      });
  Value trueValue = op.getTrueValue(), falseValue = op.getFalseValue();
  op.replaceAllUsesWith(ifOp.getResult(0));
  op.erase();
  sinkProducers(ifOp.getThenRegion().front(), trueValue);
  sinkProducers(ifOp.getElseRegion().front(), falseValue);
}

/// A broadcasting tile.where becomes the plain one of its operands broadcast
/// to the result (the condition in i1).
void expandWhere(WhereOp op) {
  if (op.isPlain())
    return;
  if (!isa<RankedTensorType>(op.getCondition().getType()))
    return expandScalarWhere(op);
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  RankedTensorType mask = makeTileType(getTileDims(type), b.getI1Type());
  Value condition = broadcastOperand(op, op.getCondition(), mask);
  Value trueValue = broadcastOperand(op, op.getTrueValue(), type);
  Value falseValue = broadcastOperand(op, op.getFalseValue(), type);
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
      b, loc, op.getSource(), broadcastOperand(op, op.getLow(), type));
  Value result = arith::MinimumFOp::create(
      b, loc, low, broadcastOperand(op, op.getHigh(), type));
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

/// The extents of tile.delinearize or tile.linearize, each `tiles(%e, %s)`
/// as arith.ceildivui of its two operands.
SmallVector<Value> materializeExtents(OpBuilder &b, Location loc,
                                      ValueRange operands,
                                      std::optional<ArrayRef<bool>> tiled) {
  if (!tiled)
    return SmallVector<Value>(operands);
  SmallVector<Value> extents;
  unsigned next = 0;
  for (bool isTiles : *tiled) {
    if (!isTiles) {
      extents.push_back(operands[next++]);
      continue;
    }
    extents.push_back(arith::CeilDivUIOp::create(b, loc, operands[next],
                                                 operands[next + 1]));
    next += 2;
  }
  return extents;
}

/// tile.delinearize: for each extent from the last, the remainder is a
/// coordinate and the quotient is split further; the last quotient is the
/// outer coordinate.
void expandDelinearize(DelinearizeOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value rest = op.getIndex();
  SmallVector<Value> extents =
      materializeExtents(b, loc, op.getExtents(), op.getTiled());
  SmallVector<Value> coords(op.getNumResults());
  for (int64_t i = extents.size() - 1; i >= 0; --i) {
    Value extent = extents[i];
    Value quotient = arith::DivUIOp::create(b, loc, rest, extent);
    coords[i + 1] = arith::RemUIOp::create(b, loc, rest, extent);
    rest = quotient;
  }
  coords[0] = rest;
  op.replaceAllUsesWith(coords);
  op.erase();
}

/// tile.linearize: (c0 * e1 + c1) * e2 + c2 ..., from the outer coordinate.
void expandLinearize(LinearizeOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value index = op.getCoords().front();
  SmallVector<Value> extents =
      materializeExtents(b, loc, op.getExtents(), op.getTiled());
  for (auto [extent, coord] : llvm::zip(extents, op.getCoords().drop_front()))
    index = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, index, extent), coord);
  op.replaceAllUsesWith(index);
  op.erase();
}

/// tile.tri: the row and column positions of the tile (aranges from its
/// starts along dimensions 0 and 1, written out too), compared `sge`. The
/// row positions depend on the row index only: they are formed before the
/// loops that do not change it, as a kernel that wrote them out would.
void expandTri(TriOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  RankedTensorType positions =
      makeTileType(getTileDims(type), b.getI32Type());
  auto along = [&](Value tileIndex, int64_t dim) {
    OpBuilder at(hoistedPlace(op, tileIndex));
    Value start = arith::MulIOp::create(at, loc, tileIndex,
                                        extentOf(at, loc, type, dim));
    return ArangeOp::create(at, loc, positions, start,
                            at.getI64IntegerAttr(dim));
  };
  ArangeOp rows = along(op.getRow(), 0);
  ArangeOp cols = along(op.getCol(), 1);
  Value mask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                     rows.getResult(), cols.getResult());
  op.replaceAllUsesWith(mask);
  op.erase();
  // Written out once the compare uses them, which they then replace.
  expandArange(rows);
  expandArange(cols);
}

/// tile.for: scf.for from 0 to the count (the extent's tiles: ceildiv by
/// the size) by 1, with the body moved over and tile.yield made scf.yield.
void expandFor(ForOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value count = op.getCount();
  if (Value size = op.getTileSize())
    count = arith::CeilDivUIOp::create(b, loc, count, size);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, zero, count, one, op.getInits());
  loop.getRegion().front().erase();
  loop.getRegion().takeBody(op.getBody());
  Block &body = loop.getRegion().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  b.setInsertionPoint(yield);
  scf::YieldOp::create(b, yield.getLoc(), yield.getResults());
  yield.erase();
  op.replaceAllUsesWith(loop.getResults());
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
  SmallVector<ForOp> loops;
  root->walk([&](ForOp loop) { loops.push_back(loop); });
  for (ForOp loop : loops)
    expandFor(loop);
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
    TypeSwitch<Operation *>(op)
        .Case([](LoadOp load) { expandLoad(load); })
        .Case([](StoreOp store) { expandStore(store); })
        .Case([](BroadcastOp broadcast) { expandBroadcast(broadcast); })
        .Case([](FullOp full) { expandFull(full); })
        .Case([](MmaOp mma) { expandMma(mma); })
        .Case([](ConvertOp convert) { expandConvert(convert); })
        .Case([](ArangeOp arange) { expandArange(arange); })
        .Case([](AddFOp op) { expandBroadcasting<arith::AddFOp>(op); })
        .Case([](SubFOp op) { expandBroadcasting<arith::SubFOp>(op); })
        .Case([](MulFOp op) { expandBroadcasting<arith::MulFOp>(op); })
        .Case([](DivFOp op) { expandBroadcasting<arith::DivFOp>(op); })
        .Case([](MaximumFOp op) { expandBroadcasting<arith::MaximumFOp>(op); })
        .Case([](MinimumFOp op) { expandBroadcasting<arith::MinimumFOp>(op); })
        .Case([](AddIOp op) { expandBroadcasting<arith::AddIOp>(op); })
        .Case([](SubIOp op) { expandBroadcasting<arith::SubIOp>(op); })
        .Case([](MulIOp op) { expandBroadcasting<arith::MulIOp>(op); })
        .Case([](AndIOp op) { expandBroadcasting<arith::AndIOp>(op); })
        .Case([](OrIOp op) { expandBroadcasting<arith::OrIOp>(op); })
        .Case([](CmpIOp op) { expandBroadcastingCompare<arith::CmpIOp>(op); })
        .Case([](CmpFOp op) { expandBroadcastingCompare<arith::CmpFOp>(op); })
        .Case([](WhereOp where) { expandWhere(where); })
        .Case([](SoftplusOp softplus) { expandSoftplus(softplus); })
        .Case([](SiluOp silu) { expandSilu(silu); })
        .Case([](ClampOp clamp) { expandClamp(clamp); })
        .Case([](PadOp pad) { expandPad(pad); })
        .Case([](DelinearizeOp op) { expandDelinearize(op); })
        .Case([](LinearizeOp op) { expandLinearize(op); })
        .Case([](TriOp tri) { expandTri(tri); });
  });
}
