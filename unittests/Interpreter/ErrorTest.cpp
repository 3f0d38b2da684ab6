//===- ErrorTest.cpp - what the interpreter refuses -------------*- C++ -*-===//
//
// Arguments that do not match the signature, kernels it cannot run and
// undefined behaviour it detects: each fails with a message that names the
// problem (and, for ops, the op and its location), and nothing crashes.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <gmock/gmock.h>

using namespace tilec::interp;
using namespace tilec::interp::test;
using ::testing::HasSubstr;

namespace {

class ErrorTest : public KernelTest {};

const char *kCopy = R"(
tile.kernel @copy(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>, %s: i32) {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<4x4xf32>
  tile.store %t, %y[%c0, %c0] : tensor<4x4xf32>, !tile.view<2, f32>
  tile.return
}
)";

TEST_F(ErrorTest, ArgumentsMustMatchTheSignature) {
  mlir::tile::KernelOp kernel = parse(kCopy);
  std::vector<float> x(16, 1.0f), y(16, kPoison);
  HostView vx = viewOf(x, DType::F32, {4, 4}), vy = viewOf(y, DType::F32, {4, 4});

  EXPECT_THAT(runFails(kernel, {vx, vy}),
              HasSubstr("takes 3 arguments, but 2 were given"));

  HostView wrongType = vy;
  wrongType.dtype = DType::BF16;
  EXPECT_THAT(runFails(kernel, {vx, wrongType, Scalar(int64_t(0))}),
              HasSubstr("argument 1: the kernel reads a f32 view, but the "
                        "buffer holds bf16"));

  HostView wrongRank = vx;
  wrongRank.shape = {16};
  wrongRank.strides = {1};
  EXPECT_THAT(runFails(kernel, {wrongRank, vy, Scalar(int64_t(0))}),
              HasSubstr("argument 0: the kernel reads a view of rank 2"));

  HostView negativeStride = vx;
  negativeStride.strides = {-4, 1};
  EXPECT_THAT(runFails(kernel, {negativeStride, vy, Scalar(int64_t(0))}),
              HasSubstr("must not be negative"));

  HostView negativeShape = vx;
  negativeShape.shape = {-1, 4};
  EXPECT_THAT(runFails(kernel, {negativeShape, vy, Scalar(int64_t(0))}),
              HasSubstr("must not be negative"));

  HostView null = vx;
  null.data = nullptr;
  EXPECT_THAT(runFails(kernel, {null, vy, Scalar(int64_t(0))}),
              HasSubstr("the pointer is null"));

  HostView huge = vx;
  huge.strides = {int64_t(1) << 62, 1};
  EXPECT_THAT(runFails(kernel, {huge, vy, Scalar(int64_t(0))}),
              HasSubstr("spans more than 2^63 bytes"));

  EXPECT_THAT(runFails(kernel, {vx, Scalar(int64_t(0)), Scalar(int64_t(0))}),
              HasSubstr("argument 1: the kernel takes a view, but a scalar"));
  EXPECT_THAT(runFails(kernel, {vx, vy, vy}),
              HasSubstr("argument 2: the kernel takes a scalar, but a view"));
  EXPECT_THAT(runFails(kernel, {vx, vy, Scalar(1.5)}),
              HasSubstr("needs an integer, not a double"));
  EXPECT_THAT(runFails(kernel, {vx, vy, Scalar(int64_t(1) << 40)}),
              HasSubstr("does not fit in 32 bits"));

  Grid negative;
  negative.size = {1, -1, 1};
  EXPECT_THAT(runFails(kernel, {vx, vy, Scalar(int64_t(0))}, negative),
              HasSubstr("grid sizes must not be negative"));

  // None of these runs wrote anything.
  for (float v : y)
    EXPECT_EQ(v, kPoison);

  // A null pointer is fine for a view without elements, and an empty grid
  // runs nothing.
  HostView empty = vy;
  empty.data = nullptr;
  empty.shape = {0, 4};
  run(kernel, {vx, empty, Scalar(int64_t(0))});
  Grid none;
  none.size = {0, 1, 1};
  run(kernel, {vx, vy, Scalar(int64_t(0))}, none);
  for (float v : y)
    EXPECT_EQ(v, kPoison);
}

