//===- Kernels.cpp - the interpreter's loops over tiles ---------*- C++ -*-===//

#include "Kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace tilec::interp;
using namespace tilec::interp::detail;

//===----------------------------------------------------------------------===//
// Memory access
//===----------------------------------------------------------------------===//

namespace {

/// Walks the rows (innermost tile dimension) of a tile placed in a view. For
/// each row, `visit(row, offset, lo, hi)` gets the range [lo, hi) of row
/// positions inside the view, empty when the row lies outside, and the
/// element offset in the view of position lo.
template <typename Visit>
void forEachRow(const TileGeometry &g, Visit visit) {
  unsigned last = g.rank - 1;
  int64_t inner = g.shape[last], base = g.base[last];
  int64_t lo = std::clamp<int64_t>(-base, 0, inner);
  int64_t hi = std::clamp<int64_t>(g.limit[last] - base, lo, inner);
  int64_t rows = 1;
  for (unsigned k = 0; k < last; ++k)
    rows *= g.shape[k];
  std::array<int64_t, 8> index{};
  for (int64_t row = 0; row < rows; ++row) {
    bool inside = lo < hi;
    int64_t offset = 0;
    for (unsigned k = 0; inside && k < last; ++k) {
      int64_t coord = g.base[k] + index[k];
      inside = coord >= 0 && coord < g.limit[k];
      if (inside)
        offset += coord * g.stride[k];
    }
    if (inside)
      visit(row, offset + (base + lo) * g.stride[last], lo, hi);
    else
      visit(row, 0, 0, 0);
    for (int k = static_cast<int>(last) - 1; k >= 0; --k) {
      if (++index[k] < g.shape[k])
        break;
      index[k] = 0;
    }
  }
}

template <typename Mem, typename Out, typename Convert>
void loadTyped(const ViewArg &view, const TileGeometry &g, Out *out, Out pad,
               Convert convert) {
  const Mem *data = reinterpret_cast<const Mem *>(view.data);
  int64_t inner = g.shape[g.rank - 1], stride = g.stride[g.rank - 1];
  forEachRow(g, [&](int64_t row, int64_t offset, int64_t lo, int64_t hi) {
    Out *dst = out + row * inner;
    std::fill(dst, dst + lo, pad);
    const Mem *src = data + offset;
    if (stride == 1) {
      for (int64_t j = lo; j < hi; ++j)
        dst[j] = convert(src[j - lo]);
    } else {
      for (int64_t j = lo; j < hi; ++j)
        dst[j] = convert(src[(j - lo) * stride]);
    }
    std::fill(dst + hi, dst + inner, pad);
  });
}

template <typename Mem, typename In, typename Convert>
void storeTyped(const ViewArg &view, const TileGeometry &g, const In *in,
                Convert convert) {
  Mem *data = reinterpret_cast<Mem *>(view.data);
  int64_t inner = g.shape[g.rank - 1], stride = g.stride[g.rank - 1];
  forEachRow(g, [&](int64_t row, int64_t offset, int64_t lo, int64_t hi) {
    const In *src = in + row * inner;
    Mem *dst = data + offset;
    for (int64_t j = lo; j < hi; ++j)
      dst[(j - lo) * stride] = convert(src[j]);
  });
}

// Functors rather than function pointers, so that the element loops inline
// the conversion.
template <typename T> struct Widen {
  int64_t operator()(T value) const { return value; }
};
template <typename T> struct Narrow {
  T operator()(int64_t value) const { return static_cast<T>(value); }
};

} // namespace

void detail::loadFloats(const ViewArg &view, const TileGeometry &g, float *out,
                        float padding) {
  switch (view.dtype) {
  case DType::F32:
    return loadTyped<float>(view, g, out, padding, [](float x) { return x; });
  case DType::F16:
    return loadTyped<uint16_t>(view, g, out, padding,
                                  [](uint16_t h) { return f16BitsToFloat(h); });
  case DType::BF16:
    return loadTyped<uint16_t>(view, g, out, padding,
                                  [](uint16_t h) { return bf16BitsToFloat(h); });
  default:
    return;
  }
}

void detail::loadInts(const ViewArg &view, const TileGeometry &g,
                      int64_t *out) {
  switch (view.dtype) {
  case DType::I8:
    return loadTyped<int8_t>(view, g, out, int64_t(0), Widen<int8_t>());
  case DType::I16:
    return loadTyped<int16_t>(view, g, out, int64_t(0), Widen<int16_t>());
  case DType::I32:
    return loadTyped<int32_t>(view, g, out, int64_t(0), Widen<int32_t>());
  case DType::I64:
    return loadTyped<int64_t>(view, g, out, int64_t(0), Widen<int64_t>());
  default:
    return;
  }
}

