//===- ElementAlignment.h - a tensor's data at its element size -*- C++ -*-===//
//
// The kernels access elements at their natural alignment; a misaligned
// pointer would fault and poison the whole context, so the forward pass and
// the decode step refuse one, in the same words, before the driver is asked
// anything.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2GPU_ELEMENTALIGNMENT_H
#define TILEC_LIB_MAMBA2GPU_ELEMENTALIGNMENT_H

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/tilec_mamba2.h"

#include <cstdint>
#include <string>

namespace tilec::mamba2::gpu {

/// Whether the data of `tensor` (argument `name`) is aligned to its element
/// size: SUCCESS, or UNALIGNED with `message` saying so.
inline tilec_mamba2_status checkElementAlignment(const char *name,
                                                 const Tensor &tensor,
                                                 std::string &message) {
  const size_t size = dtypeSize(tensor.dtype);
  const uintptr_t address = reinterpret_cast<uintptr_t>(tensor.data);
  if (address % size == 0)
    return TILEC_MAMBA2_SUCCESS;
  message = std::string(name) + ": data pointer " + std::to_string(address) +
            " is not aligned to its element size (" + std::to_string(size) +
            " bytes)";
  return TILEC_MAMBA2_ERROR_UNALIGNED;
}

} // namespace tilec::mamba2::gpu

#endif // TILEC_LIB_MAMBA2GPU_ELEMENTALIGNMENT_H
