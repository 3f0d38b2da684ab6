//===- StateUpdateTest.cpp - the Mamba-2 decode step on the GPU -*- C++ -*-===//
//
// stateUpdateGpu against the f64 recurrence (../Mamba2/DecodeCheck.h): 1000
// consecutive steps from a random state with every option, each option
// alone, a Mamba-2 2.7B-sized step, bitwise-identical states over two runs,
// capture in a CUDA graph, the C ABI on slices of one projection buffer,
// host pointers refused, and y's guard zones intact. Every test skips
// without a driver or a device.
//
//===----------------------------------------------------------------------===//

#include "GpuTesting.h"

#include "../Mamba2/DecodeCheck.h"
#include "tilec/Mamba2/tilec_mamba2.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

using D = DecodeOptions::D;
using StateUpdateGpuTest = GpuStreamTest;

/// A DecodeData's buffers on the device; y with guard zones.
class DeviceDecode {
public:
  DeviceDecode(const Driver &cu, DecodeData &host) : cu(cu), host(host) {
    auto make = [&](DeviceBuffer &buffer, size_t bytes, size_t guard = 0) {
      buffer = DeviceBuffer(cu, std::max<size_t>(bytes, 4), guard);
      allocated = allocated && buffer.ok();
    };
    make(state, host.stateBytes());
    make(x, host.x.size() * 2);
    make(z, host.z.size() * 2);
    make(dt, host.dt.size() * 4);
    make(A, host.A.size() * 4);
    make(Dskip, host.D.size() * 4);
    make(dtBias, host.dtBias.size() * 4);
    make(B, host.B.size() * 2);
    make(C, host.C.size() * 2);
    make(y, host.y.size() * 2, 4096);
    make(indices, host.indices.size() * 8);
  }
  bool ok() const { return allocated; }

  /// Copies every host buffer (`withState`: the state too) to the device.
  ::testing::AssertionResult upload(bool withState) {
    std::vector<std::tuple<const void *, size_t, const DeviceBuffer *>> copies =
        {{host.x.data(), host.x.size() * 2, &x},
         {host.z.data(), host.z.size() * 2, &z},
         {host.B.data(), host.B.size() * 2, &B},
         {host.C.data(), host.C.size() * 2, &C},
         {host.dt.data(), host.dt.size() * 4, &dt},
         {host.A.data(), host.A.size() * 4, &A},
         {host.D.data(), host.D.size() * 4, &Dskip},
         {host.dtBias.data(), host.dtBias.size() * 4, &dtBias},
         {host.indices.data(), host.indices.size() * 8, &indices}};
    if (withState)
      copies.push_back({host.stateData(), host.stateBytes(), &state});
    for (auto [from, bytes, to] : copies)
      if (bytes)
        if (CUresult result = cu.memcpyHtoD(to->address(), from, bytes))
          return ::testing::AssertionFailure()
                 << "cuMemcpyHtoD: " << resultName(result);
    return ::testing::AssertionSuccess();
  }

  /// y := NaN on the device, its guard zones filled.
  ::testing::AssertionResult poisonY() {
    host.poisonY();
    if (CUresult result =
            cu.memcpyHtoD(y.address(), host.y.data(), host.y.size() * 2))
      return ::testing::AssertionFailure() << resultName(result);
    return y.fillGuards();
  }

  /// The state and y back into the host buffers; y's guards checked.
  ::testing::AssertionResult download() {
    if (auto guards = y.checkGuards("y"); !guards)
      return guards;
    for (auto [to, from, bytes] :
         {std::tuple{host.stateData(), &state, host.stateBytes()},
          std::tuple{static_cast<void *>(host.y.data()), &y,
                     host.y.size() * 2}})
      if (CUresult result = cu.memcpyDtoH(to, from->address(), bytes))
        return ::testing::AssertionFailure() << resultName(result);
    return ::testing::AssertionSuccess();
  }

