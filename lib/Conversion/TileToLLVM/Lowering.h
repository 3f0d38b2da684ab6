//===- Lowering.h - shared helpers of the tile to LLVM lowering -*- C++ -*-===//

#ifndef TILEC_LIB_CONVERSION_TILETOLLVM_LOWERING_H
#define TILEC_LIB_CONVERSION_TILETOLLVM_LOWERING_H

#include "tilec/Conversion/TileToLLVM.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"
#include "tilec/Layout/LinearLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tilec::detail {

/// Builds the code of one thread: constants, registers, index arithmetic
/// (arith on i32/i64, lowered later), shared memory and barriers.
class Emitter {
public:
  Emitter(mlir::OpBuilder &builder, mlir::Location loc)
      : b(builder), loc(loc) {}

  mlir::OpBuilder &b;
  mlir::Location loc;

  mlir::Value i32(int64_t value);
  mlir::Value i64(int64_t value);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  mlir::Value udiv(mlir::Value x, int64_t y);
  mlir::Value urem(mlir::Value x, int64_t y);
  mlir::Value ult(mlir::Value x, mlir::Value y);
  mlir::Value logicalAnd(mlir::Value x, mlir::Value y);
  mlir::Value bitXor(mlir::Value x, mlir::Value y);
  mlir::Value bitAnd(mlir::Value x, int64_t mask);
  mlir::Value minU(mlir::Value x, int64_t y);
  /// Zero-extends an i32 (a coordinate, never negative) to i64.
  mlir::Value toI64(mlir::Value x);

  /// This thread's index in the CTA (i32).
  mlir::Value threadId();
  /// bar.sync 0 over the whole CTA.
  void barrier();

  mlir::Value extract(mlir::Value vector, int64_t position);
  mlir::Value insert(mlir::Value vector, mlir::Value element, int64_t position);
  mlir::Value zeros(mlir::Type type);
  /// A vector whose every lane is `scalar`.
  mlir::Value splat(mlir::VectorType type, mlir::Value scalar);

  /// Linear element index (i32) of register `reg` in the blocked layout;
  /// with `clamp`, padding registers read the last element instead, so that
  /// they may address shared memory safely.
  mlir::Value linearIndex(const BlockedLayout &layout, int64_t reg, bool clamp);
  /// Whether register `reg` holds an element (i1), or null when it does in
  /// every thread.
  mlir::Value holdsElement(const BlockedLayout &layout, int64_t reg);
  /// Coordinates (i32) of the row-major linear index `linear` < numel.
  llvm::SmallVector<mlir::Value> delinearize(mlir::Value linear,
                                             llvm::ArrayRef<int64_t> shape);
  /// sum_d coords[d] * strides[d], in the coordinates' type (i32 0 for none).
  mlir::Value dot(mlir::ValueRange coords, llvm::ArrayRef<int64_t> strides);

  /// Pointer to the element at `elementOffset` (i32, in elements) of a tile in
  /// shared memory.
  mlir::Value sharedAddress(const SharedLayout &layout, mlir::Type element,
                            mlir::Value elementOffset);
  /// Loads / stores a register value of type `element` from / to shared
  /// memory (i1 is kept as one byte).
  mlir::Value loadShared(mlir::Type element, mlir::Value address);
  void storeShared(mlir::Value value, mlir::Value address);

  /// Runs `body` when `condition` holds (no condition: always).
  void ifThen(mlir::Value condition, llvm::function_ref<void()> body);
  /// `condition ? then() : otherwise`, evaluating then() only if it holds
  /// (no condition: then()).
  mlir::Value ifThenElse(mlir::Value condition,
                         llvm::function_ref<mlir::Value()> then,
                         mlir::Value otherwise);
  /// An scf.for over i32 [lower, upper) with step 1 carrying `init`.
  llvm::SmallVector<mlir::Value>
  loop(mlir::Value lower, mlir::Value upper, mlir::ValueRange init,
       llvm::function_ref<llvm::SmallVector<mlir::Value>(
           mlir::Value, mlir::ValueRange)>
           body,
       int64_t step = 1);

private:
  mlir::Value sharedBase();
};

