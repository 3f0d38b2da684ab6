//===- ControlFlowTest.cpp - scf and scalar kernel arguments ----*- C++ -*-===//

#include "TestUtil.h"

using namespace tilec::interp;
using namespace tilec::interp::test;

namespace {

class ControlFlowTest : public KernelTest {};

// Row sums of an M x K matrix in K-tiles of 8, accumulated in a tile
// iter_arg; the last tile is ragged and padded with zeros.
TEST_F(ControlFlowTest, ForWithTileIterArg) {
  const char *source = R"(
tile.kernel @rowsum(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %i = tile.block_id x
  %k = tile.dim %x[1] : !tile.view<2, f32>
  %k7 = arith.addi %k, %c7 : index
  %n = arith.divui %k7, %c8 : index
  %init = tile.full %zero : tensor<4x8xf32>
  %acc = scf.for %t = %c0 to %n step %c1 iter_args(%a = %init) -> (tensor<4x8xf32>) {
    %v = tile.load %x[%i, %t] : !tile.view<2, f32> -> tensor<4x8xf32>
    %s = arith.addf %a, %v : tensor<4x8xf32>
    scf.yield %s : tensor<4x8xf32>
  }
  %r = tile.reduce sum %acc axis = 1 : tensor<4x8xf32> -> tensor<4xf32>
  %r2 = tile.reshape %r : tensor<4xf32> -> tensor<4x1xf32>
  tile.store %r2, %y[%i, %c0] : tensor<4x1xf32>, !tile.view<2, f32>
  tile.return
}
)";
  int64_t m = uniformInt(1, 30), k = uniformInt(0, 50);
  SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k));
  std::vector<float> x = randomFloats(m * k + 1), y(m, kPoison);
  Grid grid;
  grid.size = {(m + 3) / 4, 1, 1};
  run(parse(source),
      {viewOf(x, DType::F32, {m, k}), viewOf(y, DType::F32, {m, 1})}, grid);
  for (int64_t r = 0; r < m; ++r) {
    // Element j of the accumulator sums columns j, j + 8, ...; then the
    // eight partial sums are added in order.
    float partial[8] = {};
    for (int64_t c = 0; c < k; ++c)
      partial[c % 8] += x[r * k + c];
    float sum = 0;
    for (float p : partial)
      sum += p;
    ASSERT_EQ(y[r], sum) << "row " << r;
  }
}

// Iteration arguments that trade places each iteration, a loop over i32
// bounds, and a loop that runs zero times.
TEST_F(ControlFlowTest, ForSwappingIterArgsAndIntegerBounds) {
  const char *source = R"(
tile.kernel @swap(%o: !tile.view<1, i32>, %n: i32) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %a0 = arith.constant dense<[1, 2]> : tensor<2xi32>
  %b0 = arith.constant dense<[10, 20]> : tensor<2xi32>
  %a, %b, %k = scf.for %t = %z to %n step %one
      iter_args(%a1 = %a0, %b1 = %b0, %k1 = %b0)
      -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) : i32 {
    %tt = tile.full %t : tensor<2xi32>
    %a2 = arith.addi %a1, %tt : tensor<2xi32>
    scf.yield %b1, %a2, %k1 : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
  }
  %e = scf.for %t = %n to %z step %one iter_args(%e1 = %a0) -> (tensor<2xi32>) : i32 {
    %e2 = arith.addi %e1, %e1 : tensor<2xi32>
    scf.yield %e2 : tensor<2xi32>
  }
  %ab = arith.subi %a, %b : tensor<2xi32>
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %ab4 = tile.reshape %ab : tensor<2xi32> -> tensor<2xi32>
  tile.store %a, %o[%c0] : tensor<2xi32>, !tile.view<1, i32>
  %c1 = arith.constant 1 : index
  tile.store %b, %o[%c1] : tensor<2xi32>, !tile.view<1, i32>
  tile.store %e, %o[%c2] : tensor<2xi32>, !tile.view<1, i32>
  %c3 = arith.constant 3 : index
  tile.store %k, %o[%c3] : tensor<2xi32>, !tile.view<1, i32>
  tile.store %ab4, %o[%c4 ] : tensor<2xi32>, !tile.view<1, i32>
  tile.return
}
)";
  int32_t n = static_cast<int32_t>(uniformInt(1, 9));
  SCOPED_TRACE(n);
  std::vector<int32_t> o(10, kPoisonInt);
  run(parse(source), {viewOf(o, DType::I32, {10}), Scalar(int64_t(n))});
  int32_t a[2] = {1, 2}, b[2] = {10, 20};
  for (int32_t t = 0; t < n; ++t)
    for (int j = 0; j < 2; ++j) {
      int32_t next = a[j] + t;
      a[j] = b[j];
      b[j] = next;
    }
  EXPECT_EQ(o[0], a[0]);
  EXPECT_EQ(o[1], a[1]);
  EXPECT_EQ(o[2], b[0]);
  EXPECT_EQ(o[3], b[1]);
  EXPECT_EQ(o[4], 1); // The empty loop yields its initial value.
  EXPECT_EQ(o[5], 2);
  EXPECT_EQ(o[6], 10); // Passed through unchanged.
  EXPECT_EQ(o[7], 20);
  EXPECT_EQ(o[8], a[0] - b[0]);
  EXPECT_EQ(o[9], a[1] - b[1]);
}

