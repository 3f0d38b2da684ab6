//===- Target.h - LLVM IR, PTX, cubins and fatbins --------------*- C++ -*-===//
//
// From a module in the LLVM and NVVM dialects (the output of
// buildTileToLLVMPipeline) to the images a GPU loads: LLVM IR and PTX in
// process through the NVPTX backend, cubins through the toolkit's ptxas, and
// a fatbin of several targets through its fatbinary.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_TARGET_H
#define TILEC_TARGET_TARGET_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class ModuleOp;
class Operation;
} // namespace mlir

namespace tilec {

/// A GPU architecture tilec compiles for.
struct GpuTarget {
  /// As ptxas spells it: "sm_80", "sm_90a".
  llvm::StringRef name;
  /// Compute capability times 10.
  unsigned sm;
  /// The "a" variants: features of exactly this architecture (wgmma,
  /// tcgen05), at the price of running nowhere else.
  bool archSpecific;
  /// The PTX ISA version to emit, times 10: the lowest with every instruction
  /// the target's code path uses, so that older drivers can JIT it.
  unsigned ptxVersion;
  /// LoweringOptions::smVersion: which code path the lowering takes. Only
  /// arch-specific targets get the Hopper and Blackwell paths; plain sm_90
  /// takes the portable one.
  unsigned loweringSm;
  /// The most shared memory one CTA may have, in bytes (the opt-in limit,
  /// cudaDevAttrMaxSharedMemoryPerBlockOptin).
  int64_t maxSharedBytes;
};

/// The target called `name`, or nullptr.
const GpuTarget *lookupGpuTarget(llvm::StringRef name);

/// The names of the supported targets, comma-separated (for messages).
std::string listGpuTargets();

/// Splits a comma-separated list of target names. Fails with `error` set on
/// an unknown or repeated name, or an empty list.
mlir::LogicalResult
parseGpuTargets(llvm::StringRef list,
                llvm::SmallVectorImpl<const GpuTarget *> &targets,
                std::string &error);

/// The CUDA toolkit programs and files tilec runs or reads. The defaults
/// are those found at configure time (TILEC_CUDA_ROOT); empty when not found.
struct CudaToolkit {
  std::string ptxas;
  std::string fatbinary;
  std::string libdevice;

  static CudaToolkit configured();
};

/// Checks a module given already in the LLVM dialect (a file with no tile
/// kernel, such as --emit=llvm-dialect output) against what tilec passes on
/// to LLVM: ops of the builtin, llvm and nvvm dialects, integers of 1 to 64
/// bits and f16, bf16, f32, f64 (docs/codegen.md). Errors are located at the
/// offending op.
mlir::LogicalResult checkLoweredModule(mlir::ModuleOp module);

/// Checks that every kernel of a lowered module fits `target`: its shared
/// memory (the tile.shared_bytes the lowering records) at most
/// target.maxSharedBytes. Errors give both numbers at the kernel.
mlir::LogicalResult checkResources(mlir::ModuleOp module,
                                   const GpuTarget &target);

/// Registers the translations of the dialects a lowered module contains.
void registerTargetTranslations(mlir::DialectRegistry &registry);

/// Translates a module in the LLVM and NVVM dialects to LLVM IR for
/// `target`, adds the string @tilec_image_target holding the target's name
/// (which the runtime reads back: tilec_kernel_image_info), links the
/// libdevice functions it calls, and optimizes it at O3.
/// Diagnostics are reported at `module`'s location.
std::unique_ptr<llvm::Module> translateToLLVMIR(mlir::Operation *module,
                                                llvm::LLVMContext &llvmContext,
                                                const GpuTarget &target,
                                                const CudaToolkit &toolkit);

/// Runs the NVPTX backend on `llvmModule` (as made by translateToLLVMIR).
mlir::FailureOr<std::string>
emitPTX(mlir::Location loc, llvm::Module &llvmModule, const GpuTarget &target);

/// Assembles PTX into a cubin for `target` with ptxas.
mlir::FailureOr<std::string> assembleCubin(mlir::Location loc,
                                           llvm::StringRef ptx,
                                           const GpuTarget &target,
                                           const CudaToolkit &toolkit);

/// One image of a fatbin: a cubin for `target`, or PTX for its virtual
/// architecture (compute_XX), which the driver JIT compiles for newer GPUs.
struct FatbinImage {
  const GpuTarget *target;
  bool isPTX;
  std::string data;
};

/// Bundles images into a fatbin with fatbinary.
mlir::FailureOr<std::string> bundleFatbin(mlir::Location loc,
                                          llvm::ArrayRef<FatbinImage> images,
                                          const CudaToolkit &toolkit);

} // namespace tilec

#endif // TILEC_TARGET_TARGET_H
