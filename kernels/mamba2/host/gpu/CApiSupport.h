//===- CApiSupport.h - what every C ABI function shares ---------*- C++ -*-===//
//
// The C ABI's error reporting and descriptor conversion (CApi.cpp), for
// every C function (the forward's and the decode step's).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2GPU_CAPISUPPORT_H
#define TILEC_LIB_MAMBA2GPU_CAPISUPPORT_H

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/tilec_mamba2.h"

#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>

namespace tilec::mamba2::gpu {

/// Records `message` for tilec_mamba2_last_error and returns `code`.
int failCall(tilec_mamba2_status code, std::string message);

/// A tensor argument of a C function: its descriptor and where its Tensor
/// goes, `required` or `optional` (left empty for a null descriptor).
struct TensorArgument {
  const char *name;
  const tilec_mamba2_tensor *descriptor;
  Tensor *required;
  std::optional<Tensor> *optional;
};

/// The shape and stride vectors of one C call's Tensors, lent from a pool
/// kept per thread: a call in the steady state allocates none (the public
/// Tensor holds std::vector). Declared after the Tensors it fills, so that
/// it takes their vectors back, when it goes, before they go.
class DescriptorVectors {
public:
  DescriptorVectors() = default;
  DescriptorVectors(const DescriptorVectors &) = delete;
  DescriptorVectors &operator=(const DescriptorVectors &) = delete;
  ~DescriptorVectors();

  /// Gives `tensor` an empty shape and strides vector from the pool.
  void lend(Tensor &tensor);

private:
  /// Every C function has at most this many tensor arguments.
  static constexpr size_t kMaxTensors = 16;
  std::array<Tensor *, kMaxTensors> lent{};
  size_t count = 0;
};

/// Each argument's C descriptor as a Tensor, in the order given (the
/// validation's), checking what only the C form can get wrong (null
/// descriptor or shape array, rank, dtype value); the first failure's
/// status, with `message` naming the argument. The Tensors' vectors come
/// from `vectors`.
tilec_mamba2_status
readTensorArguments(std::initializer_list<TensorArgument> arguments,
                    DescriptorVectors &vectors, std::string &message);

} // namespace tilec::mamba2::gpu

#endif // TILEC_LIB_MAMBA2GPU_CAPISUPPORT_H
