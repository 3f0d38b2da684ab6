//===- RemoveLayoutConversions.cpp - fewer layout conversions ---*- C++ -*-===//
//
// Rewrites to a fixed point (Passes.td lists them). Conversions move
// backward into cheap producers, which are rebuilt in the wanted layout, and
// forward past users when the moved-from tile is not cheap, so the two never
// undo each other; loop iteration arguments take the layout their body
// yields, and a branch's result the layout its one user converts it to
// (each branch converts what it yields, where the conversion can move on
// into its producers). What remains sits between anchors that need
// different layouts.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/LayoutRules.h"
#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUREMOVELAYOUTCONVERSIONS
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// How far back a chain of cheap producers may be rebuilt.
constexpr unsigned kRematerialisationDepth = 8;
/// A bound on the rounds; each rewrite moves a conversion strictly up or down
/// the def-use chains, so real kernels settle in a handful.
constexpr unsigned kMaxRounds = 64;

bool isElementwise(Operation *op) {
  return (op->hasTrait<OpTrait::Elementwise>() ||
          isa<tile::Exp2Op, tile::ConvertOp, tile::WhereOp>(op)) &&
         op->getNumResults() == 1 && op->getNumRegions() == 0;
}

DistributedLayoutAttr layoutOf(Value v) {
  return getDistributedLayout(v.getType());
}
ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// Whether `v` can be rebuilt in any layout for the price of converting
/// smaller or cheaper tiles: constants, full, arange, broadcasts (their
/// source is smaller), conversions (they chain), and reshapes and
/// elementwise ops of such.
bool isRematerialisable(Value v, unsigned depth = kRematerialisationDepth) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<ConvertLayoutOp, tile::FullOp, tile::ArangeOp, tile::BroadcastOp>(
          def))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(def))
    return isa<RankedTensorType>(constant.getType());
  if (depth == 0)
    return false;
  if (auto reshape = dyn_cast<tile::ReshapeOp>(def))
    return getReshapedLayout(layoutOf(v), shapeOf(v),
                             shapeOf(reshape.getSource())) &&
           isRematerialisable(reshape.getSource(), depth - 1);
  if (isElementwise(def))
    return llvm::all_of(def->getOperands(), [&](Value operand) {
      return !isa<RankedTensorType>(operand.getType()) ||
             isRematerialisable(operand, depth - 1);
    });
  // A branch's result, when what each branch yields is (intoBranches).
  if (auto branch = dyn_cast<scf::IfOp>(def)) {
    unsigned index = cast<OpResult>(v).getResultNumber();
    return !branch.getElseRegion().empty() &&
           isRematerialisable(branch.thenYield()->getOperand(index),
                              depth - 1) &&
           isRematerialisable(branch.elseYield()->getOperand(index),
                              depth - 1);
  }
  return false;
}

/// The layout `user` (an op that moves elements) gives its result when its
/// source is in `layout`; null when there is no such rule.
DistributedLayoutAttr getDerivedLayout(Operation *user,
                                       DistributedLayoutAttr layout) {
  Value source = user->getOperand(0);
  if (auto reduce = dyn_cast<tile::ReduceOp>(user))
    return getReducedLayout(layout, shapeOf(source), reduce.getAxis());
  if (isa<tile::CumsumOp>(user))
    return layout;
  if (auto permute = dyn_cast<tile::PermuteOp>(user))
    return getPermutedLayout(layout, shapeOf(source), permute.getPermutation());
  if (isa<tile::ReshapeOp>(user))
    return getReshapedLayout(layout, shapeOf(source),
                             shapeOf(user->getResult(0)));
  if (isa<tile::ExtractOp>(user))
    return getExtractedLayout(layout, shapeOf(source),
                              shapeOf(user->getResult(0)));
  return {};
}

/// The tile dim of `store`'s value that walks the view's innermost dim.
unsigned storedContiguousDim(tile::StoreOp store) {
  unsigned rank = unsigned(shapeOf(store.getValue()).size());
  if (std::optional<ArrayRef<int64_t>> order = store.getOrder())
    for (auto [k, d] : llvm::enumerate(*order))
      if (d == int64_t(rank) - 1)
        return unsigned(k);
  return rank - 1;
}

