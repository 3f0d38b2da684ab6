//===- Pipeline.cpp - mma-operand loads by cp.async, in rings ---*- C++ -*-===//
//
// A tile.load whose only use is a convert_layout through shared memory
// (reached through reshapes of unit dims and element conversions) is read
// global -> shared by cp.async straight into a swizzled buffer, and from
// there into the conversion's destination layout: the tile never sits in
// registers in the load's layout, and the conversion's store, barrier and
// second barrier disappear. A 16-bit operand of a wgmma product (reached
// through reshapes of unit dims only) is copied the same way: the buffer's
// swizzled rows are what a wgmma matrix descriptor reads (K-major, or
// M/N-major through the descriptor's transpose), so the lowering hands the
// buffer to wgmma and the read into registers is dead. Inside scf.for a
// load with latency n >= 2 is prefetched n iterations ahead through an
// (n+1)-stage ring; (n+2) stages where a wgmma reads the ring, so that a
// product may stay in flight while the next iteration's copy fills
// another stage (kWgmmaPendingAttrName).
//
// Barriers (the simplest correct placement; tilegpu-insert-barriers does
// not exist yet): one before a buffer is first written (its bytes may hold
// a buffer that other threads still read, or the same buffer's previous
// contents), and one after each wait (other threads' copies become
// visible). In a ring, the barrier after the wait of iteration i also
// orders the reads of stage (i-1) mod (n+1) before the copy that
// overwrites it in iteration i. wgmma reads its operands through the async
// proxy: after the wait of a buffer it reads, each thread fences its
// copies (fence.proxy.async) before that barrier.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/LayoutRules.h"
#include "tilec/Dialect/TileGPU/Transforms/LoopIndices.h"
#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"


namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUPIPELINE
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;
using tilec::LinearLayout;

