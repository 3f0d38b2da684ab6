//===- GpuTesting.h - support for the Mamba-2 GPU tests ---------*- C++ -*-===//
//
// The driver entry points the tests use (through the tilec runtime, so the
// tests start without a driver and skip), a fixture that makes device 0's
// primary context current or skips, device buffers, a HostProblem copied to
// the device, and the f64 reference parallelized over (batch, head).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_UNITTESTS_MAMBA2GPU_GPUTESTING_H
#define TILEC_UNITTESTS_MAMBA2GPU_GPUTESTING_H

#include "tilec/mamba2/Mamba2Gpu.h"
#include "tilec/mamba2/Reference.h"
#include "tilec/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tilec::mamba2::testing {

struct Driver {
  decltype(&::cuGetErrorName) getErrorName = nullptr;
  decltype(&::cuDeviceGet) deviceGet = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primaryCtxRetain = nullptr;
  decltype(&::cuCtxSetCurrent) ctxSetCurrent = nullptr;
  decltype(&::cuCtxCreate) ctxCreate = nullptr;
  decltype(&::cuCtxDestroy) ctxDestroy = nullptr;
  decltype(&::cuMemAlloc) memAlloc = nullptr;
  decltype(&::cuMemFree) memFree = nullptr;
  decltype(&::cuMemAllocHost) memAllocHost = nullptr;
  decltype(&::cuMemFreeHost) memFreeHost = nullptr;
  decltype(&::cuMemcpyHtoD) memcpyHtoD = nullptr;
  decltype(&::cuMemcpyDtoH) memcpyDtoH = nullptr;
  decltype(&::cuMemsetD32) memsetD32 = nullptr;
  decltype(&::cuStreamCreate) streamCreate = nullptr;
  decltype(&::cuStreamDestroy) streamDestroy = nullptr;
  decltype(&::cuStreamSynchronize) streamSynchronize = nullptr;
  decltype(&::cuStreamBeginCapture) streamBeginCapture = nullptr;
  decltype(&::cuStreamEndCapture) streamEndCapture = nullptr;
  decltype(&::cuGraphInstantiateWithFlags) graphInstantiate = nullptr;
  decltype(&::cuGraphLaunch) graphLaunch = nullptr;
  decltype(&::cuGraphExecDestroy) graphExecDestroy = nullptr;
  decltype(&::cuGraphDestroy) graphDestroy = nullptr;
};

/// The driver, or null when there is none or no device; `why` says so.
const Driver *getDriver(std::string &why);

/// "CUDA_ERROR_X" for a driver result.
std::string resultName(CUresult result);

#define TILEC_CU_ASSERT(call)                                                  \
  do {                                                                         \
    CUresult tilec_cu_result = (call);                                         \
    ASSERT_EQ(tilec_cu_result, CUDA_SUCCESS)                                   \
        << #call << ": "                                                       \
        << ::tilec::mamba2::testing::resultName(tilec_cu_result);              \
  } while (0)

/// Makes device 0's primary context current for every test, or skips the
/// test when the runtime reports no driver or no device.
class GpuTest : public ::testing::Test {
protected:
  void SetUp() override;
  const Driver &cu() const { return *driver; }
  /// Makes the fixture's context current on the calling thread.
  void makeCurrent() const;

  const Driver *driver = nullptr;
  CUcontext context = nullptr;
};

/// GpuTest with a non-blocking stream of the fixture's context.
class GpuStreamTest : public GpuTest {
protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    TILEC_CU_ASSERT(cu().streamCreate(&stream, CU_STREAM_NON_BLOCKING));
  }
  void TearDown() override {
    if (stream)
      cu().streamDestroy(stream);
  }

  CUstream stream = nullptr;
};

/// Device memory freed on destruction.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(const Driver &cu, size_t bytes);
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  DeviceBuffer(DeviceBuffer &&other) noexcept { *this = std::move(other); }
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  ~DeviceBuffer();

  void *get() const { return reinterpret_cast<void *>(pointer); }
  CUdeviceptr address() const { return pointer; }
  size_t size() const { return bytes; }
  bool ok() const { return pointer != 0; }

private:
  const Driver *cu = nullptr;
  CUdeviceptr pointer = 0;
  size_t bytes = 0;
};

/// A HostProblem's buffers copied to the device, with descriptors of the
/// same shapes and strides pointing there.
class DeviceProblem {
public:
  DeviceProblem(const Driver &cu, HostProblem &host);
  /// Whether every buffer was allocated and copied.
  bool ok() const { return allocated; }
  /// Copies the host inputs (again) to the device.
  ::testing::AssertionResult upload();
  /// Fills y and the final state with NaN on the device.
  ::testing::AssertionResult poisonOutputs();
  /// Copies y and the final state into the HostProblem.
  ::testing::AssertionResult download();

  Inputs inputs(bool withInitialState) const;
  Outputs outputs() const;

private:
  const Driver &cu;
  HostProblem &host;
  DeviceBuffer x, dt, A, B, C, D, initialState, y, finalState;
  bool allocated = false;
};

/// referenceForward, one (batch, head) per task on every core.
ReferenceResult parallelReference(HostProblem &host, bool withInitialState);

/// A seed for this run: TILEC_TEST_SEED when set (to repeat a run), else
/// random; printed either way.
uint64_t testSeed();

/// Checks that every element of y and the final state is finite and that
/// both are within `bound` (norm-wise relative) of the reference.
::testing::AssertionResult matchesReference(HostProblem &host,
                                            const ReferenceResult &want,
                                            double bound = 1e-2);

/// The whole check on fresh random inputs (seed printed): copy to the
/// device, poison the outputs, forwardGpu with `options` on `stream`, wait,
/// compare with the parallel f64 reference (matchesReference).
::testing::AssertionResult
forwardMatchesReference(const Driver &cu, const Problem &problem,
                        bool withInitialState, CUstream stream,
                        const GpuOptions &options = {});

} // namespace tilec::mamba2::testing

#endif // TILEC_UNITTESTS_MAMBA2GPU_GPUTESTING_H