TEST_F(ControlFlowTest, IfWithResultsAndWhile) {
  const char *source = R"(
tile.kernel @branch(%o: !tile.view<1, f32>, %s: f32, %limit: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %pos = arith.cmpf ogt, %s, %zero : f32
  %t = tile.full %s : tensor<4xf32>
  %r = scf.if %pos -> (tensor<4xf32>) {
    %d = arith.addf %t, %t : tensor<4xf32>
    scf.yield %d : tensor<4xf32>
  } else {
    %n = arith.negf %t : tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  tile.store %r, %o[%c0] : tensor<4xf32>, !tile.view<1, f32>
  // Doubles a tile while a counter is below %limit.
  %w:2 = scf.while (%i = %c0, %v = %t) : (index, tensor<4xf32>) -> (index, tensor<4xf32>) {
    %go = arith.cmpi ult, %i, %limit : index
    scf.condition(%go) %i, %v : index, tensor<4xf32>
  } do {
  ^bb0(%i: index, %v: tensor<4xf32>):
    %i2 = arith.addi %i, %c1 : index
    %v2 = arith.addf %v, %v : tensor<4xf32>
    scf.yield %i2, %v2 : index, tensor<4xf32>
  }
  tile.store %w#1, %o[%c1] : tensor<4xf32>, !tile.view<1, f32>
  tile.return
}
)";
  mlir::tile::KernelOp kernel = parse(source);
  for (float s : {2.5f, -1.25f}) {
    int64_t limit = uniformInt(0, 6);
    std::vector<float> o(8, kPoison);
    run(kernel, {viewOf(o, DType::F32, {8}), Scalar(double(s)), Scalar(limit)});
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(o[i], s > 0 ? 2 * s : -s);
      EXPECT_EQ(o[4 + i], std::ldexp(s, static_cast<int>(limit)));
    }
  }
}

// Many programs on several threads give what one thread gives.
TEST_F(ControlFlowTest, ThreadsDoNotChangeResults) {
  const char *source = R"(
tile.kernel @mm(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>,
                %c: !tile.view<2, f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %i = tile.block_id x
  %j = tile.block_id y
  %k = tile.dim %a[1] : !tile.view<2, f32>
  %c16 = arith.constant 16 : index
  %nk = arith.ceildivsi %k, %c16 : index
  %init = tile.full %zero : tensor<16x16xf32>
  %acc = scf.for %t = %c0 to %nk step %c1 iter_args(%x = %init) -> (tensor<16x16xf32>) {
    %ta = tile.load %a[%i, %t] : !tile.view<2, f32> -> tensor<16x16xf32>
    %tb = tile.load %b[%t, %j] : !tile.view<2, f32> -> tensor<16x16xf32>
    %ra = tile.convert %ta : tensor<16x16xf32> -> tensor<16x16xtf32>
    %rb = tile.convert %tb : tensor<16x16xf32> -> tensor<16x16xtf32>
    %y = tile.mma %ra, %rb, %x : tensor<16x16xtf32>, tensor<16x16xtf32>, tensor<16x16xf32>
    scf.yield %y : tensor<16x16xf32>
  }
  tile.store %acc, %c[%i, %j] : tensor<16x16xf32>, !tile.view<2, f32>
  tile.return
}
)";
  int64_t m = uniformInt(1, 100), n = uniformInt(1, 100), k = uniformInt(1, 100);
  SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" +
               std::to_string(k));
  std::vector<float> a = randomFloats(m * k), b = randomFloats(k * n);
  std::vector<float> one(m * n, kPoison), many(m * n, kPoison);
  Grid grid;
  grid.size = {(m + 15) / 16, (n + 15) / 16, 1};
  mlir::tile::KernelOp kernel = parse(source);
  run(kernel,
      {viewOf(a, DType::F32, {m, k}), viewOf(b, DType::F32, {k, n}),
       viewOf(one, DType::F32, {m, n})},
      grid, 1);
  run(kernel,
      {viewOf(a, DType::F32, {m, k}), viewOf(b, DType::F32, {k, n}),
       viewOf(many, DType::F32, {m, n})},
      grid, 4);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t p = 0; p < k; ++p)
        acc = std::fma(refTF32(a[i * k + p]), refTF32(b[p * n + j]), acc);
      ASSERT_EQ(one[i * n + j], acc);
      ASSERT_EQ(many[i * n + j], acc);
    }
}

