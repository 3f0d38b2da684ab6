//===- CaseFile.h - GPU-vs-interpreter test cases ---------------*- C++ -*-===//
//
// A case is one kernel launch with its inputs and the interpreter's results:
// the fatbin, the launch configuration, and for every argument either a
// scalar or a view with its initial contents (random: they double as poison
// for elements a kernel must not write) and the contents the interpreter
// left. tile-golden writes cases on the build machine; tilec-gpu-check
// replays them on a GPU. This header is plain C++: the checker runs where
// there is no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_GOLDEN_CASEFILE_H
#define TILEC_GOLDEN_CASEFILE_H

#include "tilec/Interpreter/DType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilec::golden {

struct CaseArg {
  bool isView = false;
  // A view.
  interp::DType elemType = interp::DType::F32;
  std::vector<int64_t> shape, strides;
  /// The bytes of the allocation (large enough for every strided element).
  std::vector<uint8_t> initial, expected;
  // A scalar: its bytes as the kernel ABI passes it (little-endian).
  std::vector<uint8_t> scalar;
};

struct Case {
  std::string name;
  std::string kernel;
  uint32_t blockThreads = 0;
  uint64_t sharedBytes = 0;
  int64_t grid[3] = {1, 1, 1};
  /// Tolerance on float results: |gpu - ref| <= tol * (|ref| + rms(ref)).
  double tolerance = 1e-5;
  std::vector<uint8_t> fatbin;
  std::vector<CaseArg> args;
};

/// Writes `c` to `path`; false with `error` set when it cannot.
bool writeCase(const std::string &path, const Case &c, std::string &error);

/// Reads a case written by writeCase.
bool readCase(const std::string &path, Case &c, std::string &error);

/// The value of element `i` of a float view's bytes as a double.
double loadFloat(interp::DType type, const uint8_t *bytes, size_t i);

} // namespace tilec::golden

#endif // TILEC_GOLDEN_CASEFILE_H
