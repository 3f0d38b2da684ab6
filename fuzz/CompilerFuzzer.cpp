//===- CompilerFuzzer.cpp - libFuzzer target over the tilec pipeline ------===//
//
// Compiles each input in process the way `tilec --emit=ptx` does (see
// tools/tilec/tilec.cpp): parse and verify, tile-bind-params with the
// input's -D options (FuzzInput.h), canonicalize and CSE, the tile-to-LLVM
// pipeline for the input's target, and, when TILEC_FUZZ_THROUGH_PTX is 1,
// translation to LLVM IR (with libdevice, optimized at O3) and the NVPTX
// backend, with tilec's checks between the stages (nesting depth, kernel
// names, LLVM-dialect input, resources). Every diagnostic is swallowed: a
// clean rejection is a normal outcome. A crash, an LLVM fatal error, a hang
// or unbounded memory is what libFuzzer reports: tilec's fatal-error
// handler (FatalErrors.h) is not installed, since it is the last line of
// defence, and an input that reaches it is a finding.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"
#include "TokenMutator.h"

#include "tilec/Conversion/Pipeline.h"
#include "tilec/InitAll.h"
#include "tilec/Target/FatalErrors.h"
#include "tilec/Target/InputLimits.h"
#include "tilec/Target/Target.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#ifndef TILEC_FUZZ_THROUGH_PTX
#error "define TILEC_FUZZ_THROUGH_PTX to 0 (lower only) or 1 (through PTX)"
#endif

using namespace mlir;

namespace {

LogicalResult runPasses(MLIRContext &context, ModuleOp module,
                        function_ref<void(PassManager &)> build) {
  PassManager pm(&context);
  build(pm);
  return pm.run(module);
}

/// Compiles one input; failure is a diagnostic, already swallowed.
LogicalResult compile(MLIRContext &context, llvm::StringRef input) {
  tilec::fuzz::FuzzOptions options = tilec::fuzz::parseFuzzOptions(input);
  const tilec::GpuTarget *target = tilec::lookupGpuTarget(
      options.target.empty() ? llvm::StringRef("sm_80") : options.target);
  if (!target)
    return failure();

  // The lexer reads up to a terminating NUL, which libFuzzer's buffer
  // lacks: parse a copy, as tilec parses its file's buffer.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(input, "fuzz-input"),
      llvm::SMLoc());
  if (failed(tilec::checkInputLimits(sourceMgr)))
    return failure();
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return failure();
  if (failed(runPasses(context, *module, [&](PassManager &pm) {
        tile::TileBindParamsOptions bind;
        bind.params.assign(options.defines.begin(), options.defines.end());
        pm.addPass(tile::createTileBindParams(bind));
        pm.addPass(createCanonicalizerPass());
        pm.addPass(createCSEPass());
      })))
    return failure();

  if (!options.kernelSuffix.empty())
    for (tile::KernelOp kernel : module->getOps<tile::KernelOp>()) {
      std::string name = kernel.getSymName().str() + options.kernelSuffix;
      if (!tile::isValidKernelName(name))
        return failure();
      SymbolTable::setSymbolName(kernel, name);
    }
  // What --emit=tile prints: the printers are the project's code too.
  llvm::raw_null_ostream sink;
  module->print(sink);

  // As in tilec, a module without tile kernels at any depth is taken to be
  // lowered already, within the limits checkLoweredModule checks.
  bool lowered = !module->walk([](tile::KernelOp) {
                          return WalkResult::interrupt();
                        }).wasInterrupted();
  if (lowered && failed(tilec::checkLoweredModule(*module)))
    return failure();
  if (!lowered) {
    tilec::LoweringOptions lowering;
    lowering.smVersion = target->loweringSm;
    if (failed(runPasses(context, *module, [&](PassManager &pm) {
          tilec::buildTileToLLVMPipeline(pm, lowering);
        })))
      return failure();
  }
  if (failed(tilec::checkResources(*module, *target)))
    return failure();
  if (!TILEC_FUZZ_THROUGH_PTX)
    return success();

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = tilec::translateToLLVMIR(
      *module, llvmContext, *target, tilec::CudaToolkit::configured());
  if (!llvmModule)
    return failure();
  return tilec::emitPTX(module->getLoc(), *llvmModule, *target);
}

/// The context every input is compiled in: building one (registering and
/// loading the dialects) costs more than compiling most inputs.
MLIRContext &getContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    tilec::registerKernelDialects(registry);
    registry.insert<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    tilec::registerTargetTranslations(registry);
    auto *context =
        new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    context->printOpOnDiagnostic(false);
    context->getDiagEngine().registerHandler(
        [](Diagnostic &) { return success(); });
    return context;
  }();
  return *context;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // On the stack tilec compiles on: nesting within the limit must not
  // overflow it.
  tilec::runOnLargeStack(tilec::kToolStackBytes, [&] {
    (void)compile(getContext(), llvm::StringRef(
                                    reinterpret_cast<const char *>(data), size));
  });
  return 0;
}

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

/// Half of the mutations are libFuzzer's, half swap a token of the kernel
/// (TokenMutator.h); op names come from the dialects the context registers,
/// so they follow the dialect's ODS.
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  std::minstd_rand random(seed);
  if (random() % 2 == 0)
    return LLVMFuzzerMutate(data, size, maxSize);
  static const std::vector<std::string> opNames = [] {
    std::vector<std::string> names;
    for (RegisteredOperationName op :
         getContext().getRegisteredOperations())
      names.push_back(op.getStringRef().str());
    return names;
  }();
  std::string text(reinterpret_cast<const char *>(data), size);
  if (!tilec::fuzz::mutateTokens(text, opNames, random) ||
      text.size() > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}
