//===- DeviceContext.cpp - the CUDA context and stream of an op call ------===//

#include "DeviceContext.h"

#include "Errors.h"

#ifdef TILEC_TORCH_OP_CUDA
#include <ATen/cuda/EmptyTensor.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <dlfcn.h>

#include <array>
#include <atomic>
#include <mutex>
#include <string>

namespace tilec_torch_op {
namespace {

// The few driver types and entry points used, as cuda.h declares them.
using CUresult = int;
using CUcontext = void *;
using CUdevice = int;
constexpr CUresult kSuccess = 0;
constexpr int kCaptureStatusNone = 0;

struct Driver {
  CUresult (*init)(unsigned);
  CUresult (*ctxGetCurrent)(CUcontext *);
  CUresult (*ctxSetCurrent)(CUcontext);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*streamIsCapturing)(void *, int *);
};

void check(CUresult result, const char *call) {
  if (result != kSuccess)
    fail(std::string("tilec: ") + call + " failed with CUresult " +
         std::to_string(result));
}

template <typename F> void bind(void *library, const char *name, F &f) {
  f = reinterpret_cast<F>(dlsym(library, name));
  if (!f)
    fail(std::string("tilec: the CUDA driver has no ") + name);
}

const Driver &driver() {
  static const Driver d = [] {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library)
      fail(std::string("tilec: cannot load the CUDA driver (libcuda.so.1): ") +
           dlerror());
    Driver d{};
    bind(library, "cuInit", d.init);
    bind(library, "cuCtxGetCurrent", d.ctxGetCurrent);
    bind(library, "cuCtxSetCurrent", d.ctxSetCurrent);
    bind(library, "cuDeviceGet", d.deviceGet);
    bind(library, "cuDevicePrimaryCtxRetain", d.primaryCtxRetain);
    bind(library, "cuStreamIsCapturing", d.streamIsCapturing);
    check(d.init(0), "cuInit");
    return d;
  }();
  return d;
}

// The retained primary context of each device ordinal: written once under
// the lock, read without it afterwards.
constexpr int kMaxDevices = 64;
std::array<std::atomic<CUcontext>, kMaxDevices> primary{};
std::mutex primaryLock;

CUcontext retainPrimary(int ordinal) {
  std::lock_guard<std::mutex> guard(primaryLock);
  if (CUcontext context = primary[ordinal].load())
    return context;
  const Driver &d = driver();
  CUdevice device = 0;
  check(d.deviceGet(&device, ordinal), "cuDeviceGet");
  CUcontext context = nullptr;
  check(d.primaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  primary[ordinal].store(context);
  return context;
}

} // namespace

void makePrimaryContextCurrent(int ordinal) {
  if (ordinal < 0 || ordinal >= kMaxDevices)
    fail("tilec: CUDA device ordinal " + std::to_string(ordinal) +
         " is out of range");
  CUcontext context = primary[ordinal].load(std::memory_order_acquire);
  if (!context)
    context = retainPrimary(ordinal);
  const Driver &d = driver();
  CUcontext current = nullptr;
  check(d.ctxGetCurrent(&current), "cuCtxGetCurrent");
  if (current != context)
    check(d.ctxSetCurrent(context), "cuCtxSetCurrent");
}

void *currentStream(c10::Device device) {
#ifdef TILEC_TORCH_OP_CUDA
  return c10::cuda::getCurrentCUDAStream(device.index()).stream();
#else
  fail("tilec: this build of the C++ op is for a torch without CUDA (" +
       device.str() +
       " tensors need it rebuilt by python/torch_op/build.py against a CUDA "
       "torch)");
#endif
}

at::Tensor emptyOnDevice(at::IntArrayRef sizes,
                         const at::TensorOptions &options) {
#ifdef TILEC_TORCH_OP_CUDA
  return at::Tensor(at::detail::empty_cuda(sizes, options));
#else
  return at::empty(sizes, options);
#endif
}

bool isCapturing(void *stream) {
  int status = kCaptureStatusNone;
  check(driver().streamIsCapturing(stream, &status), "cuStreamIsCapturing");
  return status != kCaptureStatusNone;
}

} // namespace tilec_torch_op
