//===- Errors.cpp - the op's errors, as the Python package raises them ----===//

#include "Errors.h"

#include "tilec/Mamba2/tilec_mamba2.h"

#include <stdexcept>

namespace tilec_torch_op {

void fail(const std::string &message) { throw std::runtime_error(message); }

void throwError(int status, const std::string &message) {
  fail("[tilec_mamba2 " + std::to_string(status) + "] " +
       tilec_mamba2_status_name(status) + ": " + message);
}

void throwNotImplemented(const std::string &message) {
  fail("[tilec_mamba2 not implemented] " + message);
}

void throwStatus(int status, const std::string &notes) {
  std::string message = tilec_mamba2_last_error();
  if (!notes.empty())
    message += " (" + notes + ")";
  throwError(status, message);
}

int dtypeCode(at::ScalarType dtype) {
  switch (dtype) {
  case at::kFloat:
    return TILEC_MAMBA2_F32;
  case at::kHalf:
    return TILEC_MAMBA2_F16;
  case at::kBFloat16:
    return TILEC_MAMBA2_BF16;
  case at::kInt:
    return TILEC_MAMBA2_I32;
  default:
    return -1;
  }
}

std::string pythonName(at::ScalarType dtype) {
  switch (dtype) {
  case at::kDouble:
    return "torch.float64";
  case at::kLong:
    return "torch.int64";
  case at::kShort:
    return "torch.int16";
  case at::kChar:
    return "torch.int8";
  case at::kByte:
    return "torch.uint8";
  case at::kBool:
    return "torch.bool";
  case at::kComplexFloat:
    return "torch.complex64";
  case at::kComplexDouble:
    return "torch.complex128";
  case at::kFloat:
    return "torch.float32";
  case at::kHalf:
    return "torch.float16";
  case at::kBFloat16:
    return "torch.bfloat16";
  case at::kInt:
    return "torch.int32";
  default:
    return std::string("torch.") + c10::toString(dtype);
  }
}

} // namespace tilec_torch_op
