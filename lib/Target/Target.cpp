//===- Target.cpp - targets, LLVM IR and PTX ------------------------------===//

#include "tilec/Target/Target.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <mutex>

using namespace mlir;

namespace tilec {
namespace {

// PTX versions: sm_80 needs PTX 7.0, sm_86 7.1, sm_89 and sm_90 7.8, sm_90a
// (wgmma) 8.0, sm_100a with the tcgen05 instructions the lowering uses 8.8.
// The lowering paths are those of LoweringOptions::smVersion.
// Shared memory per CTA (CUDA C Programming Guide, "Technical
// Specifications per Compute Capability"): 163 KiB on sm_80, 99 KiB on sm_86
// and sm_89, 227 KiB on sm_90 and sm_100.
const GpuTarget kTargets[] = {
    {"sm_80", 80, false, 70, 80, 163 * 1024},
    {"sm_86", 86, false, 71, 80, 99 * 1024},
    {"sm_89", 89, false, 78, 80, 99 * 1024},
    {"sm_90", 90, false, 78, 80, 227 * 1024},
    {"sm_90a", 90, true, 80, 90, 227 * 1024},
    {"sm_100a", 100, true, 88, 100, 227 * 1024},
};

constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";

std::unique_ptr<llvm::TargetMachine> createTargetMachine(Location loc,
                                                         const GpuTarget &gpu) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  llvm::Triple triple(kTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    emitError(loc) << "the NVPTX backend is not available: " << error;
    return nullptr;
  }
  std::string features = "+ptx" + std::to_string(gpu.ptxVersion);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, gpu.name, features, llvm::TargetOptions(), std::nullopt,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    emitError(loc) << "cannot create an NVPTX target machine for " << gpu.name;
  return machine;
}

/// Reports the LLVM context's diagnostics (backend errors, linker warnings)
/// as MLIR diagnostics at `loc` while alive, instead of LLVM's default of
/// printing them and exiting.
class ScopedLLVMDiagnostics {
public:
  ScopedLLVMDiagnostics(llvm::LLVMContext &context, Location loc)
      : context(context), loc(loc),
        previous(context.getDiagnosticHandlerCallBack()),
        previousContext(context.getDiagnosticContext()) {
    context.setDiagnosticHandlerCallBack(&handle, this);
  }
  ~ScopedLLVMDiagnostics() {
    context.setDiagnosticHandlerCallBack(previous, previousContext);
  }
  bool hadError() const { return failed; }

private:
  static void handle(const llvm::DiagnosticInfo *info, void *self) {
    auto *scope = static_cast<ScopedLLVMDiagnostics *>(self);
    std::string message;
    llvm::raw_string_ostream os(message);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info->print(printer);
    switch (info->getSeverity()) {
    case llvm::DS_Error:
      scope->failed = true;
      emitError(scope->loc) << "LLVM: " << message;
      break;
    case llvm::DS_Warning:
      emitWarning(scope->loc) << "LLVM: " << message;
      break;
    case llvm::DS_Remark:
    case llvm::DS_Note:
      break;
    }
  }

  llvm::LLVMContext &context;
  Location loc;
  llvm::DiagnosticHandler::DiagnosticHandlerTy previous;
  void *previousContext;
  bool failed = false;
};

/// Links the libdevice functions that `module` calls (__nv_expf, ...), so
/// that nothing stays undefined in the PTX; the rest of libdevice is dropped
/// by the optimizer once internalized.
LogicalResult linkLibdevice(Location loc, llvm::Module &module,
                            const CudaToolkit &toolkit) {
  bool needed = llvm::any_of(module, [](const llvm::Function &f) {
    return f.isDeclaration() && f.getName().starts_with("__nv_");
  });
  if (!needed)
    return success();
  if (toolkit.libdevice.empty())
    return emitError(loc) << "the kernel calls libdevice functions and no "
                             "libdevice.10.bc was found (configure with "
                             "-DTILEC_CUDA_ROOT=<CUDA toolkit>)";
  // Lazily: the linker materializes only the functions the module calls,
  // not the whole of libdevice (about 500 KB of bitcode) per target.
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> libdevice = llvm::getLazyIRFileModule(
      toolkit.libdevice, diag, module.getContext());
  if (!libdevice) {
    std::string message;
    llvm::raw_string_ostream os(message);
    diag.print("tilec", os, /*ShowColors=*/false);
    return emitError(loc) << "cannot read " << toolkit.libdevice << ": "
                          << message;
  }
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(libdevice),
                                llvm::Linker::LinkOnlyNeeded))
    return emitError(loc) << "cannot link " << toolkit.libdevice;
  for (llvm::Function &f : module)
    if (!f.isDeclaration() &&
        f.getCallingConv() != llvm::CallingConv::PTX_Kernel)
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  return success();
}

