//===- tilec.cpp - the tilec compiler driver --------------------*- C++ -*-===//
//
// tilec KERNEL.mlir [-o OUT] [--emit=KIND] [--target=sm_80,sm_90,sm_90a]
//       [--variants=generic,vec] [--generic-targets=sm_80]
//       [--codegen=simple|layouts] [-D NAME=VALUE ...] [--kernel-suffix=SUFFIX]
//
// Parses and verifies a tile-dialect file, binds its compile-time parameters
// and compiles it as far as --emit asks: tile IR, the LLVM + NVVM dialects,
// LLVM IR, PTX, a cubin, a fatbin of every --target, or a C++ source and
// header with the fatbin and a typed launcher per kernel (which picks a
// kernel's vec variant where the views allow it; --generic-targets puts the
// generic variants it falls back to into a second fatbin, for fewer
// targets). A module already in
// the LLVM dialect (e.g. from --emit=llvm-dialect) skips the lowering.
// Diagnostics carry file:line:col and any error gives a non-zero exit
// status. --help lists tilec's options and the MLIR debugging options it
// applies; --version gives tilec's version and the LLVM/MLIR it was built
// with. `--then` starts another instance's command line: one process
// compiles them one after another (a build's many instances then pay
// tilec's start once).
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
                        "sm_80,sm_90,sm_90a; sm_80 for the one-target kinds); "
                        "for fatbin and cpp, compute_80 for sm_80's PTX "
                        "without its cubin"),
               cl::value_desc("targets"), cl::init("sm_80,sm_90,sm_90a"),
               cl::cat(tilecCategory));
cl::opt<std::string> variantList(
    "variants",
    cl::desc("comma-separated kernel variants: generic, vec (assumes the "
             "vectorize facts of its views); default generic,vec for "
             "fatbin and cpp with --codegen=layouts, else generic"),
    cl::value_desc("variants"), cl::init("generic,vec"),
    cl::cat(tilecCategory));
cl::opt<std::string> genericTargetList(
    "generic-targets",
    cl::desc("for --emit=cpp: compile the generic variants of kernels that "
             "have a vec variant for these of the --target only, into a "
             "fatbin of their own with the PTX of the oldest "
             "architecture-neutral one; compute_80 for that PTX without the "
             "sm_80 cubin (default: every --target, one fatbin)"),
    cl::value_desc("targets"), cl::cat(tilecCategory));
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
std::string describeCompilation(ArrayRef<const tilec::GpuTarget *> targets,
                                ArrayRef<const tilec::GpuTarget *> ptxOnly,
                                StringRef genericTargets) {
  std::string text = "from " + llvm::sys::path::filename(inputFilename).str();
  for (const std::string &define : defines)
    text += " -D " + define;
  if (!kernelSuffix.empty())
    text += " --kernel-suffix=" + kernelSuffix;
  text += " for";
  for (const tilec::GpuTarget *target : targets)
    text += llvm::is_contained(ptxOnly, target)
                ? " compute_" + std::to_string(target->sm)
                : " " + target->name.str();
  if (!genericTargets.empty())
    text += " (--generic-targets=" + genericTargets.str() + ")";
  return text;
}

/// The target whose PTX a fatbin of `targets` holds: the oldest
/// architecture-neutral one (null if there is none).
const tilec::GpuTarget *
portablePTXTarget(ArrayRef<const tilec::GpuTarget *> targets) {
  const tilec::GpuTarget *portable = nullptr;
  for (const tilec::GpuTarget *target : targets)
    if (!target->archSpecific && (!portable || target->sm < portable->sm))
      portable = target;
  return portable;
}

