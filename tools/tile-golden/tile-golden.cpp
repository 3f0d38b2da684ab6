//===- tile-golden.cpp - GPU test cases from the interpreter ----*- C++ -*-===//
//
// tile-golden MANIFEST --src DIR -o OUTDIR [--seed N]
//             [--targets sm_80,sm_90,sm_90a]
//
// For each case of the manifest: binds the kernel's parameters, fills its
// views with fresh random values, runs it in the interpreter, compiles it to
// a fatbin, and writes OUTDIR/NAME.case for tilec-gpu-check. The manifest:
//
//   case NAME
//     kernel PATH.mlir          (relative to --src)
//     entry NAME                (the kernel to run, for a file with several)
//     variant vec               (optional: its _vec variant, compiled with
//                                the vectorize facts, which its views must
//                                have; default generic)
//     define NAME=VALUE         (any number)
//     grid X Y Z
//     tolerance T               (optional; default 1e-5)
//     view 64x40 [strides 80,1] [range LO HI]   (one line per argument,
//     scalar VALUE                               in the kernel's order)
//   end
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Pipeline.h"
#include "tilec/InitAll.h"
#include "tilec/Interpreter/Interpreter.h"
#include "tilec/Interpreter/Numerics.h"
#include "tilec/Target/Launcher.h"
#include "tilec/Target/Target.h"
#include "tilec/Target/Variants.h"
#include "tilec/Golden/CaseFile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

using namespace mlir;
using namespace tilec;
namespace cl = llvm::cl;

namespace {
cl::opt<std::string> manifestPath(cl::Positional, cl::Required,
                                  cl::desc("<manifest>"));
cl::opt<std::string> srcDir("src", cl::desc("root of kernel paths"),
                            cl::init("."));
cl::opt<std::string> outDir("o", cl::desc("output directory"), cl::Required);
cl::opt<uint64_t> seedOpt("seed", cl::desc("random seed (default: fresh)"),
                          cl::init(0));
cl::opt<std::string> targetsOpt("targets", cl::desc("GPU targets"),
                                cl::init("sm_80,sm_90,sm_90a"));
cl::opt<std::string> codegenOpt(
    "codegen",
    cl::desc("the code generator: simple (default) or layouts "
             "(docs/codegen-layouts.md)"),
    cl::init("simple"));
cl::opt<bool> vectorizeOpt(
    "vectorize",
    cl::desc("layouts: compile a case whose views are all contiguous and "
             "aligned with the vectorize facts, as the launcher's vec "
             "variant (other cases as the generic one)"),
    cl::init(false));

struct ViewSpec {
  std::vector<int64_t> shape, strides;
  double lo = -1, hi = 1;
  /// Elements of the allocation: one past the largest offset (0 when an
  /// extent is 0).
  int64_t allocation = 0;
};

/// The largest view tile-golden allocates, in elements (the case file holds
/// it twice, and the GPU check allocates it).
constexpr int64_t kMaxViewElements = int64_t(1) << 28;

/// Checks what the interpreter and the GPU check would otherwise trust:
/// rank 1 to 8, extents and strides not negative, a value range that is
/// finite and ordered, and an allocation that is counted without overflow
/// and not larger than kMaxViewElements. Sets `view.allocation`.
std::string validateView(ViewSpec &view) {
  if (view.shape.empty() || view.shape.size() > 8)
    return "a view has 1 to 8 dimensions, not " +
           std::to_string(view.shape.size());
  for (int64_t size : view.shape)
    if (size < 0)
      return "view extents must not be negative, not " + std::to_string(size);
  if (view.strides.size() != view.shape.size())
    return "strides and shape differ in rank";
  int64_t last = 0;
  bool empty = false;
  for (auto [size, stride] : llvm::zip(view.shape, view.strides)) {
    if (stride < 0)
      return "view strides must not be negative, not " +
             std::to_string(stride);
    empty |= size == 0;
    int64_t span;
    if (size > 0 && (llvm::MulOverflow(size - 1, stride, span) ||
                     llvm::AddOverflow(last, span, last)))
      return "the view's largest offset does not fit in 64 bits";
  }
  view.allocation = empty ? 0 : last + 1;
  if (view.allocation > kMaxViewElements)
    return "the view spans " + std::to_string(view.allocation) +
           " elements, more than the " + std::to_string(kMaxViewElements) +
           " tile-golden allocates";
  if (!std::isfinite(view.lo) || !std::isfinite(view.hi) ||
      view.lo > view.hi || std::fabs(view.lo) > 1e6 || std::fabs(view.hi) > 1e6)
    return "a view's range is two finite numbers LO <= HI of magnitude at "
           "most 1e6";
  return "";
}

/// Why a view lacks the facts the vec variant is compiled with (innermost
/// stride 1, the innermost size and every other stride multiples of
/// 16 / element bytes), or "". The base address has the third fact:
/// tilec-gpu-check puts views 1024 bytes into allocations of cuMemAlloc
/// (256-byte aligned).
std::string checkVectorizeFacts(const ViewSpec &view, size_t elementBytes) {
  const int64_t width = int64_t(16 / elementBytes);
  const size_t inner = view.shape.size() - 1;
  if (view.strides[inner] != 1)
    return "has innermost stride " + std::to_string(view.strides[inner]);
  if (view.shape[inner] % width)
    return "has innermost size " + std::to_string(view.shape[inner]) +
           ", not a multiple of " + std::to_string(width);
  for (size_t d = 0; d < inner; ++d)
    if (view.strides[d] % width)
      return "has stride " + std::to_string(view.strides[d]) +
             " in dimension " + std::to_string(d) + ", not a multiple of " +
             std::to_string(width);
  return "";
}

struct CaseSpec {
  std::string name, kernelPath, entry;
  const KernelVariant *variant = &getKernelVariants().front();
  std::vector<std::string> defines;
  int64_t grid[3] = {1, 1, 1};
  double tolerance = 1e-5;
  /// In argument order: a view, or a scalar's text.
  std::vector<std::variant<ViewSpec, std::string>> args;
};

/// Numbers separated by `sep`; throws std::invalid_argument on anything
/// else ("5abc", "", "4x").
std::vector<int64_t> parseList(const std::string &text, char sep) {
  std::vector<int64_t> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, sep)) {
    size_t used = 0;
    values.push_back(std::stoll(item, &used));
    if (used != item.size())
      throw std::invalid_argument(item);
  }
  if (text.empty() || text.back() == sep)
    throw std::invalid_argument(text);
  return values;
}

