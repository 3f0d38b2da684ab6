//===- StateDtypeTest.cpp - bf16 states between chunks on the GPU ---------===//
//
// forwardGpu with Inputs::stateDtype = BF16 (the _sbf16 instances of
// state_passing, fwd_pass_state and compute_out), both structures, on fresh
// random inputs with initial states: the same check as on the CPU
// (StateDtypeCheck.h: chunk states bf16(the f32 run's) exactly, final state
// the f32 run's bit for bit, y within the bf16 states' bound of the f32
// run's, which passes the f64 check), on shapes of every chunk size, ragged
// and not, one of them of a real layer's size, and the varlen states read
// from bf16 states (varlen_state_sbf16). Skips without a driver or a
// device.
//
//===----------------------------------------------------------------------===//

#include "GpuTesting.h"

#include "../Mamba2/StateDtypeCheck.h"

#include <tuple>
#include <vector>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

/// forwardGpu with the states between chunks in the dtype asked for, in a
/// device buffer with guard zones that is copied into `chunkStates`.
StateDtypeRun gpuStatesRun(const Driver &cu, CUstream stream,
                           ForwardStructure structure) {
  return [&cu, stream, structure](
             HostProblem &host, DType stateDtype,
             std::vector<uint8_t> &chunkStates) -> ::testing::AssertionResult {
    const Problem &p = host.problem;
    DeviceProblem device(cu, host);
    DeviceBuffer states(cu, chunkStates.size(), kOutputGuard);
    if (!device.ok() || !states.ok())
      return ::testing::AssertionFailure() << "cannot allocate the buffers";
    if (auto result = device.upload(); !result)
      return result;
    if (auto result = device.poisonOutputs(); !result)
      return result;
    if (auto result = states.fillGuards(); !result)
      return result;
    if (CUresult result = cu.memcpyHtoD(states.address(), chunkStates.data(),
                                        chunkStates.size()))
      return ::testing::AssertionFailure()
             << "poisoning the chunk states: " << resultName(result);
    Inputs in = device.inputs(true);
    in.stateDtype = stateDtype;
    Outputs out = device.outputs();
    out.chunkStates = Tensor::contiguous(
        states.get(), stateDtype,
        {p.batch, p.numChunks(), p.heads, p.headdim, p.dstate});
    GpuOptions options;
    options.structure = structure;
    Status status = forwardGpu(p, in, out, options, stream);
    if (!status.ok())
      return ::testing::AssertionFailure()
             << "forwardGpu: " << status.message();
    if (CUresult result = cu.streamSynchronize(stream))
      return ::testing::AssertionFailure()
             << "the kernels failed: " << resultName(result);
    if (auto result = device.checkGuards(); !result)
      return result;
    if (auto result = states.checkGuards("chunk states"); !result)
      return result;
    if (CUresult result = cu.memcpyDtoH(chunkStates.data(), states.address(),
                                        chunkStates.size()))
      return ::testing::AssertionFailure()
             << "copying the chunk states back: " << resultName(result);
    return device.download();
  };
}

class StateDtype : public GpuStreamTest,
                   public ::testing::WithParamInterface<
                       std::tuple<Shape, ForwardStructure>> {};

TEST_P(StateDtype, Bf16StatesAreTheRoundedF32Ones) {
  auto [shape, structure] = GetParam();
  EXPECT_TRUE(
      bf16StatesMatch(shape.problem(), gpuStatesRun(cu(), stream, structure)));
}

// (batch, seqlen, groups, heads, dstate, headdim, chunk): every chunk size,
// ragged last chunks (300 = 4 * 64 + 44, 1000 = 7 * 128 + 104, 600 = 2 *
// 256 + 88), several groups, sizes off the tiles, and a layer's head size
// (dstate 128, headdim 64) over 16 chunks of 128.
const Shape kShapes[] = {{2, 300, 2, 4, 48, 32, 64},
                         {1, 1000, 1, 2, 64, 64, 128},
                         {1, 600, 2, 4, 32, 40, 256},
                         {2, 2048, 1, 4, 128, 64, 128}};

INSTANTIATE_TEST_SUITE_P(
    Shapes, StateDtype,
    ::testing::Combine(::testing::ValuesIn(kShapes),
                       ::testing::ValuesIn(forwardStructures())),
    [](const ::testing::TestParamInfo<std::tuple<Shape, ForwardStructure>>
           &info) {
      return shapeName(std::get<0>(info.param), true) + "_" +
             structureName(std::get<1>(info.param));
    });

// The states at the end of each sequence of cu_seqlens, read by
// varlen_state_sbf16 from the bf16 states (StateDtypeCheck.h).
using StateDtypeVarlen = GpuStreamTest;

TEST_F(StateDtypeVarlen, VarlenStatesReadTheBf16States) {
  EXPECT_TRUE(bf16VarlenStatesMatch(
      Shape{1, 1000, 2, 4, 32, 40, 128}.problem(),
      gpuStatesRun(cu(), stream, ForwardStructure::FourKernels)));
}

} // namespace
