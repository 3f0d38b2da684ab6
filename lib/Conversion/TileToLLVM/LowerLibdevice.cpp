//===- LowerLibdevice.cpp - math functions through libdevice -------------===//
//
// The NVPTX backend has no instructions for sin, cos, tanh, pow, erf, atan,
// atan2, expm1, log1p and log10 and no library to call: they become calls to
// libdevice's f32 functions (__nv_sinf, ...), which tilec links from the
// toolkit's libdevice.10.bc and inlines (lib/Target). On scalars and on
// tiles alike, element by element; f16 and bf16 are computed in f32 and
// rounded, tf32 results are rounded to tf32, as docs/semantics.md says.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

std::optional<LibdeviceFunction>
tilec::detail::getLibdeviceFunction(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<LibdeviceFunction>>(op)
      .Case([](math::SinOp) { return LibdeviceFunction{"__nv_sinf", 1}; })
      .Case([](math::CosOp) { return LibdeviceFunction{"__nv_cosf", 1}; })
      .Case([](math::TanhOp) { return LibdeviceFunction{"__nv_tanhf", 1}; })
      .Case([](math::PowFOp) { return LibdeviceFunction{"__nv_powf", 2}; })
      .Case([](math::ErfOp) { return LibdeviceFunction{"__nv_erff", 1}; })
      .Case([](math::AtanOp) { return LibdeviceFunction{"__nv_atanf", 1}; })
      .Case([](math::Atan2Op) { return LibdeviceFunction{"__nv_atan2f", 2}; })
      .Case([](math::ExpM1Op) { return LibdeviceFunction{"__nv_expm1f", 1}; })
      .Case([](math::Log1pOp) { return LibdeviceFunction{"__nv_log1pf", 1}; })
      .Case([](math::Log10Op) { return LibdeviceFunction{"__nv_log10f", 1}; })
      .Default([](Operation *) { return std::nullopt; });
}

void tilec::detail::declareLibdeviceFunctions(ModuleOp module) {
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  Type f32 = builder.getF32Type();
  module.walk([&](Operation *op) {
    std::optional<LibdeviceFunction> function = getLibdeviceFunction(op);
    if (!function || module.lookupSymbol(function->name))
      return;
    SmallVector<Type> params(function->numOperands, f32);
    LLVM::LLVMFuncOp::create(builder, module.getLoc(), function->name,
                             LLVM::LLVMFunctionType::get(f32, params));
  });
}

namespace {

struct LibdeviceOpLowering : ConversionPattern {
  LibdeviceOpLowering(TileTypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/2,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<LibdeviceFunction> function = getLibdeviceFunction(op);
    if (!function)
      return failure();
    Type original = getElementTypeOrSelf(op->getResult(0).getType());
    if (!isa<Float32Type, FloatTF32Type, Float16Type, BFloat16Type>(original))
      return op->emitOpError()
             << "is lowered for f32, tf32, f16 and bf16, not " << original;
    Type type = getTypeConverter()->convertType(op->getResult(0).getType());
    if (!type)
      return failure();
    Emitter e(rewriter, op->getLoc());
    Type f32 = rewriter.getF32Type();
    Type element = getElementTypeOrSelf(type);
    auto call = [&](ArrayRef<Value> args) {
      SmallVector<Value> wide;
      for (Value arg : args)
        wide.push_back(element == f32
                           ? arg
                           : LLVM::FPExtOp::create(rewriter, e.loc, f32, arg));
      Value result = LLVM::CallOp::create(rewriter, e.loc, TypeRange{f32},
                                          function->name, wide)
                         .getResult();
      if (element != f32)
        result = LLVM::FPTruncOp::create(rewriter, e.loc, element, result);
      return result;
    };
    Value result;
    if (auto vector = dyn_cast<VectorType>(type)) {
      result = e.zeros(vector);
      for (int64_t r = 0; r < vector.getNumElements(); ++r) {
        SmallVector<Value> args;
        for (Value operand : operands)
          args.push_back(e.extract(operand, r));
        result = e.insert(result, call(args), r);
      }
    } else {
      result = call(operands);
    }
    if (isa<FloatTF32Type>(original))
      result = roundToTF32(e, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tilec::detail::populateLibdevicePatterns(TileTypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<LibdeviceOpLowering>(converter, patterns.getContext());
}
