//===- GpuForward.cpp - the example's GPU device ----------------*- C++ -*-===//

#include "GpuForward.h"

#include "tilec/Mamba2/Mamba2Gpu.h"
#include "tilec/Runtime/DriverApi.h"

#include <chrono>
#include <vector>

using namespace tilec;
using namespace tilec::mamba2;

namespace {

using Driver = runtime::DriverApi;

Status driverError(const char *what) {
  return Status::error(std::string(what) + " failed");
}

/// The bytes a strided tensor spans: its last element's offset plus one.
size_t spanBytes(const Tensor &t) {
  int64_t last = 0;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (t.shape[d] == 0)
      return 0;
    last += (t.shape[d] - 1) * t.strides[d];
  }
  return (static_cast<size_t>(last) + 1) * dtypeSize(t.dtype);
}

/// Device copies of host tensors, freed on destruction.
class DeviceTensors {
public:
  explicit DeviceTensors(const Driver &d) : d(d) {}
  ~DeviceTensors() {
    for (CUdeviceptr p : buffers)
      d.memFree(p);
  }
  /// A device tensor with `host`'s shape and strides, holding its contents
  /// when `copy`.
  Status mirror(const Tensor &host, bool copy, Tensor &device) {
    size_t bytes = spanBytes(host);
    CUdeviceptr p = 0;
    if (d.memAlloc(&p, bytes ? bytes : 1) != CUDA_SUCCESS)
      return driverError("cuMemAlloc");
    buffers.push_back(p);
    if (copy && bytes && d.memcpyHtoD(p, host.data, bytes) != CUDA_SUCCESS)
      return driverError("cuMemcpyHtoD");
    device = host;
    device.data = reinterpret_cast<void *>(p);
    return Status::success();
  }
  Status copyBack(const Tensor &device, const Tensor &host) {
    size_t bytes = spanBytes(host);
    if (bytes && d.memcpyDtoH(host.data, reinterpret_cast<CUdeviceptr>(
                                             device.data),
                              bytes) != CUDA_SUCCESS)
      return driverError("cuMemcpyDtoH");
    return Status::success();
  }

private:
  const Driver &d;
  std::vector<CUdeviceptr> buffers;
};

} // namespace

bool examples::gpuAvailable(std::string &why) {
  if (tilec_init() == TILEC_SUCCESS)
    return true;
  why = tilec_last_error();
  return false;
}

Status examples::forwardOnGpu(const Problem &problem, const Inputs &inputs,
                              const Outputs &outputs, double &kernelMs) {
  Driver d;
  if (d.load() != TILEC_SUCCESS)
    return Status::error(d.error());
  DeviceTensors tensors(d);
  Inputs in;
  Outputs out;
  Tensor initialState, finalState;
  struct Mirror {
    const Tensor *host;
    Tensor *device;
    bool copy;
  };
  const Mirror mirrors[] = {{&inputs.x, &in.x, true},   {&inputs.dt, &in.dt, true},
                            {&inputs.A, &in.A, true},   {&inputs.B, &in.B, true},
                            {&inputs.C, &in.C, true},   {&inputs.D, &in.D, true},
                            {&outputs.y, &out.y, false}};
  for (const Mirror &m : mirrors)
    if (Status status = tensors.mirror(*m.host, m.copy, *m.device); !status)
      return status;
  if (inputs.initialState) {
    if (Status status = tensors.mirror(*inputs.initialState, true, initialState);
        !status)
      return status;
    in.initialState = initialState;
  }
  if (outputs.finalState) {
    if (Status status = tensors.mirror(*outputs.finalState, false, finalState);
        !status)
      return status;
    out.finalState = finalState;
  }
  auto start = std::chrono::steady_clock::now();
  if (Status status = forwardGpu(problem, in, out); !status)
    return status;
  if (d.streamSynchronize(nullptr) != CUDA_SUCCESS)
    return driverError("the forward pass on the GPU");
  kernelMs = std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now() - start)
                 .count();
  if (Status status = tensors.copyBack(out.y, outputs.y); !status)
    return status;
  if (outputs.finalState)
    return tensors.copyBack(*out.finalState, *outputs.finalState);
  return Status::success();
}