namespace {

/// `layout` of a tile read with `order` (tile dim k is view dim order[k])
/// as a layout of the same elements in the view's order of dimensions.
LinearLayout toViewOrder(const LinearLayout &layout, ArrayRef<int64_t> box,
                         ArrayRef<int64_t> order) {
  return mapBases(layout, box, [&](ArrayRef<int64_t> basis) {
    LinearLayout::Basis mapped(basis.size(), 0);
    for (auto [k, d] : llvm::enumerate(order))
      mapped[d] = basis[k];
    return mapped;
  });
}

/// The buffer of a box (view order, the last dim contiguous): rows of the
/// last dim, row-major over the others, swizzled in 16-byte chunks with the
/// widest swizzle (128, 64, 32 bytes) a row holds, so that 16-byte copies
/// stay whole and the mma fragments' row accesses spread over the banks.
LinearLayout boxSharedLayout(ArrayRef<int64_t> box, unsigned elementBytes) {
  SmallVector<int64_t> padded = getPaddedShape(box);
  int64_t columns = padded.back(), rows = 1;
  for (int64_t extent : ArrayRef<int64_t>(padded).drop_back())
    rows *= extent;
  int64_t rowBytes = columns * elementBytes;
  unsigned swizzle = 0;
  for (unsigned bytes : {128u, 64u, 32u})
    if (rowBytes >= bytes) {
      swizzle = bytes;
      break;
    }
  return tilec::swizzledSharedLayout({rows, columns}, elementBytes, swizzle)
      .reshapeOuts(getPaddedOutDims(box));
}

SmallVector<int64_t> nonUnit(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> kept;
  for (int64_t extent : shape)
    if (extent != 1)
      kept.push_back(extent);
  return kept;
}

/// A load this pass rewrites, and what the rewrite needs.
struct StagedLoad {
  tile::LoadOp load;
  /// The reshapes and element conversions from the load to the conversion
  /// (to the wgmma product: reshapes only).
  SmallVector<Operation *> chain;
  /// What reads the tile: a conversion through shared memory, or wgmma
  /// products (convert null) that read the buffer itself (several where
  /// tile-expand-forms split an f32 operand: `precision = split_bf16`).
  ConvertLayoutOp convert;
  SmallVector<tile::MmaOp, 1> wgmmas;
  /// View dim of each tile dim, and the tile's extents in the view's order.
  SmallVector<int64_t> order, box;
  DistributedLayoutAttr copyLayout, readLayout;
  SharedLayoutAttr sharedLayout;
};

bool isIdentity(ArrayRef<int64_t> order) {
  for (auto [k, d] : llvm::enumerate(order))
    if (int64_t(k) != d)
      return false;
  return true;
}

/// Whether `mma`, marked for wgmma, takes `value` (reached from the load
/// through `chain`) as its A or B operand as it is in memory: 16-bit
/// elements (wgmma reads bf16/f16 from shared memory as stored, while tf32
/// needs the f32 bits of rounded values), no element conversion on the way,
/// and a K extent that needs no padding.
bool readsBufferAsWgmmaOperand(tile::MmaOp mma, Value value,
                               ArrayRef<Operation *> chain) {
  if (!mma->hasAttr(kWgmmaAttrName) ||
      (value != mma.getA() && value != mma.getB()) || value == mma.getAcc())
    return false;
  auto type = cast<RankedTensorType>(value.getType());
  Type element = type.getElementType();
  if (!element.isBF16() && !element.isF16())
    return false;
  // The copy leaves the tile's padding unwritten: along M or N it only
  // reaches padding of the accumulator, along K it would reach every sum.
  int64_t k = type.getDimSize(value == mma.getA() ? 1 : 0);
  if (!llvm::isPowerOf2_64(uint64_t(k)))
    return false;
  return llvm::all_of(chain,
                      [](Operation *op) { return isa<tile::ReshapeOp>(op); });
}

/// The type the rewrite replaces: the conversion's result, or the wgmma
/// operand (the end of the chain).
RankedTensorType readType(StagedLoad &staged) {
  if (staged.convert)
    return staged.convert.getType();
  if (!staged.chain.empty())
    return cast<RankedTensorType>(staged.chain.back()->getResult(0).getType());
  return cast<RankedTensorType>(staged.load.getType());
}

std::optional<StagedLoad> match(tile::LoadOp load) {
  auto type = cast<RankedTensorType>(load.getType());
  DistributedLayoutAttr loadLayout = getDistributedLayout(type);
  if (!loadLayout || load.getPadding() != tile::Padding::zero ||
      load.getDims() || load.getStaticIndices())
    return std::nullopt;
  StagedLoad staged;
  staged.load = load;
  Value value = load.getResult();
  while (true) {
    if (value.use_empty())
      return std::nullopt;
    Operation *user = *value.getUsers().begin();
    if (isa<tile::MmaOp>(user)) {
      for (Operation *reader : value.getUsers()) {
        auto mma = dyn_cast<tile::MmaOp>(reader);
        if (!mma || !readsBufferAsWgmmaOperand(mma, value, staged.chain))
          return std::nullopt;
        staged.wgmmas.push_back(mma);
      }
      break;
    }
    if (!value.hasOneUse())
      return std::nullopt;
    if (auto convert = dyn_cast<ConvertLayoutOp>(user)) {
      staged.convert = convert;
      break;
    }
    if (auto reshape = dyn_cast<tile::ReshapeOp>(user)) {
      if (nonUnit(reshape.getSource().getType().getShape()) !=
          nonUnit(reshape.getType().getShape()))
        return std::nullopt;
    } else if (!isa<tile::ConvertOp>(user)) {
      return std::nullopt;
    }
    staged.chain.push_back(user);
    value = user->getResult(0);
  }

  RankedTensorType result = readType(staged);
  LinearLayout dst = getDistributedLayout(result).getLinearLayout(result.getShape());
  if (staged.convert) {
    // Only conversions that go through shared memory today (a shuffle plan
    // is staged too until shuffles are lowered): a free one needs no copy.
    RankedTensorType source = staged.convert.getSource().getType();
    llvm::Expected<tilec::ConversionPlan> plan = tilec::planConversion(
        getDistributedLayout(source).getLinearLayout(source.getShape()), dst,
        getElementBytes(result.getElementType()));
    if (!plan) {
      llvm::consumeError(plan.takeError());
      return std::nullopt;
    }
    if (plan->kind == tilec::ConversionPlan::Kind::Free ||
        plan->kind == tilec::ConversionPlan::Kind::RegisterPermutation)
      return std::nullopt;
  }

  int64_t rank = type.getRank();
  if (std::optional<ArrayRef<int64_t>> order = load.getOrder())
    staged.order.assign(order->begin(), order->end());
  else
    staged.order = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  staged.box.resize(rank);
  for (auto [k, d] : llvm::enumerate(staged.order))
    staged.box[d] = type.getDimSize(k);

  MLIRContext *context = load.getContext();
  Type element = type.getElementType();
  unsigned bytes = getElementBytes(element);
  LinearLayout copy = toViewOrder(loadLayout.getLinearLayout(type.getShape()),
                                  staged.box, staged.order);
  // cp.async moves 4, 8 or 16 bytes.
  if (element.isInteger(1) ||
      getVectorRun(copy, staged.box, rank - 1, bytes) * bytes < 4)
    return std::nullopt;
  // wgmma descriptors read swizzled rows of at least 32 bytes, 8 rows at a
  // time (boxSharedLayout's row-major fallback below 32 bytes is not one).
  if (!staged.wgmmas.empty()) {
    SmallVector<int64_t> padded = getPaddedShape(staged.box);
    int64_t rowBytes = padded.back() * bytes;
    int64_t rows = 1;
    for (int64_t extent : ArrayRef<int64_t>(padded).drop_back())
      rows *= extent;
    if (rowBytes < 32 || rows < 8)
      return std::nullopt;
  }
  staged.copyLayout = DistributedLayoutAttr::get(context, copy);
  staged.sharedLayout =
      SharedLayoutAttr::get(context, boxSharedLayout(staged.box, bytes));
  staged.readLayout = DistributedLayoutAttr::get(
      context, toViewOrder(dst.reshapeOuts(getPaddedOutDims(type.getShape())),
                           staged.box, staged.order));
  return staged;
}

/// Reads the buffer (at `stage` of a ring) into the conversion's layout and
/// redoes the reshapes and element conversions there; replaces the
/// conversion and erases the load and its chain.
void replaceWithRead(OpBuilder &b, StagedLoad &staged, Value buffer,
                     Value stage) {
  tile::LoadOp load = staged.load;
  Location loc = load.getLoc();
  MLIRContext *context = b.getContext();
  auto loadType = cast<RankedTensorType>(load.getType());
  RankedTensorType result = readType(staged);
  LinearLayout dst = getDistributedLayout(result).getLinearLayout(result.getShape());
  auto inLayout = [&](ArrayRef<int64_t> shape, Type element) {
    return RankedTensorType::get(
        shape, element,
        DistributedLayoutAttr::get(context, dst.reshapeOuts(getPaddedOutDims(shape))));
  };
  Value value = LocalLoadOp::create(
      b, loc,
      RankedTensorType::get(staged.box, loadType.getElementType(),
                            staged.readLayout),
      buffer, stage);
  if (!isIdentity(staged.order))
    value = tile::PermuteOp::create(
        b, loc, inLayout(loadType.getShape(), loadType.getElementType()), value,
        b.getDenseI64ArrayAttr(staged.order));
  for (Operation *op : staged.chain) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    RankedTensorType retyped = inLayout(type.getShape(), type.getElementType());
    if (isa<tile::ReshapeOp>(op))
      value = tile::ReshapeOp::create(b, loc, retyped, value);
    else
      value = tile::ConvertOp::create(b, loc, retyped, value);
  }
  if (staged.convert) {
    staged.convert.replaceAllUsesWith(value);
    staged.convert.erase();
  } else {
    Value operand = staged.chain.empty()
                        ? Value(load.getResult())
                        : staged.chain.back()->getResult(0);
    operand.replaceAllUsesWith(value);
  }
  for (Operation *op : llvm::reverse(staged.chain))
    op->erase();
  load.erase();
}

