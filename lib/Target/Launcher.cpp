//===- Launcher.cpp - C++ launchers for compiled kernels ------------------===//

#include "tilec/Target/Launcher.h"

#include "tilec/Dialect/Tile/IR/TileAttrNames.h"
#include "tilec/Target/Variants.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

namespace tilec {
namespace {

/// How a tile element or scalar type appears in C: the suffix of its view
/// type (tilec_view_<suffix>_<rank>d) and its C type.
struct CType {
  StringRef viewSuffix;
  StringRef scalar;
};

std::optional<CType> getCType(Type type) {
  // tf32 is stored as f32; index arguments are passed as i64.
  if (type.isF32() || isa<FloatTF32Type>(type))
    return CType{"f32", "float"};
  if (type.isF16())
    return CType{"f16", "tilec_f16"};
  if (type.isBF16())
    return CType{"bf16", "tilec_bf16"};
  if (type.isInteger(1))
    return CType{"i1", "bool"};
  if (type.isInteger(8))
    return CType{"i8", "int8_t"};
  if (type.isInteger(16))
    return CType{"i16", "int16_t"};
  if (type.isInteger(32))
    return CType{"i32", "int32_t"};
  if (type.isInteger(64) || type.isIndex())
    return CType{"i64", "int64_t"};
  return std::nullopt;
}

bool isIdentifier(StringRef name) {
  return !name.empty() && (llvm::isAlpha(name[0]) || name[0] == '_') &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// Names a launcher parameter may not take: C and C++ keywords, the
/// launcher's own parameters, and the prefix of the generated code's names.
bool isReserved(StringRef name) {
  static const llvm::StringSet<> reserved = {
      "grid",     "stream",    "int8_t",    "int16_t",  "int32_t",  "int64_t",
      "uint16_t", "CUstream",  "alignas",   "alignof",  "and",      "asm",
      "auto",     "bool",      "break",     "case",     "catch",    "char",
      "class",    "const",     "constexpr", "continue", "default",  "delete",
      "do",       "double",    "else",      "enum",     "explicit", "export",
      "extern",   "false",     "float",     "for",      "friend",   "goto",
      "if",       "inline",    "int",       "long",     "mutable",  "namespace",
      "new",      "noexcept",  "not",       "nullptr",  "operator", "or",
      "private",  "protected", "public",    "register", "return",   "short",
      "signed",   "sizeof",    "static",    "struct",   "switch",   "template",
      "this",     "throw",     "true",      "try",      "typedef",  "typename",
      "union",    "unsigned",  "using",     "virtual",  "void",     "volatile",
      "while",    "xor"};
  return reserved.contains(name) || name.starts_with("tilec_");
}

/// The name of `arg` in the source text (`%x` -> "x"), or "" when it has
/// none that is a C identifier. The parser locates a block argument at its
/// name.
std::string getSourceName(BlockArgument arg, llvm::SourceMgr *sourceMgr) {
  auto loc = dyn_cast<FileLineColLoc>(arg.getLoc());
  if (!loc || !sourceMgr)
    return "";
  for (unsigned id = 1, e = sourceMgr->getNumBuffers(); id <= e; ++id) {
    const llvm::MemoryBuffer *buffer = sourceMgr->getMemoryBuffer(id);
    if (buffer->getBufferIdentifier() != loc.getFilename().getValue())
      continue;
    llvm::SMLoc at =
        sourceMgr->FindLocForLineAndColumn(id, loc.getLine(), loc.getColumn());
    if (!at.isValid())
      return "";
    StringRef rest(at.getPointer(), buffer->getBufferEnd() - at.getPointer());
    if (!rest.consume_front("%"))
      return "";
    // SSA names may also hold '$', '.' and '-'; those are not C names.
    StringRef name = rest.take_while([](char c) {
      return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-';
    });
    return isIdentifier(name) ? name.str() : "";
  }
  return "";
}

/// The lowered parameter types of a kernel argument (Pipeline.h's ABI).
void appendABITypes(const LauncherArg &arg, SmallVectorImpl<Type> &types) {
  MLIRContext *context = arg.type.getContext();
  if (arg.rank == 0) {
    types.push_back(arg.type.isIndex() ? IntegerType::get(context, 64)
                                       : arg.type);
    return;
  }
  types.push_back(LLVM::LLVMPointerType::get(context, /*addressSpace=*/1));
  types.append(2 * arg.rank, IntegerType::get(context, 64));
}

std::string headerGuard(StringRef headerName) {
  std::string guard = "TILEC_GENERATED_";
  for (char c : headerName)
    guard += llvm::isAlnum(c) ? llvm::toUpper(c) : '_';
  return guard;
}

/// The namespace of a generated source's own names (its fatbins, kernel
/// descriptors and helper), named after its header as the include guard is:
/// generated sources compiled as one translation unit (CMake's unity
/// builds, as the Mamba-2 library's) then keep them apart.
std::string sourceNamespace(StringRef headerName) {
  return llvm::StringRef(headerGuard(headerName)).lower();
}

/// Writes `data` as adjacent C string literals of about 100 characters a
/// line: printable characters as they are, the others (and the backslash,
/// the quote and '?', which could start a trigraph) escaped, bytes outside
/// printable ASCII as three octal digits, so that a digit after one is not
/// read as part of it.
void writeStringLiteral(raw_ostream &os, StringRef data) {
  constexpr size_t kLineColumns = 100;
  os << "\n    \"";
  size_t column = 0;
  for (char c : data) {
    if (column >= kLineColumns) {
      os << "\"\n    \"";
      column = 0;
    }
    auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || c == '"' || c == '?') {
      os << '\\' << c;
      column += 2;
    } else if (byte >= 0x20 && byte < 0x7f) {
      os << c;
      ++column;
    } else {
      os << '\\' << char('0' + (byte >> 6)) << char('0' + ((byte >> 3) & 7))
         << char('0' + (byte & 7));
      column += 4;
    }
  }
  os << '"';
}

void emitSignature(raw_ostream &os, const LauncherKernel &kernel) {
  os << "tilec_status tile_" << kernel.name << "(";
  for (const LauncherArg &arg : kernel.args) {
    CType type = *getCType(arg.type);
    if (arg.rank)
      os << "const tilec_view_" << type.viewSuffix << "_" << arg.rank << "d &"
         << arg.name << ", ";
    else
      os << type.scalar << " " << arg.name << ", ";
  }
  os << "tilec_grid grid, CUstream stream)";
}

} // namespace

FailureOr<SmallVector<LauncherKernel>>
collectLauncherKernels(ModuleOp module, llvm::SourceMgr *sourceMgr,
                       ArrayRef<const KernelVariant *> variants) {
  SmallVector<LauncherKernel> kernels;
  for (auto kernel : module.getOps<tile::KernelOp>()) {
    StringRef name = kernel.getSymName();
    if (!isIdentifier(name))
      return emitError(kernel.getLoc())
             << "kernel name '" << name
             << "' is not a C identifier; a launcher "
                "cannot be named after it";
    LauncherKernel &launcher =
        kernels.emplace_back(LauncherKernel{name.str(), kernel.getLoc()});
    launcher.images.push_back({name.str(), /*vectorize=*/false});
    for (const KernelVariant *variant : variants)
      if (!variant->suffix.empty() && hasVariant(kernel, *variant))
        launcher.images.push_back(
            {(name + variant->suffix).str(), variant->vectorize});
    llvm::StringSet<> used;
    for (BlockArgument arg : kernel.getBody().getArguments()) {
      LauncherArg &out = launcher.args.emplace_back();
      if (auto view = dyn_cast<tile::ViewType>(arg.getType())) {
        out.rank = view.getRank();
        out.type = view.getElementType();
        out.anyStrides = bool(
            kernel.getArgAttr(arg.getArgNumber(), tile::kAnyStridesAttrName));
        if (out.rank > 6)
          return emitError(kernel.getLoc())
                 << "argument " << arg.getArgNumber() << " is a view of rank "
                 << out.rank << "; launchers support ranks up to 6";
      } else {
        out.type = arg.getType();
      }
      if (!getCType(out.type))
        return emitError(kernel.getLoc())
               << "argument " << arg.getArgNumber() << " has type "
               << arg.getType() << ", which launchers cannot pass";
      std::string base = getSourceName(arg, sourceMgr);
      if (base.empty())
        base = "arg" + std::to_string(arg.getArgNumber());
      out.name = base;
      while (isReserved(out.name) || used.contains(out.name))
        out.name += "_";
      used.insert(out.name);
    }
  }
  if (kernels.empty())
    return emitError(module.getLoc())
           << "no tile.kernel to build launchers for";
  return kernels;
}

LogicalResult readLaunchConfig(ModuleOp module, StringRef targetName,
                               MutableArrayRef<LauncherKernel> kernels,
                               unsigned fatbin) {
  for (LauncherKernel &kernel : kernels) {
    SmallVector<Type> expected;
    for (const LauncherArg &arg : kernel.args)
      appendABITypes(arg, expected);
    for (LauncherImage &image : kernel.images) {
      if (image.fatbin != fatbin)
        continue;
      auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(image.symbol);
      if (!func)
        return emitError(kernel.loc)
               << "the lowering for " << targetName
               << " produced no llvm.func @" << image.symbol;
      ArrayRef<Type> actual = func.getFunctionType().getParams();
      if (actual != ArrayRef<Type>(expected)) {
        InFlightDiagnostic diag =
            emitError(func.getLoc())
            << "lowered kernel @" << image.symbol << " for " << targetName
            << " does not follow the kernel ABI: parameters (";
        llvm::interleaveComma(actual, diag);
        diag << "), expected (";
        llvm::interleaveComma(expected, diag);
        return diag << ")";
      }
      auto warps = func->getAttrOfType<IntegerAttr>(tile::kNumWarpsAttrName);
      auto shared = func->getAttrOfType<IntegerAttr>(tile::kSharedBytesAttrName);
      if (!warps || !shared)
        return emitError(func.getLoc())
               << "lowered kernel @" << image.symbol
               << " lacks integer attributes tile.num_warps "
                  "and tile.shared_bytes";
      int64_t numWarps = warps.getValue().getSExtValue();
      int64_t sharedBytes = shared.getValue().getSExtValue();
      if (numWarps < 1 || numWarps > 32 || sharedBytes < 0 ||
          sharedBytes > INT32_MAX)
        return emitError(func.getLoc())
               << "lowered kernel @" << image.symbol << " has " << numWarps
               << " warps and " << sharedBytes
               << " bytes of shared memory; a block has 1 to 32 warps";
      if (image.numWarps == 0) {
        image.numWarps = numWarps;
        image.sharedBytes = sharedBytes;
        image.configTarget = targetName.str();
      } else if (image.numWarps != uint64_t(numWarps)) {
        return emitError(kernel.loc)
               << "kernel @" << image.symbol << " launches with " << numWarps
               << " warps on " << targetName << " but " << image.numWarps
               << " on " << image.configTarget
               << "; one launcher serves every target of a fatbin, so build "
                  "these targets into separate libraries";
      } else {
        // Targets may need different shared memory (sm_90a's wgmma stages
        // its operands): the launch reserves the most any image needs.
        image.sharedBytes =
            std::max(image.sharedBytes, uint64_t(sharedBytes));
      }
    }
  }
  return success();
}

FailureOr<LauncherFiles> emitLaunchers(ArrayRef<LauncherKernel> kernels,
                                       ArrayRef<LauncherFatbin> fatbins,
                                       StringRef headerName,
                                       StringRef description) {
  for (const LauncherKernel &kernel : kernels)
    for (const LauncherImage &image : kernel.images) {
      if (image.numWarps == 0)
        return emitError(kernel.loc)
               << "no launch configuration was read for @" << image.symbol;
      if (image.fatbin >= fatbins.size())
        return emitError(kernel.loc)
               << "@" << image.symbol << " is in fatbin " << image.fatbin
               << " of " << fatbins.size();
    }
  LauncherFiles files;
  std::string banner =
      ("// Generated by tilec: " + description + ". Do not edit.\n").str();

  llvm::raw_string_ostream h(files.header);
  std::string guard = headerGuard(headerName);
  h << banner << "\n#ifndef " << guard << "\n#define " << guard << "\n\n"
    << "#include \"tilec/Runtime/Runtime.h\"\n";
  for (const LauncherKernel &kernel : kernels) {
    const LauncherImage &generic = kernel.images.front();
    h << "\n// Launches " << kernel.name << " on `grid` blocks of "
      << 32 * generic.numWarps << " threads with " << generic.sharedBytes
      << " bytes of dynamic shared\n"
      << "// memory, asynchronously on `stream` in the current context. "
         "Views are device\n"
      << "// memory with shapes and strides in elements. On failure, "
         "tilec_last_error()\n// says why.\n";
    for (const LauncherImage &image : ArrayRef(kernel.images).drop_front())
      h << "// When every view"
        << (llvm::any_of(kernel.args,
                         [](const LauncherArg &arg) { return arg.anyStrides; })
                ? " not marked tile.any_strides"
                : "")
        << " is vectorizable (tilec_view_is_vectorizable), it launches\n"
           "// the variant "
        << image.symbol << " instead (blocks of " << 32 * image.numWarps
        << " threads, " << image.sharedBytes << " bytes).\n";
    emitSignature(h, kernel);
    h << ";\n// Loads " << kernel.name
      << " into the current context, as its first launch would: call it "
         "before\n// capturing launches in a CUDA graph.\n"
      << "tilec_status tile_" << kernel.name << "_prepare();\n";
  }
  h << "\n#endif // " << guard << "\n";

  llvm::raw_string_ostream cpp(files.source);
  std::string scope = sourceNamespace(headerName);
  cpp << banner << "\n#include \"" << headerName << "\"\n\nnamespace "
      << scope << " {\nnamespace {\n";
  for (const LauncherFatbin &fatbin : fatbins) {
    // A string literal (and its terminating NUL) rather than a list of
    // integers: a C++ compiler reads it several times faster (0.12 against
    // 0.50 s for the 600 KB of a Mamba-2 instance, docs/performance.md).
    cpp << "\nalignas(16) const unsigned char " << fatbin.name << "["
        << fatbin.data.size() + 1 << "] =";
    writeStringLiteral(cpp, fatbin.data);
    cpp << ";\n";
  }
  cpp << "\n";
  for (const LauncherKernel &kernel : kernels)
    for (const LauncherImage &image : kernel.images)
      cpp << "const tilec_kernel tilec_kernel_" << image.symbol << " = {"
          << fatbins[image.fatbin].name << ", \"" << image.symbol << "\", "
          << 32 * image.numWarps << ", " << image.sharedBytes << "};\n";
  cpp << "\n// Kernel parameters are passed to the driver by address.\n"
      << "void *tilec_arg(const void *value) { return const_cast<void "
         "*>(value); }\n\n} // namespace\n} // namespace "
      << scope << "\n";

  for (const LauncherKernel &kernel : kernels) {
    cpp << "\n";
    emitSignature(cpp, kernel);
    cpp << " {\n  using namespace " << scope << ";\n";
    // The views a variant with the vectorize facts assumes them of.
    SmallVector<const LauncherArg *> views;
    for (const LauncherArg &arg : kernel.args) {
      if (!arg.rank)
        continue;
      if (!arg.anyStrides)
        views.push_back(&arg);
      cpp << "  if (tilec_status tilec_st = tilec_check_view(\"" << kernel.name
          << "\", \"" << arg.name << "\", " << arg.name << ".data, sizeof(*"
          << arg.name << ".data), " << arg.rank
          << ", " << arg.name << ".shape, " << arg.name
          << ".strides))\n    return tilec_st;\n";
    }
    if (kernel.args.empty()) {
      cpp << "  void **tilec_args = nullptr;\n";
    } else {
      cpp << "  void *tilec_args[] = {";
      bool first = true;
      auto add = [&](const Twine &value) {
        cpp << (first ? "" : ",") << "\n      tilec_arg(&" << value << ")";
        first = false;
      };
      for (const LauncherArg &arg : kernel.args) {
        if (!arg.rank) {
          add(arg.name);
          continue;
        }
        add(arg.name + ".data");
        for (unsigned d = 0; d < arg.rank; ++d)
          add(arg.name + ".shape[" + Twine(d) + "]");
        for (unsigned d = 0; d < arg.rank; ++d)
          add(arg.name + ".strides[" + Twine(d) + "]");
      }
      cpp << "};\n";
    }
    cpp << "  const tilec_kernel *tilec_k = &tilec_kernel_"
        << kernel.images.front().symbol << ";\n";
    for (const LauncherImage &image : ArrayRef(kernel.images).drop_front()) {
      // A variant compiled with the vectorize facts, for views that have
      // them (every specialised variant so far is one).
      assert(image.vectorize && "a specialised variant without facts");
      cpp << "  if (";
      llvm::interleave(
          views, cpp,
          [&](const LauncherArg *arg) {
            cpp << "tilec_view_is_vectorizable(" << arg->name
                << ".data, sizeof(*" << arg->name << ".data), " << arg->rank
                << ", " << arg->name << ".shape, " << arg->name
                << ".strides)";
          },
          " &&\n      ");
      cpp << ")\n    tilec_k = &tilec_kernel_" << image.symbol << ";\n";
    }
    cpp << "  return tilec_launch(tilec_k, grid, stream, tilec_args);\n}\n\n"
        << "tilec_status tile_" << kernel.name << "_prepare() {\n"
        << "  using namespace " << scope << ";\n";
    for (const LauncherImage &image : ArrayRef(kernel.images).drop_back())
      cpp << "  if (tilec_status tilec_st = tilec_prepare(&tilec_kernel_"
          << image.symbol << "))\n    return tilec_st;\n";
    cpp << "  return tilec_prepare(&tilec_kernel_" << kernel.images.back().symbol
        << ");\n}\n";
  }
  return files;
}

} // namespace tilec