  /// host.args() with every data pointer on the device, the state indices
  /// too (the kernel reads them there).
  StateUpdateArgs args() const {
    StateUpdateArgs a = host.args();
    a.state.data = state.get();
    a.x.data = x.get();
    a.dt.data = dt.get();
    a.A.data = A.get();
    a.B.data = B.get();
    a.C.data = C.get();
    if (a.D)
      a.D->data = Dskip.get();
    if (a.z)
      a.z->data = z.get();
    if (a.dtBias)
      a.dtBias->data = dtBias.get();
    a.y.data = y.get();
    if (a.stateIndices)
      a.stateIndices = static_cast<const int64_t *>(indices.get());
    return a;
  }

private:
  const Driver &cu;
  DecodeData &host;
  DeviceBuffer state, x, z, dt, A, Dskip, dtBias, B, C, y, indices;
  bool allocated = true;
};

/// `steps` GPU steps beside the f64 recurrence, each checked.
void runSteps(const Driver &cu, CUstream stream, DecodeData &data, int steps) {
  DeviceDecode device(cu, data);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload(true));
  ReferenceDecodeState reference = startReference(data);
  for (int step = 0; step < steps; ++step) {
    if (step) {
      data.drawStep();
      ASSERT_TRUE(device.upload(false));
    }
    ASSERT_TRUE(
        referenceStateUpdate(data.problem, data.args(), reference).ok());
    ASSERT_TRUE(device.poisonY());
    Status status = stateUpdateGpu(data.problem, device.args(), stream);
    ASSERT_TRUE(status.ok()) << status.message();
    TILEC_CU_ASSERT(cu.streamSynchronize(stream));
    ASSERT_TRUE(device.download());
    ::testing::AssertionResult match = matchesReference(data, reference);
    ASSERT_TRUE(match) << "step " << step;
    if (step == steps - 1)
      std::printf("after %d steps: %s\n", steps, match.message());
  }
}

TEST_F(StateUpdateGpuTest, ThousandStepsWithEveryOption) {
  DecodeData data =
      DecodeData::random(DecodeProblem{4, 8, 2, 40, 96, 11},
                         {true, true, true, D::PerChannel, true}, 61);
  runSteps(cu(), stream, data, 1000);
}

// The state in bf16 or f16, x, B, C, z and y in f16: 1000 steps with every
// option for each pair of dtypes but the default one; then one step with a
// half state, the f32 state's step rounded bit for bit (the kernel computes
// in f32 and rounds the stored state once).
TEST_F(StateUpdateGpuTest, DTypesThousandSteps) {
  for (auto [stateType, xType] :
       {std::pair{DType::BF16, DType::BF16}, {DType::F16, DType::BF16},
        {DType::F32, DType::F16}, {DType::BF16, DType::F16},
        {DType::F16, DType::F16}}) {
    SCOPED_TRACE(std::string("state ") + dtypeName(stateType) + ", x " +
                 dtypeName(xType));
    DecodeData data = DecodeData::random(
        DecodeProblem{4, 8, 2, 40, 96, 11},
        {true, true, true, D::PerChannel, true, stateType, xType}, 63);
    runSteps(cu(), stream, data, 1000);
  }
}

TEST_F(StateUpdateGpuTest, HalfStatesOneStepIsTheF32StepRounded) {
  ASSERT_TRUE(prepareGpu().ok());
  for (DType dtype : {DType::BF16, DType::F16}) {
    SCOPED_TRACE(dtypeName(dtype));
    DecodeOptions options{true, true, true, D::PerChannel, true, dtype};
    const DecodeProblem p{4, 8, 2, 40, 96, 11};
    DecodeData half = DecodeData::random(p, options, 64);
    options.stateDType = DType::F32;
    DecodeData full = DecodeData::random(p, options, 64);
    ASSERT_EQ(half.x, full.x);
    for (size_t i = 0; i < full.state.size(); ++i)
      full.state[i] = float(half.stateValue(i));
    for (DecodeData *data : {&half, &full}) {
      DeviceDecode device(cu(), *data);
      ASSERT_TRUE(device.ok());
      ASSERT_TRUE(device.upload(true));
      ASSERT_TRUE(device.poisonY());
      Status status = stateUpdateGpu(p, device.args(), stream);
      ASSERT_TRUE(status.ok()) << status.message();
      TILEC_CU_ASSERT(cu().streamSynchronize(stream));
      ASSERT_TRUE(device.download());
    }
    for (size_t i = 0; i < full.state.size(); ++i) {
      const uint16_t want = dtype == DType::BF16 ? toBF16(full.state[i])
                                                 : toF16(full.state[i]);
      ASSERT_EQ(half.stateHalf[i], want)
          << "element " << i << ": " << half.stateValue(i) << ", want "
          << full.state[i] << " rounded";
    }
    EXPECT_EQ(half.y, full.y);
  }
}

