//===- tilec.cpp - the tilec compiler driver --------------------*- C++ -*-===//
//
// tilec KERNEL.mlir [-o OUT] [--emit=KIND] [--target=sm_80,sm_90,sm_90a]
//       [--variants=generic,vec] [--codegen=simple|layouts] [-D NAME=VALUE ...]
//       [--kernel-suffix=SUFFIX]
//
// Parses and verifies a tile-dialect file, binds its compile-time parameters
// and compiles it as far as --emit asks: tile IR, the LLVM + NVVM dialects,
// LLVM IR, PTX, a cubin, a fatbin of every --target, or a C++ source and
// header with the fatbin and a typed launcher per kernel (which picks a
// kernel's vec variant where the views allow it). A module already in
// the LLVM dialect (e.g. from --emit=llvm-dialect) skips the lowering.
// Diagnostics carry file:line:col and any error gives a non-zero exit
// status. --help lists tilec's options and the MLIR debugging options it
// applies; --version gives tilec's version and the LLVM/MLIR it was built
// with.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Pipeline.h"
#include "tilec/InitAll.h"
#include "tilec/Target/FatalErrors.h"
#include "tilec/Target/InputLimits.h"
#include "tilec/Target/Launcher.h"
#include "tilec/Target/Target.h"
#include "tilec/Target/Variants.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class Emit { Tile, LLVMDialect, LLVMIR, PTX, Cubin, Fatbin, Cpp };

// --help lists these two categories (and --help, --version), not the
// hundreds of options libLLVM registers for its backends and passes.
cl::OptionCategory tilecCategory("tilec options");
cl::OptionCategory mlirCategory("MLIR debugging options (passed to MLIR)");

cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<kernel.mlir>"),
                                   cl::init("-"), cl::cat(tilecCategory));
cl::opt<std::string>
    outputFilename("o",
                   cl::desc("output file; for --emit=cpp, the base name of "
                            "the .cpp and .h"),
                   cl::value_desc("filename"), cl::init("-"),
                   cl::cat(tilecCategory));
cl::opt<Emit> emitKind(
    "emit", cl::desc("what to write"), cl::init(Emit::Tile),
    cl::values(
        clEnumValN(Emit::Tile, "tile",
                   "tile IR with parameters bound and canonicalized"),
        clEnumValN(Emit::LLVMDialect, "llvm-dialect",
                   "the LLVM and NVVM dialects (one target)"),
        clEnumValN(Emit::LLVMIR, "llvm-ir", "optimized LLVM IR (one target)"),
        clEnumValN(Emit::PTX, "ptx", "PTX (one target)"),
        clEnumValN(Emit::Cubin, "cubin", "a cubin (one target)"),
        clEnumValN(Emit::Fatbin, "fatbin",
                   "a fatbin with a cubin per target and portable PTX"),
        clEnumValN(Emit::Cpp, "cpp",
                   "a C++ source and header: the fatbin and a launcher per "
                   "kernel")),
    cl::cat(tilecCategory));
cl::opt<std::string>
    targetList("target",
               cl::desc("comma-separated GPU targets (default "
                        "sm_80,sm_90,sm_90a; sm_80 for the one-target kinds)"),
               cl::value_desc("targets"), cl::init("sm_80,sm_90,sm_90a"),
               cl::cat(tilecCategory));
cl::opt<std::string> variantList(
    "variants",
    cl::desc("comma-separated kernel variants: generic, vec (assumes the "
             "vectorize facts of its views); default generic,vec for "
             "fatbin and cpp with --codegen=layouts, else generic"),
    cl::value_desc("variants"), cl::init("generic,vec"),
    cl::cat(tilecCategory));
cl::list<std::string> defines("D", cl::desc("bind a kernel parameter"),
                              cl::value_desc("NAME=VALUE"), cl::Prefix,
                              cl::cat(tilecCategory));
cl::opt<std::string> kernelSuffix(
    "kernel-suffix",
    cl::desc("append to every kernel's name (and its launcher's), to link "
             "several instantiations of one source"),
    cl::value_desc("suffix"), cl::cat(tilecCategory));
cl::opt<tilec::Codegen> codegenKind(
    "codegen", cl::desc("the code generator"),
    cl::values(clEnumValN(tilec::Codegen::Simple, "simple",
                          "one blocked layout per tile (docs/codegen.md)"),
               clEnumValN(tilec::Codegen::Layouts, "layouts",
                          "register layouts per tile, mma.sync on registers "
                          "(docs/codegen-layouts.md)")),
    cl::init(tilec::Codegen::Simple), cl::cat(tilecCategory));
cl::opt<std::string> ptxasPath("ptxas", cl::desc("the ptxas to run"),
                               cl::value_desc("path"), cl::cat(tilecCategory));