void detail::storeFloats(const ViewArg &view, const TileGeometry &g,
                         const float *in) {
  switch (view.dtype) {
  case DType::F32:
    return storeTyped<float>(view, g, in, [](float x) { return x; });
  case DType::F16:
    return storeTyped<uint16_t>(view, g, in,
                                   [](float x) { return floatToF16Bits(x); });
  case DType::BF16:
    return storeTyped<uint16_t>(view, g, in,
                                   [](float x) { return floatToBF16Bits(x); });
  default:
    return;
  }
}

void detail::storeInts(const ViewArg &view, const TileGeometry &g,
                       const int64_t *in) {
  switch (view.dtype) {
  case DType::I8:
    return storeTyped<int8_t>(view, g, in, Narrow<int8_t>());
  case DType::I16:
    return storeTyped<int16_t>(view, g, in, Narrow<int16_t>());
  case DType::I32:
    return storeTyped<int32_t>(view, g, in, Narrow<int32_t>());
  case DType::I64:
    return storeTyped<int64_t>(view, g, in, Narrow<int64_t>());
  default:
    return;
  }
}

//===----------------------------------------------------------------------===//
// Scans and reductions
//===----------------------------------------------------------------------===//

void detail::cumsumFloats(const float *in, float *out, AxisShape s,
                          Elem elem) {
  // The running sums stay in f32 (a narrow element type only rounds what is
  // written out), and each is a sum in index order along the axis.
  std::vector<float> running(s.inner);
  for (int64_t o = 0; o < s.outer; ++o) {
    std::fill(running.begin(), running.end(), 0.0f);
    for (int64_t l = 0; l < s.length; ++l) {
      int64_t at = (o * s.length + l) * s.inner;
      for (int64_t i = 0; i < s.inner; ++i) {
        running[i] += in[at + i];
        out[at + i] = running[i];
      }
      roundFloats(elem, out + at, s.inner);
    }
  }
}

void detail::cumsumInts(const int64_t *in, int64_t *out, AxisShape s,
                        Elem elem) {
  std::vector<uint64_t> running(s.inner);
  for (int64_t o = 0; o < s.outer; ++o) {
    std::fill(running.begin(), running.end(), 0);
    for (int64_t l = 0; l < s.length; ++l) {
      int64_t at = (o * s.length + l) * s.inner;
      for (int64_t i = 0; i < s.inner; ++i) {
        running[i] += static_cast<uint64_t>(in[at + i]);
        out[at + i] = static_cast<int64_t>(running[i]);
      }
    }
  }
  normalizeInts(elem, out, s.outer * s.length * s.inner);
}

namespace {
/// IEEE maximum/minimum: NaN if either is NaN, and -0 below +0.
inline float nanMax(float acc, float x) {
  if (std::isnan(acc) || std::isnan(x))
    return std::numeric_limits<float>::quiet_NaN();
  if (acc == x)
    return std::signbit(acc) ? x : acc;
  return acc > x ? acc : x;
}
inline float nanMin(float acc, float x) {
  if (std::isnan(acc) || std::isnan(x))
    return std::numeric_limits<float>::quiet_NaN();
  if (acc == x)
    return std::signbit(acc) ? acc : x;
  return acc < x ? acc : x;
}

template <typename T, typename Combine>
void reduceAxis(const T *in, T *out, AxisShape s, Combine combine) {
  for (int64_t o = 0; o < s.outer; ++o) {
    T *acc = out + o * s.inner;
    const T *first = in + o * s.length * s.inner;
    std::copy(first, first + s.inner, acc);
    for (int64_t l = 1; l < s.length; ++l) {
      const T *next = first + l * s.inner;
      for (int64_t i = 0; i < s.inner; ++i)
        acc[i] = combine(acc[i], next[i]);
    }
  }
}
} // namespace

void detail::reduceFloats(const float *in, float *out, AxisShape s, Elem elem,
                          ReduceKind kind) {
  switch (kind) {
  case ReduceKind::Sum:
    reduceAxis(in, out, s, [](float a, float x) { return a + x; });
    roundFloats(elem, out, s.outer * s.inner);
    return;
  case ReduceKind::Max:
    return reduceAxis(in, out, s,
                      [](float a, float x) { return nanMax(a, x); });
  case ReduceKind::Min:
    return reduceAxis(in, out, s,
                      [](float a, float x) { return nanMin(a, x); });
  }
}