bool parseManifest(const std::string &path, std::vector<CaseSpec> &cases,
                   std::string &error) {
  std::ifstream file(path);
  if (!file) {
    error = "cannot open " + path;
    return false;
  }
  std::string line;
  int lineNo = 0;
  CaseSpec *current = nullptr;
  while (std::getline(file, line)) {
    ++lineNo;
    std::stringstream in(line);
    std::string word;
    if (!(in >> word) || word[0] == '#')
      continue;
    auto bad = [&](const std::string &why) {
      error = path + ":" + std::to_string(lineNo) + ": " + why;
      return false;
    };
    try {
      if (word == "case") {
        cases.emplace_back();
        current = &cases.back();
        in >> current->name;
        continue;
      }
      if (!current)
        return bad("expected 'case NAME'");
      if (word == "end") {
        current = nullptr;
      } else if (word == "kernel") {
        in >> current->kernelPath;
      } else if (word == "entry") {
        in >> current->entry;
      } else if (word == "variant") {
        std::string name;
        in >> name;
        current->variant = lookupKernelVariant(name);
        if (!current->variant)
          return bad("unknown variant '" + name + "' (generic or vec)");
      } else if (word == "define") {
        current->defines.emplace_back();
        in >> current->defines.back();
      } else if (word == "grid") {
        in >> current->grid[0] >> current->grid[1] >> current->grid[2];
        // CUDA's limits: x below 2^31, y and z below 2^16.
        if (!in.fail() &&
            (current->grid[0] < 1 || current->grid[0] > 2147483647 ||
             current->grid[1] < 1 || current->grid[1] > 65535 ||
             current->grid[2] < 1 || current->grid[2] > 65535))
          return bad("grid sizes are 1 to 2^31 - 1 (x) and 1 to 65535 (y, "
                     "z)");
      } else if (word == "tolerance") {
        in >> current->tolerance;
        if (!in.fail() &&
            !(std::isfinite(current->tolerance) && current->tolerance >= 0))
          return bad("the tolerance is a finite number, at least 0");
      } else if (word == "scalar") {
        std::string value;
        in >> value;
        current->args.emplace_back(value);
      } else if (word == "view") {
        ViewSpec view;
        std::string shape, key;
        if (!(in >> shape))
          return bad("'view' needs a shape");
        view.shape = parseList(shape, 'x');
        while (in >> key) {
          if (key == "strides") {
            std::string strides;
            in >> strides;
            view.strides = parseList(strides, ',');
          } else if (key == "range") {
            in >> view.lo >> view.hi;
          } else {
            return bad("unknown view attribute '" + key + "'");
          }
        }
        if (in.fail() && !in.eof())
          return bad("malformed 'view' line");
        if (view.strides.empty())
          view.strides = interp::HostView::contiguousStrides(view.shape);
        if (std::string why = validateView(view); !why.empty())
          return bad(why);
        current->args.emplace_back(view);
        continue; // The attribute loop ends at the end of the line.
      } else {
        return bad("unknown directive '" + word + "'");
      }
      if (in.fail())
        return bad("malformed '" + word + "' line");
    } catch (const std::exception &) {
      return bad("malformed number");
    }
  }
  if (current) {
    error = path + ": case " + current->name + " has no 'end'";
    return false;
  }
  return true;
}

