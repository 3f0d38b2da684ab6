//===- Lowering.h - shared helpers of the tile to LLVM lowering -*- C++ -*-===//

#ifndef TILEC_LIB_CONVERSION_TILETOLLVM_LOWERING_H
#define TILEC_LIB_CONVERSION_TILETOLLVM_LOWERING_H

#include "tilec/Conversion/TileToLLVM.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

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

/// Rounds f32 registers (a scalar or a vector) to tf32, to nearest even;
/// NaN is quieted (docs/semantics.md, "Arithmetic").
mlir::Value roundToTF32(Emitter &e, mlir::Value x);

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