TEST_F(ErrorTest, UnboundParameters) {
  // tile.param left in a kernel whose tile shapes are static.
  const char *param = R"(
tile.kernel @k(%x: !tile.view<1, f32>) attributes {params = {BLOCK = 8 : i64}} {
  %b = tile.param "BLOCK"
  %t = tile.load %x[%b] : !tile.view<1, f32> -> tensor<8xf32>
  tile.store %t, %x[%b] : tensor<8xf32>, !tile.view<1, f32>
  tile.return
}
)";
  std::vector<float> x(8);
  std::string error =
      runFails(parse(param), {viewOf(x, DType::F32, {8})});
  EXPECT_THAT(error, HasSubstr("'tile.param'"));
  EXPECT_THAT(error, HasSubstr("parameter 'BLOCK' is not bound"));
  EXPECT_THAT(error, HasSubstr(":3:8"));

  // A tile shape still written with a parameter name.
  const char *shape = R"(
tile.kernel @k(%x: !tile.view<1, f32>) attributes {params = {BLOCK = 8 : i64}} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0] : !tile.view<1, f32> -> tensor<?xf32, #tile.dims<[BLOCK]>>
  tile.store %t, %x[%c0] : tensor<?xf32, #tile.dims<[BLOCK]>>, !tile.view<1, f32>
  tile.return
}
)";
  error = runFails(parse(shape), {viewOf(x, DType::F32, {8})});
  EXPECT_THAT(error, HasSubstr("'tile.load'"));
  EXPECT_THAT(error,
              HasSubstr("has a tile whose shape names a parameter (BLOCK)"));

  // Bound, the same kernel runs.
  std::fill(x.begin(), x.end(), 2.0f);
  run(parse(shape, /*bind=*/true), {viewOf(x, DType::F32, {8})});
  for (float v : x)
    EXPECT_EQ(v, 2.0f);

  // An element type still written as a type parameter.
  const char *type = R"(
tile.kernel @k<XT : type = f32>(%x: !tile.view<1, XT>) {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0] : !tile.view<1, XT> -> !tile.tile<8 x XT>
  tile.store %t, %x[%c0] : !tile.tile<8 x XT>, !tile.view<1, XT>
  tile.return
}
)";
  error = runFails(parse(type), {viewOf(x, DType::F32, {8})});
  EXPECT_THAT(error, HasSubstr("'tile.kernel'"));
  EXPECT_THAT(error, HasSubstr("element type is type parameter 'XT'"));
  std::fill(x.begin(), x.end(), 3.0f);
  run(parse(type, /*bind=*/true), {viewOf(x, DType::F32, {8})});
  for (float v : x)
    EXPECT_EQ(v, 3.0f);
}

TEST_F(ErrorTest, UnsupportedOpsAreNamed) {
  // arith.mului_extended passes the kernel verifier (the GPU lowering has
  // it) but the interpreter has no code for it.
  const char *source = R"(
tile.kernel @k(%x: !tile.view<1, i32>) {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0] : !tile.view<1, i32> -> tensor<8xi32>
  %lo, %hi = arith.mului_extended %t, %t : tensor<8xi32>
  tile.store %hi, %x[%c0] : tensor<8xi32>, !tile.view<1, i32>
  tile.return
}
)";
  std::vector<int32_t> x(8);
  std::string error = runFails(parse(source), {viewOf(x, DType::I32, {8})});
  EXPECT_THAT(error, HasSubstr("'arith.mului_extended'"));
  EXPECT_THAT(error, HasSubstr(":5:14"));
  EXPECT_THAT(error, HasSubstr("does not implement"));

  // The compile step alone reports it too.
  std::string compileError;
  EXPECT_FALSE(Executable::compile(parse(source), compileError));
  EXPECT_THAT(compileError, HasSubstr("'arith.mului_extended'"));

  const char *f64 = R"(
tile.kernel @k(%x: !tile.view<1, f32>) {
  %c = arith.constant 1.0 : f64
  tile.return
}
)";
  EXPECT_THAT(runFails(parse(f64), {viewOf(x, DType::F32, {8})}),
              HasSubstr("does not hold values of type f64"));
}