/// Random contents for a view's allocation, as stored.
std::vector<uint8_t> randomContents(interp::DType type, size_t count,
                                    const ViewSpec &spec,
                                    std::mt19937_64 &rng) {
  std::vector<uint8_t> bytes(count * interp::dtypeSize(type));
  std::uniform_real_distribution<double> real(spec.lo, spec.hi);
  std::uniform_int_distribution<int64_t> integer(
      static_cast<int64_t>(spec.lo * 100), static_cast<int64_t>(spec.hi * 100));
  for (size_t i = 0; i < count; ++i) {
    uint8_t *p = bytes.data() + i * interp::dtypeSize(type);
    switch (type) {
    case interp::DType::F32: {
      float f = static_cast<float>(real(rng));
      std::memcpy(p, &f, 4);
      break;
    }
    case interp::DType::F16: {
      uint16_t h = interp::floatToF16Bits(static_cast<float>(real(rng)));
      std::memcpy(p, &h, 2);
      break;
    }
    case interp::DType::BF16: {
      uint16_t h = interp::floatToBF16Bits(static_cast<float>(real(rng)));
      std::memcpy(p, &h, 2);
      break;
    }
    default: {
      int64_t v = integer(rng);
      std::memcpy(p, &v, interp::dtypeSize(type)); // little-endian truncation
      break;
    }
    }
  }
  return bytes;
}

/// The bytes of a scalar argument as the kernel ABI passes it.
FailureOr<std::vector<uint8_t>> scalarBytes(Type type, const std::string &text,
                                            interp::Scalar &value) {
  std::vector<uint8_t> bytes;
  auto put = [&](const void *p, size_t n) {
    const auto *b = static_cast<const uint8_t *>(p);
    bytes.assign(b, b + n);
  };
  try {
    if (type.isF32()) {
      float f = std::stof(text);
      value = static_cast<double>(f);
      put(&f, 4);
    } else if (type.isIndex() || type.isInteger(64)) {
      int64_t v = std::stoll(text);
      value = v;
      put(&v, 8);
    } else if (type.isF16() || type.isBF16()) {
      // Rounded to the type; the interpreter sees the rounded value.
      float f = std::stof(text);
      uint16_t bits = type.isF16() ? interp::floatToF16Bits(f)
                                   : interp::floatToBF16Bits(f);
      value = static_cast<double>(type.isF16() ? interp::f16BitsToFloat(bits)
                                               : interp::bf16BitsToFloat(bits));
      put(&bits, 2);
    } else if (type.isInteger(32)) {
      int32_t v = std::stoi(text);
      value = static_cast<int64_t>(v);
      put(&v, 4);
    } else if (type.isInteger(16) || type.isInteger(8) || type.isInteger(1)) {
      // Two's complement in the type's width: the value must fit.
      const unsigned width = type.getIntOrFloatBitWidth();
      const int64_t v = std::stoll(text);
      const int64_t low = width == 1 ? 0 : -(int64_t(1) << (width - 1));
      const int64_t high = width == 1 ? 1 : (int64_t(1) << (width - 1)) - 1;
      if (v < low || v > high)
        return failure();
      value = v;
      put(&v, width == 16 ? 2 : 1); // little-endian: the low bytes
    } else {
      return failure();
    }
  } catch (const std::exception &) {
    return failure();
  }
  return bytes;
}

/// Whether every view of the case has the facts the vec variant assumes
/// (checkVectorizeFacts).
bool hasVectorizeFacts(const golden::Case &c) {
  for (const golden::CaseArg &arg : c.args) {
    if (!arg.isView)
      continue;
    ViewSpec view;
    view.shape = arg.shape;
    view.strides = arg.strides;
    if (!checkVectorizeFacts(view, interp::dtypeSize(arg.elemType)).empty())
      return false;
  }
  return true;
}

