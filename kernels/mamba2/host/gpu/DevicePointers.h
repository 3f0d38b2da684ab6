//===- DevicePointers.h - which pointers are device memory ------*- C++ -*-===//
//
// The forward pass refuses a pointer that is not device memory before it
// launches anything: a kernel reading host memory would fault and poison
// the whole context. Asking the driver about every pointer on every call
// costs a driver query per tensor, so by default each allocation range is
// asked about once (docs/mamba2-gpu.md says why that is safe).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2GPU_DEVICEPOINTERS_H
#define TILEC_LIB_MAMBA2GPU_DEVICEPOINTERS_H

#include "tilec/Mamba2/tilec_mamba2.h"

#include <cuda.h>

#include <string>

namespace tilec::mamba2::gpu {

/// How often the driver is asked whether a pointer is device memory, from
/// TILEC_MAMBA2_POINTER_CHECK (read once per process).
enum class PointerCheck {
  /// "range" or unset: once per allocation range; later pointers into a
  /// range known to be device memory are not asked about.
  PerRange,
  /// "call": every pointer on every call.
  PerCall,
};

/// The mode the environment asks for; false, with `message` set, when
/// TILEC_MAMBA2_POINTER_CHECK holds something else.
bool pointerCheckMode(PointerCheck &mode, std::string &message);

/// The driver entry points the check uses.
struct PointerQueries {
  decltype(&::cuPointerGetAttributes) getAttributes = nullptr;
  decltype(&::cuGetErrorName) getErrorName = nullptr;
};

/// Whether `pointer` (the data of argument `name`) is device memory, managed
/// memory included, asked in the current context, whose id is `context`
/// (ranges are remembered per context): SUCCESS, NOT_DEVICE_POINTER for host memory (pinned or
/// not) and memory the driver does not know, LAUNCH_FAILURE when the driver
/// fails to answer; `message` says which.
tilec_mamba2_status checkDevicePointer(const PointerQueries &driver,
                                       PointerCheck mode,
                                       unsigned long long context,
                                       const char *name,
                                       const void *pointer,
                                       std::string &message);

/// Forgets every remembered range (the tests start each case from none).
void forgetDeviceRanges();

/// Changes whenever the ranges known to be device memory change: a call
/// whose pointers were all in known ranges, repeated while it is the same,
/// would find them there again.
unsigned long long deviceRangesGeneration();

} // namespace tilec::mamba2::gpu

#endif // TILEC_LIB_MAMBA2GPU_DEVICEPOINTERS_H
