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

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Interpreter/DType.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tilec::interp {

/// The DType of a view of element type `type`; none for a type no view
/// holds.
std::optional<DType> dtypeOf(mlir::Type type);

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

/// A scalar kernel argument. Integers bind integer and `index` arguments
/// (they must fit the argument's width; i1 takes 0 or 1) and also float
/// arguments; doubles bind float arguments only and are rounded to nearest
/// even to the argument's type.
using Scalar = std::variant<double, int64_t>;

using KernelArg = std::variant<HostView, Scalar>;

struct Grid {
  std::array<int64_t, 3> size = {1, 1, 1};
};

/// A kernel prepared for interpretation: its ops translated once into a form
/// that runs without looking at the IR. It does not refer to the IR after
/// `compile`, and `run` may be called from several threads at once.
class Executable {
public:
  /// Fails, and sets `error`, for an op the interpreter does not implement
  /// (naming it and its location), a `tile.param` or a tile shape left
  /// unbound (run tile-bind-params first), or a type it cannot hold.
  static std::unique_ptr<Executable> compile(mlir::tile::KernelOp kernel,
                                             std::string &error);
  ~Executable();

  /// Runs every program of `grid`. Programs run in an unspecified order,
  /// possibly concurrently on `numThreads` threads (0: one per core).
  /// Fails, and sets `error`, for arguments that do not match the signature
  /// (count, view rank and dtype, negative extents or strides, null data
  /// with elements, an integer that does not fit), a negative grid size, or
  /// an undefined operation met while running (integer division by zero, a
  /// sub-tile index outside its tile, a non-positive loop step), which is
  /// reported with the op, its location and the program's coordinates.
  /// Buffers written before a failure keep what was written.
  mlir::LogicalResult run(const std::vector<KernelArg> &args, Grid grid,
                          std::string &error, unsigned numThreads = 0) const;

private:
  struct Impl;
  explicit Executable(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// Compiles and runs `kernel` (its parameters must be bound: every tile
/// shape static): `Executable::compile` followed by `Executable::run`.
mlir::LogicalResult runKernel(mlir::tile::KernelOp kernel,
                              const std::vector<KernelArg> &args, Grid grid,
                              std::string &error, unsigned numThreads = 0);

} // namespace tilec::interp

#endif // TILEC_INTERPRETER_INTERPRETER_H