/// Whether `basis` is `run` along `dim` and 0 along the other dims.
bool isStep(ArrayRef<int64_t> basis, unsigned dim, int64_t run) {
  for (auto [d, coordinate] : llvm::enumerate(basis))
    if (coordinate != (d == dim ? run : 0))
      return false;
  return true;
}

/// The elements of `layout`'s registers that one thread stores as one
/// vector along `dim`: the register bits whose images are 1, 2, 4, ...
/// there, up to 16 bytes (what the vectorised store lowering takes).
int64_t threadRunElements(const tilec::LinearLayout &layout, unsigned dim,
                          int64_t elementBytes) {
  int64_t run = 1;
  unsigned registerBits =
      llvm::Log2_64(uint64_t(layout.getInDimSize(tilec::kRegister)));
  for (unsigned bit = 0; bit < registerBits && run * elementBytes < 16; ++bit) {
    if (!isStep(layout.getBasis(tilec::kRegister, bit), dim, run))
      break;
    run *= 2;
  }
  return run;
}

/// Bytes that a group of consecutive lanes writes side by side along `dim`
/// in one vectorised store of `layout`'s registers: each thread's vector,
/// then the lane bits that continue the run.
int64_t storeRunBytes(const tilec::LinearLayout &layout, unsigned dim,
                      int64_t bytes) {
  int64_t run = threadRunElements(layout, dim, bytes);
  for (unsigned bit = 0;
       bit < 5 && isStep(layout.getBasis(tilec::kLane, bit), dim, run); ++bit)
    run *= 2;
  return run * bytes;
}

/// A vectorised store (its access layout moves several elements per thread)
/// writes its value from the value's own registers, without the conversion
/// to the access layout, where that conversion goes through shared memory
/// and the value's registers already write at least half a 32-byte sector
/// per row and lane group, in vectors of two elements and 4 bytes or more
/// (the mma accumulators of several warps: two columns per thread, four
/// lanes side by side, 32 bytes of f32 or 16 of bf16): the trip through
/// shared memory (its bytes, two barriers, a store and a load per element)
/// costs more than the narrower global stores. Conversions within a warp
/// (registers, shuffles) stay, and so do the generic variant's stores (one
/// element per access), whose coalesced layout is what makes them wide.
constexpr int64_t kMinStoreRunBytes = 16;

class ConversionRemover {
public:
  void run(ModuleOp module) {
    for (unsigned round = 0; round < kMaxRounds; ++round) {
      bool changed = false;
      SmallVector<scf::ForOp> loops;
      module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops)
        changed |= carryThroughLoop(loop);
      SmallVector<ConvertLayoutOp> converts;
      module.walk([&](ConvertLayoutOp op) { converts.push_back(op); });
      for (ConvertLayoutOp op : converts)
        changed |= fold(op) || rematerialise(op) || intoBranches(op) ||
                   pushForward(op) || storeInPlace(op);
      eraseDeadOps();
      if (!changed)
        return;
    }
  }

private:
  /// `v` in `layout`, converting where the builder stands if needed.
  Value convertTo(OpBuilder &builder, Value v, DistributedLayoutAttr layout) {
    if (layoutOf(v) == layout)
      return v;
    return builder.create<ConvertLayoutOp>(v.getLoc(),
                                           withLayout(v.getType(), layout), v);
  }

  /// Replaces conversion `op` by `value` (the same tile in its layout).
  void replace(ConvertLayoutOp op, Value value) {
    if (Operation *def = op.getSource().getDefiningOp())
      maybeDead.insert(def);
    op.getResult().replaceAllUsesWith(value);
    erase(op);
  }

  /// Erases `op`, which may be among the ops waiting to be found dead.
  void erase(Operation *op) {
    maybeDead.remove(op);
    op->erase();
  }

  bool fold(ConvertLayoutOp op);
  bool rematerialise(ConvertLayoutOp op);
  bool pushForward(ConvertLayoutOp op);
  bool storeInPlace(ConvertLayoutOp op);
  bool intoBranches(ConvertLayoutOp op);
  bool carryThroughLoop(scf::ForOp loop);
  void eraseDeadOps();

  /// Producers whose last use a rewrite may have removed.
  llvm::SetVector<Operation *> maybeDead;
};

