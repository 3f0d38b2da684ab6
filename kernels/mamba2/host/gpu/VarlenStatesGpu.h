//===- VarlenStatesGpu.h - the varlen states on the GPU ---------*- C++ -*-===//
//
// Outputs::varlenStates on the GPU: one launch of varlen_state for every
// sequence of cu_seqlens, after the forward's kernels. The kernel reads the
// offsets in device memory; the host never does.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2GPU_VARLENSTATESGPU_H
#define TILEC_LIB_MAMBA2GPU_VARLENSTATESGPU_H

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/tilec_mamba2.h"
#include "tilec/Runtime/Runtime.h"

#include <cuda.h>

#include <string>

namespace tilec::mamba2::gpu {

/// The grid of the launch for validated inputs with cu_seqlens, which the
/// forward checks against the driver's limits before launching anything.
tilec_grid varlenStatesGrid(const Problem &problem, const Inputs &inputs);

/// Enqueues varlen_state on `grid` (varlenStatesGrid's), writing
/// `varlenStates` from the validated inputs (x, B, seq_idx, cu_seqlens) and
/// the pass's dt_chunks and G (batch, heads, nchunks, chunk) and states
/// entering each chunk (batch, nchunks, heads, headdim, dstate), all in
/// device memory; on failure `message` says why.
tilec_mamba2_status launchVarlenStates(const Inputs &inputs,
                                       const Tensor &varlenStates,
                                       const tilec_view_f32_4d &dtChunks,
                                       const tilec_view_f32_4d &G,
                                       const tilec_view_f32_5d &states,
                                       const tilec_grid &grid,
                                       CUstream stream, std::string &message);
/// The same for bf16 states between chunks (Inputs::stateDtype; x in bf16).
tilec_mamba2_status launchVarlenStates(const Inputs &inputs,
                                       const Tensor &varlenStates,
                                       const tilec_view_f32_4d &dtChunks,
                                       const tilec_view_f32_4d &G,
                                       const tilec_view_bf16_5d &states,
                                       const tilec_grid &grid,
                                       CUstream stream, std::string &message);

/// Loads the varlen_state kernel into the current context (part of
/// prepareGpu); on failure `message` says why.
tilec_mamba2_status prepareVarlenStates(std::string &message);

} // namespace tilec::mamba2::gpu

#endif // TILEC_LIB_MAMBA2GPU_VARLENSTATESGPU_H
