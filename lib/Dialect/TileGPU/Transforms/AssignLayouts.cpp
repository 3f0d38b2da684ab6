//===- AssignLayouts.cpp - register layouts for bound tile IR ---*- C++ -*-===//
//
// One walk in program order: anchors get their layouts, every other tile the
// layout its op derives from its operands, and a tilegpu.convert_layout goes
// wherever an operand is not in the layout its user needs. Choosing well
// among the remaining conversions is tilegpu-remove-layout-conversions' job.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/LayoutRules.h"
#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUASSIGNLAYOUTS
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// Ops whose result element i depends on operand element i only.
bool isElementwise(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() ||
         isa<tile::Exp2Op, tile::ConvertOp, tile::WhereOp>(op);
}

bool hasTileTypes(Operation *op) {
  auto isTile = [](Type t) { return isa<RankedTensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTile) ||
         llvm::any_of(op->getResultTypes(), isTile);
}

/// Whether `op` is one of the kernel language's shorthands, which
/// tile-expand-forms writes out into the ops the layout rules know.
bool isShorthand(Operation *op) {
  if (auto load = dyn_cast<tile::LoadOp>(op))
    return load.getDims() || load.getStaticIndices();
  if (auto store = dyn_cast<tile::StoreOp>(op))
    return store.getDims() || store.getStaticIndices();
  if (auto full = dyn_cast<tile::FullOp>(op))
    return bool(full.getConstant());
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(op))
    return bool(broadcast.getNewDims());
  if (auto mma = dyn_cast<tile::MmaOp>(op))
    return bool(mma.getPrecision());
  return isa<tile::AddFOp, tile::SubFOp, tile::MulFOp, tile::DivFOp>(op);
}

/// The tile dim that walks the view's innermost (contiguous) dim.
unsigned getContiguousDim(std::optional<ArrayRef<int64_t>> order,
                          unsigned rank) {
  if (order)
    for (auto [k, d] : llvm::enumerate(*order))
      if (d == int64_t(rank) - 1)
        return k;
  return rank - 1;
}

/// Whether `value`, reached through reshapes, is a tile.load: an operand
/// tilegpu-pipeline may copy into a buffer that wgmma reads as it lies.
bool isLoaded(Value value) {
  while (auto reshape = value.getDefiningOp<tile::ReshapeOp>())
    value = reshape.getSource();
  return value.getDefiningOp<tile::LoadOp>() != nullptr;
}

/// The layouts that let wgmma products read operand A from registers: A in
/// the fragment layout (getWgmmaRegisterALayout), and every tile A is
/// computed from in the layout that forms A in it directly, back through
/// elementwise ops, broadcasts, reshapes and the values both branches of an
/// scf.if yield to loads, constants and aranges. A product takes the path
/// only where that walk reaches nothing else (a loop argument, another
/// product, a reduction would need a conversion of a whole tile, which costs
/// what the store of A saves) and agrees with the layouts earlier products
/// asked for.
class RegisterOperands {
public:
  RegisterOperands(tile::KernelOp kernel, unsigned sm) {
    if (sm != 90)
      return;
    unsigned numWarps = kernel.getNumWarps();
    kernel.walk([&](tile::MmaOp mma) {
      auto a = cast<RankedTensorType>(mma.getA().getType());
      auto b = cast<RankedTensorType>(mma.getB().getType());
      std::optional<MmaLayouts> layouts = getMmaLayouts(a, b, numWarps, sm);
      if (!layouts || !layouts->wgmma || isLoaded(mma.getA()))
        return;
      DistributedLayoutAttr fragment = getWgmmaRegisterALayout(a, b, numWarps);
      if (!fragment)
        return;
      DenseMap<Value, DistributedLayoutAttr> wanted = preferred;
      if (!want(wanted, mma.getA(), fragment))
        return;
      preferred = std::move(wanted);
      operandA[mma] = fragment;
    });
  }

