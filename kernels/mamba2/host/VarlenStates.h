//===- VarlenStates.h - the launch of varlen_state --------------*- C++ -*-===//
//
// The state at the end of each sequence of cu_seqlens (Outputs::varlenStates)
// is one launch of varlen_state.mlir over every sequence: each program reads
// its sequence's offsets on the device. Its grid is worked out here once, for
// the CPU and the GPU paths alike.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2_VARLENSTATES_H
#define TILEC_LIB_MAMBA2_VARLENSTATES_H

#include "tilec/Mamba2/Mamba2.h"

#include <array>
#include <cstdint>

namespace tilec::mamba2::detail {

/// The grid of the launch: (numSequences * ceil(headdim / blockP) *
/// ceil(dstate / blockN), heads, 1); the product saturates at INT64_MAX
/// (which the GPU path's grid check refuses).
std::array<int64_t, 3> varlenStateGrid(const Problem &problem,
                                       int64_t numSequences, int64_t blockP,
                                       int64_t blockN);

} // namespace tilec::mamba2::detail

#endif // TILEC_LIB_MAMBA2_VARLENSTATES_H
