//===- Pipeline.cpp - mma-operand loads by cp.async, in rings ---*- C++ -*-===//
//
// A tile.load whose only use is a convert_layout through shared memory
// (reached through reshapes of unit dims and element conversions) is read
// global -> shared by cp.async straight into a swizzled buffer, and from
// there into the conversion's destination layout: the tile never sits in
// registers in the load's layout, and the conversion's store, barrier and
// second barrier disappear. Inside scf.for a load with latency n >= 2 is
// prefetched n iterations ahead through an (n+1)-stage ring.
//
// Barriers (the simplest correct placement; tilegpu-insert-barriers does
// not exist yet): one before a buffer is first written (its bytes may hold
// a buffer that other threads still read, or the same buffer's previous
// contents), and one after each wait (other threads' copies become
// visible). In a ring, the barrier after the wait of iteration i also
// orders the reads of stage (i-1) mod (n+1) before the copy that
// overwrites it in iteration i.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUPIPELINE
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;
using tilec::LayoutDim;
using tilec::LinearLayout;

namespace {

SmallVector<LayoutDim> paddedOuts(ArrayRef<int64_t> shape) {
  SmallVector<LayoutDim> outs;
  for (auto [i, extent] : llvm::enumerate(getPaddedShape(shape)))
    outs.push_back({tilec::tensorDimName(i), llvm::Log2_64(uint64_t(extent))});
  return outs;
}

/// `layout` of a tile read with `order` (tile dim k is view dim order[k])
/// as a layout of the same elements in the view's order of dimensions.
LinearLayout toViewOrder(const LinearLayout &layout, ArrayRef<int64_t> box,
                         ArrayRef<int64_t> order) {
  SmallVector<LinearLayout::InDim> ins = layout.getBases();
  for (LinearLayout::InDim &in : ins)
    for (LinearLayout::Basis &basis : in.bases) {
      LinearLayout::Basis mapped(basis.size(), 0);
      for (auto [k, d] : llvm::enumerate(order))
        mapped[d] = basis[k];
      basis = mapped;
    }
  return LinearLayout(ins, paddedOuts(box));
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
      .reshapeOuts(paddedOuts(box));
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
  /// The reshapes and element conversions from the load to the conversion.
  SmallVector<Operation *> chain;
  ConvertLayoutOp convert;
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
    if (!value.hasOneUse())
      return std::nullopt;
    Operation *user = *value.getUsers().begin();
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

  // Only conversions that go through shared memory today (a shuffle plan
  // is staged too until shuffles are lowered): a free one needs no copy.
  RankedTensorType result = staged.convert.getType();
  RankedTensorType source = staged.convert.getSource().getType();
  LinearLayout dst = getDistributedLayout(result).getLinearLayout(result.getShape());
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
  staged.copyLayout = DistributedLayoutAttr::get(context, copy);
  staged.sharedLayout =
      SharedLayoutAttr::get(context, boxSharedLayout(staged.box, bytes));
  staged.readLayout = DistributedLayoutAttr::get(
      context, toViewOrder(dst.reshapeOuts(paddedOuts(type.getShape())),
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
  RankedTensorType result = staged.convert.getType();
  LinearLayout dst = getDistributedLayout(result).getLinearLayout(result.getShape());
  auto inLayout = [&](ArrayRef<int64_t> shape, Type element) {
    return RankedTensorType::get(
        shape, element,
        DistributedLayoutAttr::get(context, dst.reshapeOuts(paddedOuts(shape))));
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
  staged.convert.replaceAllUsesWith(value);
  staged.convert.erase();
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

/// The load's indices for induction variable `iv`: the body's ops they
/// depend on, cloned at `b` with the induction variable replaced.
SmallVector<Value> indicesAt(OpBuilder &b, scf::ForOp loop, tile::LoadOp load,
                             Value iv) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  std::function<Value(Value)> at = [&](Value value) -> Value {
    if (Value mapped = mapping.lookupOrNull(value))
      return mapped;
    if (loop.isDefinedOutsideOfLoop(value))
      return value;
    Operation *def = value.getDefiningOp();
    for (Value operand : def->getOperands())
      at(operand);
    b.clone(*def, mapping);
    return mapping.lookup(value);
  };
  SmallVector<Value> indices;
  for (Value index : load.getIndices())
    indices.push_back(at(index));
  return indices;
}

/// The (latency+1)-stage ring of `loop` for `loads`.
void pipelineLoop(scf::ForOp loop, MutableArrayRef<StagedLoad> loads,
                  int64_t latency) {
  Location loc = loop.getLoc();
  MLIRContext *context = loop.getContext();
  int64_t stages = latency + 1;
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
  issue(buffers, ahead, aheadStage);

  for (auto [staged, buffer] : llvm::zip(loads, buffers)) {
    b.setInsertionPoint(staged.load);
    replaceWithRead(b, staged, buffer, stage);
  }
}

struct PipelinePass : tilegpu::impl::TileGPUPipelineBase<PipelinePass> {
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
  }
};

} // namespace