cl::opt<std::string> fatbinaryPath("fatbinary",
                                   cl::desc("the fatbinary to run"),
                                   cl::value_desc("path"),
                                   cl::cat(tilecCategory));
cl::opt<std::string> libdevicePath("libdevice",
                                   cl::desc("the libdevice.10.bc to link"),
                                   cl::value_desc("path"),
                                   cl::cat(tilecCategory));

StringRef getEmitName(Emit kind) {
  switch (kind) {
  case Emit::Tile:
    return "tile";
  case Emit::LLVMDialect:
    return "llvm-dialect";
  case Emit::LLVMIR:
    return "llvm-ir";
  case Emit::PTX:
    return "ptx";
  case Emit::Cubin:
    return "cubin";
  case Emit::Fatbin:
    return "fatbin";
  case Emit::Cpp:
    return "cpp";
  }
  llvm_unreachable("unknown emit kind");
}

bool isSingleTarget(Emit kind) {
  return kind == Emit::LLVMDialect || kind == Emit::LLVMIR ||
         kind == Emit::PTX || kind == Emit::Cubin;
}

/// Where the output goes: one stream, or for --emit=cpp a source and a
/// header.
struct Outputs {
  std::unique_ptr<llvm::ToolOutputFile> main;
  std::unique_ptr<llvm::ToolOutputFile> header;
  std::string headerName;
};

LogicalResult openOutputs(Outputs &outputs) {
  std::string error;
  std::string path = outputFilename;
  if (emitKind == Emit::Cpp) {
    if (path == "-") {
      llvm::errs() << "tilec: --emit=cpp writes two files; give their base "
                      "name with -o\n";
      return failure();
    }
    StringRef base = StringRef(path).ends_with(".cpp")
                         ? StringRef(path).drop_back(4)
                         : StringRef(path);
    std::string header = (base + ".h").str();
    outputs.headerName = llvm::sys::path::filename(header).str();
    outputs.header = openOutputFile(header, &error);
    if (!outputs.header) {
      llvm::errs() << "tilec: " << error << "\n";
      return failure();
    }
    path = (base + ".cpp").str();
  }
  outputs.main = openOutputFile(path, &error);
  if (!outputs.main) {
    llvm::errs() << "tilec: " << error << "\n";
    return failure();
  }
  return success();
}

/// A description of the compilation for the generated files' banner.
std::string describeCompilation(ArrayRef<const tilec::GpuTarget *> targets) {
  std::string text = "from " + llvm::sys::path::filename(inputFilename).str();
  for (const std::string &define : defines)
    text += " -D " + define;
  if (!kernelSuffix.empty())
    text += " --kernel-suffix=" + kernelSuffix;
  text += " for";
  for (const tilec::GpuTarget *target : targets)
    text += " " + target->name.str();
  return text;
}

LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                      ArrayRef<const tilec::GpuTarget *> targets,
                      ArrayRef<const tilec::KernelVariant *> variants,
                      Outputs &outputs) {
  using Fatal = tilec::ScopedFatalErrorDiagnostics;
  Fatal::setPhase("the parser");
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return failure();
  // A fatal error is reported at the first kernel (of tile or LLVM IR), or
  // the file.
  Location fatalLoc = module->getLoc();
  for (Operation &op : module->getBody()->getOperations())
    if (isa<tile::KernelOp>(op) || op.hasAttr("nvvm.kernel")) {
      fatalLoc = op.getLoc();
      break;
    }
  Fatal::setLocation(fatalLoc);
  Fatal::setPhase("the tile passes");

  DefaultTimingManager tm;
  applyDefaultTimingManagerCLOptions(tm);
  TimingScope timing = tm.getRootScope();
  auto runPasses = [&](ModuleOp op, function_ref<void(PassManager &)> build) {
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(timing);
    build(pm);
    return pm.run(op);
  };

  LogicalResult bound = runPasses(*module, [](PassManager &pm) {
    tile::TileBindParamsOptions bind;
    bind.params.assign(defines.begin(), defines.end());
    pm.addPass(tile::createTileBindParams(bind));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  });
  if (failed(bound))
    return failure();
  auto kernels = llvm::to_vector(module->getOps<tile::KernelOp>());
  for (tile::KernelOp kernel : kernels) {
    if (kernelSuffix.empty())
      break;
    std::string name = kernel.getSymName().str() + kernelSuffix.getValue();
    if (!tile::isValidKernelName(name))
      return kernel.emitError()
             << "--kernel-suffix=" << kernelSuffix.getValue() << " makes '"
             << name << "', which is not a PTX and C++ identifier: the "
             << "suffix may hold letters, digits and '_'";
    SymbolTable::setSymbolName(kernel, name);
  }
  raw_ostream &os = outputs.main->os();
  if (emitKind == Emit::Tile) {
    module->print(os);
    return success();
  }

  // Without tile kernels (at any depth: the lowering rejects nested ones),
  // the module is taken to be lowered already.
  bool lowered = !module->walk([](tile::KernelOp) {
                          return WalkResult::interrupt();
                        }).wasInterrupted();
  if (lowered && failed(tilec::checkLoweredModule(*module)))
    return failure();
  SmallVector<tilec::LauncherKernel> launchers;
  if (emitKind == Emit::Cpp) {
    if (lowered)
      return emitError(module->getLoc())
             << "--emit=cpp needs tile kernels: launcher argument types come "
                "from their signatures";
    auto collected =
        tilec::collectLauncherKernels(*module, &sourceMgr, variants);
    if (failed(collected))
      return failure();
    launchers = std::move(*collected);
  }

  // Without the generic variant (--variants=vec with a single-target
  // --emit), a kernel the variant has no instance of would be dropped from
  // the output without a word.
  bool generic = llvm::any_of(variants, [](const tilec::KernelVariant *v) {
    return !v->vectorize;
  });
  if (!lowered && !generic)
    for (auto kernel : module->getOps<tile::KernelOp>())
      for (const tilec::KernelVariant *variant : variants)
        if (!tilec::hasVariant(kernel, *variant))
          return kernel.emitError()
                 << "kernel @" << kernel.getSymName() << " has no "
                 << variant->name
                 << " variant: it takes no view whose vectorize facts the "
                    "variant could assume (none, or only views marked "
                    "tile.any_strides); compile it with --variants=generic";

  tilec::CudaToolkit toolkit = tilec::CudaToolkit::configured();
  if (!ptxasPath.empty())
    toolkit.ptxas = ptxasPath;
  if (!fatbinaryPath.empty())
    toolkit.fatbinary = fatbinaryPath;
  if (!libdevicePath.empty())
    toolkit.libdevice = libdevicePath;

  SmallVector<tilec::FatbinImage> images;
  std::optional<tilec::FatbinImage> portablePTX;
  // The lowering depends on a target only through its lowering path
  // (GpuTarget::loweringSm): sm_80 and sm_90 share one lowered module, which
  // the steps after it only read.
  llvm::SmallDenseMap<int, OwningOpRef<ModuleOp>> loweredFor;
  for (const tilec::GpuTarget *target : targets) {
    OwningOpRef<ModuleOp> &copy = loweredFor[target->loweringSm];
    if (!copy && lowered)
      copy = module->clone();
    // Each variant is lowered on its own (its options hold for all its
    // kernels), then all go into one module: one image per target.
    for (const tilec::KernelVariant *variant :
         lowered || copy ? ArrayRef<const tilec::KernelVariant *>()
                         : variants) {
      auto instance = tilec::cloneForVariant(*module, *variant);
      if (failed(instance))
        return failure();
      tilec::LoweringOptions options;
      options.smVersion = target->loweringSm;
      options.codegen = codegenKind;
      options.vectorize = variant->vectorize;
      Fatal::setPhase("the lowering to the LLVM dialect");
      if (failed(runPasses(**instance, [&](PassManager &pm) {
            tilec::buildTileToLLVMPipeline(pm, options);
          })))
        return failure();
      if (!copy)
        copy = std::move(*instance);
      else if (failed(tilec::mergeLoweredVariant(*copy, **instance)))
        return failure();
    }
    if (failed(tilec::checkResources(*copy, *target)))
      return failure();
    if (emitKind == Emit::LLVMDialect) {
      copy->print(os);
      return success();
    }
    if (emitKind == Emit::Cpp &&
        failed(tilec::readLaunchConfig(*copy, target->name, launchers)))
      return failure();

    llvm::LLVMContext llvmContext;
    std::unique_ptr<llvm::Module> llvmModule;
    {
      TimingScope scope = timing.nest("Translate to LLVM IR and optimize");
      Fatal::setPhase("the translation to LLVM IR and its optimization");
      llvmModule =
          tilec::translateToLLVMIR(*copy, llvmContext, *target, toolkit);
    }
    if (!llvmModule)
      return failure();
    if (emitKind == Emit::LLVMIR) {
      llvmModule->print(os, nullptr);
      return success();
    }
    FailureOr<std::string> ptx;
    {
      TimingScope scope = timing.nest("NVPTX backend");
      Fatal::setPhase("the NVPTX backend");
      ptx = tilec::emitPTX(copy->getLoc(), *llvmModule, *target);
    }
    if (failed(ptx))
      return failure();
    if (emitKind == Emit::PTX) {
      os << *ptx;
      return success();
    }
    FailureOr<std::string> cubin;
    {
      TimingScope scope = timing.nest("ptxas");
      cubin = tilec::assembleCubin(copy->getLoc(), *ptx, *target, toolkit);
    }
    if (failed(cubin))
      return failure();
    if (emitKind == Emit::Cubin) {
      os << *cubin;
      return success();
    }
    images.push_back({target, /*isPTX=*/false, std::move(*cubin)});
    // The PTX of the oldest architecture-neutral target lets the driver JIT
    // compile the kernels for GPUs no cubin matches.
    if (!target->archSpecific &&
        (!portablePTX || target->sm < portablePTX->target->sm))
      portablePTX = tilec::FatbinImage{target, /*isPTX=*/true, *ptx};
  }
  if (portablePTX)
    images.push_back(std::move(*portablePTX));

  FailureOr<std::string> fatbin;
  {
    TimingScope scope = timing.nest("fatbinary");
    fatbin = tilec::bundleFatbin(module->getLoc(), images, toolkit);
  }
  if (failed(fatbin))
    return failure();
  if (emitKind == Emit::Fatbin) {
    os << *fatbin;
    return success();
  }
  FailureOr<tilec::LauncherFiles> files = tilec::emitLaunchers(
      launchers, *fatbin, outputs.headerName, describeCompilation(targets));
  if (failed(files))
    return failure();
  os << files->source;
  outputs.header->os() << files->header;
  return success();
}

