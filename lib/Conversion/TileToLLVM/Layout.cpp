//===- Layout.cpp - where the elements of a tile live -----------*- C++ -*-===//

#include "tilec/Conversion/Layout.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

using namespace tilec;

llvm::SmallVector<int64_t> tilec::getRowMajorStrides(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

BlockedLayout::BlockedLayout(llvm::ArrayRef<int64_t> shape, int64_t numThreads,
                             int64_t vec)
    : shape(shape), numElements(1), numThreads(numThreads), vec(vec) {
  for (int64_t size : shape)
    numElements *= size;
}

int64_t BlockedLayout::getNumRegisters() const {
  return llvm::divideCeil(numElements, numThreads * vec) * vec;
}

int64_t BlockedLayout::getRegisterBase(int64_t reg) const {
  return (reg / vec) * numThreads * vec + reg % vec;
}

int64_t BlockedLayout::getLinearIndex(int64_t thread, int64_t reg) const {
  return getRegisterBase(reg) + thread * vec;
}

bool BlockedLayout::mayBePadding(int64_t reg) const {
  return getLinearIndex(numThreads - 1, reg) >= numElements;
}

llvm::SmallVector<int64_t> SliceLayout::getShape() const {
  llvm::SmallVector<int64_t> shape(parentShape);
  shape.erase(shape.begin() + dim);
  return shape;
}

SharedLayout SharedLayout::rowMajor(llvm::ArrayRef<int64_t> shape,
                                    int64_t elementBytes, int64_t offset,
                                    int64_t rowPad) {
  SharedLayout layout;
  layout.offset = offset;
  layout.elementBytes = elementBytes;
  llvm::SmallVector<int64_t> padded(shape);
  if (!padded.empty())
    padded.back() += rowPad;
  layout.strides = getRowMajorStrides(padded);
  int64_t last = 0;
  for (auto [size, stride] : llvm::zip(shape, layout.strides))
    last += (size - 1) * stride;
  layout.sizeBytes = (last + 1) * elementBytes;
  return layout;
}

SharedLayout SharedLayout::columnMajor(int64_t rows, int64_t cols,
                                       int64_t elementBytes, int64_t offset,
                                       int64_t colPad) {
  SharedLayout layout;
  layout.offset = offset;
  layout.elementBytes = elementBytes;
  layout.strides = {1, rows + colPad};
  layout.sizeBytes = ((cols - 1) * (rows + colPad) + rows) * elementBytes;
  return layout;
}

MmaLayout::MmaLayout(unsigned operandBits) : operandBits(operandBits) {}

int64_t MmaLayout::getNumElements(Operand operand) const {
  switch (operand) {
  case Operand::A:
    return getM() * getK() / 32;
  case Operand::B:
    return getK() * getN() / 32;
  case Operand::Accumulator:
    return getM() * getN() / 32;
  }
  llvm_unreachable("unknown mma operand");
}

int64_t MmaLayout::getElementsPerRegister(Operand operand) const {
  return operand == Operand::Accumulator ? 1 : 32 / operandBits;
}

std::pair<LaneCoord, LaneCoord> MmaLayout::getElement(Operand operand,
                                                      int64_t i) const {
  LaneCoord row, col;
  switch (operand) {
  case Operand::Accumulator:
    // c0, c1: row g, columns 2t, 2t + 1; c2, c3: row g + 8.
    row = {1, 0, 8 * (i / 2)};
    col = {0, 2, i % 2};
    break;
  case Operand::A:
    if (operandBits == 16) {
      // a0 a1 | a2 a3 | a4 a5 | a6 a7: rows g, g + 8, g, g + 8; columns
      // 2t (+ 8 for a4..a7), two per register.
      row = {1, 0, 8 * ((i / 2) % 2)};
      col = {0, 2, i % 2 + 8 * (i / 4)};
    } else {
      // a0..a3: rows g, g + 8, g, g + 8; columns t, t, t + 4, t + 4.
      row = {1, 0, 8 * (i % 2)};
      col = {0, 1, 4 * (i / 2)};
    }
    break;
  case Operand::B:
    if (operandBits == 16) {
      // b0 b1 | b2 b3: rows (k) 2t, 2t + 1 (+ 8 for b2, b3); column g.
      row = {0, 2, i % 2 + 8 * (i / 2)};
      col = {1, 0, 0};
    } else {
      // b0, b1: rows t, t + 4; column g.
      row = {0, 1, 4 * i};
      col = {1, 0, 0};
    }
    break;
  }
  return {row, col};
}
