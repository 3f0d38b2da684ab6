//===- DType.h - the interpreter's element types ----------------*- C++ -*-===//
//
// The element types of the interpreter's host views are tilec's
// (tilec/Support/DType.h), named here too, where the interpreter's API and
// the golden case files use them.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_INTERPRETER_DTYPE_H
#define TILEC_INTERPRETER_DTYPE_H

#include "tilec/Support/DType.h"

namespace tilec::interp {

using tilec::DType;
using tilec::dtypeName;
using tilec::dtypeSize;
using tilec::isFloatDType;
using tilec::kLastDType;

} // namespace tilec::interp

#endif // TILEC_INTERPRETER_DTYPE_H