/// --target: the targets in their order, and those of them spelled
/// compute_NN (as nvcc does) that get their PTX only, without a cubin: a GPU
/// of that architecture JIT compiles it on first load (the driver caches the
/// result across processes). A fatbin holds one PTX, the oldest
/// architecture-neutral target's, so only that one can be compute_NN.
LogicalResult parseTargetList(StringRef list,
                              SmallVectorImpl<const tilec::GpuTarget *> &targets,
                              SmallVectorImpl<const tilec::GpuTarget *> &ptxOnly,
                              std::string &error) {
  SmallVector<StringRef> names;
  list.split(names, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::string cubinNames;
  SmallVector<std::pair<std::string, std::string>> ptxNames;
  for (StringRef name : names) {
    name = name.trim();
    StringRef arch = name;
    std::string asSm = name.str();
    if (arch.consume_front("compute_")) {
      asSm = "sm_" + arch.str();
      ptxNames.push_back({name.str(), asSm});
    }
    cubinNames += (cubinNames.empty() ? "" : ",") + asSm;
  }
  for (const auto &[name, asSm] : ptxNames)
    if (!tilec::lookupGpuTarget(asSm)) {
      error = "unknown target '" + name + "' (supported: " +
              tilec::listGpuTargets() + ", and compute_80 for sm_80's PTX)";
      return failure();
    }
  if (failed(tilec::parseGpuTargets(cubinNames, targets, error)))
    return failure();
  const tilec::GpuTarget *portable = portablePTXTarget(targets);
  for (const auto &[name, asSm] : ptxNames) {
    const tilec::GpuTarget *target = tilec::lookupGpuTarget(asSm);
    if (target != portable) {
      error = name + ": a fatbin holds the PTX of the oldest "
                     "architecture-neutral target only" +
              (portable ? " (" + portable->name.str() + " here)"
                        : std::string());
      return failure();
    }
    ptxOnly.push_back(target);
  }
  return success();
}

/// --generic-targets: the targets of the generic fatbin, in the order of
/// `targets`, and those of them that get their PTX only (spelled compute_80
/// rather than sm_80, as nvcc does). They must be targets of the fatbin and
/// hold its PTX's (the oldest architecture-neutral one): a generic variant
/// must run wherever its specialised one does, and on a GPU that no cubin of
/// the generic fatbin fits, that PTX runs it.
LogicalResult
parseGenericTargets(StringRef list, ArrayRef<const tilec::GpuTarget *> targets,
                    SmallVectorImpl<const tilec::GpuTarget *> &genericTargets,
                    SmallVectorImpl<const tilec::GpuTarget *> &ptxOnly,
                    std::string &error) {
  const tilec::GpuTarget *portable = portablePTXTarget(targets);
  if (!portable) {
    error = "--target has no architecture-neutral target, whose PTX would "
            "run the generic variants on GPUs that no cubin of theirs fits";
    return failure();
  }
  SmallVector<StringRef> names;
  list.split(names, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  SmallVector<const tilec::GpuTarget *> given;
  for (StringRef name : names) {
    name = name.trim();
    StringRef arch = name;
    bool ptx = arch.consume_front("compute_");
    const tilec::GpuTarget *target =
        tilec::lookupGpuTarget(ptx ? ("sm_" + arch).str() : arch.str());
    if (!target) {
      error = "unknown target '" + name.str() + "' (supported: " +
              tilec::listGpuTargets() + ", and compute_80 for sm_80's PTX)";
      return failure();
    }
    if (!llvm::is_contained(targets, target)) {
      error = "'" + target->name.str() + "' is not a --target";
      return failure();
    }
    if (llvm::is_contained(given, target)) {
      error = "target '" + target->name.str() + "' given twice";
      return failure();
    }
    if (ptx && target != portable) {
      error = name.str() + ": a fatbin has the PTX of " +
              portable->name.str() +
              " only, the oldest architecture-neutral --target";
      return failure();
    }
    given.push_back(target);
    if (ptx)
      ptxOnly.push_back(target);
  }
  if (!llvm::is_contained(given, portable)) {
    error = "the generic variants need " + portable->name.str() +
            ", the oldest architecture-neutral --target: its PTX runs them "
            "on GPUs that no cubin of theirs fits";
    return failure();
  }
  for (const tilec::GpuTarget *target : targets)
    if (llvm::is_contained(given, target))
      genericTargets.push_back(target);
  return success();
}

LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                      ArrayRef<const tilec::GpuTarget *> targets,
                      ArrayRef<const tilec::GpuTarget *> ptxOnlyTargets,
                      ArrayRef<const tilec::GpuTarget *> genericTargets,
                      ArrayRef<const tilec::GpuTarget *> genericPTXOnly,
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

  // Which fatbin holds a kernel's generic instance: with --generic-targets
  // those of kernels with a specialised variant go into a second fatbin,
  // compiled for the generic targets only (the launcher falls back to them
  // only for views without the facts); everything else is in the first.
  auto inGenericFatbin = [&](Operation *kernel) {
    return !genericTargets.empty() &&
           tilec::hasSpecialisedVariant(kernel, variants);
  };
  bool splitFatbins =
      !lowered && llvm::any_of(module->getOps<tile::KernelOp>(),
                               [&](tile::KernelOp kernel) {
                                 return inGenericFatbin(kernel);
                               });
  if (splitFatbins)
    for (tilec::LauncherKernel &launcher : launchers)
      if (launcher.images.size() > 1)
        launcher.images.front().fatbin = 1;

  // Compiles the kernels of fatbin `index` for `imageTargets`, to PTX only
  // for those of `ptxOnly`. A single-target --emit writes its output and
  // sets `written`.
  bool written = false;
  auto buildFatbin =
      [&](unsigned index, ArrayRef<const tilec::GpuTarget *> imageTargets,
          ArrayRef<const tilec::GpuTarget *> ptxOnly)
      -> FailureOr<std::string> {
    // A generic instance belongs to this fatbin when its kernel's does; the
    // specialised ones are all in the first.
    auto keepGeneric = [&](Operation *kernel) {
      return inGenericFatbin(kernel) == (index == 1);
    };
    SmallVector<tilec::FatbinImage> images;
    std::optional<tilec::FatbinImage> portablePTX;
    // The lowering depends on a target only through its lowering path
    // (GpuTarget::loweringSm): sm_80 and sm_90 share one lowered module,
    // which the steps after it only read.
    llvm::SmallDenseMap<int, OwningOpRef<ModuleOp>> loweredFor;
    for (const tilec::GpuTarget *target : imageTargets) {
      OwningOpRef<ModuleOp> &copy = loweredFor[target->loweringSm];
      if (!copy && lowered)
        copy = module->clone();
      // Each variant is lowered on its own (its options hold for all its
      // kernels), then all go into one module: one image per target.
      for (const tilec::KernelVariant *variant :
           lowered || copy ? ArrayRef<const tilec::KernelVariant *>()
                           : variants) {
        if (variant->vectorize && index != 0)
          continue;
        auto instance = tilec::cloneForVariant(
            *module, *variant,
            variant->vectorize ? function_ref<bool(Operation *)>()
                               : keepGeneric);
        if (failed(instance))
          return failure();
        // With two fatbins, a variant may have no kernel in this one.
        if (splitFatbins && (*instance)->getOps<tile::KernelOp>().empty())
          continue;
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
        written = true;
        return std::string();
      }
      if (emitKind == Emit::Cpp &&
          failed(tilec::readLaunchConfig(*copy, target->name, launchers,
                                         index)))
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
        written = true;
        return std::string();
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
        written = true;
        return std::string();
      }
      // The PTX of the oldest architecture-neutral target lets the driver
      // JIT compile the kernels for GPUs no cubin matches.
      if (!target->archSpecific &&
          (!portablePTX || target->sm < portablePTX->target->sm))
        portablePTX = tilec::FatbinImage{target, /*isPTX=*/true, *ptx};
      if (llvm::is_contained(ptxOnly, target))
        continue;
      FailureOr<std::string> cubin;
      {
        TimingScope scope = timing.nest("ptxas");
        cubin = tilec::assembleCubin(copy->getLoc(), *ptx, *target, toolkit);
      }
      if (failed(cubin))
        return failure();
      if (emitKind == Emit::Cubin) {
        os << *cubin;
        written = true;
        return std::string();
      }
      images.push_back({target, /*isPTX=*/false, std::move(*cubin)});
    }
    if (portablePTX)
      images.push_back(std::move(*portablePTX));
    TimingScope scope = timing.nest("fatbinary");
    return tilec::bundleFatbin(module->getLoc(), images, toolkit);
  };

  FailureOr<std::string> fatbin = buildFatbin(0, targets, ptxOnlyTargets);
  if (failed(fatbin))
    return failure();
  if (written)
    return success();
  if (emitKind == Emit::Fatbin) {
    os << *fatbin;
    return success();
  }
  SmallVector<tilec::LauncherFatbin> fatbins = {{"tilec_fatbin", *fatbin}};
  FailureOr<std::string> genericFatbin;
  if (splitFatbins) {
    genericFatbin = buildFatbin(1, genericTargets, genericPTXOnly);
    if (failed(genericFatbin))
      return failure();
    fatbins.push_back({"tilec_fatbin_generic", *genericFatbin});
  }
  FailureOr<tilec::LauncherFiles> files = tilec::emitLaunchers(
      launchers, fatbins, outputs.headerName,
      describeCompilation(targets, ptxOnlyTargets,
                          splitFatbins ? StringRef(genericTargetList)
                                       : StringRef()));
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
constexpr const char *kOverview =
    "tilec: the tile kernel compiler\n\n"
    "  tilec ARGS... [--then ARGS...]...: each --then starts the command line "
    "of\n  another instance, compiled by the same process as if by a tilec "
    "of its own\n";

/// Compiles one instance: `args` (argv[0] first) is a tilec command line,
/// parsed into the options above. Returns the exit status.
int compileInstance(ArrayRef<const char *> args) {
  cl::ParseCommandLineOptions(args.size(), args.data(), kOverview);

  SmallVector<const tilec::GpuTarget *> targets, ptxOnlyTargets;
  std::string error;
  std::string list = targetList;
  if (isSingleTarget(emitKind) && targetList.getNumOccurrences() == 0)
    list = "sm_80";
  if (failed(parseTargetList(list, targets, ptxOnlyTargets, error))) {
    llvm::errs() << "tilec: --target: " << error << "\n";
    return 1;
  }
  if (isSingleTarget(emitKind) && !ptxOnlyTargets.empty()) {
    llvm::errs() << "tilec: --target=" << targetList << ": compute_NN (PTX "
                 << "without a cubin) is for --emit=fatbin and cpp; --emit="
                 << getEmitName(emitKind) << " takes sm_NN\n";
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

  // Targets the generic variants have too form no fatbin of their own.
  SmallVector<const tilec::GpuTarget *> genericTargets, genericPTXOnly;
  if (genericTargetList.getNumOccurrences()) {
    if (emitKind != Emit::Cpp) {
      llvm::errs() << "tilec: --generic-targets is for --emit=cpp: the "
                      "launchers point the generic variants at their fatbin\n";
      return 1;
    }
    if (failed(parseGenericTargets(genericTargetList, targets, genericTargets,
                                   genericPTXOnly, error))) {
      llvm::errs() << "tilec: --generic-targets: " << error << "\n";
      return 1;
    }
    if (genericTargets.size() == targets.size() && genericPTXOnly.empty())
      genericTargets.clear();
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
    compiled =
        compile(context, sourceMgr, targets, ptxOnlyTargets, genericTargets,
                genericPTXOnly, variants, outputs);
  });
  if (failed(compiled))
    return 1;
  outputs.main->keep();
  if (outputs.header)
    outputs.header->keep();
  return 0;
}

/// `--then` separates the command lines of instances that one process
/// compiles one after another, each as if tilec ran once per command line
/// (no option carries over): a build with many instances pays tilec's start
/// (loading libLLVM and libMLIR, registering their options, about 45 ms of
/// CPU) and its warm-up once per batch rather than once per instance
/// (docs/performance.md, "Compile time").
constexpr llvm::StringLiteral kThen = "--then";
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerMLIROptions();
  tilec::registerPasses();
  cl::HideUnrelatedOptions({&tilecCategory, &mlirCategory});
  cl::SetVersionPrinter(printVersion);

  SmallVector<SmallVector<const char *>> instances(1, {argv[0]});
  for (int i = 1; i < argc; ++i) {
    if (StringRef(argv[i]) == kThen)
      instances.push_back({argv[0]});
    else
      instances.back().push_back(argv[i]);
  }
  if (instances.size() > 1)
    for (auto [index, instance] : llvm::enumerate(instances))
      if (instance.size() == 1) {
        llvm::errs() << "tilec: " << kThen << " separates instances' command "
                     << "lines; instance " << index + 1 << " of "
                     << instances.size() << " is empty\n";
        return 1;
      }
  for (auto [index, instance] : llvm::enumerate(instances)) {
    if (index > 0)
      cl::ResetAllOptionOccurrences();
    if (int status = compileInstance(instance))
      return status;
  }
  return 0;
}