SmemType bufferType(StagedLoad &staged, int64_t stages) {
  SmallVector<int64_t> shape;
  if (stages > 1)
    shape.push_back(stages);
  shape.append(staged.box);
  return SmemType::get(staged.load.getContext(), shape,
                       staged.load.getType().getElementType(),
                       staged.sharedLayout, /*isMutable=*/true);
}

Value copyInto(OpBuilder &b, StagedLoad &staged, ValueRange indices,
               Value buffer, Value stage) {
  return AsyncCopyOp::create(b, staged.load.getLoc(),
                             TokenType::get(b.getContext()),
                             staged.load.getView(), indices, buffer, stage,
                             CopyKind::cp_async, tile::Padding::zero,
                             staged.copyLayout);
}

/// One buffer; barrier, copy, commit, wait for it, barrier, read.
void rewriteSingleStage(StagedLoad &staged) {
  OpBuilder b(staged.load);
  Location loc = staged.load.getLoc();
  BarrierOp::create(b, loc);
  Value buffer = LocalAllocOp::create(b, loc, bufferType(staged, 1), Value());
  Value token = copyInto(b, staged, staged.load.getIndices(), buffer, Value());
  Value group =
      AsyncCommitOp::create(b, loc, TokenType::get(b.getContext()), token);
  AsyncWaitOp::create(b, loc, ValueRange{group}, 0u);
  if (!staged.wgmmas.empty())
    FenceAsyncSharedOp::create(b, loc);
  BarrierOp::create(b, loc);
  replaceWithRead(b, staged, buffer, Value());
}

