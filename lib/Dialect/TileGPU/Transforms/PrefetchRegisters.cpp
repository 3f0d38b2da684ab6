//===- PrefetchRegisters.cpp - loads in loops, one iteration ahead -*- C++ -*-===//
//
// tilegpu-pipeline prefetches only the loads whose tile goes to shared
// memory. A load that stays in registers (a tf32 operand that is converted,
// the small per-step tiles) is otherwise issued and consumed in the same
// iteration, so every iteration waits one full global latency. Here such a
// load is issued one iteration ahead: the load of the first iteration
// before the loop, the load of iteration i+1 where iteration i had its
// load, the tile carried to the next iteration as an scf.for iteration
// argument. Each issued load is guarded by its iteration being below the
// loop's upper bound (scf.if, the else branch a tile.full that nothing
// reads), so no memory past the loop's end is touched.
//
// A prefetched tile is live across the back edge on top of everything the
// iteration holds: a loop's loads are prefetched only when the registers
// per thread their layouts hold fit the budget (`max-carried-registers`,
// at most an eighth of what the kernel's occupancy leaves a thread).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/LoopIndices.h"
#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUPREFETCHREGISTERS
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// How an index depends on a loop's induction variable.
enum class Dependence { Invariant, Affine, Other };

/// Whether `value` is loop-invariant, affine in the induction variable of
/// `loop` (sums, differences and products with invariants of it), or
/// neither (anything else: divisions, values read from memory, results of
/// regions).
Dependence classify(scf::ForOp loop, Value value) {
  if (value == loop.getInductionVar())
    return Dependence::Affine;
  if (loop.isDefinedOutsideOfLoop(value))
    return Dependence::Invariant;
  Operation *def = value.getDefiningOp();
  if (!def)
    return Dependence::Other;
  if (isa<arith::ConstantOp>(def))
    return Dependence::Invariant;
  if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
    return Dependence::Other;
  Dependence lhs = classify(loop, def->getOperand(0));
  Dependence rhs = classify(loop, def->getOperand(1));
  if (lhs == Dependence::Other || rhs == Dependence::Other)
    return Dependence::Other;
  if (lhs == Dependence::Invariant && rhs == Dependence::Invariant)
    return Dependence::Invariant;
  if (isa<arith::MulIOp>(def) && lhs == Dependence::Affine &&
      rhs == Dependence::Affine)
    return Dependence::Other;
  return Dependence::Affine;
}

/// The views `view` is made from (itself and, through the ops that derive
/// it, the block arguments it comes from).
void collectViewRoots(Value view, SmallPtrSetImpl<Value> &roots) {
  if (!roots.insert(view).second)
    return;
  if (Operation *def = view.getDefiningOp())
    for (Value operand : def->getOperands())
      if (isa<tile::ViewType>(operand.getType()))
        collectViewRoots(operand, roots);
}

/// Whether `op` may write global memory through a view it takes (an op
/// without the memory-effect interface may write anything it takes).
/// tilegpu.async_copy reads its view and writes shared memory only.
bool writesView(Operation *op) {
  if (isa<AsyncCopyOp>(op) ||
      llvm::none_of(op->getOperandTypes(),
                    [](Type type) { return isa<tile::ViewType>(type); }))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return !effects || effects.hasEffect<MemoryEffects::Write>();
}

/// Registers per thread that a tile of `type` holds (32-bit words), or 0
/// where it has no distributed layout.
int64_t registersPerThread(RankedTensorType type) {
  DistributedLayoutAttr layout = getDistributedLayout(type);
  if (!layout)
    return 0;
  int64_t elements =
      layout.getLinearLayout(type.getShape()).getInDimSize(tilec::kRegister);
  int64_t bits = type.getElementType().getIntOrFloatBitWidth();
  return llvm::divideCeil(elements * bits, 32);
}

/// The load `load` of `loop` for induction variable `iv`, read only when
/// `valid` holds: its index computations cloned at `b` with `iv` for the
/// induction variable.
Value loadAt(OpBuilder &b, scf::ForOp loop, tile::LoadOp load, Value iv,
             Value valid) {
  Location loc = load.getLoc();
  RankedTensorType type = load.getType();
  auto guard = scf::IfOp::create(
      b, loc, valid,
      [&](OpBuilder &then, Location at) {
        SmallVector<Value> indices = indicesAt(then, loop, load, iv);
        auto issued = cast<tile::LoadOp>(then.clone(*load));
        issued.getIndicesMutable().assign(indices);
        issued.removeLatencyAttr();
        scf::YieldOp::create(then, at, issued.getResult());
      },
      [&](OpBuilder &otherwise, Location at) {
        // Past the loop's end: never read.
        Value unused = tile::FullOp::create(
            otherwise, at, type, Value(),
            cast<TypedAttr>(otherwise.getZeroAttr(type.getElementType())));
        scf::YieldOp::create(otherwise, at, unused);
      });
  return guard.getResult(0);
}