/// The type an element of `element` type has in shared memory.
mlir::Type getSharedType(mlir::Type element);
/// Its size in bytes.
int64_t getSharedBytes(mlir::Type element);

/// Writes the elements of `tile` (registers in `layout`, elements of register
/// type `element`) into shared memory at `shared`. Padding registers write
/// nothing.
void storeTileToShared(Emitter &e, const BlockedLayout &layout,
                       mlir::Value tile, mlir::Type element,
                       const SharedLayout &shared);

/// Builds the registers of a tile of `resultType` in the blocked layout: the
/// element at coordinates c is the one at `sourceCoords(c)` of `source` in
/// shared memory.
mlir::Value gatherFromShared(
    Emitter &e, const TileTypeConverter &converter,
    mlir::RankedTensorType resultType, const SharedLayout &source,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(
        llvm::ArrayRef<mlir::Value>)>
        sourceCoords);

/// Where tile.extract's sub-tile of `subShape` at tile index `indices`
/// starts in its source: index * extent per dim (i32).
llvm::SmallVector<mlir::Value> extractOrigin(Emitter &e,
                                             mlir::ValueRange indices,
                                             llvm::ArrayRef<int64_t> subShape);
/// origin + coords, per dim.
llvm::SmallVector<mlir::Value> addCoords(Emitter &e,
                                         llvm::ArrayRef<mlir::Value> origin,
                                         llvm::ArrayRef<mlir::Value> coords);

/// Rounds f32 registers (a scalar or a vector) to tf32, to nearest even;
/// NaN is quieted (docs/semantics.md, "Arithmetic").
mlir::Value roundToTF32(Emitter &e, mlir::Value x);

/// A conversion pattern of the tile lowering: `converter()` is its type
/// converter, `registersOf(tile)` the register vector a tile becomes.
template <typename Op>
struct TilePattern : mlir::OpConversionPattern<Op> {
  TilePattern(TileTypeConverter &converter, mlir::MLIRContext *context,
              mlir::PatternBenefit benefit = 1)
      : mlir::OpConversionPattern<Op>(converter, context, benefit) {}

  const TileTypeConverter &converter() const {
    return *this->template getTypeConverter<TileTypeConverter>();
  }
  mlir::VectorType registersOf(mlir::Type tile) const {
    return mlir::cast<mlir::VectorType>(converter().convertType(tile));
  }
};

//===----------------------------------------------------------------------===//
// The layouts path: tiles whose type carries a #tilegpu.dist encoding
// (DistributedLayout.cpp; docs/codegen-layouts.md, "As built").
//===----------------------------------------------------------------------===//

/// A linear layout with inputs among (register, lane, warp) evaluated for
/// this thread: the lane and warp images are computed once from %tid, the
/// register images are compile-time constants, and the output of register r
/// is their XOR.
class ThreadLayout {
public:
  ThreadLayout(Emitter &e, const LinearLayout &layout);

  const LinearLayout &getLayout() const { return layout; }
  int64_t getNumRegisters() const { return layout.getInDimSize(kRegister); }
  /// The outputs (i32, one per output dim) of register `reg` of this thread.
  llvm::SmallVector<mlir::Value> outputs(Emitter &e, int64_t reg) const;
  /// The compile-time part: the image of register `reg` alone.
  llvm::SmallVector<int64_t> registerImage(int64_t reg) const;
  /// The image of (lane, warp) = (0, 0) XOR lanes and warps, per output dim.
  llvm::ArrayRef<mlir::Value> threadImage() const { return threadPart; }
  /// The outputs of register `reg` minus those of register 0, the same in
  /// every thread, where no lane or warp bit reaches a bit of the
  /// register's image (then the XOR is an add); std::nullopt otherwise.
  std::optional<llvm::SmallVector<int64_t>> offsetFromFirst(int64_t reg) const;

private:
  LinearLayout layout;
  llvm::SmallVector<mlir::Value> threadPart;
  /// Per output dim, the bits any lane or warp bit of the layout sets.
  llvm::SmallVector<int64_t> threadMask;
};

