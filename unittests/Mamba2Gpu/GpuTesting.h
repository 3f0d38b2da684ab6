//===- GpuTesting.h - support for the Mamba-2 GPU tests ---------*- C++ -*-===//
//
// The driver entry points the tests use (through the tilec runtime, so the
// tests start without a driver), the one GPU fixture (device 0's primary
// context current, or skipped when there is no driver or no device, and
// failed on any other driver failure), device buffers with guard zones, a
// HostProblem copied to the device, and the forward check of
// ForwardCheck.h run on the GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_UNITTESTS_MAMBA2GPU_GPUTESTING_H
#define TILEC_UNITTESTS_MAMBA2GPU_GPUTESTING_H

#include "../Mamba2/ForwardCheck.h"
#include "CApiTesting.h"

#include "tilec/Mamba2/Mamba2Gpu.h"
#include "tilec/Mamba2/Reference.h"
#include "tilec/Runtime/Runtime.h"

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

/// What a GPU test does after the runtime set up the driver.
enum class GpuDecision { Run, Skip, Fail };

/// Skip only where there is no GPU to test: no driver library
/// (TILEC_ERROR_NO_DRIVER) or a driver that sees no device
/// (TILEC_ERROR_NO_DEVICE). Any other failure (a driver too old or broken,
/// a missing entry point, cuInit failing) is a failure of the test.
GpuDecision decideOnSetup(tilec_status status);

/// The driver, or null; then `status` says why (one of tilec_status, and
/// TILEC_ERROR_DRIVER for a missing entry point) and `why` in words.
const Driver *getDriver(tilec_status &status, std::string &why);

/// "CUDA_ERROR_X" for a driver result.
std::string resultName(CUresult result);

#define TILEC_CU_ASSERT(call)                                                  \
  do {                                                                         \
    CUresult tilec_cu_result = (call);                                         \
    ASSERT_EQ(tilec_cu_result, CUDA_SUCCESS)                                   \
        << #call << ": "                                                       \
        << ::tilec::mamba2::testing::resultName(tilec_cu_result);              \
  } while (0)

/// Makes device 0's primary context current for every test; skips or fails
/// the test as decideOnSetup says when the driver cannot be set up.
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

/// Device memory freed on destruction. With `guardBytes`, the buffer has
/// that many bytes (rounded up to 256, to keep get()'s alignment) before
/// and after the part get() points to, filled with kGuardWord by fillGuards
/// and checked by checkGuards: a kernel writing past either end of an output
/// shows. Guarded buffers hold whole 4-byte words.
class DeviceBuffer {
public:
  static constexpr unsigned kGuardWord = 0x7fc0beefu; // a NaN nobody writes

  DeviceBuffer() = default;
  DeviceBuffer(const Driver &cu, size_t bytes, size_t guardBytes = 0);
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  DeviceBuffer(DeviceBuffer &&other) noexcept { *this = std::move(other); }
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  ~DeviceBuffer();

  void *get() const { return reinterpret_cast<void *>(address()); }
  CUdeviceptr address() const { return pointer ? pointer + guard : 0; }
  size_t size() const { return bytes; }
  bool ok() const { return pointer != 0; }

  /// Fills the guard zones with kGuardWord.
  ::testing::AssertionResult fillGuards() const;
  /// Whether every guard word is still kGuardWord.
  ::testing::AssertionResult checkGuards(const char *name) const;

private:
  const Driver *cu = nullptr;
  CUdeviceptr pointer = 0;
  size_t bytes = 0, guard = 0;
};

/// A HostProblem's buffers copied to the device, with descriptors of the
/// same shapes and strides pointing there (cu_seqlens stays in host memory,
/// where the library reads it); y, the final state and the varlen states
/// have guard zones of kOutputGuard bytes on either side.
constexpr size_t kOutputGuard = 4096;

class DeviceProblem {
public:
  DeviceProblem(const Driver &cu, HostProblem &host);
  /// Whether every buffer was allocated and copied.
  bool ok() const { return allocated; }
  /// Copies the host inputs (again) to the device.
  ::testing::AssertionResult upload();
  /// Fills y, the final state and the varlen states with NaN on the
  /// device, and their guard zones with DeviceBuffer::kGuardWord.
  ::testing::AssertionResult poisonOutputs();
  /// Whether the guard zones around the outputs are intact.
  ::testing::AssertionResult checkGuards() const;
  /// Copies y, the final state and the varlen states into the HostProblem.
  ::testing::AssertionResult download();

  Inputs inputs(bool withInitialState) const;
  Outputs outputs() const;

private:
  const Driver &cu;
  HostProblem &host;
  DeviceBuffer x, dt, A, B, C, D, initialState, z, dtBias, seqIdx,
      cuSeqlens, y, finalState, varlenStates;
  bool allocated = false;
};

/// forwardGpu as the forward run of the shared check: copies the inputs to
/// the device, poisons the outputs and their guard zones, runs on `stream`
/// with `options`, waits, checks the guard zones and copies the outputs back.
ForwardRun gpuRun(const Driver &cu, CUstream stream,
                  const GpuOptions &options = {});

/// A CUDA graph of one forwardGpu call on `stream`, instantiated. The
/// capture is in global mode, the strictest: any call unsafe during capture
/// (a host read of device memory, a synchronisation) fails it.
class CapturedForward {
public:
  explicit CapturedForward(const Driver &cu) : cu(cu) {}
  CapturedForward(const CapturedForward &) = delete;
  CapturedForward &operator=(const CapturedForward &) = delete;
  ~CapturedForward();
  ::testing::AssertionResult capture(CUstream stream, const Problem &problem,
                                     const Inputs &inputs,
                                     const Outputs &outputs,
                                     const GpuOptions &options);
  /// Launches the graph on `stream` and waits for it.
  ::testing::AssertionResult replay(CUstream stream) const;

private:
  const Driver &cu;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
};

/// `shapes` and, last, `large`: a shared list of shapes plus one the
/// interpreter would take too long on.
std::vector<Shape> withLargeShape(std::vector<Shape> shapes,
                                  const Shape &large);

/// C ABI arguments (CApiTesting.h) on a DeviceProblem's buffers, with its
/// initial and final state.
CArguments deviceArguments(const DeviceProblem &device, const Problem &p);

/// forwardMatchesReference with gpuRun.
::testing::AssertionResult
gpuForwardMatchesReference(const Driver &cu, const Problem &problem,
                           bool withInitialState, CUstream stream,
                           const GpuOptions &options = {},
                           const std::vector<BatchHead> &sample = {},
                           const HostFeatures &features = {});

} // namespace tilec::mamba2::testing

#endif // TILEC_UNITTESTS_MAMBA2GPU_GPUTESTING_H
