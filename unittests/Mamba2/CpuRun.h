//===- CpuRun.h - forwardCpu as the run of the shared check -----*- C++ -*-===//
//
// The CPU tests' forward run (ForwardCheck.h's ForwardRun): forwardCpu on a
// HostProblem's tensors with the given tiles and structure. Apart from
// ForwardCheck because that library is shared with the GPU tests, which do
// not link the CPU path.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_UNITTESTS_MAMBA2_CPURUN_H
#define TILEC_UNITTESTS_MAMBA2_CPURUN_H

#include "ForwardCheck.h"

namespace tilec::mamba2::testing {

/// Poisons host's outputs (HostProblem::poisonOutputs), then runs forwardCpu
/// on its inputs and outputs; a failure carries forwardCpu's message.
ForwardRun cpuRun(const TileConfig &tiles = {},
                  ForwardStructure structure = ForwardStructure::FourKernels);

} // namespace tilec::mamba2::testing

#endif // TILEC_UNITTESTS_MAMBA2_CPURUN_H