/// One thread's registers of a tile in a distributed layout.
class DistributedTile {
public:
  DistributedTile(Emitter &e, mlir::RankedTensorType type);

  mlir::RankedTensorType getType() const { return type; }
  const LinearLayout &getLayout() const { return thread.getLayout(); }
  int64_t getNumRegisters() const { return thread.getNumRegisters(); }
  /// Tile coordinates (i32) of register `reg`, inside the padded tile; with
  /// `clamp`, clamped to the true extents (a padding register then names a
  /// real element, so that it may address a buffer of the true shape).
  llvm::SmallVector<mlir::Value> coords(Emitter &e, int64_t reg,
                                        bool clamp = false) const;
  /// Whether register `reg` holds an element of the true tile (i1), null
  /// when it always does.
  mlir::Value holds(Emitter &e, int64_t reg) const;
  /// Whether this thread's register `reg` is the one copy of its element
  /// that writes it (replicated copies and padding do not), null when it
  /// always is; compile-time false (std::nullopt) for a register that is a
  /// copy of a lower register in every thread.
  std::optional<mlir::Value> owns(Emitter &e, int64_t reg) const;
  /// Lane and warp bits of threads that hold copies only.
  int64_t getCopyLaneMask() const { return copyLaneMask; }
  int64_t getCopyWarpMask() const { return copyWarpMask; }
  /// The evaluated layout.
  const ThreadLayout &getThreadLayout() const { return thread; }

private:
  mlir::RankedTensorType type;
  ThreadLayout thread;
  /// Bits of lane and warp whose image the lower input bits already span:
  /// a thread with any of them set holds copies only.
  int64_t copyLaneMask = 0, copyWarpMask = 0;
  /// The same for register bits.
  int64_t copyRegisterMask = 0;
};

/// The linear layout of a tile type's #tilegpu.dist encoding.
LinearLayout getDistributedLinearLayout(mlir::RankedTensorType type);
/// Whether a tile type has a #tilegpu.dist encoding.
bool hasDistributedLayout(mlir::Type type);

/// The tile type of `shape` and `element` in layout `layout`.
mlir::RankedTensorType getDistributedType(mlir::MLIRContext *context,
                                          llvm::ArrayRef<int64_t> shape,
                                          mlir::Type element,
                                          const LinearLayout &layout);
/// Whether (lane & laneMask) == 0 and (warp & warpMask) == 0 in this thread
/// (i1), null for two empty masks.
mlir::Value threadBitsClear(Emitter &e, int64_t laneMask, int64_t warpMask);

/// Bytes of the scratch copy of a tile (row-major over its true shape).
int64_t getScratchBytes(mlir::RankedTensorType type);

/// Writes the elements this thread owns of `tile` (registers of `source`)
/// into the scratch area, row-major over the true shape, at byte
/// `offsetBytes` of the kernel's shared memory.
void storeToScratch(Emitter &e, const DistributedTile &source,
                    mlir::Value tile, int64_t offsetBytes = 0);
/// The registers of `result` where the element at coordinates c is the one
/// at `sourceCoords(c)` of a tile of `sourceType` in the scratch area
/// (clamped result coordinates; sourceCoords must stay inside the source).
mlir::Value gatherFromScratch(
    Emitter &e, const DistributedTile &result, mlir::RankedTensorType sourceType,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(
        llvm::ArrayRef<mlir::Value>)>
        sourceCoords,
    int64_t offsetBytes = 0);

