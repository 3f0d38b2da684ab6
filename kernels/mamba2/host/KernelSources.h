//===- KernelSources.h - the Mamba-2 kernels' text --------------*- C++ -*-===//
//
// The text of kernels/mamba2/*.mlir, embedded at build time by
// EmbedKernels.cmake.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2_KERNELSOURCES_H
#define TILEC_LIB_MAMBA2_KERNELSOURCES_H

namespace tilec::mamba2::detail {

/// The text of kernels/mamba2/<name>.mlir; null for an unknown name.
const char *kernelSource(const char *name);

} // namespace tilec::mamba2::detail

#endif // TILEC_LIB_MAMBA2_KERNELSOURCES_H