  /// The layout `value` is to be formed in, or null.
  DistributedLayoutAttr lookup(Value value) const {
    return preferred.lookup(value);
  }
  /// The register layout of A for `mma`, or null (A from shared memory).
  DistributedLayoutAttr lookup(tile::MmaOp mma) const {
    return operandA.lookup(mma);
  }

private:
  /// Records `value` (and what it is computed from) in `layout`; false where
  /// the walk reaches a tile it cannot form in it.
  bool want(DenseMap<Value, DistributedLayoutAttr> &wanted, Value value,
            DistributedLayoutAttr layout) {
    auto [it, inserted] = wanted.try_emplace(value, layout);
    if (!inserted)
      return it->second == layout;
    Operation *def = value.getDefiningOp();
    if (!def)
      return false;
    if (isa<tile::LoadOp, tile::FullOp, tile::ArangeOp, arith::ConstantOp>(
            def))
      return true;
    auto shapeOf = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getShape();
    };
    if (auto broadcast = dyn_cast<tile::BroadcastOp>(def))
      return want(wanted, broadcast.getSource(),
                  getBroadcastSourceLayout(layout, shapeOf(value),
                                           shapeOf(broadcast.getSource())));
    if (auto reshape = dyn_cast<tile::ReshapeOp>(def)) {
      DistributedLayoutAttr source = getReshapedLayout(
          layout, shapeOf(value), shapeOf(reshape.getSource()));
      return source && want(wanted, reshape.getSource(), source);
    }
    if (auto branch = dyn_cast<scf::IfOp>(def)) {
      unsigned index = cast<OpResult>(value).getResultNumber();
      return !branch.getElseRegion().empty() &&
             want(wanted, branch.thenYield()->getOperand(index), layout) &&
             want(wanted, branch.elseYield()->getOperand(index), layout);
    }
    if (!isElementwise(def) || def->getNumResults() != 1)
      return false;
    for (Value operand : def->getOperands())
      if (isa<RankedTensorType>(operand.getType()) &&
          !want(wanted, operand, layout))
        return false;
    return true;
  }

  DenseMap<Value, DistributedLayoutAttr> preferred;
  DenseMap<Operation *, DistributedLayoutAttr> operandA;
};

class LayoutAssigner {
public:
  LayoutAssigner(tile::KernelOp kernel, bool vectorize, unsigned sm)
      : numWarps(kernel.getNumWarps()), vectorize(vectorize), sm(sm),
        registerOperands(kernel, sm) {}

  LogicalResult assign(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block))
      if (failed(assign(&op)))
        return failure();
    return success();
  }

private:
  LogicalResult assign(Operation *op);
  LogicalResult assignFor(scf::ForOp loop);
  LogicalResult assignIf(scf::IfOp branch);

  DistributedLayoutAttr layoutOf(Value v) {
    return getDistributedLayout(v.getType());
  }
  void setLayout(Value v, DistributedLayoutAttr layout, bool isWeak) {
    v.setType(withLayout(v.getType(), layout));
    if (isWeak)
      weak.insert(v);
  }
  /// Operand `index` of `user` in `layout`, through a conversion if needed.
  void require(Operation *user, unsigned index, DistributedLayoutAttr layout) {
    Value v = user->getOperand(index);
    if (layoutOf(v) == layout)
      return;
    OpBuilder builder(user);
    Value converted = builder.create<ConvertLayoutOp>(
        user->getLoc(), withLayout(v.getType(), layout), v);
    user->setOperand(index, converted);
  }

  /// Whether accesses of `view` are vectorised: the variant has the facts
  /// and the view is not marked `tile.any_strides`.
  bool vectorizes(Value view) const {
    return vectorize && !tile::hasAnyStrides(view);
  }

  unsigned numWarps;
  bool vectorize;
  unsigned sm;
  RegisterOperands registerOperands;
  /// Tiles whose layout is the default rather than an anchor's: an
  /// elementwise op prefers its other operands' layouts.
  DenseSet<Value> weak;
};

