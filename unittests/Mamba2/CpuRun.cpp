//===- CpuRun.cpp - forwardCpu as the run of the shared check -------------===//

#include "CpuRun.h"

using namespace tilec::mamba2;

tilec::mamba2::testing::ForwardRun
tilec::mamba2::testing::cpuRun(const TileConfig &tiles,
                               ForwardStructure structure) {
  return [tiles, structure](HostProblem &host, bool withInitialState) {
    host.poisonOutputs();
    CpuOptions options;
    options.tiles = tiles;
    options.structure = structure;
    Status status = forwardCpu(host.problem, host.inputs(withInitialState),
                               host.outputs(), options);
    if (!status.ok())
      return ::testing::AssertionFailure() << "forwardCpu: " << status.message();
    return ::testing::AssertionSuccess();
  };
}
