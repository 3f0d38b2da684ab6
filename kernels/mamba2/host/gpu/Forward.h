//===- Forward.h - forwardGpu with C ABI status codes -----------*- C++ -*-===//
//
// The one implementation behind forwardGpu (Mamba2Gpu.h) and
// tilec_mamba2_forward (tilec_mamba2.h): each failure is named by a
// tilec_mamba2_status, which the C++ API drops and the C ABI returns.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2GPU_FORWARD_H
#define TILEC_LIB_MAMBA2GPU_FORWARD_H

#include "tilec/Mamba2/Mamba2Gpu.h"
#include "tilec/Mamba2/tilec_mamba2.h"

#include <string>

namespace tilec::mamba2::gpu {

/// forwardGpu; on failure `message` says why.
tilec_mamba2_status forward(const Problem &problem, const Inputs &inputs,
                            const Outputs &outputs, const GpuOptions &options,
                            CUstream stream, std::string &message);

/// gpuWorkspaceSize; on failure `message` says why.
tilec_mamba2_status workspaceSize(const Problem &problem,
                                  ForwardStructure structure, size_t &bytes,
                                  std::string &message);

/// prepareGpu; on failure `message` says why.
tilec_mamba2_status prepare(std::string &message);

} // namespace tilec::mamba2::gpu

#endif // TILEC_LIB_MAMBA2GPU_FORWARD_H