LogicalResult LayoutAssigner::assign(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return assignFor(loop);
  if (auto branch = dyn_cast<scf::IfOp>(op))
    return assignIf(branch);
  if (isa<scf::YieldOp>(op) || !hasTileTypes(op))
    return success();
  if (op->getNumRegions() != 0)
    return op->emitOpError()
           << "has regions that tilegpu-assign-layouts cannot see into";
  if (isShorthand(op))
    return op->emitOpError()
           << "is a shorthand of the kernel language: run "
              "tile-expand-forms before tilegpu-assign-layouts";
  for (Type type :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
    if (auto tile = dyn_cast<RankedTensorType>(type);
        tile && !tile.hasStaticShape())
      return op->emitOpError()
             << "has a tile of unbound shape: run "
                "tile-bind-params before layouts are assigned";

  auto tileOf = [](Value v) { return cast<RankedTensorType>(v.getType()); };
  if (auto load = dyn_cast<tile::LoadOp>(op)) {
    RankedTensorType tile = tileOf(load.getResult());
    DistributedLayoutAttr layout = registerOperands.lookup(load.getResult());
    if (!layout)
      layout = getAccessLayout(
          tile, getContiguousDim(load.getOrder(), tile.getRank()),
          vectorizes(load.getView()), numWarps);
    setLayout(load.getResult(), layout, false);
    return success();
  }
  if (auto store = dyn_cast<tile::StoreOp>(op)) {
    RankedTensorType tile = tileOf(store.getValue());
    require(op, 0,
            getAccessLayout(tile,
                            getContiguousDim(store.getOrder(), tile.getRank()),
                            vectorizes(store.getView()), numWarps));
    return success();
  }
  if (auto mma = dyn_cast<tile::MmaOp>(op)) {
    std::optional<MmaLayouts> layouts = getMmaLayouts(
        tileOf(mma.getA()), tileOf(mma.getB()), numWarps, sm);
    if (!layouts) {
      // FMA products read any operand layout; the result is the accumulator's.
      setLayout(mma.getResult(), layoutOf(mma.getAcc()), false);
      return success();
    }
    // wgmma takes A and B in any layout (it stores them to shared memory),
    // A in its fragment layout from registers.
    if (DistributedLayoutAttr registersA = registerOperands.lookup(mma))
      require(op, 0, registersA);
    else if (layouts->a)
      require(op, 0, layouts->a);
    if (layouts->b)
      require(op, 1, layouts->b);
    if (layouts->wgmma)
      op->setAttr(kWgmmaAttrName, UnitAttr::get(op->getContext()));
    require(op, 2, layouts->acc);
    setLayout(mma.getResult(), layouts->acc, false);
    return success();
  }
  if (isa<tile::FullOp, tile::ArangeOp, arith::ConstantOp>(op)) {
    Value result = op->getResult(0);
    if (DistributedLayoutAttr layout = registerOperands.lookup(result))
      setLayout(result, layout, false);
    else
      setLayout(result, getDefaultLayout(tileOf(result), numWarps), true);
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      retypeConstant(constant, tileOf(result));
    return success();
  }
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(op)) {
    RankedTensorType result = tileOf(broadcast.getResult());
    DistributedLayoutAttr layout =
        registerOperands.lookup(broadcast.getResult());
    bool isWeak = !layout;
    if (!layout)
      layout = getDefaultLayout(result, numWarps);
    require(op, 0,
            getBroadcastSourceLayout(layout, result.getShape(),
                                     tileOf(broadcast.getSource()).getShape()));
    setLayout(broadcast.getResult(), layout, isWeak);
    return success();
  }
  if (isElementwise(op)) {
    // The first operand with an anchored layout decides; all weak, the first.
    Value leader;
    for (Value operand : op->getOperands())
      if (isa<RankedTensorType>(operand.getType()) &&
          (!leader || (weak.contains(leader) && !weak.contains(operand))))
        leader = operand;
    DistributedLayoutAttr layout = layoutOf(leader);
    bool isWeak = weak.contains(leader);
    if (DistributedLayoutAttr wanted =
            registerOperands.lookup(op->getResult(0))) {
      layout = wanted;
      isWeak = false;
    }
    for (OpOperand &operand : op->getOpOperands())
      if (isa<RankedTensorType>(operand.get().getType()))
        require(op, operand.getOperandNumber(), layout);
    for (Value result : op->getResults())
      setLayout(result, layout, isWeak);
    return success();
  }

  // Ops that move elements: the result's layout follows from the source's.
  Value source = op->getOperand(0);
  DistributedLayoutAttr sourceLayout = layoutOf(source);
  ArrayRef<int64_t> sourceShape = tileOf(source).getShape();
  DistributedLayoutAttr layout;
  if (auto reduce = dyn_cast<tile::ReduceOp>(op))
    layout = getReducedLayout(sourceLayout, sourceShape, reduce.getAxis());
  else if (isa<tile::CumsumOp>(op))
    layout = sourceLayout;
  else if (auto permute = dyn_cast<tile::PermuteOp>(op))
    layout =
        getPermutedLayout(sourceLayout, sourceShape, permute.getPermutation());
  else if (auto reshape = dyn_cast<tile::ReshapeOp>(op))
    layout = getReshapedLayout(sourceLayout, sourceShape,
                               tileOf(reshape.getResult()).getShape());
  else if (auto extract = dyn_cast<tile::ExtractOp>(op))
    layout = getExtractedLayout(sourceLayout, sourceShape,
                                tileOf(extract.getResult()).getShape());
  else
    return op->emitOpError()
           << "has no layout rule in tilegpu-assign-layouts "
              "(docs/codegen-layouts.md lists the ops it knows)";
  // A reshape or extract whose padding does not commute moves elements
  // through shared memory in the lowering: its result takes the default.
  Value result = op->getResult(0);
  if (!layout)
    layout = getDefaultLayout(tileOf(result), numWarps);
  setLayout(result, layout, weak.contains(source));
  return success();
}

