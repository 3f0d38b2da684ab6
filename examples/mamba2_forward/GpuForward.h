//===- GpuForward.h - the example's GPU device ------------------*- C++ -*-===//

#ifndef TILEC_EXAMPLES_MAMBA2_FORWARD_GPUFORWARD_H
#define TILEC_EXAMPLES_MAMBA2_FORWARD_GPUFORWARD_H

#include "tilec/Mamba2/Mamba2.h"

namespace tilec::examples {

/// Whether the CUDA driver and a device are there; `why` says what is
/// missing when not.
bool gpuAvailable(std::string &why);

/// Copies the host inputs to device 0, runs forwardGpu there, waits for it,
/// and copies y and the final state back into the host outputs.
/// `kernelMs` is the time from launch to completion, copies excluded.
mamba2::Status forwardOnGpu(const mamba2::Problem &problem,
                            const mamba2::Inputs &inputs,
                            const mamba2::Outputs &outputs, double &kernelMs);

} // namespace tilec::examples

#endif // TILEC_EXAMPLES_MAMBA2_FORWARD_GPUFORWARD_H