TEST_F(StateUpdateGpuTest, ThousandStepsWithoutOptions) {
  DecodeData data =
      DecodeData::random(DecodeProblem{3, 4, 1, 64, 128, 3}, {}, 62);
  runSteps(cu(), stream, data, 1000);
}

TEST_F(StateUpdateGpuTest, EachOption) {
  const DecodeOptions cases[] = {{true, false, false, D::None, false},
                                 {false, true, false, D::None, false},
                                 {false, false, true, D::None, false},
                                 {false, false, false, D::PerHead, false},
                                 {false, false, false, D::PerChannel, false},
                                 {false, false, false, D::None, true}};
  int i = 0;
  for (const DecodeOptions &options : cases) {
    SCOPED_TRACE("option case " + std::to_string(i));
    DecodeData data = DecodeData::random(
        DecodeProblem{3, 4, 2, 24, 40, options.indices ? 8 : 3}, options,
        70 + i++);
    runSteps(cu(), stream, data, 20);
  }
}

TEST_F(StateUpdateGpuTest, Mamba2_2p7bStep) {
  // Mamba-2 2.7B: 80 heads of 64, dstate 128, one group; 16 sequences in a
  // cache of 64 slots.
  DecodeData data =
      DecodeData::random(DecodeProblem{16, 80, 1, 64, 128, 64},
                         {true, true, true, D::PerHead, true}, 81);
  runSteps(cu(), stream, data, 3);
}

TEST_F(StateUpdateGpuTest, EvenlySteppedRowsOfALargerState) {
  // Rows 2, 5, 8, 11 of thirteen; the rows between keep their bits.
  DecodeData data =
      DecodeData::random(DecodeProblem{4, 8, 2, 40, 96, 13},
                         {true, true, true, D::PerHead, true}, 84);
  data.indices = {2, 5, 8, 11};
  runSteps(cu(), stream, data, 10);
}

TEST_F(StateUpdateGpuTest, IndicesOutsideTheStateArePadding) {
  // Read on the device: rows 13 and -5 are outside the state, padding
  // entries as the padding slot -1 is (the reference's rule, the CPU
  // path's too); only rows 0 and 7 change.
  DecodeData data =
      DecodeData::random(DecodeProblem{5, 8, 2, 40, 96, 13},
                         {true, true, true, D::PerChannel, true}, 85);
  data.indices = {13, 7, -5, -1, 0};
  const std::vector<float> before = data.state;
  runSteps(cu(), stream, data, 3);
  const size_t row = data.state.size() / 13;
  for (size_t i = 0; i < data.state.size(); ++i) {
    if (i / row != 0 && i / row != 7) {
      ASSERT_EQ(data.state[i], before[i]) << "element " << i;
    }
  }
}

TEST_F(StateUpdateGpuTest, DefaultStream) {
  DecodeData data =
      DecodeData::random(DecodeProblem{2, 4, 1, 16, 16, 2}, {}, 82);
  runSteps(cu(), nullptr, data, 2);
}

