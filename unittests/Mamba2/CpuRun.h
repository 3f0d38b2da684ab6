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

#include <vector>

namespace tilec::mamba2::testing {

/// Poisons host's outputs (HostProblem::poisonOutputs), then runs forwardCpu
/// on its inputs and outputs; a failure carries forwardCpu's message.
ForwardRun cpuRun(const TileConfig &tiles = {},
                  ForwardStructure structure = ForwardStructure::FourKernels);

/// Poisons host's outputs, runs forwardCpu on `in` and `out` (with
/// `options`) and succeeds when it fails with a message holding every one of
/// `parts` and leaves y, the final state and the varlen states of `host` as
/// poisoned, bit for bit: the validation tests' check.
::testing::AssertionResult
refusedUntouched(HostProblem &host, const Inputs &in, const Outputs &out,
                 const std::vector<const char *> &parts,
                 const CpuOptions &options = {});

} // namespace tilec::mamba2::testing

#endif // TILEC_UNITTESTS_MAMBA2_CPURUN_H