bool ConversionRemover::fold(ConvertLayoutOp op) {
  if (auto producer = op.getSource().getDefiningOp<ConvertLayoutOp>()) {
    maybeDead.insert(producer);
    op.getSourceMutable().assign(producer.getSource());
    if (op.getSource().getType() == op.getType())
      replace(op, op.getSource());
    return true;
  }
  if (op.getSource().getType() == op.getType()) {
    replace(op, op.getSource());
    return true;
  }
  return false;
}

bool ConversionRemover::rematerialise(ConvertLayoutOp op) {
  Value source = op.getSource();
  Operation *def = source.getDefiningOp();
  if (!def || isa<ConvertLayoutOp, scf::IfOp>(def) ||
      !isRematerialisable(source))
    return false;
  DistributedLayoutAttr layout = layoutOf(op.getResult());
  RankedTensorType type = cast<RankedTensorType>(op.getType());
  // Rebuilt next to the producer, so a conversion inside a loop of a value
  // from outside it does not move work into the loop.
  OpBuilder builder(def->getContext());
  builder.setInsertionPointAfter(def);
  SmallVector<Value> operands;
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(def)) {
    operands.push_back(
        convertTo(builder, broadcast.getSource(),
                  getBroadcastSourceLayout(layout, type.getShape(),
                                           shapeOf(broadcast.getSource()))));
  } else if (auto reshape = dyn_cast<tile::ReshapeOp>(def)) {
    operands.push_back(
        convertTo(builder, reshape.getSource(),
                  getReshapedLayout(layout, type.getShape(),
                                    shapeOf(reshape.getSource()))));
  } else {
    // An operand used twice (cmpi %x, %x) is converted once.
    DenseMap<Value, Value> converted;
    for (Value operand : def->getOperands()) {
      if (!isa<RankedTensorType>(operand.getType())) {
        operands.push_back(operand);
        continue;
      }
      Value &in = converted[operand];
      if (!in)
        in = convertTo(builder, operand, layout);
      operands.push_back(in);
    }
  }
  IRMapping mapping;
  mapping.map(def->getOperands(), operands);
  Operation *rebuilt = builder.clone(*def, mapping);
  rebuilt->getResult(0).setType(type);
  if (auto constant = dyn_cast<arith::ConstantOp>(rebuilt))
    retypeConstant(constant, type);
  replace(op, rebuilt->getResult(0));
  return true;
}

bool ConversionRemover::pushForward(ConvertLayoutOp op) {
  if (!op->hasOneUse() || isRematerialisable(op.getSource()))
    return false;
  // A conversion that moves no data costs nothing where it is; moving it
  // would only move the renaming (and could trade places with another).
  auto type = cast<RankedTensorType>(op.getType());
  if (isFreeConversion(type, layoutOf(op.getSource()),
                       layoutOf(op.getResult())))
    return false;
  Operation *user = *op->getUsers().begin();
  // Only within a block: moving a conversion into a loop body would run it
  // once per iteration.
  if (user->getBlock() != op->getBlock())
    return false;
  Value source = op.getSource();
  DistributedLayoutAttr layout = layoutOf(source);
  DistributedLayoutAttr userLayout;
  if (isElementwise(user)) {
    for (Value operand : user->getOperands())
      if (operand != op.getResult() &&
          isa<RankedTensorType>(operand.getType()) &&
          !isRematerialisable(operand))
        return false;
    userLayout = layout;
  } else {
    userLayout = getDerivedLayout(user, layout);
  }
  if (!userLayout)
    return false;
  OpBuilder builder(user);
  for (OpOperand &operand : user->getOpOperands()) {
    if (operand.get() == op.getResult())
      operand.set(source);
    else if (isElementwise(user) &&
             isa<RankedTensorType>(operand.get().getType()))
      operand.set(convertTo(builder, operand.get(), layout));
  }
  Value result = user->getResult(0);
  DistributedLayoutAttr previous = layoutOf(result);
  result.setType(withLayout(result.getType(), userLayout));
  builder.setInsertionPointAfter(user);
  Value back = convertTo(builder, result, previous);
  if (back != result)
    result.replaceAllUsesExcept(back, back.getDefiningOp());
  erase(op);
  return true;
}

