//===- Mamba2Gpu.h - the Mamba-2 forward pass on the GPU --------*- C++ -*-===//
//
// forwardGpu runs the Mamba-2 kernels (chunk_cumsum, chunk_state,
// state_passing and compute_out by default; chunk_cumsum, fwd_pass_state and
// compute_out when GpuOptions::structure asks for three), compiled ahead of
// time for sm_80 and sm_90, on the caller's stream in the calling thread's
// current CUDA context. It takes the same
// problem and tensor descriptors as forwardCpu (Mamba2.h), with every data
// pointer in device memory, and accepts and rejects the same arguments, plus
// the checks only a GPU needs (alignment, device pointers, grid limits).
//
// Nothing here synchronizes with the host, so a call can be captured in a
// CUDA graph; the intermediates live in a caller-provided workspace or in
// stream-ordered memory (cuMemAllocAsync / cuMemFreeAsync on the stream).
//
// The library (TilecMamba2Gpu) needs the CUDA driver only at run time,
// loaded by the tilec runtime; it never depends on LLVM or MLIR. See
// docs/mamba2-gpu.md.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_MAMBA2_MAMBA2GPU_H
#define TILEC_MAMBA2_MAMBA2GPU_H

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/StateUpdate.h"

#include <cuda.h>

#include <cstddef>

namespace tilec::mamba2 {

struct GpuOptions {
  /// Zero sizes take the compiled instantiation's; a non-zero size must
  /// equal it (gpuTileConfig), since the kernels are compiled ahead of time.
  TileConfig tiles;
  /// Which kernels compute the states between chunks (Mamba2.h). The C ABI
  /// has no field for it and always runs the default.
  ForwardStructure structure = ForwardStructure::FourKernels;
  /// Device memory for the intermediates, at least gpuWorkspaceSize bytes
  /// and 16-byte aligned, not used by anything else until the kernels on the
  /// stream are done with it. Null: forwardGpu allocates it with
  /// cuMemAllocAsync on the stream and frees it with cuMemFreeAsync after
  /// the last kernel.
  void *workspace = nullptr;
  size_t workspaceBytes = 0;
};

/// The tile sizes the kernels for `chunk` (64, 128 or 256) were compiled
/// with; all zero for any other chunk.
TileConfig gpuTileConfig(int64_t chunk);

/// Bytes of workspace forwardGpu needs for `problem` in `structure`: the
/// chunk-local decay exponents G and the transformed time steps dt_chunks
/// (each batch * heads * nchunks * chunk f32), the state entering every
/// chunk (batch * nchunks * heads * headdim * dstate f32), for the
/// four-kernel structure each chunk's own state (as many), and room for the
/// final state when the caller does not ask for it. The default's size is
/// the larger, enough for either structure. Fails when the problem or the
/// structure is invalid or the size does not fit in 64 bits.
Status gpuWorkspaceSize(const Problem &problem, size_t &bytes,
                        ForwardStructure structure =
                            ForwardStructure::FourKernels);

/// Loads every kernel of the library into the current context, as the first
/// forwardGpu for each chunk size would. Call it before capturing forwardGpu
/// in a CUDA graph: loading a module is not a stream operation and is not
/// captured.
Status prepareGpu();

/// The forward pass on the GPU, enqueued on `stream` (0: the legacy default
/// stream) in the current context. Returns once the kernels are enqueued:
/// an error of the kernels themselves shows up on the stream. Checks, in
/// order and before any use of the driver: validate() and
/// validateTileConfig() (Mamba2.h), the tile sizes against the compiled
/// ones, the grid limits, the alignment of every pointer to its element size
/// and of the workspace to 16 bytes, the workspace size. Then, through the
/// driver: a current context, and that every pointer is device memory.
/// A call with a workspace identical to the thread's last successful one
/// (every field read, tensors by content) enqueues that call's launches
/// again without the checks (docs/mamba2-gpu.md); stateUpdateGpu likewise.
Status forwardGpu(const Problem &problem, const Inputs &inputs,
                  const Outputs &outputs, const GpuOptions &options = {},
                  CUstream stream = nullptr);

//===----------------------------------------------------------------------===//
// The decode step (StateUpdate.h)
//===----------------------------------------------------------------------===//

/// The decode step on the GPU, enqueued on `stream` in the current context,
/// with every data pointer in device memory, the state indices too (the
/// kernel reads them). Checks, before any use of the driver:
/// validateStateUpdate, batch and heads at most 65535, the alignment of
/// every pointer to its element size; then a current context and that every
/// pointer is device memory. prepareGpu loads its kernel too.
Status stateUpdateGpu(const DecodeProblem &problem, const StateUpdateArgs &args,
                      CUstream stream = nullptr);

} // namespace tilec::mamba2

#endif // TILEC_MAMBA2_MAMBA2GPU_H
