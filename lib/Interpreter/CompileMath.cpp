//===- CompileMath.cpp - math ops for the interpreter -----------*- C++ -*-===//
//
// Each float function is the host library's f32 one, rounded to the element
// type; `applyMath` holds them, one case per op, and `compileMathUnary`/
// `compileMathBinary` instantiate each into its own loop. tile.exp2 is
// math.exp2 on tiles (CompileTile.cpp sends it here).
//
//===----------------------------------------------------------------------===//

#include "Closures.h"
#include "Compiler.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace tilec::interp;
using namespace tilec::interp::detail;

namespace {

template <typename Op> float applyMath(float x) {
  if constexpr (std::is_same_v<Op, math::ExpOp>)
    return std::exp(x);
  else if constexpr (llvm::is_one_of<Op, math::Exp2Op, tile::Exp2Op>::value)
    return std::exp2(x);
  else if constexpr (std::is_same_v<Op, math::ExpM1Op>)
    return std::expm1(x);
  else if constexpr (std::is_same_v<Op, math::LogOp>)
    return std::log(x);
  else if constexpr (std::is_same_v<Op, math::Log2Op>)
    return std::log2(x);
  else if constexpr (std::is_same_v<Op, math::Log10Op>)
    return std::log10(x);
  else if constexpr (std::is_same_v<Op, math::Log1pOp>)
    return std::log1p(x);
  else if constexpr (std::is_same_v<Op, math::SqrtOp>)
    return std::sqrt(x);
  else if constexpr (std::is_same_v<Op, math::RsqrtOp>)
    return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
  else if constexpr (std::is_same_v<Op, math::AbsFOp>)
    return std::fabs(x);
  else if constexpr (std::is_same_v<Op, math::TanhOp>)
    return std::tanh(x);
  else if constexpr (std::is_same_v<Op, math::SinOp>)
    return std::sin(x);
  else if constexpr (std::is_same_v<Op, math::CosOp>)
    return std::cos(x);
  else if constexpr (std::is_same_v<Op, math::ErfOp>)
    return std::erf(x);
  else if constexpr (std::is_same_v<Op, math::AtanOp>)
    return std::atan(x);
  else if constexpr (std::is_same_v<Op, math::FloorOp>)
    return std::floor(x);
  else if constexpr (std::is_same_v<Op, math::CeilOp>)
    return std::ceil(x);
  else if constexpr (std::is_same_v<Op, math::TruncOp>)
    return std::trunc(x);
  else if constexpr (std::is_same_v<Op, math::RoundOp>)
    return std::round(x);
  else {
    static_assert(std::is_same_v<Op, math::RoundEvenOp>);
    return std::nearbyint(x);
  }
}

template <typename Op> float applyMath(float x, float y) {
  if constexpr (std::is_same_v<Op, math::PowFOp>)
    return std::pow(x, y);
  else if constexpr (std::is_same_v<Op, math::Atan2Op>)
    return std::atan2(x, y);
  else {
    static_assert(std::is_same_v<Op, math::CopySignOp>);
    return std::copysign(x, y);
  }
}

} // namespace

LogicalResult Compiler::compileMath(Operation *op, Instrs &out) {
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case<math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp, math::Log2Op,
            math::Log10Op, math::Log1pOp, math::SqrtOp, math::RsqrtOp,
            math::AbsFOp, math::TanhOp, math::SinOp, math::CosOp, math::ErfOp,
            math::AtanOp, math::FloorOp, math::CeilOp, math::TruncOp,
            math::RoundOp, math::RoundEvenOp, tile::Exp2Op>(
          [&](auto unary) { return compileMathUnary(unary, out); })
      .Case<math::PowFOp, math::Atan2Op, math::CopySignOp>(
          [&](auto binary) { return compileMathBinary(binary, out); })
      .Case([&](math::FmaOp fma) { return compileFma(fma, out); })
      .Case([&](math::AbsIOp abs) {
        FailureOr<Elementwise> e = elementwise(abs);
        if (failed(e))
          return failure();
        if (isFloat(e->type.elem))
          return unsupported(abs);
        return emit(abs,
                    intUnary(e->in[0], e->result, e->type.numElements,
                             e->type.elem,
                             [](int64_t x) {
                               return x < 0 ? static_cast<int64_t>(
                                                  0 - static_cast<uint64_t>(x))
                                            : x;
                             }),
                    out);
      })
      .Default([&](Operation *) { return unsupported(op); });
}

template <typename Op>
LogicalResult Compiler::compileMathUnary(Op op, Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  if (!isFloat(e->type.elem))
    return unsupported(op);
  return emit(op,
              floatUnary(e->in[0], e->result, e->type.numElements, e->type.elem,
                         [](float x) { return applyMath<Op>(x); }),
              out);
}

template <typename Op>
LogicalResult Compiler::compileMathBinary(Op op, Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  if (!isFloat(e->type.elem))
    return unsupported(op);
  return emit(op,
              floatBinary(e->in[0], e->in[1], e->result, e->type.numElements,
                          e->type.elem,
                          [](float x, float y) { return applyMath<Op>(x, y); }),
              out);
}

LogicalResult Compiler::compileFma(math::FmaOp op, Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  if (!isFloat(e->type.elem))
    return unsupported(op);
  return emit(op,
              mapElements<float, 3>(
                  {e->in[0], e->in[1], e->in[2]}, e->result,
                  e->type.numElements, e->type.elem,
                  [](float x, float y, float z) { return std::fma(x, y, z); }),
              out);
}
