//===- VarlenStates.h - the launches of varlen_state ------------*- C++ -*-===//
//
// The state at the end of each sequence of cu_seqlens (Outputs::varlenStates)
// is one launch of varlen_state.mlir per sequence, with views based at the
// chunk of the sequence's last step (the kernel does not read the offsets
// on the device yet: docs/mamba2.md). What a launch covers and its views
// are worked out here once, for the CPU and the GPU paths alike.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2_VARLENSTATES_H
#define TILEC_LIB_MAMBA2_VARLENSTATES_H

#include "tilec/Mamba2/Mamba2.h"

#include <array>
#include <cstdint>

namespace tilec::mamba2::detail {

/// Sequence `sequence` of validated cu_seqlens, in the kernel's terms.
struct VarlenStateLaunch {
  /// The chunk of the sequence's last step.
  int64_t chunk = 0;
  /// The sequence's first and last step within that chunk (first 0 when the
  /// sequence started in an earlier chunk).
  int32_t first = 0, last = 0;
  /// Whether the state entering the chunk is the sequence's: it started in
  /// an earlier chunk, or it is sequence 0 starting at step 0 (whose state
  /// entering chunk 0 is the initial state).
  bool hasEntering = false;
};

VarlenStateLaunch varlenStateLaunch(const Problem &problem,
                                    const Tensor &cuSeqlens,
                                    int64_t sequence);

/// The kernel's views for one launch (varlen_state.mlir's header says what
/// each holds), into validated tensors of the pass: x, B; dt_chunks and G
/// (batch, heads, nchunks, chunk); the states entering each chunk (batch,
/// nchunks, heads, headdim, dstate); the varlen states.
struct VarlenStateViews {
  Tensor x, B, dtChunks, G, entering, varlen;
};

VarlenStateViews varlenStateViews(const Problem &problem,
                                  const VarlenStateLaunch &launch,
                                  int64_t sequence, const Tensor &x,
                                  const Tensor &B, const Tensor &dtChunks,
                                  const Tensor &G, const Tensor &states,
                                  const Tensor &varlenStates);

/// The grid of one launch: (ceil(headdim / blockP) * ceil(dstate / blockN),
/// heads, 1).
std::array<int64_t, 3> varlenStateGrid(const Problem &problem, int64_t blockP,
                                       int64_t blockN);

} // namespace tilec::mamba2::detail

#endif // TILEC_LIB_MAMBA2_VARLENSTATES_H
