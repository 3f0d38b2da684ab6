//===- Workspaces.cpp - what the op keeps between calls -------------------===//

#include "Workspaces.h"

#include <ATen/ATen.h>

#include <map>
#include <mutex>
#include <utility>

namespace tilec_torch_op {
namespace {

std::mutex lock;
// (device ordinal, CUstream) -> its buffer.
std::map<std::pair<int, void *>, at::Tensor> buffers;
// (device ordinal, heads) -> zeros. Never emptied: a dropped one could be
// handed out again by the allocator while a kernel on another stream still
// reads it; a model has few head counts.
std::map<std::pair<int, int64_t>, at::Tensor> zeros;

at::TensorOptions on(c10::Device device, at::ScalarType dtype) {
  return at::TensorOptions().device(device).dtype(dtype);
}

} // namespace

at::Tensor workspace(c10::Device device, void *stream, size_t bytes,
                     bool capturing) {
  const int64_t size = int64_t(bytes);
  if (capturing)
    return at::empty({size}, on(device, at::kByte));
  std::lock_guard<std::mutex> guard(lock);
  at::Tensor &buffer = buffers[{device.index(), stream}];
  if (!buffer.defined() || buffer.numel() < size)
    buffer = at::empty({size}, on(device, at::kByte));
  return buffer;
}

at::Tensor zeroD(c10::Device device, int64_t heads, bool capturing) {
  if (capturing)
    return at::zeros({heads}, on(device, at::kFloat));
  std::lock_guard<std::mutex> guard(lock);
  at::Tensor &d = zeros[{device.index(), heads}];
  if (!d.defined())
    d = at::zeros({heads}, on(device, at::kFloat));
  return d;
}

void releaseWorkspaces() {
  std::lock_guard<std::mutex> guard(lock);
  buffers.clear();
}

} // namespace tilec_torch_op