TEST_F(StateUpdateGpuTest, BitwiseIdenticalAcrossRuns) {
  const DecodeProblem p{4, 8, 2, 64, 128, 9};
  const DecodeOptions options{true, true, true, D::PerChannel, true};
  std::vector<float> firstState;
  std::vector<uint16_t> firstY;
  for (int run = 0; run < 2; ++run) {
    DecodeData data = DecodeData::random(p, options, 91);
    DeviceDecode device(cu(), data);
    ASSERT_TRUE(device.ok());
    ASSERT_TRUE(device.upload(true));
    for (int step = 0; step < 50; ++step) {
      if (step) {
        // The uploads are cuMemcpyHtoD on the legacy stream, which does
        // not wait for the fixture's non-blocking stream: without this the
        // next step's inputs can overwrite the last step's while it runs
        // (seen under memcheck beside other GPU processes on the H200).
        TILEC_CU_ASSERT(cu().streamSynchronize(stream));
        data.drawStep();
        ASSERT_TRUE(device.upload(false));
      }
      ASSERT_TRUE(device.poisonY());
      ASSERT_TRUE(stateUpdateGpu(p, device.args(), stream).ok());
    }
    TILEC_CU_ASSERT(cu().streamSynchronize(stream));
    ASSERT_TRUE(device.download());
    if (run == 0) {
      firstState = data.state;
      firstY = data.y;
    } else {
      EXPECT_EQ(0, std::memcmp(firstState.data(), data.state.data(),
                               firstState.size() * sizeof(float)));
      EXPECT_EQ(firstY, data.y);
    }
  }
}

TEST_F(StateUpdateGpuTest, GraphCaptureAndReplay) {
  ASSERT_TRUE(prepareGpu().ok());
  DecodeData data =
      DecodeData::random(DecodeProblem{4, 8, 2, 64, 128, 12},
                         {true, true, true, D::PerHead, true}, 101);
  DeviceDecode device(cu(), data);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload(true));
  TILEC_CU_ASSERT(
      cu().streamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
  Status status = stateUpdateGpu(data.problem, device.args(), stream);
  CUgraph graph = nullptr;
  TILEC_CU_ASSERT(cu().streamEndCapture(stream, &graph));
  ASSERT_TRUE(status.ok()) << status.message();
  CUgraphExec exec = nullptr;
  TILEC_CU_ASSERT(cu().graphInstantiate(&exec, graph, 0));
  // Each replay is the next step, on the inputs of the moment, the state
  // indices included: the capture read none of them.
  ReferenceDecodeState reference = startReference(data);
  for (int replay = 0; replay < 5; ++replay) {
    if (replay) {
      data.drawStep();
      std::rotate(data.indices.begin(), data.indices.begin() + 1,
                  data.indices.end());
      ASSERT_TRUE(device.upload(false));
    }
    ASSERT_TRUE(
        referenceStateUpdate(data.problem, data.args(), reference).ok());
    ASSERT_TRUE(device.poisonY());
    TILEC_CU_ASSERT(cu().graphLaunch(exec, stream));
    TILEC_CU_ASSERT(cu().streamSynchronize(stream));
    ASSERT_TRUE(device.download());
    EXPECT_TRUE(matchesReference(data, reference)) << "replay " << replay;
  }
  cu().graphExecDestroy(exec);
  cu().graphDestroy(graph);
}

