//===- CApiSupport.h - what every C ABI function shares ---------*- C++ -*-===//
//
// The C ABI's error reporting and descriptor conversion (CApi.cpp), for the
// C functions defined in other files (the decode step's).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2GPU_CAPISUPPORT_H
#define TILEC_LIB_MAMBA2GPU_CAPISUPPORT_H

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/tilec_mamba2.h"

#include <string>

namespace tilec::mamba2::gpu {

/// Records `message` for tilec_mamba2_last_error and returns `code`.
int failCall(tilec_mamba2_status code, std::string message);

/// A C descriptor as a Tensor, checking what only the C form can get wrong
/// (null descriptor or shape array, rank, dtype value); `name` words the
/// error.
tilec_mamba2_status fromDescriptor(const char *name,
                                   const tilec_mamba2_tensor *t, Tensor &out,
                                   std::string &message);

} // namespace tilec::mamba2::gpu

#endif // TILEC_LIB_MAMBA2GPU_CAPISUPPORT_H
