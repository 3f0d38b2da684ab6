//===- LowerArith.cpp - arith ops with the results semantics.md defines --===//
//
// LLVM calls a shift by the width or more poison, an out-of-range fptosi
// poison and MIN / -1 undefined behaviour; docs/semantics.md defines all
// three, and the optimizer deletes whatever depends on poison (the stores of
// such a result vanish). These ops, on scalars and on tiles alike, are built
// here from LLVM operations that are defined everywhere: the shift amount and
// the divisor are made safe first and the defined result is selected.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

namespace {

/// `value` of `type` (an integer or a vector of integers), splat for
/// vectors.
Value intConstant(OpBuilder &b, Location loc, Type type, const APInt &value) {
  auto element = cast<IntegerType>(getElementTypeOrSelf(type));
  Attribute attr = b.getIntegerAttr(element, value);
  if (auto vector = dyn_cast<VectorType>(type))
    attr = SplatElementsAttr::get(vector, attr);
  return LLVM::ConstantOp::create(b, loc, type, cast<TypedAttr>(attr));
}

unsigned widthOf(Type type) {
  return getElementTypeOrSelf(type).getIntOrFloatBitWidth();
}

/// A pattern for an arith op whose LLVM form is built from the op's
/// converted result type (a scalar stays, a tile becomes its registers, index
/// becomes i64): `lower` builds it, and the op fails to convert when its type
/// does not.
template <typename ArithOp>
struct TypedArithLowering : OpConversionPattern<ArithOp> {
  using OpConversionPattern<ArithOp>::OpConversionPattern;
  using OpAdaptor = typename ArithOp::Adaptor;

  LogicalResult
  matchAndRewrite(ArithOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Type type = this->getTypeConverter()->convertType(op.getType());
    if (!type)
      return failure();
    lower(op, adaptor, type, rewriter);
    return success();
  }

  virtual void lower(ArithOp op, OpAdaptor adaptor, Type type,
                     ConversionPatternRewriter &rewriter) const = 0;
};

template <typename ArithOp>
struct ShiftOpLowering : TypedArithLowering<ArithOp> {
  using TypedArithLowering<ArithOp>::TypedArithLowering;
  using OpAdaptor = typename ArithOp::Adaptor;

  void lower(ArithOp op, OpAdaptor adaptor, Type type,
             ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned width = widthOf(type);
    Value x = adaptor.getLhs(), amount = adaptor.getRhs();
    // An amount is read unsigned, as the interpreter does: a negative one is
    // at least the width.
    Value inRange = LLVM::ICmpOp::create(
        rewriter, loc, LLVM::ICmpPredicate::ult, amount,
        intConstant(rewriter, loc, type, APInt(width, width)));
    if constexpr (std::is_same_v<ArithOp, arith::ShRSIOp>) {
      // Shifting by width - 1 already gives the sign in every bit.
      Value safe = LLVM::SelectOp::create(
          rewriter, loc, inRange, amount,
          intConstant(rewriter, loc, type, APInt(width, width - 1)));
      rewriter.replaceOpWithNewOp<LLVM::AShrOp>(op, type, x, safe);
      return;
    }
    Value zero = intConstant(rewriter, loc, type, APInt(width, 0));
    Value safe = LLVM::SelectOp::create(rewriter, loc, inRange, amount, zero);
    Value shifted;
    if constexpr (std::is_same_v<ArithOp, arith::ShLIOp>)
      shifted = LLVM::ShlOp::create(rewriter, loc, type, x, safe);
    else
      shifted = LLVM::LShrOp::create(rewriter, loc, type, x, safe);
    rewriter.replaceOpWithNewOp<LLVM::SelectOp>(op, inRange, shifted, zero);
  }
};

/// divsi and remsi: a divisor of -1 gives 0 - x (MIN wraps to MIN) and 0.
/// Division by zero stays undefined, as docs/semantics.md says.
template <typename ArithOp>
struct SignedDivisionOpLowering : TypedArithLowering<ArithOp> {
  using TypedArithLowering<ArithOp>::TypedArithLowering;
  using OpAdaptor = typename ArithOp::Adaptor;

