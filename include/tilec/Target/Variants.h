//===- Variants.h - specialised instances of one kernel ---------*- C++ -*-===//
//
// tilec compiles a kernel with views more than once into one image: a
// generic variant that assumes nothing about its views, and variants whose
// lowering may assume facts about them (LoweringOptions). The generated
// launcher checks the facts on the actual views and launches the most
// specialised variant whose facts hold; every variant has the kernel's
// parameters, so launchers and the C ABI do not change
// (docs/codegen-layouts.md, "Vectorised global access and view facts").
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_VARIANTS_H
#define TILEC_TARGET_VARIANTS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace tilec {

/// One instance of every kernel of a module.
struct KernelVariant {
  /// As tilec --variants spells it: "generic", "vec".
  llvm::StringRef name;
  /// Appended to the kernel's name: "" for the generic variant, "_vec".
  llvm::StringRef suffix;
  /// LoweringOptions::vectorize: the views satisfy the vectorize facts.
  bool vectorize;
};

/// Every variant, the generic one first.
llvm::ArrayRef<KernelVariant> getKernelVariants();

/// The variant called `name`, or nullptr.
const KernelVariant *lookupKernelVariant(llvm::StringRef name);

/// Splits a comma-separated list of variant names, keeping the order of
/// getKernelVariants(). Fails with `error` set on an unknown or repeated
/// name, an empty list, or one without the generic variant when
/// `needGeneric` (a launcher falls back to it).
mlir::LogicalResult
parseKernelVariants(llvm::StringRef list, bool needGeneric,
                    llvm::SmallVectorImpl<const KernelVariant *> &variants,
                    std::string &error);

/// Whether `kernel` (a tile.kernel) has an instance in `variant`: the generic
/// variant has every kernel; one that assumes facts about views only those
/// that take a view not marked `tile.any_strides` (the facts are assumed of
/// those views only).
bool hasVariant(mlir::Operation *kernel, const KernelVariant &variant);

/// Whether `kernel` (a tile.kernel) has an instance in a variant of
/// `variants` other than the generic one: its launcher then falls back to
/// the generic instance only for views without the facts.
bool hasSpecialisedVariant(mlir::Operation *kernel,
                           llvm::ArrayRef<const KernelVariant *> variants);

/// A copy of the bound tile module `module` holding `variant`'s instances:
/// the kernels that have one and that `keep` (when given) accepts, renamed
/// with its suffix. Fails, at the kernel, when a new name is that of another
/// kernel of the module.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>> cloneForVariant(
    mlir::ModuleOp module, const KernelVariant &variant,
    llvm::function_ref<bool(mlir::Operation *kernel)> keep = nullptr);

/// Moves the contents of `from`, a lowered variant module, into `into`, the
/// lowered module of another variant of the same source. Declarations both
/// have (libdevice functions, the shared memory symbol) are kept once; other
/// symbols of `from` that `into` already has are renamed within `from`
/// first, except kernels, whose clash is an error.
mlir::LogicalResult mergeLoweredVariant(mlir::ModuleOp into,
                                        mlir::ModuleOp from);

} // namespace tilec

#endif // TILEC_TARGET_VARIANTS_H