/// Stores the registers `value` of `source` into a staging buffer at byte
/// `offsetBytes` of shared memory, in the planner's staging layout and
/// store vectors (one copy of each real element).
void storeToStaging(Emitter &e, const DistributedTile &source,
                    mlir::Value value, const SharedStaging &staging,
                    int64_t offsetBytes);
/// The registers (of type `resultType`) of a tile in layout `dst` read from
/// a staging buffer at byte `offsetBytes` laid out as `staging.layout`:
/// ldmatrix where the plan says so, else vector loads of the plan's width.
/// The one place a staging buffer is read, whoever wrote it (stores from
/// registers, or asynchronous copies from global memory); the caller puts
/// the barrier before it.
mlir::Value loadFromStaging(Emitter &e, const SharedStaging &staging,
                            int64_t offsetBytes, const LinearLayout &dst,
                            mlir::VectorType resultType);

/// Converts `value`, the registers of `source`, into the registers of a tile
/// of the same element type in layout `dst` (a layout of the same output
/// dims as the source's), as tilec::planConversion plans it. Ends with a
/// barrier when it used the scratch area.
mlir::Value convertDistributed(Emitter &e, const DistributedTile &source,
                               mlir::Value value, const LinearLayout &dst,
                               mlir::VectorType resultType);
/// Whether `toOffset` ((register, lane, warp) -> offset) puts each run of
/// `width` registers from a multiple of it at consecutive offsets from a
/// multiple of `width` (what a vector access of the run needs).
bool keepsVectors(const LinearLayout &toOffset, int64_t width);
/// The registers of a tile of layout `dst` read from shared memory, where
/// `shared` (offset in elements -> tile coordinates, a bijection onto the
/// padded tile) lays the tile out from `base` (a shared pointer to its
/// element 0), in vectors of up to `maxVector` consecutive registers where
/// the layouts keep them at consecutive offsets. The one place a staged or
/// async-copied buffer is read into a register layout (ldmatrix plugs in
/// here). No barrier: the caller orders the writes before it.
mlir::Value readSharedTile(Emitter &e, const LinearLayout &dst,
                           const LinearLayout &shared, mlir::Value base,
                           int64_t maxVector, mlir::VectorType resultType);
/// Scratch bytes convertDistributed needs for this conversion (0 when it
/// keeps the data in registers).
int64_t getConversionScratchBytes(mlir::RankedTensorType source,
                                  const LinearLayout &dst);