/// Whether every index of `load` is defined outside `loop` or computed in
/// its body from the induction variable and such values by pure ops.
bool hasRecomputableIndices(scf::ForOp loop, tile::LoadOp load) {
  SmallVector<Value> work(load.getIndices());
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (value == loop.getInductionVar() || loop.isDefinedOutsideOfLoop(value))
      continue;
    Operation *def = value.getDefiningOp();
    if (!def || def->getNumRegions() != 0 || !isPure(def))
      return false;
    llvm::append_range(work, def->getOperands());
  }
  return true;
}

/// Whether `mma` accumulates along `loop`: its accumulator is an iteration
/// argument of the loop used by it alone, and its result is only yielded
/// back into that argument. Then nothing but the next product reads the
/// accumulator inside the loop, and a product left in flight is waited for
/// in the loop's last iteration.
bool accumulatesAlong(scf::ForOp loop, tile::MmaOp mma) {
  auto acc = dyn_cast<BlockArgument>(mma.getAcc());
  if (!acc || acc.getOwner() != loop.getBody() || acc.getArgNumber() == 0 ||
      !acc.hasOneUse() || !mma.getResult().hasOneUse())
    return false;
  OpOperand &use = *mma.getResult().getUses().begin();
  return use.getOwner() == loop.getBody()->getTerminator() &&
         use.getOperandNumber() + 1 == acc.getArgNumber();
}

/// The wgmma products that may stay in flight for one iteration of
/// `loop`: both operands come from its ring (`loads`), and the accumulator
/// only from one product to the next. Not in a loop nested in another:
/// ptxas cannot see that the last iteration waited for every product, so
/// the accumulator's initialisation in the next outer iteration looks to
/// it like a register access inside an unfinished wgmma, and it serializes
/// every wgmma of the kernel (C7514/C7515).
SetVector<Operation *> productsLeftInFlight(scf::ForOp loop,
                                            ArrayRef<StagedLoad> loads) {
  SetVector<Operation *> fromRing, oneOperand;
  if (loop->getParentOfType<LoopLikeOpInterface>())
    return fromRing;
  for (const StagedLoad &staged : loads)
    for (tile::MmaOp mma : staged.wgmmas)
      if (!oneOperand.insert(mma) && accumulatesAlong(loop, mma))
        fromRing.insert(mma);
  return fromRing;
}

/// Whether a product in `loop`'s body takes both operands straight from
/// conversions of `loads` (the ring: mma.sync fragments read from it).
bool readsProductFromRing(scf::ForOp loop, ArrayRef<StagedLoad> loads) {
  llvm::SmallPtrSet<Value, 4> fromRing;
  for (const StagedLoad &staged : loads)
    if (ConvertLayoutOp convert = staged.convert)
      fromRing.insert(convert.getResult());
  return llvm::any_of(loop.getBody()->getOps<tile::MmaOp>(), [&](tile::MmaOp mma) {
    return fromRing.contains(mma.getA()) && fromRing.contains(mma.getB());
  });
}

