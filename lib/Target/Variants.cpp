//===- Variants.cpp - specialised instances of one kernel -----------------===//

#include "tilec/Target/Variants.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/Tile/IR/TileAttrNames.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace tilec {
namespace {

const KernelVariant kVariants[] = {
    {"generic", "", /*vectorize=*/false},
    {"vec", "_vec", /*vectorize=*/true},
};

std::string listVariants() {
  std::string names;
  for (const KernelVariant &variant : kVariants) {
    if (!names.empty())
      names += ", ";
    names += variant.name;
  }
  return names;
}

/// A symbol that only names something defined elsewhere: a function without
/// a body, an external global without a value (the shared memory array).
bool isDeclaration(Operation *op) {
  if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op))
    return func.isExternal();
  if (auto global = dyn_cast<LLVM::GlobalOp>(op))
    return !global.getValueOrNull() && global.getInitializerRegion().empty() &&
           global.getLinkage() == LLVM::Linkage::External;
  return false;
}

} // namespace

ArrayRef<KernelVariant> getKernelVariants() { return kVariants; }

const KernelVariant *lookupKernelVariant(StringRef name) {
  for (const KernelVariant &variant : kVariants)
    if (variant.name == name)
      return &variant;
  return nullptr;
}

LogicalResult
parseKernelVariants(StringRef list, bool needGeneric,
                    SmallVectorImpl<const KernelVariant *> &variants,
                    std::string &error) {
  SmallVector<StringRef> names;
  list.split(names, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  if (names.empty()) {
    error = "no variant given (supported: " + listVariants() + ")";
    return failure();
  }
  SmallVector<const KernelVariant *> given;
  for (StringRef name : names) {
    name = name.trim();
    const KernelVariant *variant = lookupKernelVariant(name);
    if (!variant) {
      error = "unknown variant '" + name.str() +
              "' (supported: " + listVariants() + ")";
      return failure();
    }
    if (llvm::is_contained(given, variant)) {
      error = "variant '" + name.str() + "' given twice";
      return failure();
    }
    given.push_back(variant);
  }
  if (needGeneric && !llvm::is_contained(given, &kVariants[0])) {
    error = "the generic variant is needed: a launcher falls back to it "
            "when the views lack a variant's facts";
    return failure();
  }
  for (const KernelVariant &variant : kVariants)
    if (llvm::is_contained(given, &variant))
      variants.push_back(&variant);
  return success();
}

bool hasVariant(Operation *kernel, const KernelVariant &variant) {
  if (!variant.vectorize)
    return true;
  auto tileKernel = cast<tile::KernelOp>(kernel);
  for (auto [i, type] : llvm::enumerate(tileKernel.getArgumentTypes()))
    if (isa<tile::ViewType>(type) &&
        !tileKernel.getArgAttr(i, tile::kAnyStridesAttrName))
      return true;
  return false;
}

bool hasSpecialisedVariant(Operation *kernel,
                           ArrayRef<const KernelVariant *> variants) {
  return llvm::any_of(variants, [&](const KernelVariant *variant) {
    return variant->vectorize && hasVariant(kernel, *variant);
  });
}

FailureOr<OwningOpRef<ModuleOp>>
cloneForVariant(ModuleOp module, const KernelVariant &variant,
                function_ref<bool(Operation *kernel)> keep) {
  OwningOpRef<ModuleOp> copy = module.clone();
  for (auto kernel :
       llvm::make_early_inc_range(copy->getOps<tile::KernelOp>())) {
    if (!hasVariant(kernel, variant) || (keep && !keep(kernel))) {
      kernel.erase();
      continue;
    }
    if (variant.suffix.empty())
      continue;
    std::string name = (kernel.getSymName() + variant.suffix).str();
    if (module.lookupSymbol(name))
      return kernel.emitError()
             << "kernel @" << kernel.getSymName() << " has a " << variant.name
             << " variant @" << name
             << ", which is also the name of another kernel of the file: "
                "rename that kernel";
    SymbolTable::setSymbolName(kernel, name);
  }
  return copy;
}

LogicalResult mergeLoweredVariant(ModuleOp into, ModuleOp from) {
  for (Operation &op : llvm::make_early_inc_range(from.getBody()->getOperations())) {
    auto symbol = dyn_cast<SymbolOpInterface>(op);
    Operation *existing =
        symbol ? into.lookupSymbol(symbol.getNameAttr()) : nullptr;
    if (existing && isDeclaration(&op) && isDeclaration(existing) &&
        OperationEquivalence::isEquivalentTo(
            &op, existing, OperationEquivalence::IgnoreLocations)) {
      op.erase();
      continue;
    }
    if (existing) {
      if (op.hasAttr("nvvm.kernel"))
        return op.emitError() << "kernel @" << symbol.getName()
                              << " is lowered in two variants of the file";
      // A helper of the variant's lowering (a function, a constant) that
      // the other variant has too: renamed where the variant uses it.
      std::string base = (symbol.getName() + "_variant").str();
      std::string name = base;
      for (unsigned i = 1; into.lookupSymbol(name) || from.lookupSymbol(name);
           ++i)
        name = base + std::to_string(i);
      auto nameAttr = StringAttr::get(op.getContext(), name);
      if (failed(SymbolTable::replaceAllSymbolUses(&op, nameAttr, from)))
        return op.emitError() << "cannot rename @" << symbol.getName()
                              << " to merge the kernel variants";
      SymbolTable::setSymbolName(&op, nameAttr);
    }
    op.moveBefore(into.getBody(), into.getBody()->end());
  }
  return success();
}

} // namespace tilec
