//===- LowerValues.cpp - ops computed thread by thread ----------*- C++ -*-===//
//
// Ops whose every result element depends only on the same element of the
// operands (or on no tile at all): with every tile in one blocked layout they
// work on each thread's registers without exchanging data.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

namespace {

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

struct BlockIdOpLowering : TilePattern<tile::BlockIdOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::BlockIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Location loc = op.getLoc();
    SmallVector<Value> ids;
    for (unsigned i = 0, e = op.getNumResults(); i < e; ++i) {
      Value id;
      switch (op.getAxis(i)) {
      case tile::Axis::x:
        id = NVVM::BlockIdXOp::create(rewriter, loc, i32);
        break;
      case tile::Axis::y:
        id = NVVM::BlockIdYOp::create(rewriter, loc, i32);
        break;
      case tile::Axis::z:
        id = NVVM::BlockIdZOp::create(rewriter, loc, i32);
        break;
      }
      ids.push_back(
          arith::ExtUIOp::create(rewriter, loc, rewriter.getI64Type(), id));
    }
    rewriter.replaceOp(op, ids);
    return success();
  }
};

struct NumBlocksOpLowering : TilePattern<tile::NumBlocksOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::NumBlocksOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Location loc = op.getLoc();
    Value count;
    switch (op.getAxis()) {
    case tile::Axis::x:
      count = NVVM::GridDimXOp::create(rewriter, loc, i32);
      break;
    case tile::Axis::y:
      count = NVVM::GridDimYOp::create(rewriter, loc, i32);
      break;
    case tile::Axis::z:
      count = NVVM::GridDimZOp::create(rewriter, loc, i32);
      break;
    }
    rewriter.replaceOpWithNewOp<arith::ExtUIOp>(op, rewriter.getI64Type(),
                                                count);
    return success();
  }
};

/// tile.dim is the size argument of the view.
struct DimOpLowering : TilePattern<tile::DimOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::DimOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> extents;
    for (int64_t dim : op.getDims())
      extents.push_back(adaptor.getView()[1 + dim]);
    rewriter.replaceOp(op, extents);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Tiles built in registers
//===----------------------------------------------------------------------===//

struct FullOpLowering : TilePattern<tile::FullOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::FullOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    rewriter.replaceOp(op, e.splat(registersOf(op.getType()),
                                   adaptor.getValue()));
    return success();
  }
};

/// Register r of a thread holds its linear index, which is the value.
struct ArangeOpLowering : TilePattern<tile::ArangeOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::ArangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    VectorType type = registersOf(op.getType());
    BlockedLayout layout = converter().getLayout(op.getType());
    Value result = e.zeros(type);
    for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
      Value index = e.linearIndex(layout, r, /*clamp=*/false);
      if (!type.getElementType().isInteger(32))
        index = arith::ExtUIOp::create(rewriter, op.getLoc(),
                                       type.getElementType(), index);
      result = e.insert(result, index, r);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A splat tile constant is the same splat of every thread's registers.
struct TileConstantLowering : TilePattern<arith::ConstantOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tileType = dyn_cast<RankedTensorType>(op.getType());
    if (!tileType)
      return failure();
    auto value = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!value)
      return op.emitOpError() << "a tile constant must be a splat (use "
                                 "tile.full or tile.arange to build others)";
    if (isa<FloatTF32Type>(tileType.getElementType()))
      return op.emitOpError() << "tf32 tile constants are not supported: "
                                 "convert an f32 tile";
    VectorType type = registersOf(tileType);
    rewriter.replaceOpWithNewOp<LLVM::ConstantOp>(
        op, type, SplatElementsAttr::get(type, value.getSplatValue<Attribute>()));
    return success();
  }
};

