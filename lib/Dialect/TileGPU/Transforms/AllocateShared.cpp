//===- AllocateShared.cpp - shared-memory offsets from liveness -*- C++ -*-===//
//
// Every shared buffer (a tilegpu.local_alloc) and every convert_layout the
// planner stages through shared memory gets a byte offset; buffers whose
// lifetimes overlap never share bytes. Lifetimes are intervals over the ops
// numbered in program order; a buffer used inside a loop it was not
// allocated in lives for the whole loop (the next iteration reads it again),
// and a buffer whose read feeds a wgmma product lives until that product
// (wgmma reads the buffer itself).
// Offsets: largest buffer first, each at the lowest aligned offset that
// does not meet a placed buffer it overlaps in time.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/LayoutRules.h"
#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUALLOCATESHARED
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

struct Buffer {
  Operation *op;
  int64_t bytes;
  int64_t alignment;
  int64_t start, end; // op numbers, inclusive
  int64_t offset = -1;
};

/// Whether offsets walk the tile in row-major order (the last dim fastest).
bool isRowMajor(SharedLayoutAttr layout, ArrayRef<int64_t> tile) {
  tilec::LinearLayout linear = layout.getLinearLayout(tile);
  unsigned bit = 0;
  for (unsigned d = tile.size(); d-- > 0;)
    for (int64_t step = 1; step < getPaddedShape(tile)[d]; step *= 2, ++bit) {
      tilec::LinearLayout::Basis basis = linear.getBasis(tilec::kOffset, bit);
      for (unsigned k = 0; k < tile.size(); ++k)
        if (basis[k] != (k == d ? step : 0))
          return false;
    }
  return true;
}

class SharedAllocator {
public:
  SharedAllocator(tile::KernelOp kernel, bool conversions)
      : conversions(conversions) {
    kernel.walk<WalkOrder::PreOrder>(
        [&](Operation *op) { number[op] = int64_t(number.size()); });
    // The last op inside each op with regions: a loop's body ends there.
    kernel.walk([&](Operation *op) {
      int64_t last = number[op];
      op->walk([&](Operation *inner) { last = std::max(last, number[inner]); });
      lastInside[op] = last;
    });
  }

  LogicalResult collect(tile::KernelOp kernel);
  /// Sets every buffer's offset; returns the bytes the CTA needs.
  int64_t place();
  ArrayRef<Buffer> getBuffers() const { return buffers; }

private:
  /// The last op number at which `user` may touch a value defined by `def`:
  /// past the end of every loop around `user` that `def` is not inside.
  int64_t lastUse(Operation *def, Operation *user) {
    int64_t end = number[user];
    for (Operation *parent = user->getParentOp(); parent;
         parent = parent->getParentOp()) {
      if (parent->isAncestor(def))
        break;
      if (isa<scf::ForOp, scf::WhileOp>(parent))
        end = std::max(end, lastInside[parent]);
    }
    return end;
  }

  /// The wgmma products that take `read`'s tile (through tile.permute and
  /// tile.reshape) as an operand: the lowering reads such an operand from
  /// the buffer itself (MmaWgmma.cpp), so the buffer lives until them.
  SmallVector<Operation *> wgmmaReaders(LocalLoadOp read) {
    SmallVector<Operation *> products;
    SmallVector<Value> work{read.getResult()};
    while (!work.empty())
      for (Operation *user : work.pop_back_val().getUsers()) {
        if (isa<tile::PermuteOp, tile::ReshapeOp>(user))
          work.push_back(user->getResult(0));
        else if (isa<tile::MmaOp>(user) && user->hasAttr(kWgmmaAttrName))
          products.push_back(user);
      }
    return products;
  }

  bool conversions;
  DenseMap<Operation *, int64_t> number, lastInside;
  SmallVector<Buffer> buffers;
};

LogicalResult SharedAllocator::collect(tile::KernelOp kernel) {
  WalkResult walk = kernel.walk([&](Operation *op) -> WalkResult {
    if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
      SmemType type = alloc.getType();
      int64_t elements = 1;
      for (int64_t extent : getPaddedShape(type.getTileShape()))
        elements *= extent;
      if (type.isStaged())
        elements *= type.getShape()[0];
      Buffer buffer{op, elements * getElementBytes(type.getElementType()),
                    isRowMajor(type.getLayout(), type.getTileShape()) ? 16
                                                                      : 1024,
                    number[op], number[op]};
      for (Operation *user : alloc->getUsers()) {
        if (!isa<LocalLoadOp, LocalStoreOp, AsyncCopyOp>(user)) {
          user->emitOpError() << "takes a shared buffer, which "
                                 "tilegpu-allocate-shared cannot follow "
                                 "through it";
          return WalkResult::interrupt();
        }
        buffer.end = std::max(buffer.end, lastUse(op, user));
        if (auto read = dyn_cast<LocalLoadOp>(user))
          for (Operation *product : wgmmaReaders(read))
            buffer.end = std::max(buffer.end, lastUse(op, product));
      }
      buffers.push_back(buffer);
      return WalkResult::advance();
    }
    if (auto convert = dyn_cast<ConvertLayoutOp>(op); convert && conversions) {
      auto type = cast<RankedTensorType>(convert.getType());
      unsigned bytes = getElementBytes(type.getElementType());
      llvm::Expected<tilec::ConversionPlan> plan = tilec::planConversion(
          getDistributedLayout(convert.getSource().getType())
              .getLinearLayout(type.getShape()),
          getDistributedLayout(type).getLinearLayout(type.getShape()), bytes);
      if (!plan) {
        op->emitOpError() << "cannot be planned: "
                          << llvm::toString(plan.takeError());
        return WalkResult::interrupt();
      }
      if (plan->kind == tilec::ConversionPlan::Kind::SharedMemory)
        buffers.push_back(
            {op, (int64_t(1) << plan->shared->layout.getTotalOutBits()) * bytes,
             16, number[op], number[op]});
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

int64_t SharedAllocator::place() {
  SmallVector<Buffer *> order;
  for (Buffer &buffer : buffers)
    order.push_back(&buffer);
  // Largest first; ties in program order, so the result is deterministic.
  llvm::stable_sort(order, [](const Buffer *a, const Buffer *b) {
    return a->bytes > b->bytes;
  });
  int64_t total = 0;
  SmallVector<Buffer *> placed;
  for (Buffer *buffer : order) {
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (Buffer *other : placed)
      if (other->start <= buffer->end && buffer->start <= other->end)
        taken.push_back({other->offset, other->offset + other->bytes});
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + buffer->bytes <= begin)
        break;
      offset = std::max<int64_t>(offset, llvm::alignTo(end, buffer->alignment));
    }
    buffer->offset = offset;
    total = std::max(total, offset + buffer->bytes);
    placed.push_back(buffer);
  }
  return total;
}

struct AllocateSharedPass
    : tilegpu::impl::TileGPUAllocateSharedBase<AllocateSharedPass> {
  using TileGPUAllocateSharedBase::TileGPUAllocateSharedBase;

  void runOnOperation() override {
    WalkResult walk = getOperation().walk([&](tile::KernelOp kernel) {
      SharedAllocator allocator(kernel, conversions);
      if (failed(allocator.collect(kernel)))
        return WalkResult::interrupt();
      int64_t total = allocator.place();
      Builder builder(kernel.getContext());
      for (const Buffer &buffer : allocator.getBuffers())
        buffer.op->setAttr(kSharedOffsetAttrName,
                           builder.getI64IntegerAttr(buffer.offset));
      kernel->setAttr(kKernelSharedBytesAttrName, builder.getI64IntegerAttr(total));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