LogicalResult LayoutAssigner::assignFor(scf::ForOp loop) {
  // An iteration argument starts in its initial value's layout; what the
  // body yields is converted to it (tilegpu-remove-layout-conversions may
  // then carry the yielded layout instead).
  for (auto [init, arg, result] : llvm::zip(
           loop.getInitArgs(), loop.getRegionIterArgs(), loop.getResults())) {
    if (!isa<RankedTensorType>(init.getType()))
      continue;
    DistributedLayoutAttr layout = layoutOf(init);
    setLayout(arg, layout, weak.contains(init));
    setLayout(result, layout, weak.contains(init));
  }
  if (failed(assign(*loop.getBody())))
    return failure();
  Operation *yield = loop.getBody()->getTerminator();
  for (auto [index, arg] : llvm::enumerate(loop.getRegionIterArgs()))
    if (DistributedLayoutAttr layout = layoutOf(arg))
      require(yield, index, layout);
  return success();
}

LogicalResult LayoutAssigner::assignIf(scf::IfOp branch) {
  if (failed(assign(branch.getThenRegion().front())))
    return failure();
  if (!branch.getElseRegion().empty() &&
      failed(assign(branch.getElseRegion().front())))
    return failure();
  if (branch.getNumResults() == 0)
    return success();
  Operation *thenYield = branch.thenYield();
  Operation *elseYield = branch.elseYield();
  for (auto [index, result] : llvm::enumerate(branch.getResults())) {
    DistributedLayoutAttr layout = layoutOf(thenYield->getOperand(index));
    if (!layout)
      continue;
    require(elseYield, index, layout);
    setLayout(result, layout, false);
  }
  return success();
}

/// Layouts are assigned once: a kernel that has some already (or tilegpu
/// ops) is refused rather than half re-assigned.
LogicalResult requireNoLayouts(tile::KernelOp kernel) {
  WalkResult walk = kernel.walk([](Operation *op) {
    auto hasLayout = [](Type t) { return bool(getDistributedLayout(t)); };
    if (isa<TileGPUDialect>(op->getDialect()) ||
        llvm::any_of(op->getResultTypes(), hasLayout)) {
      op->emitOpError() << "already has register layouts: "
                           "tilegpu-assign-layouts runs once, on bound tile IR";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

struct AssignLayoutsPass
    : tilegpu::impl::TileGPUAssignLayoutsBase<AssignLayoutsPass> {
  using Base::Base;
  void runOnOperation() override {
    WalkResult walk = getOperation().walk([&](tile::KernelOp kernel) {
      if (failed(requireNoLayouts(kernel)))
        return WalkResult::interrupt();
      LayoutAssigner assigner(kernel, vectorize, sm);
      return failed(assigner.assign(kernel.getBody().front()))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