/// Lowers and compiles `module` into a fatbin; records the launch
/// configuration of `kernelName` (the same for every target, as a launcher
/// needs).
LogicalResult compileFatbin(ModuleOp module, StringRef kernelName,
                            const KernelVariant &variant, golden::Case &c) {
  if (codegenOpt != "simple" && codegenOpt != "layouts") {
    llvm::errs() << "tile-golden: --codegen is simple or layouts, not '"
                 << codegenOpt << "'\n";
    return failure();
  }
  SmallVector<const GpuTarget *> targets;
  std::string error;
  if (failed(parseGpuTargets(targetsOpt, targets, error))) {
    llvm::errs() << "tile-golden: " << error << "\n";
    return failure();
  }
  FailureOr<SmallVector<LauncherKernel>> kernels =
      collectLauncherKernels(module, /*sourceMgr=*/nullptr);
  if (failed(kernels))
    return failure();
  CudaToolkit toolkit = CudaToolkit::configured();
  SmallVector<FatbinImage> images;
  for (const GpuTarget *target : targets) {
    OwningOpRef<ModuleOp> lowered = module.clone();
    PassManager pm(module.getContext());
    LoweringOptions options;
    options.smVersion = target->loweringSm;
    options.codegen =
        codegenOpt == "layouts" ? Codegen::Layouts : Codegen::Simple;
    options.vectorize =
        variant.vectorize || (options.codegen == Codegen::Layouts &&
                              vectorizeOpt && hasVectorizeFacts(c));
    buildTileToLLVMPipeline(pm, options);
    if (failed(pm.run(*lowered)) ||
        failed(readLaunchConfig(*lowered, target->name, *kernels)))
      return failure();
    llvm::LLVMContext llvmContext;
    std::unique_ptr<llvm::Module> llvmModule =
        translateToLLVMIR(*lowered, llvmContext, *target, toolkit);
    if (!llvmModule)
      return failure();
    FailureOr<std::string> ptx = emitPTX(module.getLoc(), *llvmModule, *target);
    if (failed(ptx))
      return failure();
    FailureOr<std::string> cubin =
        assembleCubin(module.getLoc(), *ptx, *target, toolkit);
    if (failed(cubin))
      return failure();
    images.push_back({target, false, *cubin});
    if (target == targets.front())
      images.push_back({target, true, *ptx});
  }
  for (const LauncherKernel &kernel : *kernels)
    if (kernel.name == kernelName) {
      c.blockThreads = 32 * kernel.images.front().numWarps;
      c.sharedBytes = kernel.images.front().sharedBytes;
    }
  FailureOr<std::string> fatbin = bundleFatbin(module.getLoc(), images, toolkit);
  if (failed(fatbin))
    return failure();
  c.fatbin.assign(fatbin->begin(), fatbin->end());
  return success();
}

