//===- DType.h - element types of views in memory ---------------*- C++ -*-===//
//
// The element types a `!tile.view` holds, as host buffers, the golden case
// files and the Mamba-2 library's tensors store them: one enum for the
// interpreter (tilec::interp), the case files and the library
// (tilec::mamba2). Plain C++: the GPU checker and the Mamba-2 library, which
// have no LLVM, use it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_DTYPE_H
#define TILEC_SUPPORT_DTYPE_H

#include <cstddef>
#include <cstdint>

namespace tilec {

/// Element types of host buffers, as stored in memory. Case files store the
/// number: append, never reorder.
enum class DType : uint8_t { F32, F16, BF16, I8, I16, I32, I64 };

/// The last DType, for readers that check a stored number.
constexpr DType kLastDType = DType::I64;

constexpr size_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::I8:
    return 1;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::I64:
    return 8;
  }
  return 0;
}

/// The element type's name in the dialect ("bf16").
constexpr const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I8:
    return "i8";
  case DType::I16:
    return "i16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  return "?";
}

constexpr bool isFloatDType(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
}

} // namespace tilec

#endif // TILEC_SUPPORT_DTYPE_H