bool ConversionRemover::storeInPlace(ConvertLayoutOp op) {
  if (!op->hasOneUse() || isRematerialisable(op.getSource()))
    return false;
  auto store = dyn_cast<tile::StoreOp>(*op->getUsers().begin());
  if (!store || store.getValue() != op.getResult())
    return false;
  auto source = cast<RankedTensorType>(op.getSource().getType());
  auto target = cast<RankedTensorType>(op.getType());
  unsigned dim = storedContiguousDim(store);
  int64_t bytes = getElementBytes(source.getElementType());
  tilec::LinearLayout access =
      getDistributedLayout(target).getLinearLayout(target.getShape());
  tilec::LinearLayout own =
      getDistributedLayout(source).getLinearLayout(source.getShape());
  if (threadRunElements(access, dim, bytes) == 1 ||
      threadRunElements(own, dim, bytes) < std::max<int64_t>(2, 4 / bytes) ||
      storeRunBytes(own, dim, bytes) < kMinStoreRunBytes)
    return false;
  llvm::Expected<tilec::ConversionPlan> plan =
      tilec::planConversion(own, access, unsigned(bytes));
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return false;
  }
  if (plan->kind != tilec::ConversionPlan::Kind::SharedMemory)
    return false;
  replace(op, op.getSource());
  return true;
}

bool ConversionRemover::intoBranches(ConvertLayoutOp op) {
  auto result = dyn_cast<OpResult>(op.getSource());
  auto branch = result ? dyn_cast<scf::IfOp>(result.getOwner()) : nullptr;
  // Only the conversion uses the result: one branch runs, so converting
  // what it yields costs no more than converting the result once.
  if (!branch || !result.hasOneUse())
    return false;
  DistributedLayoutAttr layout = layoutOf(op.getResult());
  unsigned index = result.getResultNumber();
  for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()}) {
    Operation *yield = region->front().getTerminator();
    OpBuilder builder(yield);
    yield->setOperand(index,
                      convertTo(builder, yield->getOperand(index), layout));
  }
  result.setType(op.getType());
  replace(op, result);
  return true;
}

bool ConversionRemover::carryThroughLoop(scf::ForOp loop) {
  bool changed = false;
  Operation *yield = loop.getBody()->getTerminator();
  for (auto [index, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
    auto converted = yield->getOperand(index).getDefiningOp<ConvertLayoutOp>();
    if (!converted)
      continue;
    DistributedLayoutAttr carried = layoutOf(converted.getSource());
    DistributedLayoutAttr previous = layoutOf(arg);
    if (!carried || !previous || carried == previous)
      continue;
    OpBuilder builder(loop);
    OpOperand &init = loop.getInitArgsMutable()[index];
    init.set(convertTo(builder, init.get(), carried));
    arg.setType(withLayout(arg.getType(), carried));
    builder.setInsertionPointToStart(loop.getBody());
    Value argBack = convertTo(builder, arg, previous);
    arg.replaceAllUsesExcept(argBack, argBack.getDefiningOp());
    maybeDead.insert(converted);
    yield->setOperand(index, converted.getSource());
    Value result = loop.getResult(index);
    result.setType(withLayout(result.getType(), carried));
    builder.setInsertionPointAfter(loop);
    Value resultBack = convertTo(builder, result, previous);
    result.replaceAllUsesExcept(resultBack, resultBack.getDefiningOp());
    changed = true;
  }
  return changed;
}

void ConversionRemover::eraseDeadOps() {
  // Popped before it is erased, so the set never holds an erased op; an op
  // found alive may come back when its last user goes.
  while (!maybeDead.empty()) {
    Operation *op = maybeDead.pop_back_val();
    if (!op->use_empty() || !isMemoryEffectFree(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        maybeDead.insert(def);
    op->erase();
  }
}

struct RemoveLayoutConversionsPass
    : tilegpu::impl::TileGPURemoveLayoutConversionsBase<
          RemoveLayoutConversionsPass> {
  void runOnOperation() override {
    ConversionRemover().run(getOperation());
    // A producer rebuilt for several users, or a tile converted for several,
    // is built once.
    IRRewriter rewriter(&getContext());
    eliminateCommonSubExpressions(rewriter, getAnalysis<DominanceInfo>(),
                                  getOperation());
  }
};

} // namespace
