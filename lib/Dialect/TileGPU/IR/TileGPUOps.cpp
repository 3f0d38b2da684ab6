//===- TileGPUOps.cpp - tilegpu operations ----------------------*- C++ -*-===//

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::tilegpu;

#define GET_OP_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"

namespace {

/// "64x32 bf16 tile".
std::string describe(RankedTensorType tile) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << formatShape(tile.getShape()) << " " << tile.getElementType() << " tile";
  return text;
}

/// The tile has a register layout, over the enclosing kernel's warps.
LogicalResult requireLayout(Operation *op, RankedTensorType tile,
                            StringRef role) {
  DistributedLayoutAttr layout = getDistributedLayout(tile);
  if (!layout)
    return op->emitOpError() << "the " << role << " (" << describe(tile)
                             << ") needs a #tilegpu.dist register layout";
  if (auto kernel = op->getParentOfType<tile::KernelOp>())
    if (layout.getNumWarps() != unsigned(kernel.getNumWarps()))
      return op->emitOpError()
             << "the " << role << "'s layout spreads it over "
             << layout.getNumWarps() << " warps, but the kernel has "
             << kernel.getNumWarps();
  return success();
}

/// A tile moved between registers and a buffer: same element type and the
/// shape of one stage, with a stage index exactly when the buffer is staged.
LogicalResult verifyTileInBuffer(Operation *op, RankedTensorType tile,
                                 SmemType buffer, Value stage, StringRef role) {
  if (failed(requireLayout(op, tile, role)))
    return failure();
  if (buffer.isStaged() != bool(stage))
    return op->emitOpError()
           << (buffer.isStaged()
                   ? "the buffer has a leading stage dimension of " +
                         std::to_string(buffer.getShape()[0]) +
                         ": name the stage with [%stage]"
                   : std::string("the buffer has no stage dimension, so it "
                                 "takes no stage index"));
  if (tile.getElementType() != buffer.getElementType())
    return op->emitOpError()
           << "the " << role << " holds " << tile.getElementType()
           << " but the buffer holds " << buffer.getElementType();
  if (tile.getShape() != buffer.getTileShape())
    return op->emitOpError()
           << "the " << role << " is a " << formatShape(tile.getShape())
           << " tile but the buffer holds "
           << formatShape(buffer.getTileShape()) << " tiles";
  return success();
}

LogicalResult requireMutable(Operation *op, SmemType buffer) {
  if (!buffer.getIsMutable())
    return op->emitOpError() << "writes a buffer that is not mutable (allocate "
                                "it without a value, as `mutable`)";
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// ConvertLayoutOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertLayoutOp::verify() {
  auto source = cast<RankedTensorType>(getSource().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (failed(requireLayout(*this, source, "source")) ||
      failed(requireLayout(*this, result, "result")))
    return failure();
  if (source.getShape() != result.getShape())
    return emitOpError() << "moves a tile without reshaping it: the source is "
                         << formatShape(source.getShape())
                         << " but the result is "
                         << formatShape(result.getShape());
  if (source.getElementType() != result.getElementType())
    return emitOpError() << "moves a tile without converting its elements: "
                         << source.getElementType() << " in, "
                         << result.getElementType()
                         << " out (use tile.convert)";
  unsigned srcWarps = getDistributedLayout(source).getNumWarps();
  unsigned dstWarps = getDistributedLayout(result).getNumWarps();
  if (srcWarps != dstWarps)
    return emitOpError() << "both layouts describe the same CTA: the source's "
                         << "has " << srcWarps << " warps, the result's "
                         << dstWarps;
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSource().getType() == getResult().getType())
    return getSource();
  // A chain moves the data once, from the first layout to the last.
  if (auto producer = getSource().getDefiningOp<ConvertLayoutOp>()) {
    getSourceMutable().assign(producer.getSource());
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

LogicalResult LocalAllocOp::verify() {
  auto buffer = cast<SmemType>(getResult().getType());
  if (!getInit())
    return buffer.getIsMutable()
               ? success()
               : emitOpError() << "allocates a buffer with no value that "
                                  "nothing may write: give it a value or make "
                                  "it mutable";
  if (buffer.isStaged())
    return emitOpError() << "a value fills one tile, but the buffer has "
                         << buffer.getShape()[0] << " stages";
  return verifyTileInBuffer(*this, cast<RankedTensorType>(getInit().getType()),
                            buffer, Value(), "value");
}

LogicalResult LocalLoadOp::verify() {
  return verifyTileInBuffer(*this, cast<RankedTensorType>(getType()),
                            getBuffer().getType(), getStage(), "result");
}

LogicalResult LocalStoreOp::verify() {
  if (failed(requireMutable(*this, getBuffer().getType())))
    return failure();
  return verifyTileInBuffer(*this, cast<RankedTensorType>(getValue().getType()),
                            getBuffer().getType(), getStage(), "value");
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

LogicalResult AsyncCopyOp::verify() {
  tile::ViewType view = getView().getType();
  SmemType buffer = getBuffer().getType();
  if (failed(requireMutable(*this, buffer)))
    return failure();
  if (getIndices().size() != view.getRank())
    return emitOpError() << "takes one tile index per view dimension: the view "
                         << "has " << view.getRank() << ", but "
                         << getIndices().size() << " indices are given";
  ArrayRef<int64_t> tile = buffer.getTileShape();
  if (tile.size() != view.getRank())
    return emitOpError() << "copies a box of the view's rank " << view.getRank()
                         << ", but the buffer holds rank-" << tile.size()
                         << " tiles";
  if (buffer.isStaged() != bool(getStage()))
    return emitOpError() << (buffer.isStaged()
                                 ? "the buffer is staged: name the stage with "
                                   "[%stage]"
                                 : "the buffer has no stage dimension, so it "
                                   "takes no stage index");
  if (view.getElementType() != buffer.getElementType())
    return emitOpError() << "the view holds " << view.getElementType()
                         << " but the buffer holds " << buffer.getElementType();
  if (DistributedLayoutAttr layout = getLayoutAttr()) {
    if (layout.getRank() != tile.size())
      return emitOpError() << "the copy layout is a layout of rank-"
                           << layout.getRank() << " tiles, but the box has rank "
                           << tile.size();
    if (failed(layout.verifyEncoding(tile, view.getElementType(),
                                     [&] { return emitOpError(); })))
      return failure();
    if (failed(requireLayout(
            *this, RankedTensorType::get(tile, view.getElementType(), layout),
            "copy")))
      return failure();
  }
  int64_t rowBytes = tile.back() * getElementBytes(view.getElementType());
  if (getKind() == CopyKind::cp_async && rowBytes % 4 != 0)
    return emitOpError() << "cp.async moves 4, 8 or 16 bytes at a time, but a "
                         << "row of the box has " << rowBytes << " bytes";
  if (getKind() == CopyKind::tma) {
    if (getPadding() != tile::Padding::zero &&
        getPadding() != tile::Padding::nan)
      return emitOpError() << "a TMA copy fills out-of-bounds elements with "
                           << "zero or NaN, not "
                           << tile::stringifyPadding(getPadding());
    if (rowBytes % 16 != 0)
      return emitOpError() << "a TMA box row is a multiple of 16 bytes, not "
                           << rowBytes;
  }
  return success();
}

LogicalResult AsyncWaitOp::verify() {
  // I32Attr reads back unsigned; the attribute keeps the sign written.
  int64_t pending = getPendingAttr().getInt();
  if (pending < 0)
    return emitOpError() << "pending counts copy groups, so it is >= 0, not "
                         << pending;
  return success();
}
