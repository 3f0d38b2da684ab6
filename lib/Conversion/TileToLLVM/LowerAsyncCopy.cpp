//===- LowerAsyncCopy.cpp - shared buffers and cp.async ----------*- C++ -*-===//
//
// The tilegpu ops tilegpu-pipeline produces (docs/codegen-layouts.md, "As
// built: cp.async and pipelining"), on the layouts path:
//   - tilegpu.local_alloc: the address of its bytes, at the offset
//     tilegpu-allocate-shared gave it above the scratch area;
//   - tilegpu.async_copy kind = cp_async: per run of registers of its copy
//     layout (up to 16 bytes along the view's innermost dim), one
//     cp.async.{cg 16, ca 4/8}.shared.global with src-size 0 outside the view
//     (the vec facts make a run wholly inside or outside), so the bytes are
//     zero-filled there; only the owning copy of a replicated element copies;
//   - tilegpu.async_commit / async_wait: cp.async.commit_group / wait_group;
//   - tilegpu.barrier: bar.sync;
//   - tilegpu.fence_async_shared: fence.proxy.async.shared::cta;
//   - tilegpu.local_load: readSharedTile, the one reader of a shared buffer
//     into a register layout.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "ViewAccess.h"

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

namespace {

Type sharedPointerType(MLIRContext *context) {
  return LLVM::LLVMPointerType::get(context, /*addressSpace=*/3);
}

/// A stage index (index or its lowered integer) as i32.
Value toI32(Emitter &e, Value index) {
  if (isa<IndexType>(index.getType()))
    return arith::IndexCastOp::create(e.b, e.loc, e.b.getI32Type(), index);
  if (index.getType().isInteger(64))
    return arith::TruncIOp::create(e.b, e.loc, e.b.getI32Type(), index);
  return index;
}

/// Bytes per cp.async of the copy: its layout's runs along the innermost
/// dim.
int64_t copyBytesOf(tilegpu::AsyncCopyOp op) {
  tilegpu::SmemType buffer = op.getBuffer().getType();
  ArrayRef<int64_t> box = buffer.getTileShape();
  unsigned bytes = getSharedBytes(buffer.getElementType());
  return bytes * tilegpu::getVectorRun(op.getLayoutAttr().getLinearLayout(box),
                                       box, int64_t(box.size()) - 1, bytes);
}

/// What the lowering of an async copy needs, said in the user's terms.
LogicalResult checkCopy(tilegpu::AsyncCopyOp op) {
  if (op.getKind() != tilegpu::CopyKind::cp_async)
    return op.emitOpError() << "kind = tma is not lowered yet";
  if (op.getPadding() != tile::Padding::zero)
    return op.emitOpError() << "cp.async fills with zeros only, not "
                            << tile::stringifyPadding(op.getPadding());
  if (!op.getLayoutAttr())
    return op.emitOpError()
           << "needs a `layout` saying which thread copies which elements";
  int64_t copyBytes = copyBytesOf(op);
  if (copyBytes != 4 && copyBytes != 8 && copyBytes != 16)
    return op.emitOpError()
           << "copies runs of " << copyBytes
           << " bytes per thread along the view's innermost dimension; "
              "cp.async moves 4, 8 or 16";
  return success();
}

struct LocalAllocLowering : TilePattern<tilegpu::LocalAllocOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tilegpu::LocalAllocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto offset = op->getAttrOfType<IntegerAttr>(tilegpu::kSharedOffsetAttrName);
    if (op.getInit() || !offset)
      return rewriter.notifyMatchFailure(op, "refused by checkAsyncCopies");
    Emitter e(rewriter, op.getLoc());
    SharedLayout bytes;
    bytes.offset = offset.getInt();
    rewriter.replaceOp(op, e.sharedAddress(bytes, rewriter.getI8Type(),
                                           e.i32(0)));
    return success();
  }
};

