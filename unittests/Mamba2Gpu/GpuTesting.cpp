//===- GpuTesting.cpp - support for the Mamba-2 GPU tests -------*- C++ -*-===//

#include "GpuTesting.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>
#include <type_traits>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

struct DriverLoad {
  Driver driver;
  bool ok = false;
  std::string why;
};

const DriverLoad &loadDriver() {
  static DriverLoad load;
  static std::once_flag once;
  std::call_once(once, [] {
    if (tilec_status status = tilec_init()) {
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
        load.why = tilec_last_error();
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
    load.ok = ok;
  });
  return load;
}

} // namespace

const Driver *tilec::mamba2::testing::getDriver(std::string &why) {
  const DriverLoad &load = loadDriver();
  why = load.why;
  return load.ok ? &load.driver : nullptr;
}

std::string tilec::mamba2::testing::resultName(CUresult result) {
  std::string why;
  const Driver *cu = getDriver(why);
  const char *name = nullptr;
  if (cu && cu->getErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  return "CUDA error " + std::to_string(result);
}

void GpuTest::SetUp() {
  std::string why;
  driver = getDriver(why);
  if (!driver)
    GTEST_SKIP() << "no CUDA driver or device: " << why;
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

DeviceBuffer::DeviceBuffer(const Driver &cu, size_t bytes) : cu(&cu) {
  if (cu.memAlloc(&pointer, bytes) != CUDA_SUCCESS)
    pointer = 0;
  else
    this->bytes = bytes;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  std::swap(cu, other.cu);
  std::swap(pointer, other.pointer);
  std::swap(bytes, other.bytes);
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (pointer)
    cu->memFree(pointer);
}

DeviceProblem::DeviceProblem(const Driver &cu, HostProblem &host)
    : cu(cu), host(host) {
  auto allocate = [&](DeviceBuffer &buffer, size_t bytes) {
    buffer = DeviceBuffer(cu, bytes);
    return buffer.ok();
  };
  allocated =
      allocate(x, host.x.size() * 2) && allocate(dt, host.dt.size() * 4) &&
      allocate(A, host.A.size() * 4) && allocate(B, host.B.size() * 2) &&
      allocate(C, host.C.size() * 2) && allocate(D, host.D.size() * 4) &&
      allocate(initialState, host.initialState.size() * 4) &&
      allocate(y, host.y.size() * 4) &&
      allocate(finalState, host.finalState.size() * 4);
}

::testing::AssertionResult DeviceProblem::upload() {
  auto copy = [&](const DeviceBuffer &to, const void *from) {
    return cu.memcpyHtoD(to.address(), from, to.size());
  };
  const std::pair<const DeviceBuffer *, const void *> copies[] = {
      {&x, host.x.data()},
      {&dt, host.dt.data()},
      {&A, host.A.data()},
      {&B, host.B.data()},
      {&C, host.C.data()},
      {&D, host.D.data()},
      {&initialState, host.initialState.data()}};
  for (auto [to, from] : copies)
    if (CUresult result = copy(*to, from))
      return ::testing::AssertionFailure()
             << "cuMemcpyHtoD: " << resultName(result);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult DeviceProblem::poisonOutputs() {
  const unsigned int quietNaN = 0x7fc00000u;
  for (const DeviceBuffer *buffer : {&y, &finalState})
    if (CUresult result =
            cu.memsetD32(buffer->address(), quietNaN, buffer->size() / 4))
      return ::testing::AssertionFailure()
             << "cuMemsetD32: " << resultName(result);
  host.poisonOutputs();
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult DeviceProblem::download() {
  for (auto [to, from] : {std::pair{host.y.data(), &y},
                          std::pair{host.finalState.data(), &finalState}})
    if (CUresult result = cu.memcpyDtoH(to, from->address(), from->size()))
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
  return in;
}

Outputs DeviceProblem::outputs() const {
  Outputs out = host.outputs();
  out.y.data = y.get();
  out.finalState->data = finalState.get();
  return out;
}

ReferenceResult
tilec::mamba2::testing::parallelReference(HostProblem &host,
                                          bool withInitialState) {
  const Problem &p = host.problem;
  const Inputs in = host.inputs(withInitialState);
  ReferenceResult result;
  result.y.assign(p.batch * p.seqlen * p.heads * p.headdim, 0.0);
  result.finalState.assign(p.batch * p.heads * p.headdim * p.dstate, 0.0);
  const int64_t tasks = p.batch * p.heads;
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};

  // One (batch, head) is a problem of its own: batch 1, one head of one
  // group, its tensors the slices of the full ones.
  auto slice = [](const Tensor &t, std::vector<int64_t> index,
                  std::vector<int64_t> shape) {
    Tensor s = t;
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
      offset += index[d] * t.strides[d];
    s.data = static_cast<char *>(t.data) + offset * int64_t(dtypeSize(t.dtype));
    s.shape = std::move(shape);
    return s;
  };
  auto work = [&] {
    for (int64_t task; (task = next++) < tasks;) {
      const int64_t b = task / p.heads, h = task % p.heads;
      const int64_t g = h / (p.heads / p.groups);
      Problem one = p;
      one.batch = one.heads = one.groups = 1;
      Inputs sub;
      sub.x = slice(in.x, {b, 0, h, 0}, {1, p.seqlen, 1, p.headdim});
      sub.dt = slice(in.dt, {b, 0, h}, {1, p.seqlen, 1});
      sub.A = slice(in.A, {h}, {1});
      sub.B = slice(in.B, {b, 0, g, 0}, {1, p.seqlen, 1, p.dstate});
      sub.C = slice(in.C, {b, 0, g, 0}, {1, p.seqlen, 1, p.dstate});
      sub.D = slice(in.D, {h}, {1});
      if (in.initialState)
        sub.initialState =
            slice(*in.initialState, {b, h, 0, 0}, {1, 1, p.headdim, p.dstate});
      ReferenceResult part;
      if (!referenceForward(one, sub, part).ok()) {
        failed = true;
        return;
      }
      for (int64_t t = 0; t < p.seqlen; ++t)
        std::copy_n(&part.y[t * p.headdim], p.headdim,
                    &result.y[((b * p.seqlen + t) * p.heads + h) * p.headdim]);
      std::copy(part.finalState.begin(), part.finalState.end(),
                &result.finalState[(b * p.heads + h) * p.headdim * p.dstate]);
    }
  };
  std::vector<std::thread> threads;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < cores; ++i)
    threads.emplace_back(work);
  for (std::thread &thread : threads)
    thread.join();
  if (failed)
    result = {};
  return result;
}

uint64_t tilec::mamba2::testing::testSeed() {
  uint64_t seed;
  if (const char *text = std::getenv("TILEC_TEST_SEED"))
    seed = std::strtoull(text, nullptr, 10);
  else
    seed = (uint64_t(std::random_device()()) << 32) | std::random_device()();
  std::printf("seed %llu (repeat with TILEC_TEST_SEED=%llu)\n",
              (unsigned long long)seed, (unsigned long long)seed);
  return seed;
}

::testing::AssertionResult tilec::mamba2::testing::matchesReference(
    HostProblem &host, const ReferenceResult &want, double bound) {
  if (want.y.empty())
    return ::testing::AssertionFailure() << "the reference failed";
  Outputs got = host.outputs();
  const std::pair<const char *, const std::vector<float> *> buffers[] = {
      {"y", &host.y}, {"final state", &host.finalState}};
  for (auto [name, values] : buffers)
    for (size_t i = 0; i < values->size(); ++i)
      if (!std::isfinite((*values)[i]))
        return ::testing::AssertionFailure()
               << name << "[" << i << "] = " << (*values)[i]
               << " is not finite (NaN: not written)";
  const double yError = normwiseRelativeError(got.y, want.y);
  const double stateError =
      normwiseRelativeError(*got.finalState, want.finalState);
  std::printf("norm-wise relative error: y %.3g, final state %.3g\n", yError,
              stateError);
  if (!(yError <= bound) || !(stateError <= bound))
    return ::testing::AssertionFailure()
           << "norm-wise relative error y " << yError << ", final state "
           << stateError << " (bound " << bound << ")";
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult tilec::mamba2::testing::forwardMatchesReference(
    const Driver &cu, const Problem &p, bool withInitialState, CUstream stream,
    const GpuOptions &options) {
  std::printf("problem: batch %lld, seqlen %lld, heads %lld, groups %lld, "
              "headdim %lld, dstate %lld, chunk %lld, %s initial state\n",
              (long long)p.batch, (long long)p.seqlen, (long long)p.heads,
              (long long)p.groups, (long long)p.headdim, (long long)p.dstate,
              (long long)p.chunk, withInitialState ? "with" : "without");
  HostProblem host = HostProblem::random(p, testSeed());
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
    return ::testing::AssertionFailure() << "forwardGpu: " << status.message();
  if (CUresult result = cu.streamSynchronize(stream))
    return ::testing::AssertionFailure()
           << "the kernels failed: " << resultName(result);
  auto gpuDone = std::chrono::steady_clock::now();
  if (auto result = device.download(); !result)
    return result;
  ReferenceResult want = parallelReference(host, withInitialState);
  auto referenceDone = std::chrono::steady_clock::now();
  std::printf(
      "GPU (first call, with loading) %.1f ms, f64 reference %.1f ms\n",
      std::chrono::duration<double, std::milli>(gpuDone - start).count(),
      std::chrono::duration<double, std::milli>(referenceDone - gpuDone)
          .count());
  return matchesReference(host, want);
}