TEST_F(ControlFlowTest, ScalarArgumentsOfEachType) {
  const char *source = R"(
tile.kernel @scalars(%o: !tile.view<1, f32>, %q: !tile.view<1, i64>,
                     %f: f32, %h: bf16, %i8: i8, %i: i32, %x: index, %b: i1) {
  %c0 = arith.constant 0 : index
  %hf = arith.extf %h : bf16 to f32
  %v = tile.full %f : tensor<1xf32>
  %w = tile.full %hf : tensor<1xf32>
  %vw = tile.reshape %v : tensor<1xf32> -> tensor<1xf32>
  tile.store %vw, %o[%c0] : tensor<1xf32>, !tile.view<1, f32>
  %c1 = arith.constant 1 : index
  tile.store %w, %o[%c1] : tensor<1xf32>, !tile.view<1, f32>
  %a = arith.extsi %i8 : i8 to i64
  %bb = arith.extui %b : i1 to i64
  %ii = arith.extsi %i : i32 to i64
  %xx = arith.index_cast %x : index to i64
  %s1 = arith.addi %a, %bb : i64
  %c1000 = arith.constant 1000 : i64
  %s2 = arith.muli %s1, %c1000 : i64
  %s3 = arith.addi %s2, %ii : i64
  %s4 = arith.muli %s3, %c1000 : i64
  %s5 = arith.addi %s4, %xx : i64
  %t = tile.full %s5 : tensor<1xi64>
  tile.store %t, %q[%c0] : tensor<1xi64>, !tile.view<1, i64>
  tile.return
}
)";
  std::vector<float> o(2, kPoison);
  std::vector<int64_t> q(1, kPoisonInt);
  run(parse(source), {viewOf(o, DType::F32, {2}), viewOf(q, DType::I64, {1}),
                      Scalar(0.1), Scalar(1.0 + 0x1p-8 + 0x1p-30),
                      Scalar(int64_t(-5)),
                      Scalar(int64_t(7)), Scalar(int64_t(3)),
                      Scalar(int64_t(1))});
  EXPECT_EQ(o[0], 0.1f);
  // Rounded once from the double: through f32 it would be a tie, giving 1.
  EXPECT_EQ(o[1], 1.0f + 0x1p-7f);
  EXPECT_EQ(q[0], ((-5 + 1) * 1000 + 7) * 1000 + 3);
}

// Scalar ops that the tile tests do not reach: rounding-mode truncf, fma,
// absi, index_castui, and a loop with unsigned bounds.
TEST_F(ControlFlowTest, ScalarOpsAndUnsignedLoops) {
  const char *source = R"(
tile.kernel @misc(%o: !tile.view<1, f32>, %q: !tile.view<1, i64>, %x: f32,
                  %n: i32, %m: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %h = arith.truncf %x to_nearest_away : f32 to bf16
  %he = arith.extf %h : bf16 to f32
  %t0 = tile.full %he : tensor<1xf32>
  tile.store %t0, %o[%c0] : tensor<1xf32>, !tile.view<1, f32>
  %f = math.fma %x, %x, %he : f32
  %t1 = tile.full %f : tensor<1xf32>
  tile.store %t1, %o[%c1] : tensor<1xf32>, !tile.view<1, f32>
  %a = math.absi %n : i32
  %a64 = arith.extsi %a : i32 to i64
  %t2 = tile.full %a64 : tensor<1xi64>
  tile.store %t2, %q[%c0] : tensor<1xi64>, !tile.view<1, i64>
  %u = arith.index_castui %n : i32 to index
  %u64 = arith.index_cast %u : index to i64
  %t3 = tile.full %u64 : tensor<1xi64>
  tile.store %t3, %q[%c1] : tensor<1xi64>, !tile.view<1, i64>
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %signed = scf.for %i = %n to %m step %one iter_args(%s = %z) -> (i32) : i32 {
    %s1 = arith.addi %s, %one : i32
    scf.yield %s1 : i32
  }
  %unsigned = scf.for unsigned %i = %n to %m step %one iter_args(%s = %z) -> (i32) : i32 {
    %s1 = arith.addi %s, %one : i32
    scf.yield %s1 : i32
  }
  %s64 = arith.extsi %signed : i32 to i64
  %t4 = tile.full %s64 : tensor<1xi64>
  tile.store %t4, %q[%c2] : tensor<1xi64>, !tile.view<1, i64>
  %v64 = arith.extsi %unsigned : i32 to i64
  %t5 = tile.full %v64 : tensor<1xi64>
  tile.store %t5, %q[%c3] : tensor<1xi64>, !tile.view<1, i64>
  tile.return
}
)";
  float x = 1.0f + 0x1p-8f;
  int64_t n = -uniformInt(1, 9), m = uniformInt(1, 9);
  std::vector<float> o(2, kPoison);
  std::vector<int64_t> q(4, kPoisonInt);
  run(parse(source), {viewOf(o, DType::F32, {2}), viewOf(q, DType::I64, {4}),
                      Scalar(double(x)), Scalar(n), Scalar(m)});
  // The bf16 tie rounds away from zero.
  EXPECT_EQ(o[0], 1.0f + 0x1p-7f);
  EXPECT_EQ(o[1], std::fma(x, x, 1.0f + 0x1p-7f));
  EXPECT_EQ(q[0], -n);
  EXPECT_EQ(q[1], (int64_t(1) << 32) + n);
  EXPECT_EQ(q[2], m - n);
  // Unsigned, the negative lower bound is above the upper one.
  EXPECT_EQ(q[3], 0);
}

} // namespace