/// Runs the last iteration of `loop` after it, as a copy of its body
/// outside any loop, all under `if lower < upper` (else the results are the
/// initial values): `scf.if { scf.for lower to last { body }; body at last }`.
/// The products left in flight then end in that copy, which waits for
/// every product before anything reads the accumulator, on the one path
/// that reaches the copy from the loop. A wait in the loop's last iteration
/// (an `if` ptxas cannot see through) or after the loop (also reached from
/// the path that skips it, where the accumulator's initial value is moved
/// into its registers) makes ptxas inject a wait of its own at the loop's
/// latch (C7517) or serialize every wgmma (C7515).
void peelLastIteration(scf::ForOp loop) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Value lower = loop.getLowerBound(), upper = loop.getUpperBound(),
        step = loop.getStep();
  bool isUnsigned = loop.getUnsignedCmp();
  Value runs = arith::CmpIOp::create(
      b, loc,
      isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
      lower, upper);
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), runs,
                                 /*withElseRegion=*/true);
  loop->replaceAllUsesWith(guard.getResults());
  OpBuilder inElse = OpBuilder::atBlockEnd(guard.elseBlock());
  scf::YieldOp::create(inElse, loc, loop.getInitArgs());

  // last = lower + ((upper - lower - 1) / step) * step: the loop runs at
  // least once here, and the step is positive.
  b.setInsertionPointToStart(guard.thenBlock());
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value span = arith::SubIOp::create(
      b, loc, arith::SubIOp::create(b, loc, upper, lower), one);
  Value last = arith::AddIOp::create(
      b, loc, lower,
      arith::MulIOp::create(b, loc,
                            arith::DivUIOp::create(b, loc, span, step), step));
  loop->moveBefore(guard.thenBlock(), guard.thenBlock()->end());
  loop.getUpperBoundMutable().assign(last);

  b.setInsertionPointAfter(loop);
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), last);
  mapping.map(loop.getRegionIterArgs(), loop.getResults());
  // The copy's products wait for every product (no pending attribute).
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, mapping)->walk([](tile::MmaOp mma) {
      mma->removeAttr(kWgmmaPendingAttrName);
    });
  SmallVector<Value> results;
  for (Value yielded : loop.getBody()->getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(yielded));
  scf::YieldOp::create(b, loc, results);
}