/// Any elementwise arith/math op on tiles is the same op on each thread's
/// registers: the layouts of operands and results are the same blocked one.
struct ElementwiseOpLowering : ConversionPattern {
  ElementwiseOpLowering(TileTypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    // math.exp, exp2, log and log2 have their own lowering (MathOpLowering),
    // the libdevice functions theirs, and the arith ops with defined
    // results LowerArith.cpp's.
    if (!op->hasTrait<OpTrait::Elementwise>() ||
        !isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op>(op) ||
        getLibdeviceFunction(op) ||
        isa<arith::ShLIOp, arith::ShRUIOp, arith::ShRSIOp, arith::DivSIOp,
            arith::RemSIOp, arith::FPToSIOp, arith::FPToUIOp>(op) ||
        !llvm::any_of(op->getResultTypes(),
                      [](Type t) { return isa<RankedTensorType>(t); }))
      return failure();
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return failure();
    OperationState state(op->getLoc(), op->getName().getStringRef(), operands,
                         resultTypes, op->getAttrs());
    Value result = rewriter.create(state)->getResult(0);
    // tf32 tiles live in f32 registers: an arithmetic result is rounded
    // back to tf32 (a select only chooses among tf32 values).
    Type element = getElementTypeOrSelf(op->getResult(0).getType());
    if (isa<FloatTF32Type>(element) && !isa<arith::SelectOp>(op)) {
      Emitter e(rewriter, op->getLoc());
      result = roundToTF32(e, result);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct WhereOpLowering : TilePattern<tile::WhereOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::WhereOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::SelectOp>(op, adaptor.getCondition(),
                                                adaptor.getTrueValue(),
                                                adaptor.getFalseValue());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Element type conversion
//===----------------------------------------------------------------------===//

/// f32 registers rounded to nearest even into bf16 or f16, two at a time:
/// `cvt.rn.bf16x2.f32` (`cvt.rn.f16x2.f32`) per pair, as the LLVM intrinsic,
/// which the backend keeps whole. An fptrunc of the vector gives the same
/// bits, but where the rounded values are also extended back (the split of
/// an f32 operand into two bf16 halves) the backend scalarises it into one
/// `cvt.rn.bf16.f32` (an F2F, a quarter-rate conversion) per element and a
/// move per pair.
Value truncatePairs(Emitter &e, Value source, VectorType resultType) {
  StringRef intrinsic = resultType.getElementType().isBF16()
                            ? "llvm.nvvm.ff2bf16x2.rn"
                            : "llvm.nvvm.ff2f16x2.rn";
  auto pairType = VectorType::get({2}, resultType.getElementType());
  Value result = e.zeros(resultType);
  for (int64_t r = 0; r < resultType.getNumElements(); r += 2) {
    // The first operand goes to the upper half: element r + 1.
    Value pair = LLVM::CallIntrinsicOp::create(
                     e.b, e.loc, pairType, e.b.getStringAttr(intrinsic),
                     ValueRange{e.extract(source, r + 1), e.extract(source, r)})
                     .getResult(0);
    result = e.insert(result, e.extract(pair, 0), r);
    result = e.insert(result, e.extract(pair, 1), r + 1);
  }
  return result;
}

/// Converts registers of element type `from` to `to` (register types, tf32
/// already mapped to f32) with the semantics of tile.convert.
Value convertElements(Emitter &e, Value source, Type from, Type to,
                      VectorType resultType) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  if (from == to)
    return source;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  unsigned fromBits = from.getIntOrFloatBitWidth();
  unsigned toBits = to.getIntOrFloatBitWidth();
  if (fromFloat && toFloat) {
    if (fromBits < toBits)
      return LLVM::FPExtOp::create(b, loc, resultType, source);
    if (from.isF32() && toBits == 16 && resultType.getNumElements() % 2 == 0)
      return truncatePairs(e, source, resultType);
    if (fromBits > toBits)
      return LLVM::FPTruncOp::create(b, loc, resultType, source);
    // bf16 <-> f16: f32 holds both exactly, so this rounds once.
    auto wide = VectorType::get(resultType.getShape(), b.getF32Type());
    Value extended = LLVM::FPExtOp::create(b, loc, wide, source);
    return LLVM::FPTruncOp::create(b, loc, resultType, extended);
  }
  if (fromFloat) {
    // Saturating, NaN to 0; a 1-bit result saturates to 0 or 1.
    StringRef intrinsic = to.isInteger(1) ? "llvm.fptoui.sat" : "llvm.fptosi.sat";
    return LLVM::CallIntrinsicOp::create(b, loc, resultType,
                                         b.getStringAttr(intrinsic),
                                         ValueRange{source})
        .getResult(0);
  }
  if (toFloat) {
    if (from.isInteger(1))
      return LLVM::UIToFPOp::create(b, loc, resultType, source);
    return LLVM::SIToFPOp::create(b, loc, resultType, source);
  }
  if (from.isInteger(1))
    return LLVM::ZExtOp::create(b, loc, resultType, source);
  if (fromBits < toBits)
    return LLVM::SExtOp::create(b, loc, resultType, source);
  return LLVM::TruncOp::create(b, loc, resultType, source);
}

struct ConvertOpLowering : TilePattern<tile::ConvertOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::ConvertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    Type from = op.getSource().getType().getElementType();
    Type to = op.getType().getElementType();
    VectorType type = registersOf(op.getType());
    Value source = adaptor.getSource();
    if (isa<FloatTF32Type>(to)) {
      if (isa<FloatTF32Type>(from)) {
        rewriter.replaceOp(op, source);
        return success();
      }
      // cvt.rna.tf32.f32 per element; the result keeps 32-bit storage.
      Value result = e.zeros(type);
      for (int64_t r = 0; r < type.getNumElements(); ++r) {
        Value bits = NVVM::ConvertFloatToTF32Op::create(
            rewriter, op.getLoc(), rewriter.getI32Type(), e.extract(source, r),
            NVVM::FPRoundingMode::RNA);
        Value value = LLVM::BitcastOp::create(rewriter, op.getLoc(),
                                              rewriter.getF32Type(), bits);
        result = e.insert(result, value, r);
      }
      rewriter.replaceOp(op, result);
      return success();
    }
    rewriter.replaceOp(op, convertElements(
                               e, source, TileTypeConverter::getRegisterType(from),
                               to, type));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// exp2 and the math ops with no upstream path to PTX
//===----------------------------------------------------------------------===//

/// The NVVM intrinsic `name` of one f32 applied to each element of x.
Value applyPerElement(Emitter &e, Value x, StringRef name) {
  auto apply = [&](Value scalar) {
    return LLVM::CallIntrinsicOp::create(e.b, e.loc, e.b.getF32Type(),
                                         e.b.getStringAttr(name),
                                         ValueRange{scalar})
        .getResult(0);
  };
  auto vector = dyn_cast<VectorType>(x.getType());
  if (!vector)
    return apply(x);
  Value result = e.zeros(vector);
  for (int64_t r = 0; r < vector.getNumElements(); ++r)
    result = e.insert(result, apply(e.extract(x, r)), r);
  return result;
}

/// ex2.approx.ftz.f32 per element: 2 ulp, exp2(-inf) = 0, +inf above 128,
/// NaN stays NaN, and results below 2^-126 flushed to 0 (tile.exp2's
/// contract). Without ftz, ptxas wraps each MUFU.EX2 in a compare and two
/// multiplies that rescale subnormal results (compute_out's k step takes
/// 16 per thread).
Value exp2(Emitter &e, Value x) {
  return applyPerElement(e, x, "llvm.nvvm.ex2.approx.ftz.f32");
}

/// lg2.approx.f32 per element.
Value log2(Emitter &e, Value x) {
  return applyPerElement(e, x, "llvm.nvvm.lg2.approx.f");
}

Value scale(Emitter &e, Value x, double factor) {
  Attribute value = e.b.getF32FloatAttr(static_cast<float>(factor));
  if (auto vector = dyn_cast<VectorType>(x.getType()))
    value = SplatElementsAttr::get(vector, value);
  Value constant = LLVM::ConstantOp::create(e.b, e.loc, x.getType(),
                                            cast<TypedAttr>(value));
  return LLVM::FMulOp::create(e.b, e.loc, x, constant);
}

struct Exp2OpLowering : TilePattern<tile::Exp2Op> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::Exp2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    rewriter.replaceOp(op, exp2(e, adaptor.getSource()));
    return success();
  }
};