// A math function docs/semantics.md does not define (math.cbrt) never
// reaches the interpreter: the kernel verifier rejects it where it stands.
TEST_F(ErrorTest, UndefinedMathFunctionsAreRejectedWhereTheyStand) {
  const char *source = R"(
tile.kernel @k(%x: !tile.view<1, f32>) {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0] : !tile.view<1, f32> -> tensor<8xf32>
  %u = math.cbrt %t : tensor<8xf32>
  tile.store %u, %x[%c0] : tensor<8xf32>, !tile.view<1, f32>
  tile.return
}
)";
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    os << diag.getLocation() << ": " << diag << "\n";
    return mlir::success();
  });
  EXPECT_FALSE(mlir::parseSourceString<mlir::ModuleOp>(source, &context));
  EXPECT_THAT(diagnostics, HasSubstr(":5:8"));
  EXPECT_THAT(diagnostics,
              HasSubstr("'math.cbrt' op is not supported in tile kernels"));
}

TEST_F(ErrorTest, UndefinedBehaviourIsReportedWithTheProgram) {
  const char *division = R"(
tile.kernel @k(%x: !tile.view<1, i32>, %d: i32) {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0] : !tile.view<1, i32> -> tensor<8xi32>
  %dd = tile.full %d : tensor<8xi32>
  %q = arith.divsi %t, %dd : tensor<8xi32>
  tile.store %q, %x[%c0] : tensor<8xi32>, !tile.view<1, i32>
  tile.return
}
)";
  std::vector<int32_t> x(8, 6);
  Grid grid;
  grid.size = {1, 1, 1};
  std::string error = runFails(parse(division),
                               {viewOf(x, DType::I32, {8}), Scalar(int64_t(0))});
  EXPECT_THAT(error, HasSubstr("program (0, 0, 0)"));
  EXPECT_THAT(error, HasSubstr("'arith.divsi'"));
  EXPECT_THAT(error, HasSubstr("division by zero"));

  // Only program 2 of 4 divides by zero; the others may have run.
  const char *oneProgram = R"(
tile.kernel @k(%x: !tile.view<1, i32>) {
  %c2 = arith.constant 2 : index
  %i = tile.block_id x
  %d = arith.subi %i, %c2 : index
  %q = arith.divui %c2, %d : index
  %v = arith.index_cast %q : index to i32
  %t = tile.full %v : tensor<1xi32>
  tile.store %t, %x[%i] : tensor<1xi32>, !tile.view<1, i32>
  tile.return
}
)";
  std::vector<int32_t> out(4, kPoisonInt);
  Grid four;
  four.size = {4, 1, 1};
  EXPECT_THAT(runFails(parse(oneProgram), {viewOf(out, DType::I32, {4})}, four),
              HasSubstr("program (2, 0, 0)"));
  EXPECT_EQ(out[2], kPoisonInt);

  const char *extract = R"(
tile.kernel @k(%x: !tile.view<1, f32>, %i: index) {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0] : !tile.view<1, f32> -> tensor<8xf32>
  %s = tile.extract %t[%i] : tensor<8xf32> -> tensor<4xf32>
  tile.store %s, %x[%c0] : tensor<4xf32>, !tile.view<1, f32>
  tile.return
}
)";
  std::vector<float> xf(8);
  EXPECT_THAT(runFails(parse(extract),
                       {viewOf(xf, DType::F32, {8}), Scalar(int64_t(2))}),
              HasSubstr("sub-tile index 2 along dimension 0 is outside"));
  EXPECT_THAT(runFails(parse(extract),
                       {viewOf(xf, DType::F32, {8}), Scalar(int64_t(-1))}),
              HasSubstr("sub-tile index -1"));

  const char *loop = R"(
tile.kernel @k(%x: !tile.view<1, f32>, %step: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %step {
    %t = tile.load %x[%i] : !tile.view<1, f32> -> tensor<2xf32>
    tile.store %t, %x[%i] : tensor<2xf32>, !tile.view<1, f32>
  }
  tile.return
}
)";
  std::string loopError =
      runFails(parse(loop), {viewOf(xf, DType::F32, {8}), Scalar(int64_t(0))});
  EXPECT_THAT(loopError, HasSubstr("'scf.for'"));
  EXPECT_THAT(loopError, HasSubstr("step must be positive"));
}

} // namespace
