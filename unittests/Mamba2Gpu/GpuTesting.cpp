//===- GpuTesting.cpp - support for the Mamba-2 GPU tests -------*- C++ -*-===//

#include "GpuTesting.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <tuple>
#include <type_traits>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

struct DriverLoad {
  Driver driver;
  tilec_status status = TILEC_SUCCESS;
  std::string why;
};

const DriverLoad &loadDriver() {
  static DriverLoad load;
  static std::once_flag once;
  std::call_once(once, [] {
    if (tilec_status status = tilec_init()) {
      load.status = status;
      load.why =
          std::string(tilec_status_name(status)) + ": " + tilec_last_error();
      return;
    }
    bool ok = true;
    auto need = [&](auto &entry, const char *symbol) {
      void *function = nullptr;
      if (ok && tilec_driver_entry_point(symbol, &function) == TILEC_SUCCESS) {
        entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(
            function);
        return;
      }
      if (ok)
        load.why = std::string("driver entry point ") + symbol + ": " +
                   tilec_last_error();
      ok = false;
    };
    Driver &d = load.driver;
    need(d.getErrorName, "cuGetErrorName");
    need(d.deviceGet, "cuDeviceGet");
    need(d.primaryCtxRetain, "cuDevicePrimaryCtxRetain");
    need(d.ctxSetCurrent, "cuCtxSetCurrent");
    need(d.ctxCreate, "cuCtxCreate");
    need(d.ctxDestroy, "cuCtxDestroy");
    need(d.memAlloc, "cuMemAlloc");
    need(d.memFree, "cuMemFree");
    need(d.memAllocHost, "cuMemAllocHost");
    need(d.memFreeHost, "cuMemFreeHost");
    need(d.memcpyHtoD, "cuMemcpyHtoD");
    need(d.memcpyDtoH, "cuMemcpyDtoH");
    need(d.memsetD32, "cuMemsetD32");
    need(d.streamCreate, "cuStreamCreate");
    need(d.streamDestroy, "cuStreamDestroy");
    need(d.streamSynchronize, "cuStreamSynchronize");
    need(d.streamBeginCapture, "cuStreamBeginCapture");
    need(d.streamEndCapture, "cuStreamEndCapture");
    need(d.graphInstantiate, "cuGraphInstantiateWithFlags");
    need(d.graphLaunch, "cuGraphLaunch");
    need(d.graphExecDestroy, "cuGraphExecDestroy");
    need(d.graphDestroy, "cuGraphDestroy");
    if (!ok)
      load.status = TILEC_ERROR_DRIVER;
  });
  return load;
}

} // namespace

GpuDecision tilec::mamba2::testing::decideOnSetup(tilec_status status) {
  switch (status) {
  case TILEC_SUCCESS:
    return GpuDecision::Run;
  case TILEC_ERROR_NO_DRIVER:
  case TILEC_ERROR_NO_DEVICE:
    return GpuDecision::Skip;
  default:
    return GpuDecision::Fail;
  }
}

const Driver *tilec::mamba2::testing::getDriver(tilec_status &status,
                                                std::string &why) {
  const DriverLoad &load = loadDriver();
  status = load.status;
  why = load.why;
  return status == TILEC_SUCCESS ? &load.driver : nullptr;
}

