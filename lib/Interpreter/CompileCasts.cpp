//===- CompileCasts.cpp - element-type conversions for the interpreter ----===//
//
// arith's casts and tile.convert. Every conversion rounds once, to nearest
// (tf32 ties away from zero, as the hardware's cvt.rna); float to integer
// truncates toward zero and saturates, NaN giving 0.
//
//===----------------------------------------------------------------------===//

#include "Closures.h"
#include "Compiler.h"

using namespace mlir;
using namespace tilec::interp;
using namespace tilec::interp::detail;

namespace {

/// How an integer source is read when it is widened or converted.
enum class IntRead { Signed, Unsigned };

inline uint64_t unsignedValue(int64_t v, uint64_t mask) {
  return static_cast<uint64_t>(v) & mask;
}

Instr intToFloat(unsigned a, unsigned r, int64_t n, Elem from, Elem to,
                 IntRead read) {
  uint64_t mask = widthMask(bitWidth(from));
  return [=](Frame &f) {
    std::vector<float> &out = f.slots[r].f;
    out.resize(n);
    const int64_t *x = f.slots[a].i.data();
    for (int64_t k = 0; k < n; ++k) {
      if (read == IntRead::Unsigned)
        out[k] = integerToFloat(unsignedValue(x[k], mask), false, to);
      else if (x[k] < 0)
        out[k] = integerToFloat(0 - static_cast<uint64_t>(x[k]), true, to);
      else
        out[k] = integerToFloat(static_cast<uint64_t>(x[k]), false, to);
    }
    return true;
  };
}

Instr floatToInt(unsigned a, unsigned r, int64_t n, Elem to, bool isUnsigned) {
  unsigned width = bitWidth(to);
  return [=](Frame &f) {
    std::vector<int64_t> &out = f.slots[r].i;
    out.resize(n);
    const float *x = f.slots[a].f.data();
    for (int64_t k = 0; k < n; ++k)
      out[k] = floatToInteger(x[k], width, isUnsigned);
    return true;
  };
}

Instr floatToFloat(unsigned a, unsigned r, int64_t n, Elem to, Rounding mode) {
  return [=](Frame &f) {
    std::vector<float> &out = f.slots[r].f;
    out = f.slots[a].f;
    roundFloats(to, out.data(), n, mode);
    return true;
  };
}

Instr intToInt(unsigned a, unsigned r, int64_t n, Elem from, Elem to,
               IntRead read) {
  uint64_t mask = widthMask(bitWidth(from));
  unsigned width = bitWidth(to);
  return [=](Frame &f) {
    std::vector<int64_t> &out = f.slots[r].i;
    out.resize(n);
    const int64_t *x = f.slots[a].i.data();
    for (int64_t k = 0; k < n; ++k) {
      int64_t v = read == IntRead::Unsigned
                      ? static_cast<int64_t>(unsignedValue(x[k], mask))
                      : x[k];
      out[k] = signExtend(v, width);
    }
    return true;
  };
}

} // namespace

LogicalResult Compiler::compileCast(Operation *op, Instrs &out) {
  FailureOr<Elementwise> cast = elementwise(op);
  if (failed(cast))
    return failure();
  FailureOr<ValueType> from = typeOf(op->getOperand(0), op);
  if (failed(from))
    return failure();
  unsigned a = cast->in[0];
  Elem f = from->elem, t = cast->type.elem;
  int64_t n = cast->type.numElements;
  unsigned r = cast->result;
  auto emit = [&](Instr instr) {
    return this->emit(op, std::move(instr), out);
  };

  if (isa<tile::ConvertOp>(op)) {
    // i1 reads as 0 or 1; other integers are signed.
    IntRead read = f == Elem::I1 ? IntRead::Unsigned : IntRead::Signed;
    if (isFloat(f) && isFloat(t))
      return emit(floatToFloat(a, r, n, t,
                               t == Elem::TF32 ? Rounding::NearestAway
                                               : Rounding::NearestEven));
    if (isFloat(f))
      return emit(floatToInt(a, r, n, t, /*isUnsigned=*/t == Elem::I1));
    if (isFloat(t))
      return emit(intToFloat(a, r, n, f, t, read));
    return emit(intToInt(a, r, n, f, t, read));
  }
  if (isa<arith::SIToFPOp>(op))
    return emit(intToFloat(a, r, n, f, t, IntRead::Signed));
  if (isa<arith::UIToFPOp>(op))
    return emit(intToFloat(a, r, n, f, t, IntRead::Unsigned));
  if (isa<arith::FPToSIOp>(op))
    return emit(floatToInt(a, r, n, t, /*isUnsigned=*/false));
  if (isa<arith::FPToUIOp>(op))
    return emit(floatToInt(a, r, n, t, /*isUnsigned=*/true));
  if (isa<arith::ExtFOp>(op))
    return emit(floatToFloat(a, r, n, t, Rounding::NearestEven));
  if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
    Rounding mode = Rounding::NearestEven;
    if (std::optional<arith::RoundingMode> given = trunc.getRoundingmode()) {
      if (*given == arith::RoundingMode::to_nearest_away)
        mode = Rounding::NearestAway;
      else if (*given != arith::RoundingMode::to_nearest_even)
        return fail(op, "the interpreter rounds to nearest only "
                        "(to_nearest_even or to_nearest_away)");
    }
    return emit(floatToFloat(a, r, n, t, mode));
  }
  if (isa<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(op))
    return emit(intToInt(a, r, n, f, t, IntRead::Signed));
  if (isa<arith::ExtUIOp, arith::IndexCastUIOp>(op))
    return emit(intToInt(a, r, n, f, t, IntRead::Unsigned));

  // Bitcasts between types of one width.
  if (isFloat(f) == isFloat(t)) {
    if (isFloat(f))
      return emit(copyValue<float>(a, r));
    return emit(copyValue<int64_t>(a, r));
  }
  if (isFloat(f)) {
    return emit([=](Frame &fr) {
      std::vector<int64_t> &o = fr.slots[r].i;
      o.resize(n);
      const float *x = fr.slots[a].f.data();
      for (int64_t k = 0; k < n; ++k) {
        if (f == Elem::F16)
          o[k] = signExtend(floatToF16Bits(x[k]), 16);
        else if (f == Elem::BF16)
          o[k] = signExtend(floatToBF16Bits(x[k]), 16);
        else
          o[k] = signExtend(floatBits(x[k]), 32);
      }
      return true;
    });
  }
  return emit([=](Frame &fr) {
    std::vector<float> &o = fr.slots[r].f;
    o.resize(n);
    const int64_t *x = fr.slots[a].i.data();
    for (int64_t k = 0; k < n; ++k) {
      if (t == Elem::F16)
        o[k] = f16BitsToFloat(static_cast<uint16_t>(x[k]));
      else if (t == Elem::BF16)
        o[k] = bf16BitsToFloat(static_cast<uint16_t>(x[k]));
      else
        o[k] = bitsFloat(static_cast<uint32_t>(x[k]));
    }
    // A tf32 bitcast from i32 keeps only what tf32 holds.
    roundFloats(t, o.data(), n);
    return true;
  });
}