TEST_F(StateUpdateGpuTest, CApiOnSlicesOfOneProjection) {
  // x, z, B, C as slices of one (batch, width) bf16 projection, as a model's
  // in_proj output is split; dt f32 of its own.
  const DecodeProblem p{3, 4, 2, 16, 32, 3};
  const DecodeOptions options{true, true, true, D::PerHead, false};
  DecodeData data = DecodeData::random(p, options, 111);
  const int64_t xWidth = p.heads * p.headdim, bcWidth = p.groups * p.dstate;
  const int64_t width = 2 * xWidth + 2 * bcWidth;
  std::vector<uint16_t> projection(size_t(p.batch * width));
  for (int64_t b = 0; b < p.batch; ++b) {
    uint16_t *row = &projection[size_t(b * width)];
    std::memcpy(row, &data.z[size_t(b * xWidth)], size_t(xWidth) * 2);
    std::memcpy(row + xWidth, &data.x[size_t(b * xWidth)], size_t(xWidth) * 2);
    std::memcpy(row + 2 * xWidth, &data.B[size_t(b * bcWidth)],
                size_t(bcWidth) * 2);
    std::memcpy(row + 2 * xWidth + bcWidth, &data.C[size_t(b * bcWidth)],
                size_t(bcWidth) * 2);
  }
  DeviceDecode device(cu(), data);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(device.upload(true));
  DeviceBuffer proj(cu(), projection.size() * 2);
  ASSERT_TRUE(proj.ok());
  TILEC_CU_ASSERT(cu().memcpyHtoD(proj.address(), projection.data(),
                                  projection.size() * 2));
  ASSERT_TRUE(device.poisonY());
  const StateUpdateArgs a = device.args();
  char *base = static_cast<char *>(proj.get());
  auto describe = [](void *data, int32_t dtype, std::vector<int64_t> &shape,
                     std::vector<int64_t> &strides) {
    return tilec_mamba2_tensor{data, dtype, int32_t(shape.size()), shape.data(),
                               strides.data()};
  };
  std::vector<int64_t> rowsShape = {p.batch, p.heads, p.headdim},
                       rowsStrides = {width, p.headdim, 1},
                       groupsShape = {p.batch, p.groups, p.dstate},
                       groupsStrides = {width, p.dstate, 1},
                       stateShape = a.state.shape,
                       stateStrides = a.state.strides, dtShape = a.dt.shape,
                       dtStrides = a.dt.strides, headsShape = {p.heads},
                       one = {1}, yShape = a.y.shape, yStrides = a.y.strides;
  const tilec_mamba2_tensor
      state =
          describe(a.state.data, TILEC_MAMBA2_F32, stateShape, stateStrides),
      z = describe(base, TILEC_MAMBA2_BF16, rowsShape, rowsStrides),
      x = describe(base + xWidth * 2, TILEC_MAMBA2_BF16, rowsShape,
                   rowsStrides),
      B = describe(base + 4 * xWidth, TILEC_MAMBA2_BF16, groupsShape,
                   groupsStrides),
      C = describe(base + 4 * xWidth + 2 * bcWidth, TILEC_MAMBA2_BF16,
                   groupsShape, groupsStrides),
      dt = describe(a.dt.data, TILEC_MAMBA2_F32, dtShape, dtStrides),
      A = describe(a.A.data, TILEC_MAMBA2_F32, headsShape, one),
      Dv = describe(a.D->data, TILEC_MAMBA2_F32, headsShape, one),
      bias = describe(a.dtBias->data, TILEC_MAMBA2_F32, headsShape, one),
      y = describe(a.y.data, TILEC_MAMBA2_BF16, yShape, yStrides);
  const tilec_mamba2_decode_problem cp{p.batch,   p.heads,  p.groups,
                                       p.headdim, p.dstate, p.stateRows};
  ReferenceDecodeState reference = startReference(data);
  ASSERT_TRUE(referenceStateUpdate(p, data.args(), reference).ok());
  ASSERT_EQ(tilec_mamba2_state_update(&cp, &state, &x, &dt, &A, &B, &C, &Dv, &z,
                                      &bias, 1, nullptr, -1, &y, stream),
            TILEC_MAMBA2_SUCCESS)
      << tilec_mamba2_last_error();
  TILEC_CU_ASSERT(cu().streamSynchronize(stream));
  ASSERT_TRUE(device.download());
  EXPECT_TRUE(matchesReference(data, reference));
}

TEST_F(StateUpdateGpuTest, HostIndicesAreNotDevicePointers) {
  DecodeData data =
      DecodeData::random(DecodeProblem{2, 4, 1, 16, 16, 3},
                         {false, false, false, D::None, true}, 122);
  DeviceDecode device(cu(), data);
  ASSERT_TRUE(device.ok());
  StateUpdateArgs a = device.args();
  a.stateIndices = data.indices.data();
  Status status = stateUpdateGpu(data.problem, a, stream);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("state_indices: data pointer is"),
            std::string::npos)
      << status.message();
}

TEST_F(StateUpdateGpuTest, HostPointersAreNotDevicePointers) {
  DecodeData data =
      DecodeData::random(DecodeProblem{2, 4, 1, 16, 16, 2}, {}, 121);
  DeviceDecode device(cu(), data);
  ASSERT_TRUE(device.ok());
  StateUpdateArgs a = device.args();
  a.x.data = data.x.data();
  Status status = stateUpdateGpu(data.problem, a, stream);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("x: data pointer is"), std::string::npos)
      << status.message();
}

} // namespace
