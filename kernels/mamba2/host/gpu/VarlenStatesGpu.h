//===- VarlenStatesGpu.h - the varlen states on the GPU ---------*- C++ -*-===//
//
// Outputs::varlenStates on the GPU: one launch of varlen_state per sequence
// of cu_seqlens (host memory), after the forward's kernels.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2GPU_VARLENSTATESGPU_H
#define TILEC_LIB_MAMBA2GPU_VARLENSTATESGPU_H

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/tilec_mamba2.h"

#include <cuda.h>

#include <string>

namespace tilec::mamba2::gpu {

/// Enqueues varlen_state for every sequence of the validated in.cuSeqlens,
/// writing `varlenStates` from the pass's dt_chunks and G (batch, heads,
/// nchunks, chunk) and states entering each chunk (batch, nchunks, heads,
/// headdim, dstate), all in device memory; on failure `message` says why.
tilec_mamba2_status launchVarlenStates(const Problem &problem,
                                       const Inputs &inputs,
                                       const Tensor &varlenStates,
                                       const Tensor &dtChunks, const Tensor &G,
                                       const Tensor &states, CUstream stream,
                                       std::string &message);

/// Loads the varlen_state kernel into the current context (part of
/// prepareGpu); on failure `message` says why.
tilec_mamba2_status prepareVarlenStates(std::string &message);

} // namespace tilec::mamba2::gpu

#endif // TILEC_LIB_MAMBA2GPU_VARLENSTATESGPU_H
