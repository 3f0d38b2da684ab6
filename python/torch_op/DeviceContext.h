//===- DeviceContext.h - the CUDA context and stream of an op call -*- C++ -*-===//
//
// What the C ABI needs around a call and torch does not promise: the
// device's primary context current on the calling thread (the C ABI
// enqueues in the current driver context; torch's runtime API makes it
// current lazily and may skip cudaSetDevice), the raw handle of torch's
// current stream, and whether that stream is being captured.
//
// The driver is reached through dlopen("libcuda.so.1") and the stream
// through c10's virtual device guard, so the extension includes no CUDA
// header and links neither libcuda nor libc10_cuda: the same source builds
// against a CPU-only torch (Debian's 1.13 on the build machine, where the
// CUDA functions are never reached) and a CUDA one (torch 2.x on the GPU
// machine).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TORCH_OP_DEVICECONTEXT_H
#define TILEC_TORCH_OP_DEVICECONTEXT_H

#include <c10/core/Device.h>

namespace tilec_torch_op {

/// Makes device `ordinal`'s primary context current on this thread (one
/// cuCtxGetCurrent per call once the context is retained). Throws a
/// c10::Error naming the driver call that failed.
void makePrimaryContextCurrent(int ordinal);

/// torch's current stream on `device` as a CUstream (needs torch >= 2.2,
/// c10::Stream::native_handle; an older torch has no CUDA here).
void *currentStream(c10::Device device);

/// Whether `stream` is being captured into a CUDA graph.
bool isCapturing(void *stream);

} // namespace tilec_torch_op

#endif // TILEC_TORCH_OP_DEVICECONTEXT_H
