//===- ViewByteSpan.h - how many bytes a strided view spans -----*- C++ -*-===//
//
// Kernels address a view's elements with 64-bit byte offsets, so every
// consumer of views (the interpreter, the runtime's launch checks, the
// Mamba-2 library's validation) must reject a view whose last element lies
// beyond them. Plain C++: the runtime links it where there is no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_VIEWBYTESPAN_H
#define TILEC_SUPPORT_VIEWBYTESPAN_H

#include <cstddef>
#include <cstdint>
#include <optional>

namespace tilec {

/// The bytes from a strided view's first element to one past its last,
/// (1 + sum_d (shape_d - 1) * strides_d) * elementSize; none where that
/// does not fit in int64_t. Shapes and strides are in elements; for extents
/// of at least 1 and non-negative strides (a view with an extent of 0 has no
/// element to address: callers check extents and strides first).
inline std::optional<int64_t> viewByteSpan(const int64_t *shape,
                                           const int64_t *strides, size_t rank,
                                           size_t elementSize) {
  int64_t last = 0, count, bytes;
  for (size_t d = 0; d < rank; ++d) {
    int64_t step;
    if (__builtin_mul_overflow(shape[d] - 1, strides[d], &step) ||
        __builtin_add_overflow(last, step, &last))
      return std::nullopt;
  }
  if (__builtin_add_overflow(last, int64_t(1), &count) ||
      __builtin_mul_overflow(count, static_cast<int64_t>(elementSize), &bytes))
    return std::nullopt;
  return bytes;
}

} // namespace tilec

#endif // TILEC_SUPPORT_VIEWBYTESPAN_H