  void lower(ArithOp op, OpAdaptor adaptor, Type type,
             ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned width = widthOf(type);
    Value x = adaptor.getLhs(), y = adaptor.getRhs();
    Value minusOne = intConstant(rewriter, loc, type, APInt::getAllOnes(width));
    Value one = intConstant(rewriter, loc, type, APInt(width, 1));
    Value zero = intConstant(rewriter, loc, type, APInt(width, 0));
    Value byMinusOne =
        LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, y, minusOne);
    Value safe = LLVM::SelectOp::create(rewriter, loc, byMinusOne, one, y);
    if constexpr (std::is_same_v<ArithOp, arith::DivSIOp>) {
      Value quotient = LLVM::SDivOp::create(rewriter, loc, type, x, safe);
      Value negated = LLVM::SubOp::create(rewriter, loc, type, zero, x);
      rewriter.replaceOpWithNewOp<LLVM::SelectOp>(op, byMinusOne, negated,
                                                  quotient);
    } else {
      Value remainder = LLVM::SRemOp::create(rewriter, loc, type, x, safe);
      rewriter.replaceOpWithNewOp<LLVM::SelectOp>(op, byMinusOne, zero,
                                                  remainder);
    }
  }
};

/// fptosi and fptoui saturate to the result's range, NaN to 0: LLVM's
/// llvm.fpto[su]i.sat.
template <typename ArithOp>
struct FloatToIntOpLowering : TypedArithLowering<ArithOp> {
  using TypedArithLowering<ArithOp>::TypedArithLowering;
  using OpAdaptor = typename ArithOp::Adaptor;

  void lower(ArithOp op, OpAdaptor adaptor, Type type,
             ConversionPatternRewriter &rewriter) const override {
    StringRef intrinsic = std::is_same_v<ArithOp, arith::FPToSIOp>
                              ? "llvm.fptosi.sat"
                              : "llvm.fptoui.sat";
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, type, rewriter.getStringAttr(intrinsic),
        ValueRange{adaptor.getIn()});
  }
};

} // namespace

Value tilec::detail::roundToTF32(Emitter &e, Value x) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Type bitsType = b.getI32Type();
  if (auto vector = dyn_cast<VectorType>(x.getType()))
    bitsType = VectorType::get(vector.getShape(), bitsType);
  auto constant = [&](uint32_t value) {
    return intConstant(b, loc, bitsType, APInt(32, value));
  };
  // Round to nearest even at bit 13: add 0xfff plus the lowest kept bit and
  // clear the 13 dropped bits (a carry into the exponent is right, up to
  // infinity). A NaN is quieted instead, keeping its sign.
  Value bits = LLVM::BitcastOp::create(b, loc, bitsType, x);
  Value lowestKept = LLVM::AndOp::create(
      b, loc, LLVM::LShrOp::create(b, loc, bits, constant(13)), constant(1));
  Value bias = LLVM::AddOp::create(b, loc, lowestKept, constant(0xfff));
  Value rounded = LLVM::AndOp::create(
      b, loc, LLVM::AddOp::create(b, loc, bits, bias), constant(0xffffe000u));
  Value quieted = LLVM::OrOp::create(b, loc, bits, constant(0x00400000u));
  Value isNaN =
      LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::uno, x, x);
  Value result = LLVM::SelectOp::create(b, loc, isNaN, quieted, rounded);
  return LLVM::BitcastOp::create(b, loc, x.getType(), result);
}

void tilec::detail::populateArithPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<ShiftOpLowering<arith::ShLIOp>, ShiftOpLowering<arith::ShRUIOp>,
               ShiftOpLowering<arith::ShRSIOp>,
               SignedDivisionOpLowering<arith::DivSIOp>,
               SignedDivisionOpLowering<arith::RemSIOp>,
               FloatToIntOpLowering<arith::FPToSIOp>,
               FloatToIntOpLowering<arith::FPToUIOp>>(converter,
                                                      patterns.getContext(),
                                                      /*benefit=*/2);
}