struct AsyncCopyLowering : TilePattern<tilegpu::AsyncCopyOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tilegpu::AsyncCopyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    tilegpu::DistributedLayoutAttr layout = op.getLayoutAttr();
    if (failed(checkCopy(op)))
      return rewriter.notifyMatchFailure(op, "refused by checkAsyncCopies");
    tilegpu::SmemType bufferType = op.getBuffer().getType();
    ArrayRef<int64_t> box = bufferType.getTileShape();
    Type element = bufferType.getElementType();
    unsigned bytes = getSharedBytes(element);
    auto boxType = RankedTensorType::get(box, element, layout);
    Emitter e(rewriter, op.getLoc());
    DistributedTile tile(e, boxType);
    int64_t width = tilegpu::getVectorRun(tile.getLayout(), box,
                                          int64_t(box.size()) - 1, bytes);
    int64_t copyBytes = width * bytes;

    SmallVector<Value> indices;
    for (ValueRange index : adaptor.getIndices())
      indices.push_back(index.front());
    ValueRange view = adaptor.getView();
    ViewAccess access(e, view, indices, boxType, std::nullopt, element);
    LinearLayout toOffset =
        bufferType.getLayout().getLinearLayout(box).invert();
    ThreadLayout offsets(e, tile.getLayout().compose(toOffset));
    Value stage = adaptor.getStage().empty() ? Value()
                                             : adaptor.getStage().front();
    Value base =
        stageBase(e, bufferType, adaptor.getBuffer().front(), stage);
    Type stored = getSharedType(element);
    auto modifier = copyBytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                    : NVVM::LoadCacheModifierKind::CA;
    // Most runs lie a constant offset from the first one in every thread:
    // their addresses and bounds come from its anchor. `checked`: each run
    // outside the view copies nothing (src-size 0).
    auto copyRuns = [&](bool checked) {
    RegisterAddresses addresses(e, access, tile);
    for (int64_t r = 0; r < tile.getNumRegisters(); r += width) {
      std::optional<Value> owner = tile.owns(e, r);
      if (!owner)
        continue;
      auto [pointer, inBounds] = addresses.at(r, Value());
      Value offset = offsets.outputs(e, r)[0];
      e.ifThen(*owner, [&] {
        Value destination = LLVM::GEPOp::create(
            rewriter, op.getLoc(), sharedPointerType(getContext()), stored,
            base, ValueRange{offset});
        // Outside the view nothing is read (src-size 0 zero-fills the
        // bytes); the view's base stands in for the address.
        Value source = pointer, size = e.i32(copyBytes);
        if (checked && inBounds) {
          source = LLVM::SelectOp::create(rewriter, op.getLoc(), inBounds,
                                          pointer, view.front());
          size = LLVM::SelectOp::create(rewriter, op.getLoc(), inBounds, size,
                                        e.i32(0));
        }
        NVVM::CpAsyncOp::create(rewriter, op.getLoc(), destination, source,
                                rewriter.getI32IntegerAttr(copyBytes),
                                NVVM::LoadCacheModifierKindAttr::get(
                                    getContext(), modifier),
                                size);
      });
    }
    };
    // A box wholly inside the view (every box but those at its edges)
    // copies every run unchecked, behind one uniform branch.
    if (op->hasAttr(tilegpu::kInteriorCopiesAttrName)) {
      scf::IfOp::create(
          rewriter, op.getLoc(), access.tileInside(),
          [&](OpBuilder &, Location loc) {
            copyRuns(/*checked=*/false);
            scf::YieldOp::create(rewriter, loc);
          },
          [&](OpBuilder &, Location loc) {
            copyRuns(/*checked=*/true);
            scf::YieldOp::create(rewriter, loc);
          });
    } else {
      copyRuns(/*checked=*/true);
    }
    rewriter.replaceOp(op, e.i32(0));
    return success();
  }
};

struct AsyncCommitLowering : TilePattern<tilegpu::AsyncCommitOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tilegpu::AsyncCommitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    Emitter e(rewriter, op.getLoc());
    rewriter.replaceOp(op, e.i32(0));
    return success();
  }
};

struct AsyncWaitLowering : TilePattern<tilegpu::AsyncWaitOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tilegpu::AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), op.getPending());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierLowering : TilePattern<tilegpu::BarrierOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tilegpu::BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    e.barrier();
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceAsyncSharedLowering : TilePattern<tilegpu::FenceAsyncSharedOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tilegpu::FenceAsyncSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::FenceProxyOp::create(
        rewriter, op.getLoc(),
        NVVM::ProxyKindAttr::get(getContext(), NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(getContext(),
                                   NVVM::SharedSpace::shared_cta));
    rewriter.eraseOp(op);
    return success();
  }
};

struct LocalLoadLowering : TilePattern<tilegpu::LocalLoadOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tilegpu::LocalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    tilegpu::SmemType bufferType = op.getBuffer().getType();
    RankedTensorType type = op.getType();
    Value base =
        stageBase(e, bufferType, adaptor.getBuffer(), adaptor.getStage());
    int64_t elementBytes = getSharedBytes(type.getElementType());
    rewriter.replaceOp(
        op, readSharedTile(
                e, getDistributedLinearLayout(type),
                bufferType.getLayout().getLinearLayout(type.getShape()), base,
                std::max<int64_t>(1, 16 / elementBytes), registersOf(type)));
    return success();
  }
};

} // namespace

Value tilec::detail::stageBase(Emitter &e, tilegpu::SmemType type,
                               Value buffer, Value stage) {
  if (!stage)
    return buffer;
  int64_t elements = 1;
  for (int64_t extent : tilegpu::getPaddedShape(type.getTileShape()))
    elements *= extent;
  Type stored = getSharedType(type.getElementType());
  Value offset = e.mul(toI32(e, stage), e.i32(elements));
  return LLVM::GEPOp::create(e.b, e.loc, sharedPointerType(e.b.getContext()),
                             stored, buffer, ValueRange{offset});
}

