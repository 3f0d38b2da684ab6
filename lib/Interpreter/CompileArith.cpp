//===- CompileArith.cpp - arith ops for the interpreter ---------*- C++ -*-===//
//
// Constants, float and integer arithmetic, comparisons and select. Each
// binary op's element function is one case of `applyFloat` or `applyInt`,
// instantiated into its own loop by `compileFloatBinary`/`compileIntBinary`.
// Integer ops wrap at the element's width; the results that arith leaves
// undefined (MIN / -1, shifts by the width or more) are the ones
// docs/semantics.md defines. Casts are in CompileCasts.cpp.
//
//===----------------------------------------------------------------------===//

#include "Closures.h"
#include "Compiler.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace tilec::interp;
using namespace tilec::interp::detail;

namespace {

float maximumF(float x, float y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<float>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
float minimumF(float x, float y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<float>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}
float maxNumF(float x, float y) {
  if (std::isnan(x))
    return y;
  if (std::isnan(y))
    return x;
  return maximumF(x, y);
}
float minNumF(float x, float y) {
  if (std::isnan(x))
    return y;
  if (std::isnan(y))
    return x;
  return minimumF(x, y);
}

/// The f32 result of float binary op `Op`; the caller rounds it to the
/// element type.
template <typename Op> float applyFloat(float x, float y) {
  if constexpr (std::is_same_v<Op, arith::AddFOp>)
    return x + y;
  else if constexpr (std::is_same_v<Op, arith::SubFOp>)
    return x - y;
  else if constexpr (std::is_same_v<Op, arith::MulFOp>)
    return x * y;
  else if constexpr (std::is_same_v<Op, arith::DivFOp>)
    return x / y;
  else if constexpr (std::is_same_v<Op, arith::RemFOp>)
    return std::fmod(x, y);
  else if constexpr (std::is_same_v<Op, arith::MaximumFOp>)
    return maximumF(x, y);
  else if constexpr (std::is_same_v<Op, arith::MinimumFOp>)
    return minimumF(x, y);
  else if constexpr (std::is_same_v<Op, arith::MaxNumFOp>)
    return maxNumF(x, y);
  else
    return minNumF(x, y);
}

inline uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }
inline int64_t s(uint64_t v) { return static_cast<int64_t>(v); }

/// The divisions and remainders: a zero divisor is undefined behaviour that
/// the interpreter reports.
template <typename Op>
constexpr bool dividesBy =
    llvm::is_one_of<Op, arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
                    arith::FloorDivSIOp, arith::DivUIOp, arith::RemUIOp,
                    arith::CeilDivUIOp>::value;

/// The result of integer binary op `Op` on sign-extended operands of
/// `width` bits (`mask` keeps those bits); the caller sign-extends it.
template <typename Op>
int64_t applyInt(int64_t x, int64_t y, uint64_t mask, unsigned width) {
  if constexpr (std::is_same_v<Op, arith::AddIOp>)
    return s(u(x) + u(y));
  else if constexpr (std::is_same_v<Op, arith::SubIOp>)
    return s(u(x) - u(y));
  else if constexpr (std::is_same_v<Op, arith::MulIOp>)
    return s(u(x) * u(y));
  // Signed division: the one overflow, MIN / -1, wraps to MIN.
  else if constexpr (std::is_same_v<Op, arith::DivSIOp>)
    return y == -1 ? s(0 - u(x)) : x / y;
  else if constexpr (std::is_same_v<Op, arith::RemSIOp>)
    return y == -1 ? 0 : x % y;
  else if constexpr (std::is_same_v<Op, arith::CeilDivSIOp>) {
    if (y == -1)
      return s(0 - u(x));
    int64_t q = x / y;
    return (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
  } else if constexpr (std::is_same_v<Op, arith::FloorDivSIOp>) {
    if (y == -1)
      return s(0 - u(x));
    int64_t q = x / y;
    return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
  } else if constexpr (std::is_same_v<Op, arith::DivUIOp>)
    return s((u(x) & mask) / (u(y) & mask));
  else if constexpr (std::is_same_v<Op, arith::RemUIOp>)
    return s((u(x) & mask) % (u(y) & mask));
  else if constexpr (std::is_same_v<Op, arith::CeilDivUIOp>) {
    uint64_t a = u(x) & mask, b = u(y) & mask;
    return s(a / b + (a % b != 0));
  } else if constexpr (std::is_same_v<Op, arith::MaxSIOp>)
    return std::max(x, y);
  else if constexpr (std::is_same_v<Op, arith::MinSIOp>)
    return std::min(x, y);
  else if constexpr (std::is_same_v<Op, arith::MaxUIOp>)
    return (u(x) & mask) >= (u(y) & mask) ? x : y;
  else if constexpr (std::is_same_v<Op, arith::MinUIOp>)
    return (u(x) & mask) <= (u(y) & mask) ? x : y;
  else if constexpr (std::is_same_v<Op, arith::AndIOp>)
    return x & y;
  else if constexpr (std::is_same_v<Op, arith::OrIOp>)
    return x | y;
  else if constexpr (std::is_same_v<Op, arith::XOrIOp>)
    return x ^ y;
  // Shifts by the width or more are poison in arith; here they shift every
  // bit out.
  else if constexpr (std::is_same_v<Op, arith::ShLIOp>) {
    uint64_t amount = u(y) & mask;
    return amount >= width ? 0 : s(u(x) << amount);
  } else if constexpr (std::is_same_v<Op, arith::ShRSIOp>) {
    uint64_t amount = u(y) & mask;
    return amount >= width ? (x < 0 ? -1 : 0) : x >> amount;
  } else {
    static_assert(std::is_same_v<Op, arith::ShRUIOp>);
    uint64_t amount = u(y) & mask;
    return amount >= width ? 0 : s((u(x) & mask) >> amount);
  }
}

} // namespace

LogicalResult Compiler::compileArith(Operation *op, Instrs &out) {
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case(
          [&](arith::ConstantOp constant) { return compileConstant(constant); })
      .Case<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
            arith::RemFOp, arith::MaximumFOp, arith::MinimumFOp,
            arith::MaxNumFOp, arith::MinNumFOp>(
          [&](auto binary) { return compileFloatBinary(binary, out); })
      .Case<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp,
            arith::RemSIOp, arith::CeilDivSIOp, arith::FloorDivSIOp,
            arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp, arith::MaxSIOp,
            arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp, arith::AndIOp,
            arith::OrIOp, arith::XOrIOp, arith::ShLIOp, arith::ShRSIOp,
            arith::ShRUIOp>(
          [&](auto binary) { return compileIntBinary(binary, out); })
      .Case([&](arith::NegFOp neg) {
        FailureOr<Elementwise> e = elementwise(neg);
        if (failed(e))
          return failure();
        return emit(neg,
                    floatUnary(e->in[0], e->result, e->type.numElements,
                               e->type.elem, [](float x) { return -x; }),
                    out);
      })
      .Case([&](arith::CmpFOp cmp) { return compileCmpF(cmp, out); })
      .Case([&](arith::CmpIOp cmp) { return compileCmpI(cmp, out); })
      .Case([&](arith::SelectOp sel) {
        return compileSelect(
            sel, !isa<RankedTensorType>(sel.getCondition().getType()), out);
      })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::SIToFPOp,
            arith::UIToFPOp, arith::FPToSIOp, arith::FPToUIOp, arith::ExtFOp,
            arith::TruncFOp, arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
            arith::BitcastOp>(
          [&](Operation *cast) { return compileCast(cast, out); })
      .Default([&](Operation *) { return unsupported(op); });
}

LogicalResult Compiler::compileConstant(arith::ConstantOp op) {
  FailureOr<ValueType> type = typeOf(op.getResult(), op);
  if (failed(type))
    return failure();
  Buffer buffer;
  Attribute value = op.getValue();
  bool isFloatElem = isFloat(type->elem);
  auto floatOf = [&](const APFloat &v) {
    bool lost;
    APFloat copy = v;
    copy.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    return copy.convertToFloat();
  };
  if (auto attr = dyn_cast<FloatAttr>(value)) {
    buffer.f.assign(1, floatOf(attr.getValue()));
  } else if (auto attr = dyn_cast<IntegerAttr>(value)) {
    buffer.i.assign(1, attr.getValue().getSExtValue());
  } else if (auto attr = dyn_cast<DenseElementsAttr>(value)) {
    if (isFloatElem)
      for (const APFloat &v : attr.getValues<APFloat>())
        buffer.f.push_back(floatOf(v));
    else
      for (const APInt &v : attr.getValues<APInt>())
        buffer.i.push_back(v.getSExtValue());
  } else {
    return fail(op, "the interpreter reads only float, integer and dense "
                    "constants");
  }
  // Values of a narrow type are exact already; normalise defensively in case
  // an attribute carried more bits than its type.
  if (isFloatElem)
    roundFloats(type->elem, buffer.f.data(), buffer.f.size());
  else
    normalizeInts(type->elem, buffer.i.data(), buffer.i.size());
  unsigned slot = define(op.getResult());
  hoisted.insert(slot);
  program.constants.emplace_back(slot, std::move(buffer));
  return success();
}

template <typename Op>
LogicalResult Compiler::compileFloatBinary(Op op, Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  return emit(
      op,
      floatBinary(e->in[0], e->in[1], e->result, e->type.numElements,
                  e->type.elem,
                  [](float x, float y) { return applyFloat<Op>(x, y); }),
      out);
}

template <typename Op>
LogicalResult Compiler::compileIntBinary(Op op, Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  uint64_t mask = widthMask(bitWidth(e->type.elem));
  unsigned width = bitWidth(e->type.elem);
  std::string where = dividesBy<Op> ? describe(op) : std::string();
  return emit(
      op,
      intBinary(
          e->in[0], e->in[1], e->result, e->type.numElements, e->type.elem,
          [=](int64_t x, int64_t y) { return applyInt<Op>(x, y, mask, width); },
          where),
      out);
}

LogicalResult Compiler::compileCmpF(arith::CmpFOp op, Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  using P = arith::CmpFPredicate;
  auto un = [](float x, float y) { return std::isnan(x) || std::isnan(y); };
  auto c = [&](auto pred) {
    return emit(op,
                compare<float>(e->in[0], e->in[1], e->result,
                               e->type.numElements, pred),
                out);
  };
  switch (op.getPredicate()) {
  case P::AlwaysFalse:
    return c([](float, float) { return false; });
  case P::OEQ:
    return c([](float x, float y) { return x == y; });
  case P::OGT:
    return c([](float x, float y) { return x > y; });
  case P::OGE:
    return c([](float x, float y) { return x >= y; });
  case P::OLT:
    return c([](float x, float y) { return x < y; });
  case P::OLE:
    return c([](float x, float y) { return x <= y; });
  case P::ONE:
    return c([=](float x, float y) { return !un(x, y) && x != y; });
  case P::ORD:
    return c([=](float x, float y) { return !un(x, y); });
  case P::UEQ:
    return c([=](float x, float y) { return un(x, y) || x == y; });
  case P::UGT:
    return c([=](float x, float y) { return un(x, y) || x > y; });
  case P::UGE:
    return c([=](float x, float y) { return un(x, y) || x >= y; });
  case P::ULT:
    return c([=](float x, float y) { return un(x, y) || x < y; });
  case P::ULE:
    return c([=](float x, float y) { return un(x, y) || x <= y; });
  case P::UNE:
    return c([](float x, float y) { return x != y; });
  case P::UNO:
    return c(un);
  case P::AlwaysTrue:
    return c([](float, float) { return true; });
  }
  return unsupported(op);
}

LogicalResult Compiler::compileCmpI(arith::CmpIOp op, Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  FailureOr<ValueType> operand = typeOf(op.getLhs(), op);
  if (failed(operand))
    return failure();
  using P = arith::CmpIPredicate;
  uint64_t m = widthMask(bitWidth(operand->elem));
  auto c = [&](auto pred) {
    return emit(op,
                compare<int64_t>(e->in[0], e->in[1], e->result,
                                 e->type.numElements, pred),
                out);
  };
  switch (op.getPredicate()) {
  case P::eq:
    return c([](int64_t x, int64_t y) { return x == y; });
  case P::ne:
    return c([](int64_t x, int64_t y) { return x != y; });
  case P::slt:
    return c([](int64_t x, int64_t y) { return x < y; });
  case P::sle:
    return c([](int64_t x, int64_t y) { return x <= y; });
  case P::sgt:
    return c([](int64_t x, int64_t y) { return x > y; });
  case P::sge:
    return c([](int64_t x, int64_t y) { return x >= y; });
  case P::ult:
    return c([=](int64_t x, int64_t y) { return (u(x) & m) < (u(y) & m); });
  case P::ule:
    return c([=](int64_t x, int64_t y) { return (u(x) & m) <= (u(y) & m); });
  case P::ugt:
    return c([=](int64_t x, int64_t y) { return (u(x) & m) > (u(y) & m); });
  case P::uge:
    return c([=](int64_t x, int64_t y) { return (u(x) & m) >= (u(y) & m); });
  }
  return unsupported(op);
}

LogicalResult Compiler::compileSelect(Operation *op, bool scalarCondition,
                                      Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  auto [c, t, f] = std::tuple(e->in[0], e->in[1], e->in[2]);
  int64_t n = e->type.numElements;
  if (isFloat(e->type.elem))
    return emit(op, select<float>(c, t, f, e->result, n, scalarCondition), out);
  return emit(op, select<int64_t>(c, t, f, e->result, n, scalarCondition), out);
}
