//===- Layout.h - where the elements of a tile live -------------*- C++ -*-===//
//
// Layouts map the elements of a tile to threads and registers, or to shared
// memory. The sm_80 path (docs/codegen.md) keeps every tile value in registers
// in one BlockedLayout and moves data between threads through shared memory
// in a SharedLayout; mma.sync fragments follow MmaLayout. Later paths (wgmma,
// tcgen05) add their own register and shared layouts next to these and
// convert between them where the first path goes through shared memory.
//
// Everything here is plain arithmetic on compile-time numbers so that it can
// be unit-tested without generating code; the lowering emits the same
// formulas as IR.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_LAYOUT_H
#define TILEC_CONVERSION_LAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace tilec {

/// Row-major strides (in elements) of a dense tile of `shape`.
llvm::SmallVector<int64_t> getRowMajorStrides(llvm::ArrayRef<int64_t> shape);

/// A tile distributed over the `numThreads` threads of a CTA: thread t holds
/// in register r the element of row-major linear index
///   ((r / vec) * numThreads + t) * vec + r % vec,
/// so consecutive threads hold consecutive runs of `vec` elements along the
/// last dimension (coalesced global accesses). Registers of a thread whose
/// index reaches the element count are padding: they hold no element and are
/// never stored.
class BlockedLayout {
public:
  BlockedLayout(llvm::ArrayRef<int64_t> shape, int64_t numThreads,
                int64_t vec = 1);

  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getNumElements() const { return numElements; }
  int64_t getNumThreads() const { return numThreads; }
  int64_t getVectorWidth() const { return vec; }
  /// Registers per thread: ceil(elements / (threads * vec)) * vec.
  int64_t getNumRegisters() const;
  /// Linear element index held by register `reg` of thread `thread` (may be
  /// past the end for padding registers).
  int64_t getLinearIndex(int64_t thread, int64_t reg) const;
  /// Register `reg` is `regBase(reg) + thread * vec`; this is regBase.
  int64_t getRegisterBase(int64_t reg) const;
  /// Whether register `reg` is padding in some thread.
  bool mayBePadding(int64_t reg) const;

private:
  llvm::SmallVector<int64_t> shape;
  int64_t numElements;
  int64_t numThreads;
  int64_t vec;
};

/// The tile obtained by dropping dimension `dim` of a parent tile (the result
/// of a reduction): its coordinates are the parent's without `dim`.
class SliceLayout {
public:
  SliceLayout(llvm::ArrayRef<int64_t> parentShape, int64_t dim)
      : parentShape(parentShape), dim(dim) {}

  int64_t getDim() const { return dim; }
  /// The slice's shape.
  llvm::SmallVector<int64_t> getShape() const;
  /// Position of slice dimension `d` among the parent's dimensions.
  int64_t getParentDim(int64_t d) const { return d < dim ? d : d + 1; }

private:
  llvm::SmallVector<int64_t> parentShape;
  int64_t dim;
};

/// A tile in shared memory: element (i_0, ..., i_{n-1}) lies at byte
/// `offset + (sum_d i_d * strides[d]) * elementBytes` of the kernel's dynamic
/// shared memory.
struct SharedLayout {
  int64_t offset = 0;
  llvm::SmallVector<int64_t> strides;
  int64_t elementBytes = 0;
  /// Bytes from `offset` to the end of the furthest element.
  int64_t sizeBytes = 0;

  /// A dense row-major tile, each row padded by `rowPad` elements (a skew
  /// that spreads the rows of mma fragments over the 32 banks).
  static SharedLayout rowMajor(llvm::ArrayRef<int64_t> shape,
                               int64_t elementBytes, int64_t offset,
                               int64_t rowPad = 0);
  /// A 2-D tile stored column by column (element (i, j) at j * ld + i), each
  /// column padded by `colPad` elements.
  static SharedLayout columnMajor(int64_t rows, int64_t cols,
                                  int64_t elementBytes, int64_t offset,
                                  int64_t colPad = 0);
  int64_t end() const { return offset + sizeBytes; }
};

/// One coordinate of an mma.sync fragment element for a lane:
/// group * (lane / 4) + inGroup * (lane % 4) + constant.
struct LaneCoord {
  int64_t group = 0;
  int64_t inGroup = 0;
  int64_t constant = 0;
  int64_t eval(int64_t lane) const {
    return group * (lane / 4) + inGroup * (lane % 4) + constant;
  }
};

/// The register fragments of one warp-wide mma.sync.m16n8kK (PTX ISA,
/// "Matrix Fragments for mma.m16n8k*"), for operands of `operandBits` bits:
/// 16 (bf16, f16; K = 16) or 32 (tf32; K = 8). Element i of a fragment is the
/// i-th element of the operand registers, low half first.
class MmaLayout {
public:
  enum class Operand { A, B, Accumulator };

  explicit MmaLayout(unsigned operandBits);

  int64_t getM() const { return 16; }
  int64_t getN() const { return 8; }
  int64_t getK() const { return operandBits == 16 ? 16 : 8; }
  unsigned getOperandBits() const { return operandBits; }
  /// Elements per lane: A 8 or 4, B 4 or 2, accumulator 4 (f32).
  int64_t getNumElements(Operand operand) const;
  /// Elements per 32-bit register of `operand`.
  int64_t getElementsPerRegister(Operand operand) const;
  /// Row (of A: M, of B: K, of C: M) and column (A: K, B: N, C: N) of
  /// element `i` of `operand`'s fragment.
  std::pair<LaneCoord, LaneCoord> getElement(Operand operand, int64_t i) const;

private:
  unsigned operandBits;
};

} // namespace tilec

#endif // TILEC_CONVERSION_LAYOUT_H
