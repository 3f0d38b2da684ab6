//===- Kernels.h - the interpreter's loops over tiles -----------*- C++ -*-===//
//
// The element loops behind the ops: memory access, data movement, scans,
// reductions and matrix products. Each works on flat row-major storage whose
// shape the caller knows statically.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_INTERPRETER_KERNELS_H
#define TILEC_LIB_INTERPRETER_KERNELS_H

#include "Program.h"

#include "tilec/Interpreter/Numerics.h"

namespace tilec::interp::detail {

/// Where a tile sits in a view: for each tile dimension k, the view
/// coordinate of its first element, the view's extent and the view's stride
/// along the view dimension that tile dimension k walks.
struct TileGeometry {
  unsigned rank = 0;
  std::array<int64_t, 8> shape{};
  std::array<int64_t, 8> base{};
  std::array<int64_t, 8> limit{};
  std::array<int64_t, 8> stride{};
};

/// Reads the tile at `geometry` of `view` into `out`; elements outside the
/// view read as `padding`.
void loadFloats(const ViewArg &view, const TileGeometry &geometry, float *out,
                float padding);
void loadInts(const ViewArg &view, const TileGeometry &geometry, int64_t *out);

/// Writes the elements of `in` that fall inside `view`.
void storeFloats(const ViewArg &view, const TileGeometry &geometry,
                 const float *in);
void storeInts(const ViewArg &view, const TileGeometry &geometry,
               const int64_t *in);

/// out[row-major over shape] = src[sum_k idx_k * strides_k].
template <typename T>
void gather(T *out, const T *src, const int64_t *shape, const int64_t *strides,
            unsigned rank);

/// A tile seen as outer x length x inner around the axis of a scan or a
/// reduction.
struct AxisShape {
  int64_t outer = 1, length = 1, inner = 1;
};

void cumsumFloats(const float *in, float *out, AxisShape shape, Elem elem);
void cumsumInts(const int64_t *in, int64_t *out, AxisShape shape, Elem elem);

enum class ReduceKind { Sum, Max, Min };
void reduceFloats(const float *in, float *out, AxisShape shape, Elem elem,
                  ReduceKind kind);
void reduceInts(const int64_t *in, int64_t *out, AxisShape shape, Elem elem,
                ReduceKind kind);

/// c (m x n) += a (m x k) @ b (k x n): for each element of c, one fused
/// multiply-add per k in increasing k.
void matmulAccumulate(const float *a, const float *b, float *c, int64_t m,
                      int64_t n, int64_t k);

/// Rounds each element to `elem` (nothing for f32) with `mode`.
void roundFloats(Elem elem, float *data, int64_t n,
                 Rounding mode = Rounding::NearestEven);

/// Sign-extends each element from `elem`'s width (nothing for 64 bits).
void normalizeInts(Elem elem, int64_t *data, int64_t n);

inline int64_t signExtend(int64_t value, unsigned width) {
  if (width >= 64)
    return value;
  unsigned shift = 64 - width;
  return static_cast<int64_t>(static_cast<uint64_t>(value) << shift) >> shift;
}

inline uint64_t widthMask(unsigned width) {
  return width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
}

/// The float of type `elem` nearest to the integer `negative ? -magnitude :
/// magnitude` (ties to even), rounded once.
float integerToFloat(uint64_t magnitude, bool negative, Elem elem);

/// `value` truncated toward zero and saturated to the range of a `width`-bit
/// integer (signed or unsigned); NaN gives 0. Returned sign-extended.
int64_t floatToInteger(float value, unsigned width, bool isUnsigned);

//===----------------------------------------------------------------------===//
// Template definitions
//===----------------------------------------------------------------------===//

template <typename T>
void gather(T *out, const T *src, const int64_t *shape, const int64_t *strides,
            unsigned rank) {
  if (rank == 0) {
    *out = *src;
    return;
  }
  int64_t inner = shape[rank - 1], innerStride = strides[rank - 1];
  int64_t rows = 1;
  for (unsigned k = 0; k + 1 < rank; ++k)
    rows *= shape[k];
  std::array<int64_t, 8> index{};
  int64_t offset = 0;
  for (int64_t row = 0; row < rows; ++row, out += inner) {
    const T *from = src + offset;
    if (innerStride == 1) {
      for (int64_t j = 0; j < inner; ++j)
        out[j] = from[j];
    } else {
      for (int64_t j = 0; j < inner; ++j)
        out[j] = from[j * innerStride];
    }
    for (int k = static_cast<int>(rank) - 2; k >= 0; --k) {
      offset += strides[k];
      if (++index[k] < shape[k])
        break;
      offset -= strides[k] * shape[k];
      index[k] = 0;
    }
  }
}

} // namespace tilec::interp::detail

#endif // TILEC_LIB_INTERPRETER_KERNELS_H
