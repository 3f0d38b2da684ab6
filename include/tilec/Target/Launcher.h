//===- Launcher.h - C++ launchers for compiled kernels ----------*- C++ -*-===//
//
// tilec --emit=cpp writes a C++ source and header: the fatbin as a byte array
// and, per kernel, a typed launcher `tilec_status tile_<kernel>(views...,
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

struct LauncherArg {
  /// A C identifier: the kernel argument's name in the source when it has
  /// one that is a valid C identifier, else argN.
  std::string name;
  /// Rank of a view; 0 for a scalar.
  unsigned rank = 0;
  /// Element type of a view, or the type of a scalar.
  mlir::Type type;
};

struct LauncherKernel {
  std::string name;
  mlir::Location loc;
  llvm::SmallVector<LauncherArg> args;
  /// From the lowered function; equal for every target of a fatbin. Zero
  /// warps until read from a lowered module.
  unsigned numWarps = 0;
  uint64_t sharedBytes = 0;
  /// The target the launch configuration was first read for.
  std::string configTarget;
};

/// Reads the signatures of the tile kernels of `module`. `sourceMgr`, when
/// given, recovers argument names from the source text.
mlir::FailureOr<llvm::SmallVector<LauncherKernel>>
collectLauncherKernels(mlir::ModuleOp module, llvm::SourceMgr *sourceMgr);

/// Checks that the lowered `module` (for `targetName`) has each kernel with
/// the ABI of Pipeline.h and records its launch configuration. Fails when it
/// differs from one recorded for another target: one launcher serves every
/// image of a fatbin.
mlir::LogicalResult
readLaunchConfig(mlir::ModuleOp module, llvm::StringRef targetName,
                 llvm::MutableArrayRef<LauncherKernel> kernels);

struct LauncherFiles {
  std::string source;
  std::string header;
};

/// Writes the C++ source and header. `headerName` is how the source
/// includes the header; `description` goes into their first comment.
mlir::FailureOr<LauncherFiles>
emitLaunchers(llvm::ArrayRef<LauncherKernel> kernels, llvm::StringRef fatbin,
              llvm::StringRef headerName, llvm::StringRef description);

} // namespace tilec

#endif // TILEC_TARGET_LAUNCHER_H
