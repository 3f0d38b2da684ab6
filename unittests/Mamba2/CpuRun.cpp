//===- CpuRun.cpp - forwardCpu as the run of the shared check -------------===//

#include "CpuRun.h"

#include <cstring>
#include <string>

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

::testing::AssertionResult tilec::mamba2::testing::refusedUntouched(
    HostProblem &host, const Inputs &in, const Outputs &out,
    const std::vector<const char *> &parts, const CpuOptions &options) {
  host.poisonOutputs();
  const HostProblem poisoned = host;
  Status status = forwardCpu(host.problem, in, out, options);
  if (status.ok())
    return ::testing::AssertionFailure() << "forwardCpu accepted the inputs";
  for (const char *part : parts)
    if (status.message().find(part) == std::string::npos)
      return ::testing::AssertionFailure()
             << "'" << part << "' is not in: " << status.message();
  auto same = [](const auto &a, const auto &b) {
    return a.size() == b.size() &&
           std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
  };
  if (!same(host.y, poisoned.y) || !same(host.yHalf, poisoned.yHalf) ||
      !same(host.finalState, poisoned.finalState) ||
      !same(host.varlenStates, poisoned.varlenStates))
    return ::testing::AssertionFailure()
           << "an output was written: " << status.message();
  return ::testing::AssertionSuccess();
}
