//===- Closures.h - the interpreter's elementwise closures ------*- C++ -*-===//
//
// The loops behind elementwise ops: each closure reads its operands' slots,
// applies a function per element and writes the result's slot. The function
// is a template argument, so every op gets its own inlined loop and no call
// per element.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_INTERPRETER_CLOSURES_H
#define TILEC_LIB_INTERPRETER_CLOSURES_H

#include "Kernels.h"
#include "Program.h"

#include <array>
#include <string>
#include <utility>

namespace tilec::interp::detail {

template <typename T> std::vector<T> &storage(Buffer &buffer);
template <> inline std::vector<float> &storage<float>(Buffer &buffer) {
  return buffer.f;
}
template <> inline std::vector<int64_t> &storage<int64_t>(Buffer &buffer) {
  return buffer.i;
}

/// Rounds float results to their element type, sign-extends integer ones
/// from its width.
inline void normalize(Elem elem, float *data, int64_t n) {
  roundFloats(elem, data, n);
}
inline void normalize(Elem elem, int64_t *data, int64_t n) {
  normalizeInts(elem, data, n);
}

template <typename T, typename Fn, size_t... J>
void mapLoop(T *out, const std::array<const T *, sizeof...(J)> &x, int64_t n,
             Fn fn, std::index_sequence<J...>) {
  for (int64_t k = 0; k < n; ++k)
    out[k] = fn(x[J][k]...);
}

/// result[k] = fn(in_0[k], ..., in_N-1[k]) on values stored as `T`, then
/// normalized to `elem`.
template <typename T, size_t N, typename Fn>
Instr mapElements(std::array<unsigned, N> in, unsigned r, int64_t n, Elem elem,
                  Fn fn) {
  return [=](Frame &f) {
    std::vector<T> &out = storage<T>(f.slots[r]);
    out.resize(n);
    std::array<const T *, N> x;
    for (size_t j = 0; j < N; ++j)
      x[j] = storage<T>(f.slots[in[j]]).data();
    mapLoop(out.data(), x, n, fn, std::make_index_sequence<N>());
    normalize(elem, out.data(), n);
    return true;
  };
}

template <typename Fn>
Instr floatUnary(unsigned a, unsigned r, int64_t n, Elem elem, Fn fn) {
  return mapElements<float, 1>({a}, r, n, elem, fn);
}

template <typename Fn>
Instr floatBinary(unsigned a, unsigned b, unsigned r, int64_t n, Elem elem,
                  Fn fn) {
  return mapElements<float, 2>({a, b}, r, n, elem, fn);
}

template <typename Fn>
Instr intUnary(unsigned a, unsigned r, int64_t n, Elem elem, Fn fn) {
  return mapElements<int64_t, 1>({a}, r, n, elem, fn);
}

/// `fn` computes on sign-extended operands; its result is sign-extended
/// from the element's width afterwards. With `where` set, a zero divisor (in
/// the element's width) is reported as undefined behaviour.
template <typename Fn>
Instr intBinary(unsigned a, unsigned b, unsigned r, int64_t n, Elem elem, Fn fn,
                std::string where = {}) {
  Instr apply = mapElements<int64_t, 2>({a, b}, r, n, elem, fn);
  if (where.empty())
    return apply;
  uint64_t mask = widthMask(bitWidth(elem));
  return [=](Frame &f) {
    const int64_t *y = f.slots[b].i.data();
    for (int64_t k = 0; k < n; ++k)
      if ((static_cast<uint64_t>(y[k]) & mask) == 0) {
        f.error = where + ": integer division by zero";
        return false;
      }
    return apply(f);
  };
}

/// An i1 result: -1 where `pred` holds, else 0.
template <typename T, typename Pred>
Instr compare(unsigned a, unsigned b, unsigned r, int64_t n, Pred pred) {
  return [=](Frame &f) {
    std::vector<int64_t> &out = f.slots[r].i;
    out.resize(n);
    const T *x = storage<T>(f.slots[a]).data();
    const T *y = storage<T>(f.slots[b]).data();
    for (int64_t k = 0; k < n; ++k)
      out[k] = pred(x[k], y[k]) ? -1 : 0;
    return true;
  };
}

/// result = cond ? t : f, elementwise for a tile condition, for the whole
/// value for a scalar one.
template <typename T>
Instr select(unsigned c, unsigned t, unsigned e, unsigned r, int64_t n,
             bool scalarCondition) {
  if (scalarCondition)
    return [=](Frame &f) {
      storage<T>(f.slots[r]) = storage<T>(f.slots[f.slots[c].i[0] ? t : e]);
      return true;
    };
  return [=](Frame &f) {
    std::vector<T> &out = storage<T>(f.slots[r]);
    out.resize(n);
    const int64_t *cond = f.slots[c].i.data();
    const T *x = storage<T>(f.slots[t]).data();
    const T *y = storage<T>(f.slots[e]).data();
    for (int64_t k = 0; k < n; ++k)
      out[k] = cond[k] ? x[k] : y[k];
    return true;
  };
}

template <typename T> Instr copyValue(unsigned a, unsigned r) {
  return [=](Frame &f) {
    storage<T>(f.slots[r]) = storage<T>(f.slots[a]);
    return true;
  };
}

} // namespace tilec::interp::detail

#endif // TILEC_LIB_INTERPRETER_CLOSURES_H
