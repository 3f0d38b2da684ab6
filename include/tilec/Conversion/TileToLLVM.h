//===- TileToLLVM.h - tile IR to the LLVM and NVVM dialects -----*- C++ -*-===//
//
// The pieces of the `convert-tile-to-llvm` pass, for pipelines that want to
// mix them with other patterns. See docs/codegen.md for the design.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_TILETOLLVM_H
#define TILEC_CONVERSION_TILETOLLVM_H

#include "tilec/Conversion/Layout.h"
#include "tilec/Dialect/Tile/IR/TileAttrNames.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"

namespace tilec {

/// Name of the dynamic shared memory array every kernel addresses (an
/// external zero-sized `llvm.mlir.global` in address space 3).
inline constexpr llvm::StringLiteral kSharedMemoryName = "tile_smem";

/// Attributes of the lowered kernel (Pipeline.h), read by lib/Target.
using mlir::tile::kNumWarpsAttrName;
using mlir::tile::kSharedBytesAttrName;

/// The most element operations one thread may run in straight-line code,
/// in one kernel and in all the kernels of a file together (tile ops unroll
/// over a thread's registers, a scalar op counts 1, a libdevice
/// call counts 32): the bound that keeps LLVM's and ptxas's time in check
/// (docs/codegen.md, "Limits").
inline constexpr int64_t kMaxUnrolledElementOps = 4096;

/// Types of one kernel whose programs run on `numThreads` threads:
///   - a tile tensor<S x T> becomes the vector of one thread's registers in
///     the blocked layout, vector<R x T'> with R = ceil(numel(S) / numThreads)
///     and T' = T except f32 for tf32 (tf32 values keep their f32 bits);
///   - a view of rank r becomes !llvm.ptr<1>, r x i64 sizes, r x i64 strides;
///   - index becomes i64, other scalars as in LLVMTypeConverter.
///
/// On the layouts path (`layouts`: every tile type carries a #tilegpu.dist
/// encoding, docs/codegen-layouts.md) a tile becomes instead the vector of
/// one thread's registers in that layout, vector<2^registerBits x T'>.
/// `vectorize`: the kernel is compiled with the vectorize facts (the
/// launcher's vec variant), so that runs of registers along a contiguous
/// innermost view dim become one access of up to 16 bytes, except in the
/// accesses of views marked `tile.any_strides` (accessElementByElement).
class TileTypeConverter : public mlir::LLVMTypeConverter {
public:
  TileTypeConverter(mlir::MLIRContext *context, int64_t numThreads,
                    bool layouts = false, bool vectorize = false);

  int64_t getNumThreads() const { return numThreads; }
  bool hasLayouts() const { return layouts; }
  /// Whether the tile.load or tile.store `access` may read or write up to
  /// 16 bytes at once: the kernel is compiled with the vectorize facts and
  /// `access` was not named by accessElementByElement.
  bool vectorizesAccess(mlir::Operation *access) const {
    return vectorize && !elementwise.contains(access);
  }
  /// `access` goes through a view without the vectorize facts (one marked
  /// `tile.any_strides`). Named before the conversion: by then the access's
  /// view is no longer an argument of its kernel.
  void accessElementByElement(mlir::Operation *access) {
    elementwise.insert(access);
  }
  /// The register layout of a tile of this type.
  BlockedLayout getLayout(mlir::RankedTensorType type) const;
  /// The type a tile element has in registers (f32 for tf32).
  static mlir::Type getRegisterType(mlir::Type element);

private:
  int64_t numThreads;
  bool layouts;
  bool vectorize;
  llvm::DenseSet<mlir::Operation *> elementwise;
};

/// Bytes of scratch shared memory `op` uses for its exchange between threads
/// (0 when it needs none). All ops share one scratch area at offset 0: each
/// one ends with a barrier after its last read.
int64_t getSharedScratchBytes(mlir::Operation *op);

/// Patterns lowering tile ops, `tile.kernel`, elementwise arith/math ops on
/// tiles and scf ops carrying tiles, for kernels of `converter`'s thread
/// count.
void populateTileToLLVMConversionPatterns(TileTypeConverter &converter,
                                          mlir::RewritePatternSet &patterns);

} // namespace tilec

#endif // TILEC_CONVERSION_TILETOLLVM_H
