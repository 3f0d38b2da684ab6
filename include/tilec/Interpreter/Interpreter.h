//===- Interpreter.h - runs tile kernels on the CPU -------------*- C++ -*-===//
//
// The executable definition of the tile dialect's semantics (docs/semantics.md):
// runs a `tile.kernel` whose parameters are bound over a launch grid, on host
// buffers. It is the numerical reference for every GPU result and the CPU path
// of the Mamba-2 library.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_INTERPRETER_INTERPRETER_H
#define TILEC_INTERPRETER_INTERPRETER_H

#include "tile/IR/Tile.h"

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace tilec::interp {

/// Element types of host buffers, as stored in memory.
enum class DType { F32, F16, BF16, I8, I16, I32, I64 };

size_t dtypeSize(DType dtype);

/// A strided array in host memory, bound to a `!tile.view` argument. Shapes
/// and strides are in elements; strides may be any non-negative values.
struct HostView {
  void *data = nullptr;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;

  /// Row-major strides for `shape`.
  static std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape);
};

/// A scalar kernel argument; integers also bind `index` arguments.
using Scalar = std::variant<double, int64_t>;

using KernelArg = std::variant<HostView, Scalar>;

struct Grid {
  std::array<int64_t, 3> size = {1, 1, 1};
};

/// Runs every program of `grid` of `kernel` (its parameters must be bound:
/// every tile shape static). Programs run in an unspecified order, possibly
/// concurrently on `numThreads` threads (0: one per core). Returns failure and
/// sets `error` for an argument that does not match the signature, an op the
/// interpreter does not implement, or a tile shape that is not static.
mlir::LogicalResult runKernel(mlir::tile::KernelOp kernel,
                              const std::vector<KernelArg> &args, Grid grid,
                              std::string &error, unsigned numThreads = 0);

} // namespace tilec::interp

#endif // TILEC_INTERPRETER_INTERPRETER_H
