//===- MmaTarget.h - tile.mma behind one interface per target ---*- C++ -*-===//
//
// The matrix-product interface of docs/codegen-layouts.md ("Matrix products:
// the target interface"). tilegpu-assign-layouts gives a tile.mma the
// layouts of the target it compiles for (tilegpu::getMmaLayouts); here one
// implementation per instruction family lowers the product in those
// layouts:
//   - MmaSync (sm_80 and later, MmaSync.cpp): mma.sync on the registers of
//     A, B and the accumulator, all in the mma.sync fragment layouts;
//   - Wgmma (sm_90a, MmaWgmma.cpp): A and B read by wgmma.mma_async
//     through matrix descriptors from the swizzled cp.async buffers they
//     were read from (tilegpu-pipeline), or stored there from registers
//     first; the accumulator in the warpgroup accumulator layout.
// A product neither takes (f32 operands, layouts that are not the
// fragments) is computed by FMAs (LowerDistributedMma.cpp). The Blackwell
// tcgen05 path is the next implementation: its accumulator lives in tensor
// memory, emitMma issues tcgen05.mma from one thread and emitWait waits on
// the mbarrier tcgen05.commit signals.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_TILETOLLVM_MMATARGET_H
#define TILEC_LIB_CONVERSION_TILETOLLVM_MMATARGET_H

#include "Lowering.h"

#include <memory>

namespace tilec::detail {

/// Where the operands of a product lie in shared memory already: for A and
/// B, the lowered address of the first element of the buffer stage that
/// findBufferRead found them read from, null where they are only in
/// registers.
struct MmaSharedOperands {
  mlir::Value a, b;
  /// The lowered value of a tile value defined before the product (the
  /// first of a wgmma pair stores the second's B: markWgmmaPairs).
  llvm::function_ref<mlir::Value(mlir::Value)> lowered;
};

class MmaTarget {
public:
  virtual ~MmaTarget() = default;

  /// Whether this target lowers `op` in the layouts its tiles have.
  virtual bool matches(mlir::tile::MmaOp op) const = 0;
  /// acc + A B on the registers of A, B and acc (the lowered operands of
  /// `op`), in the accumulator's layout. The result may still be in flight
  /// until emitWait (the next product of the same accumulator may use it).
  /// `shared` says where A and B lie in shared memory too (only asked of
  /// a target that readsSharedOperands).
  virtual mlir::Value emitMma(Emitter &e, mlir::tile::MmaOp op, mlir::Value a,
                              mlir::Value b, mlir::Value acc,
                              const MmaSharedOperands &shared) const = 0;
  /// Whether emitMma may read operands from the buffers they came from.
  virtual bool readsSharedOperands() const = 0;
  /// Waits until at most `pending` products issued by this thread are in
  /// flight: before their accumulator is read by anything but a product, or
  /// their operands' memory is written again.
  virtual void emitWait(Emitter &e, unsigned pending) const = 0;
  /// Bytes of the kernel's scratch area the product uses (0 for none).
  virtual int64_t getScratchBytes(mlir::tile::MmaOp op) const = 0;
};

/// Marks the wgmma products issued as pairs (0 on the first, 1 on the
/// second): two products on one running sum with the same A that both store
/// their B (the split products of tile-expand-forms). The first stores both
/// Bs at distinct offsets of the scratch area, then one fence and barrier,
/// and issues its wgmmas without a wait; the second issues its own, waits
/// for both and ends with the barrier: two barriers per pair where two
/// products alone take four. Runs before the scratch area is sized.
constexpr llvm::StringLiteral kWgmmaPairAttrName = "tilegpu.wgmma_pair";
void markWgmmaPairs(mlir::ModuleOp module);

/// The mma.sync target (every sm_80+ GPU) and the wgmma target (sm_90a).
const MmaTarget &getMmaSyncTarget();
const MmaTarget &getWgmmaTarget();

/// The target that lowers `op`: wgmma where tilegpu-assign-layouts chose
/// it (the op carries kWgmmaAttrName), else mma.sync where the layouts are
/// its fragments; null for the FMA fallback.
const MmaTarget *selectMmaTarget(mlir::tile::MmaOp op);

/// The registers of `tile` with padding elements replaced by zeros (a NaN
/// padding of a load must not reach real outputs through a product).
mlir::Value zeroPadding(Emitter &e, const DistributedTile &tile,
                        mlir::Value registers);

} // namespace tilec::detail

#endif // TILEC_LIB_CONVERSION_TILETOLLVM_MMATARGET_H