/// The (latency+1)-stage ring of `loop` for `loads`; (latency+2) stages
/// where productsLeftInFlight finds wgmma products, which may then stay in
/// flight for one iteration: the copy issued in iteration i+1 fills the stage
/// read in iteration i-1, not the one the product of iteration i may still
/// be reading.
void pipelineLoop(scf::ForOp loop, MutableArrayRef<StagedLoad> loads,
                  int64_t latency) {
  Location loc = loop.getLoc();
  MLIRContext *context = loop.getContext();
  bool feedsWgmma = llvm::any_of(
      loads, [](const StagedLoad &staged) { return !staged.wgmmas.empty(); });
  SetVector<Operation *> inFlight = productsLeftInFlight(loop, loads);
  bool copiesLast = !feedsWgmma && readsProductFromRing(loop, loads);
  int64_t stages = latency + (inFlight.empty() ? 1 : 2);
  OpBuilder b(loop);
  Type token = TokenType::get(context);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  // Copies of iteration `iv` (when it is below the upper bound) into
  // `stage`, committed as one group whether or not they ran, so that every
  // iteration adds exactly one group.
  auto issue = [&](ArrayRef<Value> buffers, Value iv, Value stage) {
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv,
                                        loop.getUpperBound());
    auto guard = scf::IfOp::create(b, loc, valid, /*withElseRegion=*/false);
    OpBuilder inside = OpBuilder::atBlockTerminator(guard.thenBlock());
    for (auto [staged, buffer] : llvm::zip(loads, buffers))
      copyInto(inside, staged, indicesAt(inside, loop, staged.load, iv),
               buffer, stage);
    AsyncCommitOp::create(b, loc, token, ValueRange{});
  };

  BarrierOp::create(b, loc);
  SmallVector<Value> buffers;
  for (StagedLoad &staged : loads)
    buffers.push_back(
        LocalAllocOp::create(b, loc, bufferType(staged, stages), Value()));
  for (int64_t j = 0; j < latency; ++j) {
    Value iv = arith::AddIOp::create(
        b, loc, loop.getLowerBound(),
        arith::MulIOp::create(b, loc, loop.getStep(), constant(j)));
    issue(buffers, iv, constant(j));
  }

  b.setInsertionPointToStart(loop.getBody());
  AsyncWaitOp::create(b, loc, ValueRange{}, uint32_t(latency - 1));
  if (feedsWgmma)
    FenceAsyncSharedOp::create(b, loc);
  BarrierOp::create(b, loc);
  Value iv = loop.getInductionVar();
  // Iterations count from 0; the step is positive (scf.for).
  Value iteration = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()),
      loop.getStep());
  Value ahead = arith::AddIOp::create(
      b, loc, iv, arith::MulIOp::create(b, loc, loop.getStep(), constant(latency)));
  Value aheadStage = arith::RemUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, iteration, constant(latency)),
      constant(stages));
  Value stage = arith::RemUIOp::create(b, loc, iteration, constant(stages));
  // Where wgmma reads the ring, the copies go out while the product of the
  // previous step runs, before this step's product is issued. Where a
  // product reads both operands from the ring's conversions (mma.sync
  // fragments), this step's reads and products come first and the copies
  // go out at the end of the body, after the products: the fragments are
  // the step's critical path, and the copies' address arithmetic would
  // delay them. The end of the body is still after the barrier that
  // ordered the reads of the stage they overwrite.
  if (copiesLast)
    b.setInsertionPoint(loop.getBody()->getTerminator());
  issue(buffers, ahead, aheadStage);

  for (Operation *op : inFlight)
    op->setAttr(kWgmmaPendingAttrName, b.getI32IntegerAttr(1));

  for (auto [staged, buffer] : llvm::zip(loads, buffers)) {
    b.setInsertionPoint(staged.load);
    replaceWithRead(b, staged, buffer, stage);
  }
  if (!inFlight.empty())
    peelLastIteration(loop);
}

struct PipelinePass : tilegpu::impl::TileGPUPipelineBase<PipelinePass> {
  using TileGPUPipelineBase::TileGPUPipelineBase;

  void runOnOperation() override {
    // Loads directly in a loop that could take part in its ring, and the
    // loop's depth (0: no load asks for prefetching).
    llvm::MapVector<Operation *, SmallVector<StagedLoad>> inLoop;
    DenseMap<Operation *, int64_t> latency;
    SmallVector<StagedLoad> single;
    getOperation().walk([&](tile::LoadOp load) {
      std::optional<StagedLoad> staged = match(load);
      if (!staged)
        return;
      // Rings count iterations in `index` (tile indices are indices).
      auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
      if (!loop || !loop.getInductionVar().getType().isIndex() ||
          !hasRecomputableIndices(loop, load)) {
        single.push_back(std::move(*staged));
        return;
      }
      int64_t &depth = latency[loop];
      if (load.getLatency().value_or(1) >= 2)
        depth = std::max<int64_t>(depth, *load.getLatency());
      inLoop[loop].push_back(std::move(*staged));
    });
    for (auto &[loop, loads] : inLoop) {
      // A loop with a ring takes its other loads into it too: a single
      // stage's wait for its own group would also wait for every prefetched
      // group before it, undoing the ring.
      if (latency[loop] >= 2)
        pipelineLoop(cast<scf::ForOp>(loop), loads, latency[loop]);
      else
        llvm::append_range(single, std::move(loads));
    }
    for (StagedLoad &staged : single)
      rewriteSingleStage(staged);
    if (interiorCopies)
      getOperation().walk([](AsyncCopyOp copy) {
        copy->setAttr(kInteriorCopiesAttrName,
                      UnitAttr::get(copy.getContext()));
      });
  }
};

} // namespace