/// Registers the MLIR options tilec applies (IR printing, pass statistics
/// and crash reproducers, timing, threading, diagnostics) and files them
/// under mlirCategory: MLIR leaves them in the general category, with LLVM's.
void registerMLIROptions() {
  const auto &options = cl::getRegisteredOptions();
  llvm::DenseSet<StringRef> before;
  for (const auto &[name, option] : options)
    before.insert(name);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  for (const auto &[name, option] : options)
    if (!before.contains(name))
      option->addCategory(mlirCategory);
}

void printVersion(raw_ostream &os) {
  os << "tilec " << TILEC_VERSION << "\n"
     << "  built with LLVM and MLIR " << LLVM_VERSION_STRING << "\n";
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerMLIROptions();
  tilec::registerPasses();
  cl::HideUnrelatedOptions({&tilecCategory, &mlirCategory});
  cl::SetVersionPrinter(printVersion);
  cl::ParseCommandLineOptions(argc, argv, "tilec: the tile kernel compiler\n");

  SmallVector<const tilec::GpuTarget *> targets;
  std::string error;
  std::string list = targetList;
  if (isSingleTarget(emitKind) && targetList.getNumOccurrences() == 0)
    list = "sm_80";
  if (failed(tilec::parseGpuTargets(list, targets, error))) {
    llvm::errs() << "tilec: --target: " << error << "\n";
    return 1;
  }
  if (isSingleTarget(emitKind) && targets.size() != 1) {
    llvm::errs() << "tilec: --emit=" << getEmitName(emitKind) << " writes one "
                 << "target's code; got --target=" << targetList << "\n";
    return 1;
  }
  SmallVector<const tilec::KernelVariant *> variants;
  // By default the images of a kernel library get a vec variant where the
  // code generator makes one that differs (the layouts path vectorises
  // accesses; the simple one ignores LoweringOptions::vectorize).
  std::string variantNames = variantList;
  if (variantList.getNumOccurrences() == 0)
    variantNames = !isSingleTarget(emitKind) &&
                           codegenKind == tilec::Codegen::Layouts
                       ? "generic,vec"
                       : "generic";
  if (failed(tilec::parseKernelVariants(variantNames, emitKind == Emit::Cpp,
                                        variants, error))) {
    llvm::errs() << "tilec: --variants: " << error << "\n";
    return 1;
  }
  if (isSingleTarget(emitKind) && variants.size() != 1) {
    llvm::errs() << "tilec: --emit=" << getEmitName(emitKind) << " writes one "
                 << "variant's code; got --variants=" << variantList << "\n";
    return 1;
  }

  DialectRegistry registry;
  tilec::registerKernelDialects(registry);
  registry.insert<LLVM::LLVMDialect, NVVM::NVVMDialect>();
  tilec::registerTargetTranslations(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Users read the diagnostic at its file:line:col; a dump of the whole
  // module after it hides the message.
  context.printOpOnDiagnostic(false);

  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "tilec: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  Outputs outputs;
  if (failed(openOutputs(outputs)))
    return 1;
  tilec::ScopedFatalErrorDiagnostics fatalErrors(inputFilename);
  if (failed(tilec::checkInputLimits(sourceMgr)))
    return 1;
  LogicalResult compiled = failure();
  tilec::runOnLargeStack(tilec::kToolStackBytes, [&] {
    compiled = compile(context, sourceMgr, targets, variants, outputs);
  });
  if (failed(compiled))
    return 1;
  outputs.main->keep();
  if (outputs.header)
    outputs.header->keep();
  return 0;
}
