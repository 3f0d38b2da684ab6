//===- Launcher.h - C++ launchers for compiled kernels ----------*- C++ -*-===//
//
// tilec --emit=cpp writes a C++ source and header: the fatbins as byte
// arrays (one, or two when the generic variants have an image of their own:
// tilec --generic-targets) and, per kernel, a typed launcher `tilec_status tile_<kernel>(views...,
// scalars..., tilec_grid grid, CUstream stream)` that checks its arguments
// and launches through the tilec runtime (include/tilec/Runtime/Runtime.h).
//
// The launcher's C++ types come from the tile kernel's signature (the
// element types of views are gone once lowered); its launch configuration
// comes from the lowered llvm.func (tile.num_warps, tile.shared_bytes).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_LAUNCHER_H
#define TILEC_TARGET_LAUNCHER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace tilec {

struct KernelVariant;

struct LauncherArg {
  /// A C identifier: the kernel argument's name in the source when it has
  /// one that is a valid C identifier, else argN.
  std::string name;
  /// Rank of a view; 0 for a scalar.
  unsigned rank = 0;
  /// Element type of a view, or the type of a scalar.
  mlir::Type type;
  /// A view marked `tile.any_strides`: every variant accesses it element by
  /// element, so the launcher does not ask it for the vectorize facts.
  bool anyStrides = false;
};

/// One compiled instance of a kernel (Variants.h) and how it launches.
struct LauncherImage {
  /// The entry point: the kernel's name and the variant's suffix.
  std::string symbol;
  /// Whether the launcher picks it only for views with the vectorize facts.
  bool vectorize = false;
  /// From the lowered function: the warps equal for every target of a
  /// fatbin, the shared bytes the largest of them. Zero warps until read
  /// from a lowered module.
  unsigned numWarps = 0;
  uint64_t sharedBytes = 0;
  /// The target the launch configuration was first read for.
  std::string configTarget;
  /// Which fatbin of emitLaunchers holds it (an index into its `fatbins`).
  unsigned fatbin = 0;
};

struct LauncherKernel {
  std::string name;
  mlir::Location loc;
  llvm::SmallVector<LauncherArg> args;
  /// The generic instance first, then the specialised ones the launcher
  /// tries before it, most specialised last.
  llvm::SmallVector<LauncherImage> images;
};

/// Reads the signatures of the tile kernels of `module`, each with an image
/// per variant of `variants` it has (hasVariant; the generic variant by
/// default). `sourceMgr`, when given, recovers argument names from the
/// source text.
mlir::FailureOr<llvm::SmallVector<LauncherKernel>>
collectLauncherKernels(mlir::ModuleOp module, llvm::SourceMgr *sourceMgr,
                       llvm::ArrayRef<const KernelVariant *> variants = {});

/// Checks that the lowered `module` (for `targetName`, the images of fatbin
/// `fatbin`) has each kernel's images of that fatbin with the ABI of
/// Pipeline.h and records their launch configurations. Fails when one
/// differs from that recorded for another target: one launcher serves every
/// target of a fatbin.
mlir::LogicalResult
readLaunchConfig(mlir::ModuleOp module, llvm::StringRef targetName,
                 llvm::MutableArrayRef<LauncherKernel> kernels,
                 unsigned fatbin = 0);

struct LauncherFiles {
  std::string source;
  std::string header;
};

/// A fatbin of the generated source: the name of its C array and its bytes.
struct LauncherFatbin {
  llvm::StringRef name;
  llvm::StringRef data;
};

/// Writes the C++ source and header; each image's descriptor points at the
/// fatbin of `fatbins` that LauncherImage::fatbin names. `headerName` is
/// how the source includes the header; `description` goes into their first
/// comment.
mlir::FailureOr<LauncherFiles>
emitLaunchers(llvm::ArrayRef<LauncherKernel> kernels,
              llvm::ArrayRef<LauncherFatbin> fatbins,
              llvm::StringRef headerName, llvm::StringRef description);

} // namespace tilec

#endif // TILEC_TARGET_LAUNCHER_H
