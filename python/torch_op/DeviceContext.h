//===- DeviceContext.h - the CUDA context and stream of an op call -*- C++ -*-===//
//
// What the C ABI needs around a call and torch does not promise: the
// device's primary context current on the calling thread (the C ABI
// enqueues in the current driver context; torch's runtime API makes it
// current lazily and may skip cudaSetDevice), the raw handle of torch's
// current stream, and whether that stream is being captured.
//
// The driver is reached through dlopen("libcuda.so.1") (the extension
// links no libcuda), the stream through c10::cuda::getCurrentCUDAStream,
// the API every torch version has (c10::Stream::native_handle, the
// device-generic one, is newer than 2.1 and was renamed since). So only the
// CUDA build (TILEC_TORCH_OP_CUDA, defined by build.py for a torch with
// CUDA) includes c10/cuda and the toolkit's headers and links libc10_cuda;
// the CPU build (Debian's torch 1.13 on the build machine) includes no CUDA
// header, registers the same ops and refuses CUDA tensors, which that torch
// cannot make anyway.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TORCH_OP_DEVICECONTEXT_H
#define TILEC_TORCH_OP_DEVICECONTEXT_H

#include <ATen/ATen.h>
#include <c10/core/Device.h>

namespace tilec_torch_op {

/// Makes device `ordinal`'s primary context current on this thread (one
/// cuCtxGetCurrent per call once the context is retained). Throws a
/// c10::Error naming the driver call that failed.
void makePrimaryContextCurrent(int ordinal);

/// torch's current stream on `device` as a CUstream (the CUDA build only;
/// the CPU build throws).
void *currentStream(c10::Device device);

/// Whether `stream` is being captured into a CUDA graph.
bool isCapturing(void *stream);

/// at::empty of `sizes` with `options` (a CUDA device) straight from the
/// CUDA allocator (at::detail::empty_cuda, what at::empty's CUDA kernel
/// calls), without the dispatcher's two hops: the op's outputs, every
/// call. The CPU build calls at::empty.
at::Tensor emptyOnDevice(at::IntArrayRef sizes,
                         const at::TensorOptions &options);

} // namespace tilec_torch_op

#endif // TILEC_TORCH_OP_DEVICECONTEXT_H