std::optional<BufferRead> tilec::detail::findBufferRead(Value tile) {
  // source[d]: the dim of `tile` that dim d of the value at hand walks, or
  // -1 for a unit dim.
  auto tileType = cast<RankedTensorType>(tile.getType());
  SmallVector<int64_t> source = llvm::to_vector(llvm::seq<int64_t>(0, tileType.getRank()));
  Value value = tile;
  while (true) {
    Operation *def = value.getDefiningOp();
    if (auto permute = dyn_cast_or_null<tile::PermuteOp>(def)) {
      SmallVector<int64_t> from(source.size(), -1);
      for (auto [k, d] : llvm::enumerate(permute.getPermutation()))
        from[d] = source[k];
      source = from;
      value = permute.getSource();
      continue;
    }
    if (auto reshape = dyn_cast_or_null<tile::ReshapeOp>(def)) {
      // Only reshapes that add or drop unit dims: the other dims keep their
      // extents and order.
      ArrayRef<int64_t> to = reshape.getType().getShape();
      ArrayRef<int64_t> from = reshape.getSource().getType().getShape();
      SmallVector<int64_t> keptDims, keptExtents;
      for (auto [d, extent] : llvm::enumerate(to))
        if (extent != 1) {
          keptDims.push_back(source[d]);
          keptExtents.push_back(extent);
        }
      SmallVector<int64_t> mapped;
      size_t next = 0;
      for (int64_t extent : from) {
        if (extent == 1) {
          mapped.push_back(-1);
          continue;
        }
        if (next == keptDims.size() || keptExtents[next] != extent)
          return std::nullopt;
        mapped.push_back(keptDims[next++]);
      }
      if (next != keptDims.size())
        return std::nullopt;
      source = mapped;
      value = reshape.getSource();
      continue;
    }
    break;
  }
  auto read = value.getDefiningOp<tilegpu::LocalLoadOp>();
  if (!read)
    return std::nullopt;
  auto alloc = read.getBuffer().getDefiningOp<tilegpu::LocalAllocOp>();
  if (!alloc || !alloc->hasAttr(tilegpu::kSharedOffsetAttrName))
    return std::nullopt;
  // tile coordinates -> coordinates of the read, then -> element offset.
  RankedTensorType readType = read.getType();
  SmallVector<int64_t> tileShape = tilegpu::getPaddedShape(tileType.getShape());
  SmallVector<int64_t> readShape = tilegpu::getPaddedShape(readType.getShape());
  SmallVector<LinearLayout::InDim> ins;
  SmallVector<LayoutDim> outs;
  for (auto [d, extent] : llvm::enumerate(readShape))
    outs.push_back({tensorDimName(unsigned(d)), unsigned(llvm::Log2_64(uint64_t(extent)))});
  for (auto [t, extent] : llvm::enumerate(tileShape)) {
    LinearLayout::InDim in{tensorDimName(unsigned(t)), {}};
    for (int64_t bit = 1; bit < extent; bit <<= 1) {
      LinearLayout::Basis basis(readShape.size(), 0);
      for (auto [d, from] : llvm::enumerate(source))
        if (from == int64_t(t))
          basis[d] = bit;
      in.bases.push_back(basis);
    }
    ins.push_back(in);
  }
  LinearLayout toRead(ins, outs);
  BufferRead found;
  found.read = read;
  found.alloc = alloc;
  found.toOffset = toRead.compose(
      read.getBuffer().getType().getLayout().getLinearLayout(readType.getShape())
          .invert());
  return found;
}

LogicalResult tilec::detail::checkAsyncCopies(ModuleOp module) {
  WalkResult walk = module.walk([](Operation *op) -> WalkResult {
    if (auto copy = dyn_cast<tilegpu::AsyncCopyOp>(op))
      return failed(checkCopy(copy)) ? WalkResult::interrupt()
                                     : WalkResult::advance();
    auto alloc = dyn_cast<tilegpu::LocalAllocOp>(op);
    if (!alloc)
      return WalkResult::advance();
    if (alloc.getInit()) {
      alloc.emitOpError() << "with an initial value is not lowered yet: "
                             "allocate it mutable and write it with "
                             "tilegpu.async_copy";
      return WalkResult::interrupt();
    }
    if (!alloc->hasAttr(tilegpu::kSharedOffsetAttrName)) {
      alloc.emitOpError() << "has no " << tilegpu::kSharedOffsetAttrName
                          << ": run tilegpu-allocate-shared first";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

void tilec::detail::populateAsyncCopyPatterns(TileTypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<LocalAllocLowering, AsyncCopyLowering, AsyncCommitLowering,
               AsyncWaitLowering, BarrierLowering, FenceAsyncSharedLowering,
               LocalLoadLowering>(
      converter, patterns.getContext());
}