/// Names the image's target in the image itself, as a string global that
/// the runtime reads (tilec_kernel_image_info in
/// include/tilec/Runtime/Runtime.h): which cubin of a fatbin the driver
/// picked cannot be asked of the driver.
constexpr llvm::StringLiteral kImageTargetSymbol = "tilec_image_target";

LogicalResult addImageTarget(Location loc, llvm::Module &module,
                             const GpuTarget &target) {
  if (module.getNamedValue(kImageTargetSymbol))
    return emitError(loc) << "the symbol @" << kImageTargetSymbol
                          << " is tilec's: it names each image's target";
  llvm::Constant *name =
      llvm::ConstantDataArray::getString(module.getContext(), target.name);
  new llvm::GlobalVariable(module, name->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, name,
                           kImageTargetSymbol, /*InsertBefore=*/nullptr,
                           llvm::GlobalValue::NotThreadLocal,
                           /*AddressSpace=*/1);
  return success();
}

void optimize(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // The target machine adds the NVPTX passes (NVVMReflect for libdevice,
  // address-space inference) to the standard pipeline.
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, mam);
}

} // namespace

const GpuTarget *lookupGpuTarget(llvm::StringRef name) {
  for (const GpuTarget &target : kTargets)
    if (target.name == name)
      return &target;
  return nullptr;
}

std::string listGpuTargets() {
  std::string names;
  for (const GpuTarget &target : kTargets) {
    if (!names.empty())
      names += ", ";
    names += target.name;
  }
  return names;
}

LogicalResult parseGpuTargets(llvm::StringRef list,
                              llvm::SmallVectorImpl<const GpuTarget *> &targets,
                              std::string &error) {
  SmallVector<StringRef> names;
  list.split(names, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  if (names.empty()) {
    error = "no target given (supported: " + listGpuTargets() + ")";
    return failure();
  }
  for (StringRef name : names) {
    name = name.trim();
    const GpuTarget *target = lookupGpuTarget(name);
    if (!target) {
      error = "unknown target '" + name.str() +
              "' (supported: " + listGpuTargets() + ")";
      return failure();
    }
    if (llvm::is_contained(targets, target)) {
      error = "target '" + name.str() + "' given twice";
      return failure();
    }
    targets.push_back(target);
  }
  return success();
}

CudaToolkit CudaToolkit::configured() {
  return {TILEC_PTXAS_PATH, TILEC_FATBINARY_PATH, TILEC_LIBDEVICE_PATH};
}

void registerTargetTranslations(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

std::unique_ptr<llvm::Module> translateToLLVMIR(Operation *module,
                                                llvm::LLVMContext &llvmContext,
                                                const GpuTarget &target,
                                                const CudaToolkit &toolkit) {
  Location loc = module->getLoc();
  MLIRContext *context = module->getContext();
  registerBuiltinDialectTranslation(*context);
  registerLLVMDialectTranslation(*context);
  registerNVVMDialectTranslation(*context);
  ScopedLLVMDiagnostics diagnostics(llvmContext, loc);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule) {
    emitError(loc) << "cannot translate the lowered module to LLVM IR for "
                   << target.name;
    return nullptr;
  }
  // The LLVM dialect's verifier accepts some IR that LLVM's rejects; the
  // backend would crash on it.
  std::string broken;
  llvm::raw_string_ostream brokenOs(broken);
  if (llvm::verifyModule(*llvmModule, &brokenOs)) {
    emitError(loc) << "the lowered module translates to invalid LLVM IR: "
                   << StringRef(broken).trim();
    return nullptr;
  }
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(loc, target);
  if (!machine)
    return nullptr;
  llvmModule->setTargetTriple(llvm::Triple(kTriple));
  llvmModule->setDataLayout(machine->createDataLayout());
  if (failed(addImageTarget(loc, *llvmModule, target)) ||
      failed(linkLibdevice(loc, *llvmModule, toolkit)))
    return nullptr;
  optimize(*llvmModule, *machine);
  if (diagnostics.hadError())
    return nullptr;
  return llvmModule;
}

FailureOr<std::string> emitPTX(Location loc, llvm::Module &llvmModule,
                               const GpuTarget &target) {
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(loc, target);
  if (!machine)
    return failure();
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream os(ptx);
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, os, nullptr,
                                   llvm::CodeGenFileType::AssemblyFile))
    return emitError(loc) << "the NVPTX backend cannot emit PTX for "
                          << target.name;
  ScopedLLVMDiagnostics diagnostics(llvmModule.getContext(), loc);
  passes.run(llvmModule);
  if (diagnostics.hadError())
    return failure();
  return std::string(ptx);
}

} // namespace tilec