/// Issues `loads` (in `loop`'s body) one iteration ahead.
void prefetch(scf::ForOp loop, ArrayRef<tile::LoadOp> loads) {
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  Location loc = loop.getLoc();
  Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                      loop.getLowerBound(),
                                      loop.getUpperBound());
  SmallVector<Value> inits;
  for (tile::LoadOp load : loads)
    inits.push_back(loadAt(rewriter, loop, load, loop.getLowerBound(), first));

  // The body's yields are patched below, once the loads sit in the new
  // loop: until then each new argument is yielded as it is.
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
      [](OpBuilder &, Location, ArrayRef<BlockArgument> arguments) {
        return SmallVector<Value>(arguments.begin(), arguments.end());
      });
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  auto yield = cast<scf::YieldOp>(newLoop.getBody()->getTerminator());
  unsigned firstNew = newLoop.getNumRegionIterArgs() - loads.size();
  rewriter.setInsertionPointToStart(newLoop.getBody());
  Value nextIv = arith::AddIOp::create(rewriter, loc, newLoop.getInductionVar(),
                                       newLoop.getStep());
  Value valid = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                      nextIv, newLoop.getUpperBound());
  for (auto [k, original] : llvm::enumerate(loads)) {
    tile::LoadOp load = original;
    rewriter.setInsertionPoint(load);
    Value next = loadAt(rewriter, newLoop, load, nextIv, valid);
    load.replaceAllUsesWith(newLoop.getRegionIterArg(firstNew + k));
    yield.setOperand(firstNew + k, next);
    SmallVector<Operation *> work;
    for (Value index : load.getIndices())
      if (Operation *def = index.getDefiningOp())
        work.push_back(def);
    rewriter.eraseOp(load);
    // The original load's index computations, now read by nobody (an op
    // may be reached twice: erased ones are remembered, never touched).
    llvm::SmallPtrSet<Operation *, 8> erased;
    while (!work.empty()) {
      Operation *def = work.pop_back_val();
      if (erased.contains(def) || !newLoop->isProperAncestor(def) ||
          !isOpTriviallyDead(def))
        continue;
      for (Value operand : def->getOperands())
        if (Operation *producer = operand.getDefiningOp())
          work.push_back(producer);
      erased.insert(def);
      rewriter.eraseOp(def);
    }
  }
}

struct PrefetchRegistersPass
    : tilegpu::impl::TileGPUPrefetchRegistersBase<PrefetchRegistersPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](tile::KernelOp kernel) { runOnKernel(kernel); });
  }

  void runOnKernel(tile::KernelOp kernel) {
    // Conservative aliasing: a view written anywhere in the kernel is not
    // read ahead, and nothing is in a loop that writes a view (two views
    // may share their bytes).
    SmallPtrSet<Value, 8> written;
    kernel.walk([&](Operation *op) {
      if (!writesView(op))
        return;
      for (Value operand : op->getOperands())
        if (isa<tile::ViewType>(operand.getType()))
          collectViewRoots(operand, written);
    });
    // The registers per thread the kernel's occupancy leaves (65536 per
    // multiprocessor, at most 255 per thread); the carried tiles may take
    // an eighth of them. At chunk 128 on sm_90a fwd_pass_state (8 warps,
    // occupancy 2: 128) spilled with 20 carried, compute_out (the same
    // ceiling) did not with 8, chunk_state (occupancy 1) did not with 20.
    int64_t threads = int64_t(kernel.getNumWarps()) * 32;
    int64_t ceiling =
        std::min<int64_t>(255, 65536 / (threads * kernel.getOccupancy()));
    int64_t budget = std::min<int64_t>(maxCarriedRegisters, ceiling / 8);
    SmallVector<std::pair<scf::ForOp, SmallVector<tile::LoadOp>>> plans;
    kernel.walk([&](scf::ForOp loop) {
      if (!loop.getInductionVar().getType().isIndex())
        return;
      if (loop.getBody()
              ->walk([](Operation *op) {
                return writesView(op) ? WalkResult::interrupt()
                                      : WalkResult::advance();
              })
              .wasInterrupted())
        return;
      SmallVector<tile::LoadOp> loads;
      int64_t carried = 0;
      for (auto load : loop.getBody()->getOps<tile::LoadOp>()) {
        if (load.getLatency().value_or(0) < 1 || load.getCondition())
          continue;
        SmallPtrSet<Value, 4> roots;
        collectViewRoots(load.getView(), roots);
        if (llvm::any_of(roots, [&](Value v) { return written.contains(v); }))
          continue;
        if (llvm::any_of(load.getIndices(), [&](Value index) {
              return classify(loop, index) == Dependence::Other;
            }))
          continue;
        int64_t registers = registersPerThread(load.getType());
        if (registers == 0)
          continue;
        carried += registers;
        loads.push_back(load);
      }
      // All or nothing: the loads of an iteration are in flight together,
      // so one left behind still costs the iteration a full latency.
      if (carried > budget)
        return;
      if (!loads.empty())
        plans.emplace_back(loop, std::move(loads));
    });
    for (auto &[loop, loads] : plans)
      prefetch(loop, loads);
  }
};

} // namespace