void detail::reduceInts(const int64_t *in, int64_t *out, AxisShape s,
                        Elem elem, ReduceKind kind) {
  switch (kind) {
  case ReduceKind::Sum:
    reduceAxis(in, out, s, [](int64_t a, int64_t x) {
      return static_cast<int64_t>(static_cast<uint64_t>(a) +
                                  static_cast<uint64_t>(x));
    });
    return normalizeInts(elem, out, s.outer * s.inner);
  case ReduceKind::Max:
    return reduceAxis(in, out, s,
                      [](int64_t a, int64_t x) { return std::max(a, x); });
  case ReduceKind::Min:
    return reduceAxis(in, out, s,
                      [](int64_t a, int64_t x) { return std::min(a, x); });
  }
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

// std::fma is one instruction where the CPU has FMA and a slow exact library
// call where it has not; on x86-64 pick the instruction at load time.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TILEC_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define TILEC_FMA_CLONES
#endif

TILEC_FMA_CLONES
void detail::matmulAccumulate(const float *a, const float *b, float *c,
                              int64_t m, int64_t n, int64_t k) {
  // Row by row of a: c[i, :] gets a[i, p] * b[p, :] for p = 0, 1, ..., so the
  // inner loop runs over contiguous rows and each element of c still sees
  // its k terms in increasing order.
  for (int64_t i = 0; i < m; ++i) {
    float *row = c + i * n;
    for (int64_t p = 0; p < k; ++p) {
      float x = a[i * k + p];
      const float *brow = b + p * n;
      for (int64_t j = 0; j < n; ++j)
        row[j] = std::fma(x, brow[j], row[j]);
    }
  }
}

//===----------------------------------------------------------------------===//
// Element conversions
//===----------------------------------------------------------------------===//

void detail::roundFloats(Elem elem, float *data, int64_t n, Rounding mode) {
  switch (elem) {
  case Elem::BF16:
    for (int64_t i = 0; i < n; ++i)
      data[i] = roundToBF16(data[i], mode);
    return;
  case Elem::F16:
    for (int64_t i = 0; i < n; ++i)
      data[i] = roundToF16(data[i], mode);
    return;
  case Elem::TF32:
    for (int64_t i = 0; i < n; ++i)
      data[i] = roundToTF32(data[i], mode);
    return;
  default:
    return;
  }
}

void detail::normalizeInts(Elem elem, int64_t *data, int64_t n) {
  unsigned width = bitWidth(elem);
  if (width >= 64)
    return;
  for (int64_t i = 0; i < n; ++i)
    data[i] = signExtend(data[i], width);
}

float detail::integerToFloat(uint64_t magnitude, bool negative, Elem elem) {
  unsigned precision = elem == Elem::F32 ? 24 : elem == Elem::BF16 ? 8 : 11;
  float value;
  unsigned bits = magnitude ? 64 - __builtin_clzll(magnitude) : 0;
  if (bits <= precision) {
    value = static_cast<float>(magnitude);
  } else {
    // Round the integer itself, so that the value is rounded only once.
    unsigned shift = bits - precision;
    uint64_t kept = magnitude >> shift;
    uint64_t rest = magnitude & ((uint64_t(1) << shift) - 1);
    uint64_t half = uint64_t(1) << (shift - 1);
    if (rest > half || (rest == half && (kept & 1)))
      ++kept;
    value = std::ldexp(static_cast<float>(kept), static_cast<int>(shift));
  }
  if (elem == Elem::F16 && value > 65504.0f)
    value = INFINITY;
  return negative ? -value : value;
}

int64_t detail::floatToInteger(float value, unsigned width, bool isUnsigned) {
  if (std::isnan(value))
    return 0;
  double t = std::trunc(static_cast<double>(value));
  if (isUnsigned) {
    double top = std::ldexp(1.0, static_cast<int>(width));
    if (t <= 0)
      return 0;
    if (t >= top)
      return signExtend(static_cast<int64_t>(widthMask(width)), width);
    return signExtend(static_cast<int64_t>(static_cast<uint64_t>(t)), width);
  }
  double low = -std::ldexp(1.0, static_cast<int>(width) - 1);
  if (t <= low)
    return static_cast<int64_t>(low);
  if (t >= -low)
    return static_cast<int64_t>(widthMask(width - 1));
  return static_cast<int64_t>(t);
}