/// Patterns of the layouts path for the ops whose lowering depends on the
/// layout (LowerDistributed.cpp, LowerDistributedMma.cpp).
void populateDistributedPatterns(TileTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateDistributedMmaPatterns(TileTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
/// Shared buffers, cp.async, its groups and barriers, and reads of buffers
/// (LowerAsyncCopy.cpp).
void populateAsyncCopyPatterns(TileTypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
/// The first element of `stage` of the lowered `buffer` (a shared pointer;
/// the buffer itself when `stage` is null).
mlir::Value stageBase(Emitter &e, mlir::tilegpu::SmemType type,
                      mlir::Value buffer, mlir::Value stage);
/// A tile that is a read of a tilegpu-allocate-shared buffer, through
/// tile.permute and reshapes that add or drop unit dims: the read, its
/// buffer, and the map from the tile's (padded) coordinates to the element
/// offset in the stage it reads.
struct BufferRead {
  mlir::tilegpu::LocalLoadOp read;
  mlir::tilegpu::LocalAllocOp alloc;
  LinearLayout toOffset;
};
std::optional<BufferRead> findBufferRead(mlir::Value tile);
/// Refuses, with an error at the op, async copies and buffers the lowering
/// cannot take (a TMA copy, no copy layout, an unplaced buffer, ...).
mlir::LogicalResult checkAsyncCopies(mlir::ModuleOp module);
/// tile.reduce / tile.cumsum in registers and warp shuffles
/// (DistributedReductions.cpp), or none when the layout does not allow it;
/// the bytes of scratch they use, or -1 when they do not apply.
std::optional<mlir::Value> reduceInRegisters(Emitter &e, mlir::tile::ReduceOp op,
                                             mlir::Value source,
                                             mlir::VectorType resultType);
int64_t getReduceInRegistersBytes(mlir::tile::ReduceOp op);
std::optional<mlir::Value> scanInRegisters(Emitter &e, mlir::tile::CumsumOp op,
                                           mlir::Value source);
int64_t getScanInRegistersBytes(mlir::tile::CumsumOp op);

/// Fails, saying which, where a tile.mma has the wgmma layouts but the
/// target `sm` is not sm_90a's 90.
mlir::LogicalResult checkMmaTargets(mlir::ModuleOp module, unsigned sm);
/// Scratch bytes of a tile.mma of the layouts path (0 in registers).
int64_t getDistributedMmaScratchBytes(mlir::tile::MmaOp op);
/// Scratch bytes of an op of the layouts path.
int64_t getDistributedScratchBytes(mlir::Operation *op);

/// Reductions and scans (LowerShared.cpp): float sums and scans accumulate
/// in f32, everything else in its own type.
mlir::Type accumulatorType(mlir::Type element);
mlir::Value toAccumulator(Emitter &e, mlir::Value value, mlir::Type accumulator);
mlir::Value fromAccumulator(Emitter &e, mlir::Value value, mlir::Type element);
/// x `kind` y (max and min propagate NaN).
mlir::Value combine(Emitter &e, mlir::tile::ReduceKind kind, mlir::Value x,
                    mlir::Value y);
/// The zero of a scalar type.
mlir::Value zeroOf(Emitter &e, mlir::Type type);
/// The result of tile.reduce `op` from its source tile in `shared`:
/// `numRegisters` registers of type `registers`, register r the reduction
/// along the axis in index order (a float sum accumulates in f32) at the
/// result coordinates `resultCoords(r)`. Both code generators reduce this way
/// where their registers cannot.
mlir::Value reduceFromShared(
    Emitter &e, mlir::tile::ReduceOp op, const SharedLayout &shared,
    mlir::VectorType registers, int64_t numRegisters,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(int64_t)> resultCoords);
/// The inclusive sum along dimension `axis` of `shared` up to the element at
/// `coords`, in `element`'s type (a float sum accumulates in f32): the
/// element of a tile.cumsum where registers cannot scan.
mlir::Value scanAlongShared(Emitter &e, const SharedLayout &shared,
                            mlir::Type element, int64_t axis,
                            llvm::SmallVector<mlir::Value> coords);

/// A libdevice function implementing a math op (LowerLibdevice.cpp).
struct LibdeviceFunction {
  llvm::StringLiteral name;
  unsigned numOperands;
};
/// The libdevice function `op` becomes, if it is one of those math ops.
std::optional<LibdeviceFunction> getLibdeviceFunction(mlir::Operation *op);
/// Declares in `module` the libdevice functions its math ops need.
void declareLibdeviceFunctions(mlir::ModuleOp module);

int64_t getExchangeScratchBytes(mlir::Operation *op);
int64_t getMmaScratchBytes(mlir::tile::MmaOp op);

void populateValuePatterns(TileTypeConverter &converter,
                           mlir::RewritePatternSet &patterns);
void populateMemoryPatterns(TileTypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateSharedPatterns(TileTypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateMmaPatterns(TileTypeConverter &converter,
                         mlir::RewritePatternSet &patterns);
/// shifts, signed division and float to int with defined results
/// (LowerArith.cpp), on scalars and tiles.
void populateArithPatterns(TileTypeConverter &converter,
                           mlir::RewritePatternSet &patterns);
void populateLibdevicePatterns(TileTypeConverter &converter,
                               mlir::RewritePatternSet &patterns);

} // namespace tilec::detail

#endif // TILEC_LIB_CONVERSION_TILETOLLVM_LOWERING_H