std::string tilec::mamba2::testing::resultName(CUresult result) {
  tilec_status status;
  std::string why;
  const Driver *cu = getDriver(status, why);
  const char *name = nullptr;
  if (cu && cu->getErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  return "CUDA error " + std::to_string(result);
}

void GpuTest::SetUp() {
  tilec_status status;
  std::string why;
  driver = getDriver(status, why);
  switch (decideOnSetup(status)) {
  case GpuDecision::Run:
    break;
  case GpuDecision::Skip:
    GTEST_SKIP() << "no CUDA driver or device: " << why;
  case GpuDecision::Fail:
    GTEST_FAIL() << "the CUDA driver is there but cannot be set up: " << why;
  }
  CUdevice device;
  TILEC_CU_ASSERT(driver->deviceGet(&device, 0));
  // Retained for the life of the process: every test shares it, as a
  // program using the CUDA runtime would.
  TILEC_CU_ASSERT(driver->primaryCtxRetain(&context, device));
  makeCurrent();
}

void GpuTest::makeCurrent() const {
  TILEC_CU_ASSERT(driver->ctxSetCurrent(context));
}

DeviceBuffer::DeviceBuffer(const Driver &cu, size_t bytes, size_t guardBytes)
    : cu(&cu), guard((guardBytes + 255) / 256 * 256) {
  if (cu.memAlloc(&pointer, bytes + 2 * guard) != CUDA_SUCCESS)
    pointer = 0;
  else
    this->bytes = bytes;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  std::swap(cu, other.cu);
  std::swap(pointer, other.pointer);
  std::swap(bytes, other.bytes);
  std::swap(guard, other.guard);
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (pointer)
    cu->memFree(pointer);
}

::testing::AssertionResult DeviceBuffer::fillGuards() const {
  for (CUdeviceptr at : {pointer, address() + bytes})
    if (CUresult result = guard ? cu->memsetD32(at, kGuardWord, guard / 4)
                                : CUDA_SUCCESS)
      return ::testing::AssertionFailure()
             << "filling the guard zones: " << resultName(result);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult DeviceBuffer::checkGuards(const char *name) const {
  if (!guard)
    return ::testing::AssertionSuccess();
  std::vector<uint32_t> before(guard / 4), after(guard / 4);
  for (auto [to, from] : {std::pair{&before, pointer},
                          std::pair{&after, address() + bytes}})
    if (CUresult result = cu->memcpyDtoH(to->data(), from, guard))
      return ::testing::AssertionFailure()
             << "reading the guard zones: " << resultName(result);
  for (size_t i = 0; i < before.size(); ++i)
    if (before[i] != kGuardWord)
      return ::testing::AssertionFailure()
             << name << ": written " << guard - 4 * i
             << " bytes before its start";
  for (size_t i = after.size(); i-- > 0;)
    if (after[i] != kGuardWord)
      return ::testing::AssertionFailure()
             << name << ": written " << 4 * i + 4 << " bytes past its end";
  return ::testing::AssertionSuccess();
}

DeviceProblem::DeviceProblem(const Driver &cu, HostProblem &host)
    : cu(cu), host(host) {
  auto allocate = [&](DeviceBuffer &buffer, size_t bytes) {
    buffer = DeviceBuffer(cu, bytes);
    return buffer.ok();
  };
  // Guarded buffers hold whole words: a 16-bit y of an odd size gets one
  // more element, which download() does not copy back.
  const size_t yBytes =
      !host.yHalf.empty() ? (host.yHalf.size() * 2 + 3) / 4 * 4
                          : host.y.size() * 4;
  allocated =
      allocate(x, host.storedBytes(host.x, host.xWide)) &&
      allocate(dt, host.dtHalf.empty() ? host.dt.size() * 4
                                       : host.dtHalf.size() * 2) &&
      allocate(A, host.A.size() * 4) &&
      allocate(B, host.storedBytes(host.B, host.BWide)) &&
      allocate(C, host.storedBytes(host.C, host.CWide)) &&
      allocate(D, host.D.size() * 4) &&
      allocate(initialState, host.initialState.size() * 4) &&
      allocate(z, std::max<size_t>(host.storedBytes(host.z, host.zWide), 4)) &&
      allocate(dtBias, std::max<size_t>(host.dtBias.size() * 4, 4)) &&
      allocate(seqIdx, std::max<size_t>(host.seqIdx.size() * 4, 4)) &&
      allocate(cuSeqlens, std::max<size_t>(host.cuSeqlens.size() * 4, 4)) &&
      (y = DeviceBuffer(cu, yBytes, kOutputGuard)).ok() &&
      (finalState =
           DeviceBuffer(cu, host.finalState.size() * 4, kOutputGuard))
          .ok() &&
      (varlenStates = DeviceBuffer(
           cu, std::max<size_t>(host.varlenStates.size() * 4, 4),
           kOutputGuard))
          .ok();
}

::testing::AssertionResult DeviceProblem::upload() {
  auto copy = [&](const DeviceBuffer &to, const void *from) {
    return cu.memcpyHtoD(to.address(), from, to.size());
  };
  const std::pair<const DeviceBuffer *, const void *> copies[] = {
      {&x, host.storedData(host.x, host.xWide)},
      {&dt, host.dtHalf.empty() ? static_cast<const void *>(host.dt.data())
                                : host.dtHalf.data()},
      {&A, host.A.data()},
      {&B, host.storedData(host.B, host.BWide)},
      {&C, host.storedData(host.C, host.CWide)},
      {&D, host.D.data()},
      {&initialState, host.initialState.data()},
      {&z, host.storedData(host.z, host.zWide)},
      {&dtBias, host.dtBias.data()},
      {&seqIdx, host.seqIdx.data()},
      {&cuSeqlens, host.cuSeqlens.data()}};
  for (auto [to, from] : copies)
    if (from)
      if (CUresult result = copy(*to, from))
      return ::testing::AssertionFailure()
             << "cuMemcpyHtoD: " << resultName(result);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult DeviceProblem::poisonOutputs() {
  // f32 NaN; for a bf16 y, two bf16 NaNs per word.
  const unsigned int quietNaN = 0x7fc00000u, quietNaNsBf16 = 0x7fc07fc0u;
  const std::pair<const DeviceBuffer *, unsigned int> poisons[] = {
      {&y, !host.yHalf.empty() ? quietNaNsBf16 : quietNaN},
      {&finalState, quietNaN},
      {&varlenStates, quietNaN}};
  for (auto [buffer, poison] : poisons)
    if (CUresult result =
            cu.memsetD32(buffer->address(), poison, buffer->size() / 4))
      return ::testing::AssertionFailure()
             << "cuMemsetD32: " << resultName(result);
  for (const DeviceBuffer *buffer : {&y, &finalState, &varlenStates})
    if (auto result = buffer->fillGuards(); !result)
      return result;
  host.poisonOutputs();
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult DeviceProblem::checkGuards() const {
  if (auto result = y.checkGuards("y"); !result)
    return result;
  if (auto result = finalState.checkGuards("final state"); !result)
    return result;
  return varlenStates.checkGuards("varlen states");
}

::testing::AssertionResult DeviceProblem::download() {
  const std::tuple<void *, const DeviceBuffer *, size_t> copies[] = {
      {!host.yHalf.empty() ? static_cast<void *>(host.yHalf.data())
                           : static_cast<void *>(host.y.data()),
       &y,
       !host.yHalf.empty() ? host.yHalf.size() * 2 : host.y.size() * 4},
      {host.finalState.data(), &finalState, finalState.size()},
      {host.varlenStates.data(), &varlenStates,
       host.varlenStates.size() * 4}};
  for (auto [to, from, bytes] : copies)
    if (CUresult result =
            bytes ? cu.memcpyDtoH(to, from->address(), bytes) : CUDA_SUCCESS)
      return ::testing::AssertionFailure()
             << "cuMemcpyDtoH: " << resultName(result);
  return ::testing::AssertionSuccess();
}

Inputs DeviceProblem::inputs(bool withInitialState) const {
  // The host descriptors, moved onto the device buffers.
  Inputs in = host.inputs(withInitialState);
  in.x.data = x.get();
  in.dt.data = dt.get();
  in.A.data = A.get();
  in.B.data = B.get();
  in.C.data = C.get();
  in.D.data = D.get();
  if (in.initialState)
    in.initialState->data = initialState.get();
  if (in.z)
    in.z->data = z.get();
  if (in.dtBias)
    in.dtBias->data = dtBias.get();
  if (in.seqIdx)
    in.seqIdx->data = seqIdx.get();
  if (in.cuSeqlens)
    in.cuSeqlens->data = cuSeqlens.get();
  return in;
}

Outputs DeviceProblem::outputs() const {
  Outputs out = host.outputs();
  out.y.data = y.get();
  out.finalState->data = finalState.get();
  if (out.varlenStates)
    out.varlenStates->data = varlenStates.get();
  return out;
}

tilec::mamba2::testing::CapturedForward::~CapturedForward() {
  if (exec)
    cu.graphExecDestroy(exec);
  if (graph)
    cu.graphDestroy(graph);
}

::testing::AssertionResult tilec::mamba2::testing::CapturedForward::capture(CUstream stream, const Problem &problem,
                         const Inputs &inputs, const Outputs &outputs,
                         const GpuOptions &options) {
  if (CUresult result =
          cu.streamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL))
    return ::testing::AssertionFailure()
           << "cuStreamBeginCapture: " << resultName(result);
  Status status = forwardGpu(problem, inputs, outputs, options, stream);
  if (CUresult result = cu.streamEndCapture(stream, &graph))
    return ::testing::AssertionFailure()
           << "cuStreamEndCapture: " << resultName(result)
           << (status.ok() ? "" : "; forwardGpu: " + status.message());
  if (!status.ok())
    return ::testing::AssertionFailure() << "forwardGpu: " << status.message();
  if (CUresult result = cu.graphInstantiate(&exec, graph, 0))
    return ::testing::AssertionFailure()
           << "cuGraphInstantiateWithFlags: " << resultName(result);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult
tilec::mamba2::testing::CapturedForward::replay(CUstream stream) const {
  if (CUresult result = cu.graphLaunch(exec, stream))
    return ::testing::AssertionFailure()
           << "cuGraphLaunch: " << resultName(result);
  if (CUresult result = cu.streamSynchronize(stream))
    return ::testing::AssertionFailure()
           << "cuStreamSynchronize: " << resultName(result);
  return ::testing::AssertionSuccess();
}

std::vector<Shape> tilec::mamba2::testing::withLargeShape(
    std::vector<Shape> shapes, const Shape &large) {
  shapes.push_back(large);
  return shapes;
}

ForwardRun tilec::mamba2::testing::gpuRun(const Driver &cu, CUstream stream,
                                          const GpuOptions &options) {
  return [&cu, stream, options](HostProblem &host, bool withInitialState)
             -> ::testing::AssertionResult {
    const Problem &p = host.problem;
    DeviceProblem device(cu, host);
    if (!device.ok())
      return ::testing::AssertionFailure() << "cannot allocate the buffers";
    if (auto result = device.upload(); !result)
      return result;
    if (auto result = device.poisonOutputs(); !result)
      return result;
    auto start = std::chrono::steady_clock::now();
    Status status = forwardGpu(p, device.inputs(withInitialState),
                               device.outputs(), options, stream);
    if (!status.ok())
      return ::testing::AssertionFailure()
             << "forwardGpu: " << status.message();
    if (CUresult result = cu.streamSynchronize(stream))
      return ::testing::AssertionFailure()
             << "the kernels failed: " << resultName(result);
    std::printf("GPU (first call, with loading) %.1f ms\n",
                std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count());
    if (auto result = device.checkGuards(); !result)
      return result;
    return device.download();
  };
}

::testing::AssertionResult
tilec::mamba2::testing::gpuForwardMatchesReference(
    const Driver &cu, const Problem &problem, bool withInitialState,
    CUstream stream, const GpuOptions &options,
    const std::vector<BatchHead> &sample, const HostFeatures &features) {
  return forwardMatchesReference(problem, withInitialState,
                                 gpuRun(cu, stream, options), sample,
                                 features);
}

CArguments tilec::mamba2::testing::deviceArguments(const DeviceProblem &device, const Problem &p) {
  CArguments args = CArguments::fake(
      {p.batch, p.seqlen, p.heads, p.groups, p.headdim, p.dstate, p.chunk});
  const Inputs in = device.inputs(true);
  const Outputs out = device.outputs();
  args.x.descriptor.data = in.x.data;
  args.dt.descriptor.data = in.dt.data;
  args.A.descriptor.data = in.A.data;
  args.B.descriptor.data = in.B.data;
  args.C.descriptor.data = in.C.data;
  args.D.descriptor.data = in.D.data;
  args.initialState.descriptor.data = in.initialState->data;
  args.y.descriptor.data = out.y.data;
  args.finalState.descriptor.data = out.finalState->data;
  return args;
}
