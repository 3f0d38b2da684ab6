//===- ScalarsToLLVM.cpp - arith, math, cf, NVVM to LLVM --------*- C++ -*-===//
//
// The `convert-scalars-to-llvm` pass: upstream's patterns for what
// convert-tile-to-llvm leaves, applied by the dialect conversion driver
// without pattern rollback (Passes.td says why).
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tilec {
#define GEN_PASS_DEF_CONVERTSCALARSTOLLVM
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

/// arith, math, cf and the NVVM ops without an intrinsic to LLVM, as
/// upstream's convert-arith-to-llvm (with its expansion of the ceil and
/// floor divisions), convert-math-to-llvm, convert-cf-to-llvm and
/// convert-nvvm-to-llvm, in one conversion. Casts between index and i64
/// that other dialects still need stay for reconcile-unrealized-casts.
struct ConvertScalarsToLLVMPass
    : public tilec::impl::ConvertScalarsToLLVMBase<ConvertScalarsToLLVMPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    LLVMTypeConverter converter(context);
    RewritePatternSet patterns(context);
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateNVVMToLLVMConversionPatterns(patterns);
    LLVMConversionTarget target(*context);
    target.addIllegalDialect<arith::ArithDialect, math::MathDialect,
                             cf::ControlFlowDialect>();
    ConversionConfig config;
    config.allowPatternRollback = false;
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
