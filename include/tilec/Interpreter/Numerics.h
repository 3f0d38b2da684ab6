//===- Numerics.h - rounding to the tile dialect's float types --*- C++ -*-===//
//
// Rounding of f32 values to bf16, f16 and tf32, and the 16-bit encodings of
// bf16 and f16 in memory. The interpreter holds every float element as an f32
// whose value is exactly representable in the element's type, so these
// functions define the numerics of `tile.convert` and of arithmetic on
// narrow floats (docs/semantics.md). Host code that prepares bf16 or f16
// buffers for a kernel uses the same functions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_INTERPRETER_NUMERICS_H
#define TILEC_INTERPRETER_NUMERICS_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tilec::interp {

/// How a value between two representable ones is rounded.
enum class Rounding {
  /// To the nearer one; ties to the one with an even last mantissa bit.
  NearestEven,
  /// To the nearer one; ties away from zero (`cvt.rna`).
  NearestAway,
};

inline uint32_t floatBits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

inline float bitsFloat(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

namespace detail {
/// Rounds the f32 `x` to `keep` explicit mantissa bits, keeping f32's
/// exponent range (right for bf16 and tf32, whose exponents are f32's). Adding
/// just under half an ulp of the narrow format and truncating rounds ties to
/// even, exactly half an ulp rounds ties away; a carry out of the mantissa
/// bumps the exponent, and out of the largest finite value gives infinity.
inline float roundMantissa(float x, unsigned keep, Rounding mode) {
  uint32_t u = floatBits(x);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return bitsFloat(u | 0x00400000u); // NaN: quiet it, keep the sign.
  unsigned drop = 23 - keep;
  uint32_t half = 1u << (drop - 1);
  if (mode == Rounding::NearestEven)
    u += half - 1 + ((u >> drop) & 1);
  else
    u += half;
  return bitsFloat(u & ~((1u << drop) - 1));
}
} // namespace detail

/// The bf16 value nearest to `x` (8-bit significand, f32's exponent range).
inline float roundToBF16(float x, Rounding mode = Rounding::NearestEven) {
  return detail::roundMantissa(x, 7, mode);
}

/// The tf32 value nearest to `x` (11-bit significand, f32's exponent range).
/// tf32 is rounded with ties away from zero by default, as `cvt.rna.tf32.f32`.
inline float roundToTF32(float x, Rounding mode = Rounding::NearestAway) {
  return detail::roundMantissa(x, 10, mode);
}

/// The f16 value nearest to `x`: 11-bit significand, subnormals below 2^-14
/// (multiples of 2^-24), and infinity from 65520 up (the midpoint between the
/// largest finite f16, 65504, and 2^16).
inline float roundToF16(float x, Rounding mode = Rounding::NearestEven) {
  float a = std::fabs(x);
  if (std::isnan(x))
    return bitsFloat(floatBits(x) | 0x00400000u);
  if (a < 0x1p-14f) {
    // Scaling by 2^24 is exact; the integer rounding is the f16 rounding.
    float q = mode == Rounding::NearestEven ? std::nearbyint(a * 0x1p24f)
                                            : std::round(a * 0x1p24f);
    return std::copysign(q * 0x1p-24f, x);
  }
  float r = detail::roundMantissa(x, 10, mode);
  if (std::fabs(r) > 65504.0f)
    return std::copysign(INFINITY, x);
  return r;
}

inline float bf16BitsToFloat(uint16_t bits) {
  return bitsFloat(static_cast<uint32_t>(bits) << 16);
}

/// The bf16 encoding of the value nearest to `x`.
inline uint16_t floatToBF16Bits(float x) {
  return static_cast<uint16_t>(floatBits(roundToBF16(x)) >> 16);
}

inline float f16BitsToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    float value = static_cast<float>(mantissa) * 0x1p-24f;
    return bitsFloat(floatBits(value) | sign);
  }
  if (exponent == 0x1f)
    return bitsFloat(sign | 0x7f800000u | (mantissa << 13));
  return bitsFloat(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

/// The f16 encoding of the value nearest to `x`.
inline uint16_t floatToF16Bits(float x) {
  float r = roundToF16(x);
  uint32_t u = floatBits(r);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  float a = std::fabs(r);
  if (std::isnan(r))
    return sign | 0x7e00u | static_cast<uint16_t>((u >> 13) & 0x3ffu);
  if (std::isinf(r))
    return sign | 0x7c00u;
  if (a < 0x1p-14f)
    return sign | static_cast<uint16_t>(a * 0x1p24f);
  uint32_t exponent = ((u >> 23) & 0xffu) - 127 + 15;
  return sign | static_cast<uint16_t>(exponent << 10) |
         static_cast<uint16_t>((u >> 13) & 0x3ffu);
}

} // namespace tilec::interp

#endif // TILEC_INTERPRETER_NUMERICS_H
