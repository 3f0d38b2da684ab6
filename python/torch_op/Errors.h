//===- Errors.h - the op's errors, as the Python package raises them -*- C++ -*-===//
//
// A failing call throws a std::runtime_error (a RuntimeError in Python)
// whose message starts with "[tilec_mamba2 <status>] <status name>: " or
// "[tilec_mamba2 not implemented] ": the Python package (tilec/mamba2.py,
// _native_error) turns it into the exception the Python registration raises
// for the same call (tilec.errors.error_for: Mamba2ArgumentError or
// Mamba2Error; NotImplementedError), with the same message. Not a
// c10::Error: a refusal is an expected outcome of a call, its message says
// everything, and a c10::Error captures a backtrace of the whole native
// stack when it is made, which costs a refused call far more than the
// check did.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TORCH_OP_ERRORS_H
#define TILEC_TORCH_OP_ERRORS_H

#include <c10/core/ScalarType.h>

#include <string>

namespace tilec_torch_op {

/// Throws the error of a failed tilec_mamba2 call: tilec_mamba2_last_error,
/// with `notes` (e.g. "x is torch.float64") in parentheses when not empty.
[[noreturn]] void throwStatus(int status, const std::string &notes = "");

/// Throws the error of `status` with a message of the op's own.
[[noreturn]] void throwError(int status, const std::string &message);

/// Throws the package's NotImplementedError for what tilec does not do.
[[noreturn]] void throwNotImplemented(const std::string &message);

/// Throws a RuntimeError of `message` (a failure of the driver or torch
/// that no status names).
[[noreturn]] void fail(const std::string &message);

/// The tilec_mamba2_dtype of a torch dtype; -1 for one it has no name for
/// (the C ABI rejects that value with INVALID_DTYPE).
int dtypeCode(at::ScalarType dtype);

/// A dtype as Python prints it ("torch.float64").
std::string pythonName(at::ScalarType dtype);

} // namespace tilec_torch_op

#endif // TILEC_TORCH_OP_ERRORS_H
