//===- StateUpdateGpu.h - stateUpdateGpu with C ABI status codes -*- C++
//-*-===//
//
// The one implementation behind stateUpdateGpu (Mamba2Gpu.h) and
// tilec_mamba2_state_update (tilec_mamba2.h), as Forward.h is for the
// forward pass.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2GPU_STATEUPDATEGPU_H
#define TILEC_LIB_MAMBA2GPU_STATEUPDATEGPU_H

#include "tilec/Mamba2/Mamba2Gpu.h"
#include "tilec/Mamba2/StateUpdate.h"
#include "tilec/Mamba2/tilec_mamba2.h"

#include <string>

namespace tilec::mamba2::gpu {

/// stateUpdateGpu; on failure `message` says why.
tilec_mamba2_status stateUpdate(const DecodeProblem &problem,
                                const StateUpdateArgs &args, CUstream stream,
                                std::string &message);

/// Loads the state_update kernel into the current context (part of
/// prepareGpu); on failure `message` says why.
tilec_mamba2_status prepareStateUpdate(std::string &message);

} // namespace tilec::mamba2::gpu

#endif // TILEC_LIB_MAMBA2GPU_STATEUPDATEGPU_H
