//===- StateUpdate.h - the Mamba-2 decode step ------------------*- C++ -*-===//
//
// One token of each sequence of a batch through a Mamba-2 layer's SSM, with
// the state updated in place: mamba_ssm's selective_state_update
// (docs/mamba2.md, "The decode step"). The descriptors and their validation
// are shared by every device: stateUpdateCpu runs the state_update kernel in
// the interpreter (TilecMamba2Cpu), stateUpdateGpu (Mamba2Gpu.h) on the
// GPU. Like Mamba2.h, this header needs the C++ standard library only.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_MAMBA2_STATEUPDATE_H
#define TILEC_MAMBA2_STATEUPDATE_H

#include "tilec/Mamba2/Mamba2.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tilec::mamba2 {

/// The sizes of one decode step.
struct DecodeProblem {
  /// Sequences stepped (one token each).
  int64_t batch = 0;
  int64_t heads = 0;
  int64_t groups = 0;
  int64_t headdim = 0;
  int64_t dstate = 0;
  /// Rows of the state tensor: batch without state indices; with them, the
  /// slots of a serving system's state cache the indices pick from.
  int64_t stateRows = 0;
};

/// The tensors of one decode step, in memory of the device that runs it.
struct StateUpdateArgs {
  /// (stateRows, heads, headdim, dstate) f32, bf16 or f16 (mamba_ssm's
  /// state may be any of them), read and written in place: the kernel
  /// computes in f32 and rounds the new state once when it stores it.
  Tensor state;
  /// (batch, heads, headdim) bf16.
  Tensor x;
  /// (batch, heads) f32: the step before dtBias and softplus.
  Tensor dt;
  /// (heads) f32.
  Tensor A;
  /// (batch, groups, dstate) bf16; head h uses group h / (heads / groups).
  Tensor B;
  Tensor C;
  /// (heads) or (heads, headdim) f32: the skip connection; none when absent.
  std::optional<Tensor> D;
  /// (batch, heads, headdim) bf16: y is multiplied by silu(z) when present.
  std::optional<Tensor> z;
  /// (heads) f32, added to dt (before softplus).
  std::optional<Tensor> dtBias;
  /// dt <- softplus(dt) (after dtBias), as mamba_ssm's dt_softplus.
  bool dtSoftplus = false;
  /// `batch` contiguous entries in the memory of the device that runs the
  /// step (device memory for stateUpdateGpu, host memory for the CPU path):
  /// the state row entry b updates. The kernel reads them; the host never
  /// does, so a call neither copies nor waits for them and can be captured
  /// in a CUDA graph. An entry equal to padSlotId or outside [0, stateRows)
  /// is a padding entry: its y is computed from a zero state and no state is
  /// read or written for it. Rows must be distinct (not checked, as the host
  /// cannot read them: two entries on one row race). Null: entry b updates
  /// row b (and stateRows must equal batch).
  const int64_t *stateIndices = nullptr;
  int64_t padSlotId = -1;
  /// (batch, heads, headdim) bf16, written.
  Tensor y;
};

/// Checks the problem (positive sizes, heads % groups == 0, stateRows ==
/// batch without indices) and every tensor: non-null data, dtype, rank and
/// shape, non-negative strides, no stride 0 along an extent above 1 in the
/// state or y (they are written), the state and y sharing no byte with each
/// other or with an input. The state indices are not read.
Status validateStateUpdate(const DecodeProblem &problem,
                           const StateUpdateArgs &args);

/// Tile sizes of the state_update kernel; zero lets the device choose.
/// Powers of two.
struct StateUpdateTiles {
  int64_t blockP = 0;
  int64_t blockN = 0;
};

struct StateUpdateCpuOptions {
  StateUpdateTiles tiles;
  /// Threads the interpreter may use; 0: one per core.
  unsigned numThreads = 0;
};

/// The decode step on the CPU: the state_update kernel in the interpreter,
/// on host memory. Defined in TilecMamba2Cpu.
Status stateUpdateCpu(const DecodeProblem &problem, const StateUpdateArgs &args,
                      const StateUpdateCpuOptions &options = {});

/// The recurrence of the decode step in f64, carried from step to step.
struct ReferenceDecodeState {
  /// (stateRows, heads, headdim, dstate), row-major: read and updated.
  std::vector<double> state;
  /// Per state element, the scale of a kernel's accumulated rounding error:
  /// each step adds the magnitudes it rounds (|decay h|, |dt x B|, |new h|)
  /// to the decayed scale. A kernel that rounds each a few times to f32
  /// stays within a small multiple of 2^-24 times it. Same shape; starts at
  /// zero (the initial state is exact).
  std::vector<double> stateScale;
  /// (batch, heads, headdim), row-major, written: y and the magnitude of
  /// what it sums, sum_j (|h_j| + u-scaled error) |C_j| + |D x|, times
  /// |silu(z)| with z (the error a kernel's f32 sum of y can carry is a
  /// multiple of 2^-24 times yScale, plus its state's error times |C|).
  std::vector<double> y, yScale;
};

/// One decode step by the recurrence in f64, from host tensors, with the
/// options of `args`. Fails when validateStateUpdate does or the state's
/// size is not the problem's (args.state and args.y are validated, never
/// touched).
Status referenceStateUpdate(const DecodeProblem &problem,
                            const StateUpdateArgs &args,
                            ReferenceDecodeState &reference);

} // namespace tilec::mamba2

#endif // TILEC_MAMBA2_STATEUPDATE_H