LogicalResult buildCase(MLIRContext &context, const CaseSpec &spec,
                        std::mt19937_64 &rng) {
  std::string path = srcDir + "/" + spec.kernelPath;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(path, sourceMgr, &context);
  if (!module)
    return failure();
  if (!spec.entry.empty()) {
    if (!module->lookupSymbol<tile::KernelOp>(spec.entry))
      return module->emitError() << "case " << spec.name << ": no kernel @"
                                 << spec.entry << " in " << spec.kernelPath;
    for (auto kernel :
         llvm::make_early_inc_range(module->getOps<tile::KernelOp>()))
      if (kernel.getSymName() != spec.entry)
        kernel.erase();
  }
  PassManager pm(&context);
  tile::TileBindParamsOptions bind;
  bind.params.assign(spec.defines.begin(), spec.defines.end());
  pm.addPass(tile::createTileBindParams(bind));
  pm.addPass(createCanonicalizerPass());
  if (failed(pm.run(*module)))
    return failure();
  if (!spec.variant->suffix.empty()) {
    FailureOr<OwningOpRef<ModuleOp>> instance =
        cloneForVariant(*module, *spec.variant);
    if (failed(instance))
      return failure();
    module = std::move(*instance);
  }
  auto kernels = module->getOps<tile::KernelOp>();
  if (std::distance(kernels.begin(), kernels.end()) != 1)
    return module->emitError()
           << "case " << spec.name
           << ": the file must hold one kernel, or the case name one with "
              "'entry'";
  tile::KernelOp kernel = *kernels.begin();
  ArrayRef<Type> argTypes = kernel.getArgumentTypes();
  if (argTypes.size() != spec.args.size())
    return kernel.emitError() << "case " << spec.name << " gives "
                              << spec.args.size() << " arguments for "
                              << argTypes.size();

  golden::Case c;
  c.name = spec.name;
  c.kernel = kernel.getSymName().str();
  std::copy(std::begin(spec.grid), std::end(spec.grid), c.grid);
  c.tolerance = spec.tolerance;
  std::vector<interp::Scalar> scalars(argTypes.size());
  for (auto [type, argSpec] : llvm::zip(argTypes, spec.args)) {
    golden::CaseArg arg;
    if (auto *viewSpec = std::get_if<ViewSpec>(&argSpec)) {
      auto view = dyn_cast<tile::ViewType>(type);
      if (!view || view.getRank() != viewSpec->shape.size())
        return kernel.emitError() << "case " << spec.name << ": argument "
                                  << c.args.size() << " is " << type
                                  << ", not a view of rank "
                                  << viewSpec->shape.size();
      std::optional<interp::DType> elem =
          interp::dtypeOf(view.getElementType());
      if (!elem)
        return kernel.emitError() << "unsupported view element type";
      if (spec.variant->vectorize) {
        if (std::string why = checkVectorizeFacts(*viewSpec,
                                                  interp::dtypeSize(*elem));
            !why.empty())
          return kernel.emitError()
                 << "case " << spec.name << ": variant vec needs views with "
                 << "the vectorize facts, and view " << c.args.size() << " "
                 << why;
      }
      arg.isView = true;
      arg.elemType = *elem;
      arg.shape = viewSpec->shape;
      arg.strides = viewSpec->strides;
      arg.initial =
          randomContents(*elem, viewSpec->allocation, *viewSpec, rng);
      arg.expected = arg.initial;
      c.args.push_back(std::move(arg));
    } else {
      FailureOr<std::vector<uint8_t>> bytes = scalarBytes(
          type, std::get<std::string>(argSpec), scalars[c.args.size()]);
      if (failed(bytes))
        return kernel.emitError() << "case " << spec.name << ": argument "
                                  << c.args.size() << " of type " << type
                                  << " cannot take '"
                                  << std::get<std::string>(argSpec) << "'";
      arg.scalar = *bytes;
      c.args.push_back(std::move(arg));
    }
  }
  // Views point into `expected`, which the interpreter updates in place.
  std::vector<interp::KernelArg> args;
  for (auto [i, arg] : llvm::enumerate(c.args)) {
    if (!arg.isView) {
      args.push_back(scalars[i]);
      continue;
    }
    interp::HostView view;
    view.data = arg.expected.data();
    view.dtype = arg.elemType;
    view.shape = arg.shape;
    view.strides = arg.strides;
    args.push_back(view);
  }
  interp::Grid grid;
  std::copy(std::begin(spec.grid), std::end(spec.grid), grid.size.begin());
  std::string error;
  if (failed(interp::runKernel(kernel, args, grid, error)))
    return kernel.emitError() << "case " << spec.name << ": " << error;
  if (failed(compileFatbin(*module, c.kernel, *spec.variant, c)))
    return failure();
  std::string out = outDir + "/" + spec.name + ".case";
  if (!golden::writeCase(out, c, error)) {
    llvm::errs() << "tile-golden: " << error << "\n";
    return failure();
  }
  return success();
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "tile-golden: GPU test cases\n");
  std::vector<CaseSpec> cases;
  std::string error;
  if (!parseManifest(manifestPath, cases, error)) {
    llvm::errs() << "tile-golden: " << error << "\n";
    return 1;
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(outDir)) {
    llvm::errs() << "tile-golden: cannot create " << outDir << ": "
                 << ec.message() << "\n";
    return 1;
  }
  uint64_t seed = seedOpt ? seedOpt.getValue() : std::random_device{}();
  llvm::outs() << "tile-golden: seed " << seed << "\n";
  std::mt19937_64 rng(seed);

  DialectRegistry registry;
  registerKernelDialects(registry);
  registerTargetTranslations(registry);
  registry.insert<LLVM::LLVMDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  int failures = 0;
  for (const CaseSpec &spec : cases) {
    if (failed(buildCase(context, spec, rng))) {
      llvm::errs() << "tile-golden: case " << spec.name << " failed\n";
      ++failures;
      continue;
    }
    llvm::outs() << "tile-golden: wrote " << spec.name << ".case\n";
  }
  return failures ? 1 : 0;
}