/// math.exp, exp2, log and log2 on f32 scalars or tiles, through the
/// approximate base-2 instructions (exp x = 2^(x log2 e), log x = lg2 x ln 2,
/// as CUDA's __expf and __logf).
template <typename MathOp>
struct MathOpLowering : TilePattern<MathOp> {
  using TilePattern<MathOp>::TilePattern;
  using OpAdaptor = typename MathOp::Adaptor;

  LogicalResult
  matchAndRewrite(MathOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return op.emitOpError()
             << "is lowered for f32 only: convert the operand to f32";
    Emitter e(rewriter, op.getLoc());
    Value x = adaptor.getOperand();
    Value result;
    if constexpr (std::is_same_v<MathOp, math::Exp2Op>)
      result = exp2(e, x);
    else if constexpr (std::is_same_v<MathOp, math::ExpOp>)
      result = exp2(e, scale(e, x, M_LOG2E));
    else if constexpr (std::is_same_v<MathOp, math::Log2Op>)
      result = log2(e, x);
    else
      result = scale(e, log2(e, x), M_LN2);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The row-major order of elements is the same under both shapes, so each
/// thread already holds its elements of the result.
struct ReshapeOpLowering : TilePattern<tile::ReshapeOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSource());
    return success();
  }
};

} // namespace

void tilec::detail::populateValuePatterns(TileTypeConverter &converter,
                                   RewritePatternSet &patterns) {
  patterns.add<BlockIdOpLowering, NumBlocksOpLowering, DimOpLowering,
               FullOpLowering, TileConstantLowering, ElementwiseOpLowering,
               WhereOpLowering, ConvertOpLowering, Exp2OpLowering,
               MathOpLowering<math::ExpOp>, MathOpLowering<math::Exp2Op>,
               MathOpLowering<math::LogOp>, MathOpLowering<math::Log2Op>>(
      converter, patterns.getContext());
  // On the layouts path these depend on the layout (LowerDistributed.cpp).
  if (!converter.hasLayouts())
    patterns.add<ArangeOpLowering, ReshapeOpLowering>(converter,
                                                      patterns.getContext());
}
