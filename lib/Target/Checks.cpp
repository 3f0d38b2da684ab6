//===- Checks.cpp - what a module must satisfy before LLVM sees it -------===//
//
// LLVM's backend reports what it cannot compile with a fatal error (or not at
// all: a CTA that asks for more shared memory than the GPU has only fails at
// launch). These checks turn the cases tilec can know about into located
// diagnostics first.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Target.h"

#include "tilec/Dialect/Tile/IR/TileAttrNames.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace tilec {
namespace {

/// Element types the NVPTX backend compiles in every position tilec's own
/// lowering could put them (no f128, fp8 or i128 arithmetic, which it has
/// no code or libcall for).
bool isSupportedScalar(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return llvm::is_contained({1u, 8u, 16u, 32u, 64u}, integer.getWidth());
  return isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(type);
}

bool isSupportedType(Type type) {
  if (isSupportedScalar(type) ||
      isa<LLVM::LLVMPointerType, LLVM::LLVMVoidType, LLVM::LLVMTokenType>(
          type))
    return true;
  if (auto vector = dyn_cast<VectorType>(type))
    return isSupportedScalar(vector.getElementType());
  if (auto array = dyn_cast<LLVM::LLVMArrayType>(type))
    return isSupportedType(array.getElementType());
  if (auto structType = dyn_cast<LLVM::LLVMStructType>(type))
    return !structType.isIdentified() &&
           llvm::all_of(structType.getBody(), isSupportedType);
  if (auto function = dyn_cast<LLVM::LLVMFunctionType>(type))
    return isSupportedType(function.getReturnType()) &&
           llvm::all_of(function.getParams(), isSupportedType);
  return false;
}

/// The llvm.intr ops the tile lowering emits (math and arith on floats and
/// integers). Others are not needed by tile kernels, and some translate to
/// LLVM IR that crashes the backend (an llvm.intr.frexp with one result).
bool isSupportedIntrinsic(StringRef opName) {
  static constexpr llvm::StringLiteral kIntrinsics[] = {
      "llvm.intr.abs",      "llvm.intr.ceil",    "llvm.intr.copysign",
      "llvm.intr.exp2",     "llvm.intr.fabs",    "llvm.intr.floor",
      "llvm.intr.fma",      "llvm.intr.fmuladd", "llvm.intr.maximum",
      "llvm.intr.maxnum",   "llvm.intr.minimum", "llvm.intr.minnum",
      "llvm.intr.round",    "llvm.intr.roundeven", "llvm.intr.smax",
      "llvm.intr.smin",     "llvm.intr.sqrt",    "llvm.intr.trunc",
      "llvm.intr.umax",     "llvm.intr.umin"};
  return llvm::is_contained(kIntrinsics, opName);
}

/// What llvm.call_intrinsic may call: NVVM's intrinsics (which the backend
/// has code for, on the targets that have them) and the saturating
/// conversions the lowering uses; not, say, llvm.sin.f32, which it cannot
/// select.
bool isSupportedCalledIntrinsic(StringRef intrinsic) {
  return intrinsic.starts_with("llvm.nvvm.") ||
         intrinsic.starts_with("llvm.fptosi.sat") ||
         intrinsic.starts_with("llvm.fptoui.sat");
}

} // namespace

LogicalResult checkLoweredModule(ModuleOp module) {
  WalkResult walk = module.walk([](Operation *op) {
    Dialect *dialect = op->getDialect();
    if (!isa_and_nonnull<LLVM::LLVMDialect, NVVM::NVVMDialect,
                         BuiltinDialect>(dialect)) {
      op->emitOpError() << "is neither a tile kernel nor in the LLVM or "
                           "NVVM dialect: a file without tile.kernel is "
                           "compiled as lowered LLVM-dialect code";
      return WalkResult::interrupt();
    }
    StringRef name = op->getName().getStringRef();
    if (name.starts_with("llvm.intr.") && !isSupportedIntrinsic(name)) {
      op->emitOpError() << "is not one of the intrinsics tilec passes to the "
                           "NVPTX backend (see docs/codegen.md)";
      return WalkResult::interrupt();
    }
    if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op);
        call && !isSupportedCalledIntrinsic(call.getIntrin())) {
      op->emitOpError() << "calls " << call.getIntrin()
                        << ", which is not an NVVM intrinsic nor one the tile "
                           "lowering calls (see docs/codegen.md)";
      return WalkResult::interrupt();
    }
    auto checkTypes = [&](TypeRange types) {
      for (Type type : types)
        if (!isSupportedType(type)) {
          op->emitOpError() << "uses " << type
                            << ", which tilec does not compile: integers of "
                               "1, 8, 16, 32 or 64 bits, f16, bf16, f32 and "
                               "f64 only";
          return false;
        }
      return true;
    };
    if (!checkTypes(op->getOperandTypes()) || !checkTypes(op->getResultTypes()))
      return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (!checkTypes(block.getArgumentTypes()))
          return WalkResult::interrupt();
    if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op);
        func && !checkTypes(TypeRange{func.getFunctionType()}))
      return WalkResult::interrupt();
    if (auto global = dyn_cast<LLVM::GlobalOp>(op);
        global && !checkTypes(TypeRange{global.getGlobalType()}))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult checkResources(ModuleOp module, const GpuTarget &target) {
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    auto shared = func->getAttrOfType<IntegerAttr>(tile::kSharedBytesAttrName);
    if (!shared || shared.getInt() <= target.maxSharedBytes)
      continue;
    return func.emitError()
           << "kernel @" << func.getSymName() << " needs " << shared.getInt()
           << " bytes of shared memory (" << llvm::divideCeil(shared.getInt(), 1024)
           << " KiB), more than the " << target.maxSharedBytes << " ("
           << target.maxSharedBytes / 1024 << " KiB) a CTA has on "
           << target.name << ": use smaller tiles";
  }
  return success();
}

} // namespace tilec
