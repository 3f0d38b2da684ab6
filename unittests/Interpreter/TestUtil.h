//===- TestUtil.h - helpers for the interpreter's tests ---------*- C++ -*-===//
//
// Parsing kernels from text, random inputs with a seed printed on failure,
// host buffers poisoned before a run, and reference roundings computed with
// llvm::APFloat (independent of the interpreter's bit tricks).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_UNITTESTS_INTERPRETER_TESTUTIL_H
#define TILEC_UNITTESTS_INTERPRETER_TESTUTIL_H

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Interpreter/Interpreter.h"
#include "tilec/Interpreter/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/raw_ostream.h"

#include "../Support/TestSeed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace tilec::interp::test {

using tilec::testing::testSeed;

/// Replaces every occurrence of each key in `text`.
inline std::string subst(std::string text,
                         const std::vector<std::pair<std::string, std::string>>
                             &replacements) {
  for (const auto &[key, value] : replacements) {
    for (size_t at = text.find(key); at != std::string::npos;
         at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  }
  return text;
}

/// Owns a context and the module of the last kernel parsed.
class KernelTest : public ::testing::Test {
protected:
  KernelTest() : seed(testSeed()), rng(seed), trace(__FILE__, __LINE__,
                                                   "seed " +
                                                       std::to_string(seed)) {
    context.loadDialect<mlir::tile::TileDialect, mlir::arith::ArithDialect,
                        mlir::math::MathDialect, mlir::scf::SCFDialect>();
  }

  /// Parses `source` (one tile.kernel), binds its parameters with
  /// `bindings` ("NAME=VALUE") when `bind` is set, and returns the kernel.
  mlir::tile::KernelOp parse(const std::string &source, bool bind = false,
                             const std::vector<std::string> &bindings = {}) {
    std::string diagnostics;
    {
      llvm::raw_string_ostream os(diagnostics);
      mlir::ScopedDiagnosticHandler handler(
          &context, [&](mlir::Diagnostic &diag) {
            os << diag << "\n";
            return mlir::success();
          });
      module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
      if (module && bind) {
        mlir::PassManager pm(&context);
        mlir::tile::TileBindParamsOptions options;
        options.params.assign(bindings.begin(), bindings.end());
        pm.addPass(mlir::tile::createTileBindParams(options));
        if (mlir::failed(pm.run(*module)))
          module = nullptr;
      }
    }
    EXPECT_TRUE(module) << diagnostics << "\nin\n" << source;
    if (!module)
      return nullptr;
    auto kernels = module->getOps<mlir::tile::KernelOp>();
    EXPECT_FALSE(kernels.empty());
    return kernels.empty() ? nullptr : *kernels.begin();
  }

  /// Runs `kernel`, expecting success.
  void run(mlir::tile::KernelOp kernel, const std::vector<KernelArg> &args,
           Grid grid = {}, unsigned numThreads = 0) {
    ASSERT_TRUE(kernel);
    std::string error;
    ASSERT_TRUE(mlir::succeeded(runKernel(kernel, args, grid, error,
                                          numThreads)))
        << error;
  }

  /// Runs `kernel`, expecting failure; returns the message.
  std::string runFails(mlir::tile::KernelOp kernel,
                       const std::vector<KernelArg> &args, Grid grid = {}) {
    std::string error;
    EXPECT_TRUE(kernel);
    if (!kernel)
      return error;
    EXPECT_TRUE(mlir::failed(runKernel(kernel, args, grid, error)));
    return error;
  }

  float uniform(float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng);
  }
  int64_t uniformInt(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }
  std::vector<float> randomFloats(size_t n, float lo = -4, float hi = 4) {
    std::vector<float> values(n);
    for (float &v : values)
      v = uniform(lo, hi);
    return values;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  uint64_t seed;
  std::mt19937_64 rng;
  ::testing::ScopedTrace trace;
};

/// A view of `data` (whose elements are `T`) with the given shape and
/// strides (row-major when empty).
template <typename T>
HostView viewOf(std::vector<T> &data, DType dtype, std::vector<int64_t> shape,
                std::vector<int64_t> strides = {}) {
  HostView view;
  view.data = data.data();
  view.dtype = dtype;
  view.strides = strides.empty() ? HostView::contiguousStrides(shape) : strides;
  view.shape = std::move(shape);
  return view;
}

/// The value of `x` rounded to `semantics` with `mode`, by llvm::APFloat.
inline float apRound(float x, const llvm::fltSemantics &semantics,
                     llvm::RoundingMode mode = llvm::RoundingMode::
                         NearestTiesToEven) {
  llvm::APFloat value(x);
  bool lost;
  value.convert(semantics, mode, &lost);
  value.convert(llvm::APFloat::IEEEsingle(), llvm::RoundingMode::TowardZero,
                &lost);
  return value.convertToFloat();
}

inline float refBF16(float x) { return apRound(x, llvm::APFloat::BFloat()); }
inline float refF16(float x) { return apRound(x, llvm::APFloat::IEEEhalf()); }
inline float refTF32(float x) {
  return apRound(x, llvm::APFloat::FloatTF32(),
                 llvm::RoundingMode::NearestTiesToAway);
}

/// Bitwise equality that treats every NaN as equal.
inline bool sameFloat(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return floatBits(a) == floatBits(b);
}

/// A value that no kernel of the tests writes: outputs start with it.
constexpr float kPoison = -12345.0f;
constexpr int64_t kPoisonInt = -77;

} // namespace tilec::interp::test

#endif // TILEC_UNITTESTS_INTERPRETER_TESTUTIL_H
