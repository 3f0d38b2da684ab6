//===- Workspaces.h - what the op keeps between calls -----------*- C++ -*-===//
//
// The forward's workspace, kept per (device, stream), and the zero D of a
// call without D, kept per (device, heads): the C++ op's counterparts of
// python/tilec/_workspaces.py and _plans.zero_d, with the same rules. A
// later call on the same stream runs after the kernels of an earlier one,
// so it can reuse that stream's buffer; a buffer too small is replaced (the
// old one goes back to torch's caching allocator, which reuses it on its
// stream in stream order). During CUDA graph capture every call gets fresh
// tensors from torch (the graph's private pool keeps them for the replays):
// a kept buffer could be grown and freed, or used by an eager call, while
// the graph still uses it, and a kept zero D would be filled outside the
// graph.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TORCH_OP_WORKSPACES_H
#define TILEC_TORCH_OP_WORKSPACES_H

#include <ATen/core/Tensor.h>

#include <cstddef>

namespace tilec_torch_op {

/// A workspace of at least `bytes` for a call on `stream` of `device`: the
/// tensor that owns it (keep it until the call is enqueued).
at::Tensor workspace(c10::Device device, void *stream, size_t bytes,
                     bool capturing);

/// f32 zeros of shape (heads) on `device`, which the kernels only read.
at::Tensor zeroD(c10::Device device, int64_t heads, bool capturing);

/// Drops every kept workspace (tilec.mamba2.release_workspaces).
void releaseWorkspaces();

} // namespace tilec_torch_op

#endif // TILEC_TORCH_OP_WORKSPACES_H
