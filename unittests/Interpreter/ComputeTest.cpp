//===- ComputeTest.cpp - elementwise ops, scans, reductions, mma -*- C++ -*-===//
//
// Each op on random inputs against a direct C++ computation. Kernels read
// flat f32 or i32 views, reshape, compute and write a flat view that starts
// poisoned; every element is checked.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <algorithm>
#include <functional>
#include <limits>

using namespace tilec::interp;
using namespace tilec::interp::test;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

class ComputeTest : public KernelTest {
protected:
  /// Random floats with a sprinkling of NaN, infinities, signed zeros and
  /// repeats of the previous value (for comparisons and max/min ties).
  std::vector<float> specialFloats(size_t n, float lo = -8, float hi = 8) {
    std::vector<float> values = randomFloats(n, lo, hi);
    const float specials[] = {kNaN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f};
    for (size_t i = 0; i < n; ++i) {
      int64_t pick = uniformInt(0, 9);
      if (pick < 6 && uniformInt(0, 2) == 0)
        values[i] = specials[pick];
      else if (pick == 6 && i > 0)
        values[i] = values[i - 1];
    }
    return values;
  }
  std::vector<int32_t> randomInts(size_t n, int64_t lo, int64_t hi) {
    std::vector<int32_t> values(n);
    for (int32_t &v : values)
      v = static_cast<int32_t>(uniformInt(lo, hi));
    return values;
  }
};

/// Float round-trip through a tile element type in the tests' references.
float roundRef(float x, const std::string &elem) {
  if (elem == "bf16")
    return refBF16(x);
  if (elem == "f16")
    return refF16(x);
  if (elem == "tf32")
    return refTF32(x);
  return x;
}
/// Rounding of arithmetic results: to nearest even in every type.
float roundResult(float x, const std::string &elem) {
  if (elem == "tf32")
    return apRound(x, llvm::APFloat::FloatTF32());
  return roundRef(x, elem);
}

float refMaximum(float x, float y) {
  if (std::isnan(x) || std::isnan(y))
    return kNaN;
  if (x == 0 && y == 0)
    return std::signbit(x) && std::signbit(y) ? -0.0f : 0.0f;
  return x > y ? x : y;
}
float refMinimum(float x, float y) {
  if (std::isnan(x) || std::isnan(y))
    return kNaN;
  if (x == 0 && y == 0)
    return std::signbit(x) || std::signbit(y) ? -0.0f : 0.0f;
  return x < y ? x : y;
}

//===----------------------------------------------------------------------===//
// Float arithmetic
//===----------------------------------------------------------------------===//

const char *kFloatBinary = R"(
tile.kernel @binary(%a: !tile.view<1, f32>, %b: !tile.view<1, f32>,
                    %o: !tile.view<1, f32>) {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0] : !tile.view<1, f32> -> tensor<96xf32>
  %y = tile.load %b[%c0] : !tile.view<1, f32> -> tensor<96xf32>
  %xs = tile.reshape %x : tensor<96xf32> -> tensor<8x12xf32>
  %ys = tile.reshape %y : tensor<96xf32> -> tensor<8x12xf32>
  %xc = tile.convert %xs : tensor<8x12xf32> -> tensor<8x12x$E>
  %yc = tile.convert %ys : tensor<8x12xf32> -> tensor<8x12x$E>
  %r = $OP %xc, %yc : tensor<8x12x$E>
  %rc = tile.convert %r : tensor<8x12x$E> -> tensor<8x12xf32>
  %rf = tile.reshape %rc : tensor<8x12xf32> -> tensor<96xf32>
  tile.store %rf, %o[%c0] : tensor<96xf32>, !tile.view<1, f32>
  tile.return
}
)";

TEST_F(ComputeTest, FloatBinaryOpsInEveryFloatType) {
  using Fn = std::function<float(float, float)>;
  const std::vector<std::pair<std::string, Fn>> ops = {
      {"arith.addf", [](float x, float y) { return x + y; }},
      {"arith.subf", [](float x, float y) { return x - y; }},
      {"arith.mulf", [](float x, float y) { return x * y; }},
      {"arith.divf", [](float x, float y) { return x / y; }},
      {"arith.maximumf", refMaximum},
      {"arith.minimumf", refMinimum},
      {"arith.maxnumf",
       [](float x, float y) {
         return std::isnan(x) ? y : std::isnan(y) ? x : refMaximum(x, y);
       }},
      {"arith.minnumf",
       [](float x, float y) {
         return std::isnan(x) ? y : std::isnan(y) ? x : refMinimum(x, y);
       }},
      {"math.powf", [](float x, float y) { return std::pow(x, y); }},
      {"math.copysign", [](float x, float y) { return std::copysign(x, y); }},
  };
  for (const std::string elem : {"f32", "bf16", "f16", "tf32"}) {
    for (const auto &[name, fn] : ops) {
      SCOPED_TRACE(name + " on " + elem);
      std::vector<float> a = specialFloats(96), b = specialFloats(96),
                         o(96, kPoison);
      run(parse(subst(kFloatBinary, {{"$OP", name}, {"$E", elem}})),
          {viewOf(a, DType::F32, {96}), viewOf(b, DType::F32, {96}),
           viewOf(o, DType::F32, {96})});
      for (int i = 0; i < 96; ++i) {
        float expect =
            roundResult(fn(roundRef(a[i], elem), roundRef(b[i], elem)), elem);
        ASSERT_TRUE(sameFloat(o[i], expect))
            << i << ": " << a[i] << ", " << b[i] << " gave " << o[i]
            << ", expected " << expect;
      }
    }
  }
}

const char *kFloatUnary = R"(
tile.kernel @unary(%a: !tile.view<1, f32>, %o: !tile.view<1, f32>) {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0] : !tile.view<1, f32> -> tensor<64xf32>
  %xc = tile.convert %x : tensor<64xf32> -> tensor<64x$E>
  %r = $OP %xc : tensor<64x$E>
  %rc = tile.convert %r : tensor<64x$E> -> tensor<64xf32>
  tile.store %rc, %o[%c0] : tensor<64xf32>, !tile.view<1, f32>
  tile.return
}
)";

TEST_F(ComputeTest, FloatUnaryOps) {
  using Fn = std::function<float(float)>;
  const std::vector<std::pair<std::string, Fn>> ops = {
      {"arith.negf", [](float x) { return -x; }},
      {"math.exp", [](float x) { return std::exp(x); }},
      {"math.exp2", [](float x) { return std::exp2(x); }},
      {"tile.exp2", [](float x) { return std::exp2(x); }},
      {"math.expm1", [](float x) { return std::expm1(x); }},
      {"math.log", [](float x) { return std::log(x); }},
      {"math.log2", [](float x) { return std::log2(x); }},
      {"math.log1p", [](float x) { return std::log1p(x); }},
      {"math.sqrt", [](float x) { return std::sqrt(x); }},
      {"math.rsqrt",
       [](float x) {
         return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
       }},
      {"math.absf", [](float x) { return std::fabs(x); }},
      {"math.tanh", [](float x) { return std::tanh(x); }},
      {"math.floor", [](float x) { return std::floor(x); }},
      {"math.ceil", [](float x) { return std::ceil(x); }},
  };
  for (const std::string elem : {"f32", "bf16"}) {
    for (const auto &[name, fn] : ops) {
      // tile.exp2 is defined on f32 tiles only.
      if (name == "tile.exp2" && elem != "f32")
        continue;
      SCOPED_TRACE(name + " on " + elem);
      std::vector<float> a = specialFloats(64, -20, 20), o(64, kPoison);
      run(parse(subst(kFloatUnary, {{"$OP", name}, {"$E", elem}})),
          {viewOf(a, DType::F32, {64}), viewOf(o, DType::F32, {64})});
      for (int i = 0; i < 64; ++i) {
        float expect = roundResult(fn(roundRef(a[i], elem)), elem);
        ASSERT_TRUE(sameFloat(o[i], expect))
            << i << ": " << a[i] << " gave " << o[i] << ", expected "
            << expect;
      }
    }
  }
}

TEST_F(ComputeTest, Exp2OfLargeAndSmallArguments) {
  std::vector<float> a = {-INFINITY, INFINITY, kNaN,   128.0f, 127.99f,
                          200.0f,    -126.0f,  -149.0f, -150.0f, -1000.0f,
                          0.0f,      -0.0f,    1.0f,   -1.0f,  0.5f,
                          10.0f};
  a.resize(64, 3.0f);
  std::vector<float> o(64, kPoison);
  run(parse(subst(kFloatUnary, {{"$OP", "tile.exp2"}, {"$E", "f32"}})),
      {viewOf(a, DType::F32, {64}), viewOf(o, DType::F32, {64})});
  EXPECT_EQ(o[0], 0.0f);
  EXPECT_EQ(o[1], INFINITY);
  EXPECT_TRUE(std::isnan(o[2]));
  EXPECT_EQ(o[3], INFINITY);
  EXPECT_TRUE(std::isfinite(o[4]));
  EXPECT_EQ(o[5], INFINITY);
  EXPECT_EQ(o[6], 0x1p-126f);
  EXPECT_EQ(o[7], 0x1p-149f);
  EXPECT_EQ(o[8], 0.0f);
  EXPECT_EQ(o[9], 0.0f);
  EXPECT_EQ(o[10], 1.0f);
  EXPECT_EQ(o[11], 1.0f);
  EXPECT_EQ(o[12], 2.0f);
  EXPECT_EQ(o[13], 0.5f);
  EXPECT_EQ(o[14], std::sqrt(2.0f));
  EXPECT_EQ(o[15], 1024.0f);
  for (int i = 16; i < 64; ++i)
    EXPECT_EQ(o[i], 8.0f);
}

const char *kFloatCompare = R"(
tile.kernel @cmp(%a: !tile.view<1, f32>, %b: !tile.view<1, f32>,
                 %o: !tile.view<1, i32>) {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0] : !tile.view<1, f32> -> tensor<128xf32>
  %y = tile.load %b[%c0] : !tile.view<1, f32> -> tensor<128xf32>
  %c = arith.cmpf $PRED, %x, %y : tensor<128xf32>
  %r = arith.extui %c : tensor<128xi1> to tensor<128xi32>
  tile.store %r, %o[%c0] : tensor<128xi32>, !tile.view<1, i32>
  tile.return
}
)";

TEST_F(ComputeTest, CmpfEveryPredicate) {
  using Fn = std::function<bool(float, float)>;
  auto un = [](float x, float y) { return std::isnan(x) || std::isnan(y); };
  const std::vector<std::pair<std::string, Fn>> preds = {
      {"false", [](float, float) { return false; }},
      {"oeq", [](float x, float y) { return x == y; }},
      {"ogt", [](float x, float y) { return x > y; }},
      {"oge", [](float x, float y) { return x >= y; }},
      {"olt", [](float x, float y) { return x < y; }},
      {"ole", [](float x, float y) { return x <= y; }},
      {"one", [=](float x, float y) { return !un(x, y) && x != y; }},
      {"ord", [=](float x, float y) { return !un(x, y); }},
      {"ueq", [=](float x, float y) { return un(x, y) || x == y; }},
      {"ugt", [=](float x, float y) { return un(x, y) || x > y; }},
      {"uge", [=](float x, float y) { return un(x, y) || x >= y; }},
      {"ult", [=](float x, float y) { return un(x, y) || x < y; }},
      {"ule", [=](float x, float y) { return un(x, y) || x <= y; }},
      {"une", [=](float x, float y) { return un(x, y) || x != y; }},
      {"uno", un},
      {"true", [](float, float) { return true; }},
  };
  for (const auto &[pred, fn] : preds) {
    SCOPED_TRACE(pred);
    std::vector<float> a = specialFloats(128), b = specialFloats(128);
    for (int i = 0; i < 128; i += 5)
      b[i] = a[i];
    std::vector<int32_t> o(128, kPoisonInt);
    run(parse(subst(kFloatCompare, {{"$PRED", pred}})),
        {viewOf(a, DType::F32, {128}), viewOf(b, DType::F32, {128}),
         viewOf(o, DType::I32, {128})});
    for (int i = 0; i < 128; ++i)
      ASSERT_EQ(o[i], fn(a[i], b[i]) ? 1 : 0) << a[i] << " vs " << b[i];
  }
}

//===----------------------------------------------------------------------===//
// Integer arithmetic
//===----------------------------------------------------------------------===//

const char *kIntBinary = R"(
tile.kernel @binary(%a: !tile.view<2, i32>, %b: !tile.view<2, i32>,
                    %o: !tile.view<2, i32>) {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0, %c0] : !tile.view<2, i32> -> tensor<4x32xi32>
  %y = tile.load %b[%c0, %c0] : !tile.view<2, i32> -> tensor<4x32xi32>
  %r = $OP %x, %y : tensor<4x32xi32>
  tile.store %r, %o[%c0, %c0] : tensor<4x32xi32>, !tile.view<2, i32>
  tile.return
}
)";

int32_t wrap(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

TEST_F(ComputeTest, IntegerBinaryOps) {
  using Fn = std::function<int32_t(int32_t, int32_t)>;
  auto floorDiv = [](int64_t x, int64_t y) {
    int64_t q = x / y;
    return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
  };
  auto ceilDiv = [](int64_t x, int64_t y) {
    int64_t q = x / y;
    return (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
  };
  auto uns = [](int32_t v) { return static_cast<uint64_t>(static_cast<uint32_t>(v)); };
  const std::vector<std::tuple<std::string, Fn, bool>> ops = {
      {"arith.addi", [](int32_t x, int32_t y) { return wrap(int64_t(x) + y); }, false},
      {"arith.subi", [](int32_t x, int32_t y) { return wrap(int64_t(x) - y); }, false},
      {"arith.muli", [](int32_t x, int32_t y) { return wrap(int64_t(x) * y); }, false},
      {"arith.divsi", [](int32_t x, int32_t y) { return wrap(int64_t(x) / y); }, true},
      {"arith.remsi", [](int32_t x, int32_t y) { return wrap(int64_t(x) % y); }, true},
      {"arith.divui", [=](int32_t x, int32_t y) { return wrap(uns(x) / uns(y)); }, true},
      {"arith.remui", [=](int32_t x, int32_t y) { return wrap(uns(x) % uns(y)); }, true},
      {"arith.ceildivsi", [=](int32_t x, int32_t y) { return wrap(ceilDiv(x, y)); }, true},
      {"arith.floordivsi", [=](int32_t x, int32_t y) { return wrap(floorDiv(x, y)); }, true},
      {"arith.ceildivui",
       [=](int32_t x, int32_t y) {
         return wrap(uns(x) / uns(y) + (uns(x) % uns(y) != 0));
       },
       true},
      {"arith.maxsi", [](int32_t x, int32_t y) { return std::max(x, y); }, false},
      {"arith.minsi", [](int32_t x, int32_t y) { return std::min(x, y); }, false},
      {"arith.maxui", [=](int32_t x, int32_t y) { return uns(x) >= uns(y) ? x : y; }, false},
      {"arith.minui", [=](int32_t x, int32_t y) { return uns(x) <= uns(y) ? x : y; }, false},
      {"arith.andi", [](int32_t x, int32_t y) { return x & y; }, false},
      {"arith.ori", [](int32_t x, int32_t y) { return x | y; }, false},
      {"arith.xori", [](int32_t x, int32_t y) { return x ^ y; }, false},
      {"arith.shli",
       [=](int32_t x, int32_t y) {
         return uns(y) >= 32 ? 0 : wrap(uns(x) << uns(y));
       },
       false},
      {"arith.shrsi",
       [=](int32_t x, int32_t y) {
         return uns(y) >= 32 ? (x < 0 ? -1 : 0) : x >> uns(y);
       },
       false},
      {"arith.shrui",
       [=](int32_t x, int32_t y) {
         return uns(y) >= 32 ? 0 : wrap(uns(x) >> uns(y));
       },
       false},
  };
  for (const auto &[name, fn, divides] : ops) {
    SCOPED_TRACE(name);
    bool shifts = name.find("sh") != std::string::npos;
    std::vector<int32_t> a = randomInts(128, INT32_MIN, INT32_MAX);
    std::vector<int32_t> b =
        shifts ? randomInts(128, 0, 40) : randomInts(128, -1000, 1000);
    for (int i = 0; i < 128; i += 3)
      a[i] = static_cast<int32_t>(uniformInt(-50, 50));
    for (int i = 0; i < 128 && !shifts; i += 7)
      b[i] = static_cast<int32_t>(uniformInt(INT32_MIN, INT32_MAX));
    if (!shifts) {
      // The one signed overflow of division: MIN / -1 wraps to MIN.
      a[1] = INT32_MIN;
      b[1] = -1;
    }
    for (int32_t &v : b)
      if (divides && v == 0)
        v = 3;
    std::vector<int32_t> o(128, kPoisonInt);
    run(parse(subst(kIntBinary, {{"$OP", name}})),
        {viewOf(a, DType::I32, {4, 32}), viewOf(b, DType::I32, {4, 32}),
         viewOf(o, DType::I32, {4, 32})});
    for (int i = 0; i < 128; ++i)
      ASSERT_EQ(o[i], fn(a[i], b[i])) << a[i] << ", " << b[i];
  }
}

const char *kIntCompare = R"(
tile.kernel @cmp(%a: !tile.view<1, i32>, %b: !tile.view<1, i32>,
                 %o: !tile.view<1, i32>) {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0] : !tile.view<1, i32> -> tensor<128xi32>
  %y = tile.load %b[%c0] : !tile.view<1, i32> -> tensor<128xi32>
  %c = arith.cmpi $PRED, %x, %y : tensor<128xi32>
  %one = arith.constant dense<1> : tensor<128xi32>
  %zero = arith.constant dense<0> : tensor<128xi32>
  %r = arith.select %c, %one, %zero : tensor<128xi1>, tensor<128xi32>
  tile.store %r, %o[%c0] : tensor<128xi32>, !tile.view<1, i32>
  tile.return
}
)";

TEST_F(ComputeTest, CmpiEveryPredicate) {
  using Fn = std::function<bool(int32_t, int32_t)>;
  auto u = [](int32_t v) { return static_cast<uint32_t>(v); };
  const std::vector<std::pair<std::string, Fn>> preds = {
      {"eq", [](int32_t x, int32_t y) { return x == y; }},
      {"ne", [](int32_t x, int32_t y) { return x != y; }},
      {"slt", [](int32_t x, int32_t y) { return x < y; }},
      {"sle", [](int32_t x, int32_t y) { return x <= y; }},
      {"sgt", [](int32_t x, int32_t y) { return x > y; }},
      {"sge", [](int32_t x, int32_t y) { return x >= y; }},
      {"ult", [=](int32_t x, int32_t y) { return u(x) < u(y); }},
      {"ule", [=](int32_t x, int32_t y) { return u(x) <= u(y); }},
      {"ugt", [=](int32_t x, int32_t y) { return u(x) > u(y); }},
      {"uge", [=](int32_t x, int32_t y) { return u(x) >= u(y); }},
  };
  for (const auto &[pred, fn] : preds) {
    SCOPED_TRACE(pred);
    std::vector<int32_t> a = randomInts(128, -5, 5), b = randomInts(128, -5, 5);
    for (int i = 0; i < 128; i += 4)
      a[i] = static_cast<int32_t>(uniformInt(INT32_MIN, INT32_MAX));
    std::vector<int32_t> o(128, kPoisonInt);
    run(parse(subst(kIntCompare, {{"$PRED", pred}})),
        {viewOf(a, DType::I32, {128}), viewOf(b, DType::I32, {128}),
         viewOf(o, DType::I32, {128})});
    for (int i = 0; i < 128; ++i)
      ASSERT_EQ(o[i], fn(a[i], b[i]) ? 1 : 0) << a[i] << " vs " << b[i];
  }
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

TEST_F(ComputeTest, ConvertFloatToNarrowFloats) {
  const char *source = R"(
tile.kernel @narrow(%a: !tile.view<1, f32>, %o: !tile.view<1, f32>) {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0] : !tile.view<1, f32> -> tensor<256xf32>
  %n = tile.convert %x : tensor<256xf32> -> tensor<256x$E>
  %r = tile.convert %n : tensor<256x$E> -> tensor<256xf32>
  tile.store %r, %o[%c0] : tensor<256xf32>, !tile.view<1, f32>
  tile.return
}
)";
  for (const std::string elem : {"bf16", "f16", "tf32"}) {
    SCOPED_TRACE(elem);
    // Random bit patterns (every exponent, NaN, inf, subnormals) and ties.
    std::vector<float> a(256), o(256, kPoison);
    for (int i = 0; i < 256; ++i) {
      uint32_t bits = static_cast<uint32_t>(rng());
      if (i % 4 == 1)
        bits = (bits & ~0xffffu) | 0x8000u;
      else if (i % 4 == 2)
        bits = (bits & ~0x1fffu) | 0x1000u;
      else if (i % 4 == 3)
        bits = floatBits(uniform(-70000, 70000));
      a[i] = bitsFloat(bits);
    }
    run(parse(subst(source, {{"$E", elem}})),
        {viewOf(a, DType::F32, {256}), viewOf(o, DType::F32, {256})});
    for (int i = 0; i < 256; ++i)
      ASSERT_TRUE(sameFloat(o[i], roundRef(a[i], elem)))
          << std::hex << floatBits(a[i]) << " gave " << floatBits(o[i]);
  }
}

TEST_F(ComputeTest, ConvertHalvesToTf32Exactly) {
  // bf16 and f16 convert to tf32 in one op, through f32, which holds both:
  // the tf32 tile holds the narrow value exactly.
  const char *source = R"(
tile.kernel @to_tf32(%a: !tile.view<1, f32>, %o: !tile.view<1, f32>) {
  %x = tile.load %a[0] : !tile.view<1, f32> -> tensor<256xf32>
  %n = tile.convert %x : tensor<256xf32> -> tensor<256x$E>
  %t = tile.convert %n : tensor<256x$E> -> tensor<256xtf32>
  %r = tile.convert %t : tensor<256xtf32> -> tensor<256xf32>
  tile.store %r, %o[0] : tensor<256xf32>, !tile.view<1, f32>
  tile.return
}
)";
  for (const std::string elem : {"bf16", "f16"}) {
    SCOPED_TRACE(elem);
    std::vector<float> a = specialFloats(256, -70000, 70000), o(256, kPoison);
    run(parse(subst(source, {{"$E", elem}})),
        {viewOf(a, DType::F32, {256}), viewOf(o, DType::F32, {256})});
    for (int i = 0; i < 256; ++i)
      ASSERT_TRUE(sameFloat(o[i], roundRef(a[i], elem)))
          << a[i] << " gave " << o[i];
  }
}

TEST_F(ComputeTest, ConvertFloatToIntegersSaturates) {
  const char *source = R"(
tile.kernel @toint(%a: !tile.view<1, f32>, %o: !tile.view<1, i64>) {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0] : !tile.view<1, f32> -> tensor<64xf32>
  %n = tile.convert %x : tensor<64xf32> -> tensor<64x$E>
  %r = tile.convert %n : tensor<64x$E> -> tensor<64xi64>
  tile.store %r, %o[%c0] : tensor<64xi64>, !tile.view<1, i64>
  tile.return
}
)";
  for (auto [elem, bits] : std::vector<std::pair<std::string, int>>{
           {"i8", 8}, {"i16", 16}, {"i32", 32}, {"i64", 64}}) {
    SCOPED_TRACE(elem);
    std::vector<float> a = specialFloats(64, -200, 200);
    a[0] = 3e9f;
    a[1] = -3e9f;
    a[2] = 1e30f;
    a[3] = -2.75f;
    a[4] = 2.75f;
    std::vector<int64_t> o(64, kPoisonInt);
    run(parse(subst(source, {{"$E", elem}})),
        {viewOf(a, DType::F32, {64}), viewOf(o, DType::I64, {64})});
    double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1) - 1;
    for (int i = 0; i < 64; ++i) {
      int64_t expect;
      if (std::isnan(a[i]))
        expect = 0;
      else if (std::trunc(a[i]) <= lo)
        expect = static_cast<int64_t>(lo);
      else if (std::trunc(a[i]) >= hi)
        expect = bits == 64 ? INT64_MAX : static_cast<int64_t>(hi);
      else
        expect = static_cast<int64_t>(std::trunc(a[i]));
      ASSERT_EQ(o[i], expect) << a[i];
    }
  }
}

TEST_F(ComputeTest, ConvertIntegersRoundToNearestEven) {
  const char *source = R"(
tile.kernel @tofloat(%a: !tile.view<1, i64>, %o: !tile.view<1, f32>) {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0] : !tile.view<1, i64> -> tensor<64xi64>
  %n = tile.convert %x : tensor<64xi64> -> tensor<64x$E>
  %r = tile.convert %n : tensor<64x$E> -> tensor<64xf32>
  tile.store %r, %o[%c0] : tensor<64xf32>, !tile.view<1, f32>
  tile.return
}
)";
  for (auto [elem, semantics] :
       std::vector<std::pair<std::string, const llvm::fltSemantics *>>{
           {"f32", &llvm::APFloat::IEEEsingle()},
           {"bf16", &llvm::APFloat::BFloat()},
           {"f16", &llvm::APFloat::IEEEhalf()}}) {
    SCOPED_TRACE(elem);
    std::vector<int64_t> a(64);
    for (int i = 0; i < 64; ++i) {
      int shift = static_cast<int>(uniformInt(0, 62));
      a[i] = static_cast<int64_t>(rng() >> (63 - shift + 1)) *
             (uniformInt(0, 1) ? 1 : -1);
    }
    // Ties in each format: 2^24 + 1, 2^8 + 1 (bf16), 2^11 + 1 (f16), and
    // the extremes.
    a[0] = (1 << 24) + 1;
    a[1] = (1 << 24) + 3;
    a[2] = 257;
    a[3] = 259;
    a[4] = 2049;
    a[5] = 2051;
    a[6] = INT64_MIN;
    a[7] = INT64_MAX;
    a[8] = 65519;
    a[9] = 65520;
    std::vector<float> o(64, kPoison);
    run(parse(subst(source, {{"$E", elem}})),
        {viewOf(a, DType::I64, {64}), viewOf(o, DType::F32, {64})});
    for (int i = 0; i < 64; ++i) {
      llvm::APFloat ref(*semantics);
      ref.convertFromAPInt(llvm::APInt(64, a[i], /*isSigned=*/true), true,
                           llvm::RoundingMode::NearestTiesToEven);
      bool lost;
      ref.convert(llvm::APFloat::IEEEsingle(),
                  llvm::RoundingMode::NearestTiesToEven, &lost);
      ASSERT_EQ(o[i], ref.convertToFloat()) << a[i];
    }
  }
}

TEST_F(ComputeTest, IntegerWidthConversionsAndCasts) {
  const char *source = R"(
tile.kernel @casts(%a: !tile.view<2, i32>, %f: !tile.view<2, f32>,
                   %o: !tile.view<2, i64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %x = tile.load %a[%c0, %c0] : !tile.view<2, i32> -> tensor<1x32xi32>
  %y = tile.load %f[%c0, %c0] : !tile.view<2, f32> -> tensor<1x32xf32>
  // Row 0: truncation to i8 and sign extension back (tile.convert).
  %t8 = tile.convert %x : tensor<1x32xi32> -> tensor<1x32xi8>
  %r0 = tile.convert %t8 : tensor<1x32xi8> -> tensor<1x32xi64>
  tile.store %r0, %o[%c0, %c0] : tensor<1x32xi64>, !tile.view<2, i64>
  // Row 1: i1 (the low bit) reads as 0 or 1.
  %t1 = tile.convert %x : tensor<1x32xi32> -> tensor<1x32xi1>
  %r1 = tile.convert %t1 : tensor<1x32xi1> -> tensor<1x32xi64>
  tile.store %r1, %o[%c1, %c0] : tensor<1x32xi64>, !tile.view<2, i64>
  // Row 2: arith.extui of i8 and row 3: arith.extsi of i1.
  %ti8 = arith.trunci %x : tensor<1x32xi32> to tensor<1x32xi8>
  %r2 = arith.extui %ti8 : tensor<1x32xi8> to tensor<1x32xi64>
  tile.store %r2, %o[%c2, %c0] : tensor<1x32xi64>, !tile.view<2, i64>
  %ti1 = arith.trunci %x : tensor<1x32xi32> to tensor<1x32xi1>
  %r3 = arith.extsi %ti1 : tensor<1x32xi1> to tensor<1x32xi64>
  tile.store %r3, %o[%c3, %c0] : tensor<1x32xi64>, !tile.view<2, i64>
  // Row 4: bitcast f32 -> i32, sign-extended.
  %bc = arith.bitcast %y : tensor<1x32xf32> to tensor<1x32xi32>
  %r4 = arith.extsi %bc : tensor<1x32xi32> to tensor<1x32xi64>
  tile.store %r4, %o[%c4, %c0] : tensor<1x32xi64>, !tile.view<2, i64>
  // Row 5: fptosi and row 6: fptoui (saturating; NaN gives 0).
  %si = arith.fptosi %y : tensor<1x32xf32> to tensor<1x32xi16>
  %r5 = arith.extsi %si : tensor<1x32xi16> to tensor<1x32xi64>
  tile.store %r5, %o[%c5, %c0] : tensor<1x32xi64>, !tile.view<2, i64>
  %ui = arith.fptoui %y : tensor<1x32xf32> to tensor<1x32xi16>
  %r6 = arith.extui %ui : tensor<1x32xi16> to tensor<1x32xi64>
  tile.store %r6, %o[%c6, %c0] : tensor<1x32xi64>, !tile.view<2, i64>
  // Row 7: uitofp of i32 (the f32 bits), row 8: sitofp.
  %uf = arith.uitofp %x : tensor<1x32xi32> to tensor<1x32xf32>
  %ub = arith.bitcast %uf : tensor<1x32xf32> to tensor<1x32xi32>
  %r7 = arith.extui %ub : tensor<1x32xi32> to tensor<1x32xi64>
  tile.store %r7, %o[%c7, %c0] : tensor<1x32xi64>, !tile.view<2, i64>
  %sf = arith.sitofp %x : tensor<1x32xi32> to tensor<1x32xf32>
  %sb = arith.bitcast %sf : tensor<1x32xf32> to tensor<1x32xi32>
  %r8 = arith.extui %sb : tensor<1x32xi32> to tensor<1x32xi64>
  tile.store %r8, %o[%c8, %c0] : tensor<1x32xi64>, !tile.view<2, i64>
  // Row 9: truncf to bf16 and extf back, then the bits.
  %h = arith.truncf %y : tensor<1x32xf32> to tensor<1x32xbf16>
  %e = arith.extf %h : tensor<1x32xbf16> to tensor<1x32xf32>
  %eb = arith.bitcast %e : tensor<1x32xf32> to tensor<1x32xi32>
  %r9 = arith.extui %eb : tensor<1x32xi32> to tensor<1x32xi64>
  tile.store %r9, %o[%c9, %c0] : tensor<1x32xi64>, !tile.view<2, i64>
  tile.return
}
)";
  std::vector<int32_t> a(32);
  for (int32_t &v : a)
    v = static_cast<int32_t>(rng());
  a[0] = -1;
  a[1] = 255;
  a[2] = 128;
  std::vector<float> f = specialFloats(32, -70000, 70000);
  std::vector<int64_t> o(10 * 32, kPoisonInt);
  run(parse(source), {viewOf(a, DType::I32, {1, 32}),
                      viewOf(f, DType::F32, {1, 32}),
                      viewOf(o, DType::I64, {10, 32})});
  auto sat = [](float x, double lo, double hi) -> int64_t {
    if (std::isnan(x))
      return 0;
    double t = std::trunc(x);
    return static_cast<int64_t>(std::min(std::max(t, lo), hi));
  };
  for (int i = 0; i < 32; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(o[0 * 32 + i], static_cast<int8_t>(a[i]));
    EXPECT_EQ(o[1 * 32 + i], a[i] & 1);
    EXPECT_EQ(o[2 * 32 + i], static_cast<uint8_t>(a[i]));
    EXPECT_EQ(o[3 * 32 + i], (a[i] & 1) ? -1 : 0);
    EXPECT_EQ(o[4 * 32 + i], static_cast<int32_t>(floatBits(f[i])));
    EXPECT_EQ(o[5 * 32 + i], sat(f[i], -32768, 32767));
    EXPECT_EQ(o[6 * 32 + i], sat(f[i], 0, 65535));
    EXPECT_EQ(o[7 * 32 + i],
              floatBits(static_cast<float>(static_cast<uint32_t>(a[i]))));
    EXPECT_EQ(o[8 * 32 + i], floatBits(static_cast<float>(a[i])));
    EXPECT_TRUE(sameFloat(bitsFloat(static_cast<uint32_t>(o[9 * 32 + i])),
                          refBF16(f[i])));
  }
}

//===----------------------------------------------------------------------===//
// Scans and reductions
//===----------------------------------------------------------------------===//

/// Shape helpers for 3-D references.
struct Shape3 {
  int64_t d[3];
  int64_t size() const { return d[0] * d[1] * d[2]; }
  int64_t at(int64_t i, int64_t j, int64_t k) const {
    return (i * d[1] + j) * d[2] + k;
  }
};

const char *kCumsum = R"(
tile.kernel @cumsum(%a: !tile.view<1, f32>, %o: !tile.view<1, f32>) {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0] : !tile.view<1, f32> -> tensor<$Nxf32>
  %xs = tile.reshape %x : tensor<$Nxf32> -> tensor<$Sxf32>
  %xc = tile.convert %xs : tensor<$Sxf32> -> tensor<$Sx$E>
  %s = tile.cumsum %xc axis = $AXIS : tensor<$Sx$E>
  %sc = tile.convert %s : tensor<$Sx$E> -> tensor<$Sxf32>
  %r = tile.reshape %sc : tensor<$Sxf32> -> tensor<$Nxf32>
  tile.store %r, %o[%c0] : tensor<$Nxf32>, !tile.view<1, f32>
  tile.return
}
)";

TEST_F(ComputeTest, CumsumAlongEachAxisAccumulatesInF32) {
  Shape3 shape = {{uniformInt(1, 6), uniformInt(1, 40), uniformInt(1, 6)}};
  std::string dims = std::to_string(shape.d[0]) + "x" +
                     std::to_string(shape.d[1]) + "x" +
                     std::to_string(shape.d[2]);
  for (const std::string elem : {"f32", "bf16"}) {
    for (int axis = 0; axis < 3; ++axis) {
      SCOPED_TRACE(elem + " " + dims + " axis " + std::to_string(axis));
      std::vector<float> a = randomFloats(shape.size(), -3, 3),
                         o(shape.size(), kPoison);
      run(parse(subst(kCumsum, {{"$N", std::to_string(shape.size())},
                                {"$S", dims},
                                {"$E", elem},
                                {"$AXIS", std::to_string(axis)}})),
          {viewOf(a, DType::F32, {shape.size()}),
           viewOf(o, DType::F32, {shape.size()})});
      for (int64_t i = 0; i < shape.d[0]; ++i)
        for (int64_t j = 0; j < shape.d[1]; ++j)
          for (int64_t k = 0; k < shape.d[2]; ++k) {
            int64_t idx[3] = {i, j, k};
            float sum = 0;
            for (int64_t l = 0; l <= idx[axis]; ++l) {
              int64_t at[3] = {i, j, k};
              at[axis] = l;
              sum += roundRef(a[shape.at(at[0], at[1], at[2])], elem);
            }
            ASSERT_EQ(o[shape.at(i, j, k)], roundResult(sum, elem))
                << i << "," << j << "," << k;
          }
    }
  }
}

TEST_F(ComputeTest, IntegerCumsumWraps) {
  const char *source = R"(
tile.kernel @cumsum(%a: !tile.view<1, i32>, %o: !tile.view<1, i32>) {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0] : !tile.view<1, i32> -> tensor<64xi32>
  %s = tile.cumsum %x axis = 0 : tensor<64xi32>
  tile.store %s, %o[%c0] : tensor<64xi32>, !tile.view<1, i32>
  tile.return
}
)";
  std::vector<int32_t> a = randomInts(64, INT32_MIN, INT32_MAX),
                       o(64, kPoisonInt);
  run(parse(source), {viewOf(a, DType::I32, {64}), viewOf(o, DType::I32, {64})});
  uint32_t sum = 0;
  for (int i = 0; i < 64; ++i) {
    sum += static_cast<uint32_t>(a[i]);
    ASSERT_EQ(o[i], static_cast<int32_t>(sum));
  }
}

const char *kReduce = R"(
tile.kernel @reduce(%a: !tile.view<1, $E>, %o: !tile.view<1, $E>) {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0] : !tile.view<1, $E> -> tensor<$Nx$E>
  %xs = tile.reshape %x : tensor<$Nx$E> -> tensor<$Sx$E>
  %s = tile.reduce $KIND %xs axis = $AXIS : tensor<$Sx$E> -> tensor<$Rx$E>
  %r = tile.reshape %s : tensor<$Rx$E> -> tensor<$Mx$E>
  tile.store %r, %o[%c0] : tensor<$Mx$E>, !tile.view<1, $E>
  tile.return
}
)";

TEST_F(ComputeTest, ReduceAlongEachAxis) {
  Shape3 shape = {{uniformInt(1, 6), uniformInt(1, 30), uniformInt(1, 6)}};
  std::string dims = std::to_string(shape.d[0]) + "x" +
                     std::to_string(shape.d[1]) + "x" +
                     std::to_string(shape.d[2]);
  for (const std::string elem : {"f32", "i32"}) {
    for (const std::string kind : {"sum", "max", "min"}) {
      for (int axis = 0; axis < 3; ++axis) {
        SCOPED_TRACE(elem + " " + kind + " " + dims + " axis " +
                     std::to_string(axis));
        std::string rest;
        int64_t m = 1;
        for (int k = 0; k < 3; ++k)
          if (k != axis) {
            rest += (rest.empty() ? "" : "x") + std::to_string(shape.d[k]);
            m *= shape.d[k];
          }
        std::string source =
            subst(kReduce, {{"$N", std::to_string(shape.size())},
                            {"$S", dims},
                            {"$R", rest},
                            {"$M", std::to_string(m)},
                            {"$E", elem},
                            {"$KIND", kind},
                            {"$AXIS", std::to_string(axis)}});
        bool isFloat = elem == "f32";
        std::vector<float> af, of(m, kPoison);
        std::vector<int32_t> ai, oi(m, kPoisonInt);
        // NaNs only for max and min, whose propagation is specified.
        if (isFloat)
          af = kind == "sum" ? randomFloats(shape.size())
                             : specialFloats(shape.size());
        else
          ai = randomInts(shape.size(), INT32_MIN, INT32_MAX);
        if (isFloat)
          run(parse(source), {viewOf(af, DType::F32, {shape.size()}),
                              viewOf(of, DType::F32, {m})});
        else
          run(parse(source), {viewOf(ai, DType::I32, {shape.size()}),
                              viewOf(oi, DType::I32, {m})});
        int64_t out = 0;
        for (int64_t i = 0; i < shape.d[0]; ++i)
          for (int64_t j = 0; j < shape.d[1]; ++j)
            for (int64_t k = 0; k < shape.d[2]; ++k) {
              int64_t idx[3] = {i, j, k};
              if (idx[axis] != 0)
                continue;
              float accF = 0;
              uint32_t accI = 0;
              for (int64_t l = 0; l < shape.d[axis]; ++l) {
                int64_t at[3] = {i, j, k};
                at[axis] = l;
                int64_t flat = shape.at(at[0], at[1], at[2]);
                if (isFloat) {
                  float v = af[flat];
                  accF = l == 0          ? v
                         : kind == "sum" ? accF + v
                         : kind == "max" ? refMaximum(accF, v)
                                         : refMinimum(accF, v);
                } else {
                  int32_t v = ai[flat], acc = static_cast<int32_t>(accI);
                  accI = l == 0 ? static_cast<uint32_t>(v)
                         : kind == "sum"
                             ? accI + static_cast<uint32_t>(v)
                             : static_cast<uint32_t>(
                                   kind == "max" ? std::max(acc, v)
                                                 : std::min(acc, v));
                }
              }
              // The output is row-major over the remaining axes, which is
              // the order this loop visits them in.
              if (isFloat)
                ASSERT_TRUE(sameFloat(of[out], accF))
                    << out << ": " << of[out] << " vs " << accF;
              else
                ASSERT_EQ(oi[out], static_cast<int32_t>(accI)) << out;
              ++out;
            }
        ASSERT_EQ(out, m);
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

const char *kMma = R"(
tile.kernel @mma(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>,
                 %c: !tile.view<2, f32>, %o: !tile.view<2, f32>) {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<$Mx$Kxf32>
  %y = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<$Kx$Nxf32>
  %acc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<$Mx$Nxf32>
  %xc = tile.convert %x : tensor<$Mx$Kxf32> -> tensor<$Mx$Kx$E>
  %yc = tile.convert %y : tensor<$Kx$Nxf32> -> tensor<$Kx$Nx$E>
  %d = tile.mma %xc, %yc, %acc : tensor<$Mx$Kx$E>, tensor<$Kx$Nx$E>, tensor<$Mx$Nxf32>
  tile.store %d, %o[%c0, %c0] : tensor<$Mx$Nxf32>, !tile.view<2, f32>
  tile.return
}
)";

TEST_F(ComputeTest, MmaWithEachOperandType) {
  for (const std::string elem : {"f32", "bf16", "f16", "tf32"}) {
    int64_t m = uniformInt(1, 40), n = uniformInt(1, 40), k = uniformInt(1, 70);
    SCOPED_TRACE(elem + " " + std::to_string(m) + "x" + std::to_string(n) +
                 "x" + std::to_string(k));
    std::vector<float> a = randomFloats(m * k, -2, 2),
                       b = randomFloats(k * n, -2, 2),
                       c = randomFloats(m * n, -8, 8), o(m * n, kPoison);
    run(parse(subst(kMma, {{"$M", std::to_string(m)},
                           {"$N", std::to_string(n)},
                           {"$K", std::to_string(k)},
                           {"$E", elem}})),
        {viewOf(a, DType::F32, {m, k}), viewOf(b, DType::F32, {k, n}),
         viewOf(c, DType::F32, {m, n}), viewOf(o, DType::F32, {m, n})});
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        // One rounding per term, in increasing k: for narrow operands the
        // product is exact, so this is also "exact product, f32 sum".
        float acc = c[i * n + j];
        double exact = acc;
        for (int64_t p = 0; p < k; ++p) {
          float x = roundRef(a[i * k + p], elem),
                y = roundRef(b[p * n + j], elem);
          acc = std::fma(x, y, acc);
          exact += static_cast<double>(x) * y;
        }
        ASSERT_EQ(o[i * n + j], acc) << i << ", " << j;
        ASSERT_NEAR(o[i * n + j], exact, 1e-4 * (1 + std::fabs(exact)));
      }
  }
}

const char *kMmaSplit = R"(
tile.kernel @mma(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>,
                 %c: !tile.view<2, f32>, %o: !tile.view<2, f32>) {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<$Mx$Kxf32>
  %y = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<$Kx$Nxf32>
  %acc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<$Mx$Nxf32>
  %xc = tile.convert %x : tensor<$Mx$Kxf32> -> tensor<$Mx$Kx$A>
  %yc = tile.convert %y : tensor<$Kx$Nxf32> -> tensor<$Kx$Nx$B>
  %d = tile.mma %xc, %yc, %acc precision = split_bf16
      : tensor<$Mx$Kx$A>, tensor<$Kx$Nx$B>, tensor<$Mx$Nxf32>
  tile.store %d, %o[%c0, %c0] : tensor<$Mx$Nxf32>, !tile.view<2, f32>
  tile.return
}
)";

/// The bf16 halves of `v` as split_bf16 defines them: hi = bf16(v),
/// lo = bf16(v - hi), lo = 0 for a bf16 operand.
std::pair<float, float> splitRef(float v, const std::string &elem) {
  if (elem == "bf16")
    return {v, 0.0f};
  float hi = refBF16(v);
  return {hi, refBF16(v - hi)};
}

TEST_F(ComputeTest, MmaSplitBf16AgainstItsDefinitionAndF64) {
  const std::pair<std::string, std::string> types[] = {
      {"bf16", "f32"}, {"f32", "bf16"}, {"f32", "f32"},
      {"f16", "f32"},  {"f16", "bf16"}, {"f16", "f16"}};
  for (const auto &[ta, tb] : types) {
    int64_t m = uniformInt(1, 40), n = uniformInt(1, 40), k = uniformInt(1, 70);
    SCOPED_TRACE(ta + " x " + tb + " " + std::to_string(m) + "x" +
                 std::to_string(n) + "x" + std::to_string(k));
    // Magnitudes over several binades, both signs: the split's lo half
    // carries bits of each operand's own scale.
    auto operand = [&](size_t count) {
      std::vector<float> values = randomFloats(count, -2, 2);
      for (float &v : values)
        v = std::ldexp(v, int(uniformInt(-6, 6)));
      return values;
    };
    std::vector<float> a = operand(m * k), b = operand(k * n),
                       c = randomFloats(m * n, -8, 8), o(m * n, kPoison);
    run(parse(subst(kMmaSplit, {{"$M", std::to_string(m)},
                                {"$N", std::to_string(n)},
                                {"$K", std::to_string(k)},
                                {"$A", ta},
                                {"$B", tb}})),
        {viewOf(a, DType::F32, {m, k}), viewOf(b, DType::F32, {k, n}),
         viewOf(c, DType::F32, {m, n}), viewOf(o, DType::F32, {m, n})});
    bool aSplit = ta != "bf16", bSplit = tb != "bf16";
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        // The definition: acc + a_hi b_lo + a_lo b_hi + a_hi b_hi, each a
        // bf16 product chain (one fma per term, increasing k).
        float sum = c[i * n + j];
        double exact = sum, magnitude = std::fabs(sum);
        auto chain = [&](bool useALo, bool useBLo) {
          for (int64_t p = 0; p < k; ++p) {
            auto [aHi, aLo] = splitRef(roundRef(a[i * k + p], ta), ta);
            auto [bHi, bLo] = splitRef(roundRef(b[p * n + j], tb), tb);
            sum = std::fma(useALo ? aLo : aHi, useBLo ? bLo : bHi, sum);
          }
        };
        if (bSplit)
          chain(false, true);
        if (aSplit)
          chain(true, false);
        chain(false, false);
        for (int64_t p = 0; p < k; ++p) {
          double x = roundRef(a[i * k + p], ta), y = roundRef(b[p * n + j], tb);
          exact += x * y;
          magnitude += std::fabs(x * y);
        }
        ASSERT_EQ(o[i * n + j], sum) << i << ", " << j;
        // Against the exact sum of the operands' products: each split
        // operand is hi + lo to within 2^-17 relative (lo is a remainder
        // below 2^-8 |v| rounded to 8 bits), the dropped a_lo b_lo is below
        // 2^-16 |a b|: together below 2^-15 |a b| per term (tf32's
        // rounding of one operand alone is 2^-11). Then at most 3 chains
        // of k f32 roundings, each below 2^-24 of the running magnitude.
        double bound = (std::ldexp(1.0, -15) +
                        3.0 * (k + 1) * std::ldexp(1.0, -24)) *
                       magnitude;
        ASSERT_LE(std::fabs(o[i * n + j] - exact), bound) << i << ", " << j;
      }
  }
}

TEST_F(ComputeTest, MmaOnBF16ViewsAndTransposedOperand) {
  const char *source = R"(
tile.kernel @mma(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                 %o: !tile.view<2, f32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %x = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x32xbf16>
  // b is stored N x K; read it as K x N.
  %y = tile.load %b[%c0, %c0] order = [1, 0] : !tile.view<2, bf16> -> tensor<32x8xbf16>
  %acc = tile.full %zero : tensor<16x8xf32>
  %d = tile.mma %x, %y, %acc : tensor<16x32xbf16>, tensor<32x8xbf16>, tensor<16x8xf32>
  tile.store %d, %o[%c0, %c0] : tensor<16x8xf32>, !tile.view<2, f32>
  tile.return
}
)";
  std::vector<uint16_t> a(16 * 32), b(8 * 32);
  for (uint16_t &v : a)
    v = floatToBF16Bits(uniform(-3, 3));
  for (uint16_t &v : b)
    v = floatToBF16Bits(uniform(-3, 3));
  std::vector<float> o(16 * 8, kPoison);
  run(parse(source), {viewOf(a, DType::BF16, {16, 32}),
                      viewOf(b, DType::BF16, {8, 32}),
                      viewOf(o, DType::F32, {16, 8})});
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      float acc = 0;
      for (int p = 0; p < 32; ++p)
        acc = std::fma(bf16BitsToFloat(a[i * 32 + p]),
                       bf16BitsToFloat(b[j * 32 + p]), acc);
      ASSERT_EQ(o[i * 8 + j], acc) << i << ", " << j;
    }
}

//===----------------------------------------------------------------------===//
// Tile construction and movement
//===----------------------------------------------------------------------===//

TEST_F(ComputeTest, ExtractWithDynamicIndices) {
  const char *source = R"(
tile.kernel @extract(%a: !tile.view<2, f32>, %o: !tile.view<2, f32>,
                     %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<12x20xf32>
  %s = tile.extract %x[%i, %j] : tensor<12x20xf32> -> tensor<3x5xf32>
  tile.store %s, %o[%c0, %c0] : tensor<3x5xf32>, !tile.view<2, f32>
  tile.return
}
)";
  mlir::tile::KernelOp kernel = parse(source);
  std::vector<float> a = randomFloats(12 * 20);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      std::vector<float> o(15, kPoison);
      run(kernel, {viewOf(a, DType::F32, {12, 20}),
                   viewOf(o, DType::F32, {3, 5}), Scalar(i), Scalar(j)});
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 5; ++c)
          ASSERT_EQ(o[r * 5 + c], a[(i * 3 + r) * 20 + j * 5 + c]);
    }
}

TEST_F(ComputeTest, BroadcastReshapePermuteFullArangeWhere) {
  const char *source = R"(
tile.kernel @move(%a: !tile.view<1, f32>, %s: f32, %o: !tile.view<2, f32>,
                  %p: !tile.view<4, f32>, %q: !tile.view<1, i64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %x = tile.load %a[%c0] : !tile.view<1, f32> -> tensor<24xf32>
  // Row 0 of o: x broadcast along rows (from 1x24) + column broadcast of
  // x[0..4) (from 4x1), row 1-3 of the sum.
  %row = tile.reshape %x : tensor<24xf32> -> tensor<1x24xf32>
  %rows = tile.broadcast %row : tensor<1x24xf32> -> tensor<4x24xf32>
  %head = tile.extract %x[%c0] : tensor<24xf32> -> tensor<4xf32>
  %col = tile.reshape %head : tensor<4xf32> -> tensor<4x1xf32>
  %cols = tile.broadcast %col : tensor<4x1xf32> -> tensor<4x24xf32>
  %sum = arith.addf %rows, %cols : tensor<4x24xf32>
  tile.store %sum, %o[%c0, %c0] : tensor<4x24xf32>, !tile.view<2, f32>
  // Rows 4-7: where(arange(24) < 10 per column, full(s), sum).
  %ar = tile.arange : tensor<24xi32>
  %ar2 = tile.reshape %ar : tensor<24xi32> -> tensor<1x24xi32>
  %arb = tile.broadcast %ar2 : tensor<1x24xi32> -> tensor<4x24xi32>
  %ten = arith.constant dense<10> : tensor<4x24xi32>
  %m = arith.cmpi slt, %arb, %ten : tensor<4x24xi32>
  %f = tile.full %s : tensor<4x24xf32>
  %w = tile.where %m, %f, %sum : tensor<4x24xi1>, tensor<4x24xf32>
  tile.store %w, %o[%c1, %c0] : tensor<4x24xf32>, !tile.view<2, f32>
  // p: x as 2x3x4, permuted [2, 0, 1] to 4x2x3, with a leading 1.
  %t3 = tile.reshape %x : tensor<24xf32> -> tensor<2x3x4xf32>
  %pm = tile.permute %t3 [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %p4 = tile.reshape %pm : tensor<4x2x3xf32> -> tensor<1x4x2x3xf32>
  tile.store %p4, %p[%c0, %c0, %c0, %c0] : tensor<1x4x2x3xf32>, !tile.view<4, f32>
  // q: arange in i64, and a select on a scalar condition.
  %ai = tile.arange : tensor<8xi64>
  %true = arith.constant true
  %neg = arith.constant dense<-1> : tensor<8xi64>
  %sel = arith.select %true, %ai, %neg : tensor<8xi64>
  tile.store %sel, %q[%c0] : tensor<8xi64>, !tile.view<1, i64>
  tile.return
}
)";
  std::vector<float> a = randomFloats(24), o(8 * 24, kPoison),
                     p(24, kPoison);
  std::vector<int64_t> q(8, kPoisonInt);
  float s = uniform(-1, 1);
  run(parse(source), {viewOf(a, DType::F32, {24}), Scalar(double(s)),
                      viewOf(o, DType::F32, {8, 24}),
                      viewOf(p, DType::F32, {1, 4, 2, 3}),
                      viewOf(q, DType::I64, {8})});
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 24; ++c) {
      float sum = a[c] + a[r];
      ASSERT_EQ(o[r * 24 + c], sum);
      ASSERT_EQ(o[(4 + r) * 24 + c], c < 10 ? s : sum);
    }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k)
        ASSERT_EQ(p[(i * 2 + j) * 3 + k], a[(j * 3 + k) * 4 + i]);
  for (int i = 0; i < 8; ++i)
    ASSERT_EQ(q[i], i);
}

TEST_F(ComputeTest, BroadcastingFloatOps) {
  // Rows, columns and scalars broadcast to the result (numpy's rule) by
  // tile.addf/subf/mulf/divf; o[k] holds the k-th result.
  const char *source = R"(
!T = !tile.tile<4 x 8 x f32>
tile.kernel @broadcasting(%a: !tile.view<2, f32>, %r: !tile.view<1, f32>,
                          %c: !tile.view<2, f32>, %s: f32,
                          %o: !tile.view<3, f32>) {
  %t = tile.load %a[0, 0] : !tile.view<2, f32> -> !T
  %row = tile.load %r[0] : !tile.view<1, f32> -> !tile.tile<8 x f32>
  %col = tile.load %c[0, 0] : !tile.view<2, f32> -> !tile.tile<4 x 1 x f32>
  %add = tile.addf %t, %row : !T, !tile.tile<8 x f32> -> !T
  %sub = tile.subf %col, %t : !tile.tile<4 x 1 x f32>, !T -> !T
  %mul = tile.mulf %s, %t : f32, !T -> !T
  %div = tile.divf %row, %col : !tile.tile<8 x f32>, !tile.tile<4 x 1 x f32> -> !T
  tile.store %add, %o[0, 0, 0] dims = [1, 2] : !T, !tile.view<3, f32>
  tile.store %sub, %o[1, 0, 0] dims = [1, 2] : !T, !tile.view<3, f32>
  tile.store %mul, %o[2, 0, 0] dims = [1, 2] : !T, !tile.view<3, f32>
  tile.store %div, %o[3, 0, 0] dims = [1, 2] : !T, !tile.view<3, f32>
  tile.return
}
)";
  std::vector<float> a = randomFloats(32), row = randomFloats(8),
                     col = randomFloats(4), o(4 * 32, kPoison);
  float s = uniform(-2, 2);
  run(parse(source),
      {viewOf(a, DType::F32, {4, 8}), viewOf(row, DType::F32, {8}),
       viewOf(col, DType::F32, {4, 1}), Scalar(double(s)),
       viewOf(o, DType::F32, {4, 4, 8})});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) {
      float t = a[i * 8 + j];
      ASSERT_EQ(o[0 * 32 + i * 8 + j], t + row[j]);
      ASSERT_EQ(o[1 * 32 + i * 8 + j], col[i] - t);
      ASSERT_EQ(o[2 * 32 + i * 8 + j], s * t);
      ASSERT_EQ(o[3 * 32 + i * 8 + j], row[j] / col[i]);
    }
}

TEST_F(ComputeTest, BroadcastingIntegerOpsComparisonsAndClamps) {
  // The integer ops, the comparisons and maximumf/minimumf broadcast rows,
  // columns and scalars by the rule of tile.addf; o[k] holds the k-th result
  // (comparisons and i1 ops as 0 or 1).
  const char *source = R"(
!I = !tile.tile<4 x 8 x i32>
!F = !tile.tile<4 x 8 x f32>
!M = !tile.tile<4 x 8 x i1>
tile.kernel @broadcasting(%a: !tile.view<2, i32>, %r: !tile.view<1, i32>,
                          %c: !tile.view<2, i32>, %s: i32,
                          %f: !tile.view<2, f32>, %lo: f32, %hi: f32,
                          %o: !tile.view<3, i32>, %p: !tile.view<3, f32>) {
  %t = tile.load %a[0, 0] : !tile.view<2, i32> -> !I
  %row = tile.load %r[0] : !tile.view<1, i32> -> !tile.tile<8 x i32>
  %col = tile.load %c[0, 0] : !tile.view<2, i32> -> !tile.tile<4 x 1 x i32>
  %add = tile.addi %t, %row : !I, !tile.tile<8 x i32> -> !I
  %sub = tile.subi %col, %t : !tile.tile<4 x 1 x i32>, !I -> !I
  %mul = tile.muli %s, %t : i32, !I -> !I
  %lt = tile.cmpi slt, %col, %row : !tile.tile<4 x 1 x i32>, !tile.tile<8 x i32> -> !M
  %eq = tile.cmpi eq, %t, %s : !I, i32 -> !M
  %both = tile.andi %lt, %eq : !M, !M -> !M
  %either = tile.ori %lt, %eq : !M, !M -> !M
  %x = tile.load %f[0, 0] : !tile.view<2, f32> -> !F
  %small = tile.cmpf ole, %x, %hi : !F, f32 -> !M
  %clampLow = tile.maximumf %x, %lo : !F, f32 -> !F
  %clamped = tile.minimumf %clampLow, %hi : !F, f32 -> !F
  tile.store %add, %o[0, 0, 0] dims = [1, 2] : !I, !tile.view<3, i32>
  tile.store %sub, %o[1, 0, 0] dims = [1, 2] : !I, !tile.view<3, i32>
  tile.store %mul, %o[2, 0, 0] dims = [1, 2] : !I, !tile.view<3, i32>
  %lt32 = tile.convert %lt : !M -> !I
  %eq32 = tile.convert %eq : !M -> !I
  %both32 = tile.convert %both : !M -> !I
  %either32 = tile.convert %either : !M -> !I
  %small32 = tile.convert %small : !M -> !I
  tile.store %lt32, %o[3, 0, 0] dims = [1, 2] : !I, !tile.view<3, i32>
  tile.store %eq32, %o[4, 0, 0] dims = [1, 2] : !I, !tile.view<3, i32>
  tile.store %both32, %o[5, 0, 0] dims = [1, 2] : !I, !tile.view<3, i32>
  tile.store %either32, %o[6, 0, 0] dims = [1, 2] : !I, !tile.view<3, i32>
  tile.store %small32, %o[7, 0, 0] dims = [1, 2] : !I, !tile.view<3, i32>
  tile.store %clamped, %p[0, 0, 0] dims = [1, 2] : !F, !tile.view<3, f32>
  tile.return
}
)";
  auto ints = [&](size_t n) {
    std::vector<int32_t> v(n);
    for (int32_t &x : v)
      x = static_cast<int32_t>(uniformInt(-3, 3));
    return v;
  };
  std::vector<int32_t> a = ints(32), row = ints(8), col = ints(4),
                       o(8 * 32, int32_t(kPoisonInt));
  std::vector<float> f = randomFloats(32), p(32, kPoison);
  int32_t s = static_cast<int32_t>(uniformInt(-3, 3));
  float lo = uniform(-3, 0), hi = uniform(0, 3);
  run(parse(source),
      {viewOf(a, DType::I32, {4, 8}), viewOf(row, DType::I32, {8}),
       viewOf(col, DType::I32, {4, 1}), Scalar(int64_t(s)),
       viewOf(f, DType::F32, {4, 8}), Scalar(double(lo)), Scalar(double(hi)),
       viewOf(o, DType::I32, {8, 4, 8}), viewOf(p, DType::F32, {1, 4, 8})});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) {
      int32_t t = a[i * 8 + j];
      bool lt = col[i] < row[j], eq = t == s;
      float x = f[i * 8 + j];
      auto at = [&](int k) { return o[k * 32 + i * 8 + j]; };
      ASSERT_EQ(at(0), t + row[j]);
      ASSERT_EQ(at(1), col[i] - t);
      ASSERT_EQ(at(2), s * t);
      ASSERT_EQ(at(3), lt ? 1 : 0);
      ASSERT_EQ(at(4), eq ? 1 : 0);
      ASSERT_EQ(at(5), lt && eq ? 1 : 0);
      ASSERT_EQ(at(6), lt || eq ? 1 : 0);
      ASSERT_EQ(at(7), x <= hi ? 1 : 0);
      ASSERT_EQ(p[i * 8 + j], std::min(std::max(x, lo), hi));
    }
}

TEST_F(ComputeTest, BroadcastingWhereAndActivations) {
  // tile.where with a column mask, a row and a scalar; tile.softplus
  // (threshold 20) with and without its condition; tile.silu. p[k] holds the
  // k-th result.
  const char *source = R"(
!F = !tile.tile<4 x 8 x f32>
tile.kernel @activations(%a: !tile.view<2, f32>, %r: !tile.view<1, f32>,
                         %c: !tile.view<2, i32>, %s: f32, %flag: i32,
                         %p: !tile.view<3, f32>) {
  %x = tile.load %a[0, 0] : !tile.view<2, f32> -> !F
  %row = tile.load %r[0] : !tile.view<1, f32> -> !tile.tile<8 x f32>
  %colInt = tile.load %c[0, 0] : !tile.view<2, i32> -> !tile.tile<4 x 1 x i32>
  %col = tile.cmpi ne, %colInt, %flag : !tile.tile<4 x 1 x i32>, i32 -> !tile.tile<4 x 1 x i1>
  %w = tile.where %col, %row, %s : !tile.tile<4 x 1 x i1>, !tile.tile<8 x f32>, f32 -> !F
  %soft = tile.softplus %x : !F
  %softIf = tile.softplus %x if %flag : !F, i32
  %gate = tile.silu %x : !F
  tile.store %w, %p[0, 0, 0] dims = [1, 2] : !F, !tile.view<3, f32>
  tile.store %soft, %p[1, 0, 0] dims = [1, 2] : !F, !tile.view<3, f32>
  tile.store %softIf, %p[2, 0, 0] dims = [1, 2] : !F, !tile.view<3, f32>
  tile.store %gate, %p[3, 0, 0] dims = [1, 2] : !F, !tile.view<3, f32>
  tile.return
}
)";
  auto softplus = [](float x) { return x <= 20 ? std::log1p(std::exp(x)) : x; };
  auto silu = [](float x) { return x / (1.0f + std::exp(-x)); };
  for (int32_t flag : {0, 1}) {
    SCOPED_TRACE("flag " + std::to_string(flag));
    std::vector<float> a = specialFloats(32, -30, 30), row = randomFloats(8),
                       p(4 * 32, kPoison);
    // The threshold, just above it, and far above it, where exp overflows
    // and only the threshold keeps softplus(x) = x.
    a[0] = 20.0f;
    a[1] = std::nextafter(20.0f, 21.0f);
    a[2] = 100.0f;
    std::vector<int32_t> col = randomInts(4, 0, 1);
    float s = uniform(-2, 2);
    run(parse(source),
        {viewOf(a, DType::F32, {4, 8}), viewOf(row, DType::F32, {8}),
         viewOf(col, DType::I32, {4, 1}), Scalar(double(s)),
         Scalar(int64_t(flag)), viewOf(p, DType::F32, {4, 4, 8})});
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 8; ++j) {
        float x = a[i * 8 + j];
        auto at = [&](int k) { return p[k * 32 + i * 8 + j]; };
        ASSERT_EQ(at(0), col[i] != flag ? row[j] : s);
        ASSERT_TRUE(sameFloat(at(1), softplus(x))) << x << " gave " << at(1);
        ASSERT_TRUE(sameFloat(at(2), flag ? softplus(x) : x))
            << x << " gave " << at(2);
        ASSERT_TRUE(sameFloat(at(3), silu(x))) << x << " gave " << at(3);
      }
  }
}

TEST_F(ComputeTest, ConvertingAccessClampPadAndDelinearize) {
  // A bf16 view read into an f32 tile and an f32 tile written into a bf16
  // view (rounded to nearest even); tile.clamp to a scalar and a row;
  // tile.pad of tile %t of 4 rows past %n (zero, and neg_inf along the
  // columns past %m); tile.delinearize of %x by 3 and 5; a store under
  // `if %on`. p[k] holds the k-th result; q the converted store; d the
  // coordinates; w the conditional store.
  const char *source = R"(
!F = !tile.tile<4 x 8 x f32>
tile.kernel @forms(%a: !tile.view<2, bf16>, %r: !tile.view<1, f32>,
                   %lo: f32, %n: index, %m: index, %t: index, %x: index,
                   %p: !tile.view<3, f32>, %q: !tile.view<2, bf16>,
                   %d: !tile.view<1, i32>, %on: i32,
                   %w: !tile.view<2, f32>) {
  %v = tile.load %a[0, 0] : !tile.view<2, bf16> -> !F
  %hi = tile.load %r[0] : !tile.view<1, f32> -> !tile.tile<8 x f32>
  %c = tile.clamp %v, %lo, %hi : !F, f32, !tile.tile<8 x f32>
  %rows = tile.pad %v dim 0 past %n at %t : !F
  %cols = tile.pad %v dim 1 past %m at %t padding = neg_inf : !F
  tile.store %v, %p[0, 0, 0] dims = [1, 2] : !F, !tile.view<3, f32>
  tile.store %c, %p[1, 0, 0] dims = [1, 2] : !F, !tile.view<3, f32>
  tile.store %rows, %p[2, 0, 0] dims = [1, 2] : !F, !tile.view<3, f32>
  tile.store %cols, %p[3, 0, 0] dims = [1, 2] : !F, !tile.view<3, f32>
  %half = tile.mulf %v, %lo : !F, f32 -> !F
  tile.store %half, %q[0, 0] : !F, !tile.view<2, bf16>
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %i, %j, %k = tile.delinearize %x by %c3, %c5
  %coords = tile.full 0 : !tile.tile<3 x i32>
  %i32 = arith.index_cast %i : index to i32
  %j32 = arith.index_cast %j : index to i32
  %k32 = arith.index_cast %k : index to i32
  %at = tile.arange : !tile.tile<3 x i32>
  %is0 = tile.cmpi eq, %at, %coords : !tile.tile<3 x i32>, !tile.tile<3 x i32> -> !tile.tile<3 x i1>
  %one = tile.full 1 : !tile.tile<3 x i32>
  %is1 = tile.cmpi eq, %at, %one : !tile.tile<3 x i32>, !tile.tile<3 x i32> -> !tile.tile<3 x i1>
  %jk = tile.where %is1, %j32, %k32 : !tile.tile<3 x i1>, i32, i32 -> !tile.tile<3 x i32>
  %ijk = tile.where %is0, %i32, %jk : !tile.tile<3 x i1>, i32, !tile.tile<3 x i32> -> !tile.tile<3 x i32>
  tile.store %ijk, %d[0] : !tile.tile<3 x i32>, !tile.view<1, i32>
  tile.store %c, %w[0, 0] if %on : !F, !tile.view<2, f32>, i32
}
)";
  mlir::tile::KernelOp kernel = parse(source);
  // (n, m, t): rows left in tile t: a ragged one, none (n before the tile),
  // all (n past it); columns likewise.
  const int64_t cases[][3] = {{6, 5, 1}, {3, 0, 1}, {40, 9, 1}, {2, 3, 0}};
  int32_t on = 0;
  for (auto [n, m, t] : cases) {
    on = 1 - on;
    SCOPED_TRACE("n " + std::to_string(n) + ", m " + std::to_string(m) +
                 ", t " + std::to_string(t) + ", on " + std::to_string(on));
    std::vector<uint16_t> a(32);
    for (uint16_t &v : a)
      v = floatToBF16Bits(uniform(-4, 4));
    a[3] = floatToBF16Bits(kNaN);
    std::vector<float> row = randomFloats(8, 0, 3), p(4 * 32, kPoison);
    std::vector<uint16_t> q(32, 0xffff);
    std::vector<int32_t> d(3, -1);
    std::vector<float> w(32, kPoison);
    float lo = uniform(-3, 0);
    int64_t x = uniformInt(0, 100);
    run(kernel, {viewOf(a, DType::BF16, {4, 8}), viewOf(row, DType::F32, {8}),
                 Scalar(double(lo)), Scalar(n), Scalar(m), Scalar(t),
                 Scalar(x), viewOf(p, DType::F32, {4, 4, 8}),
                 viewOf(q, DType::BF16, {4, 8}), viewOf(d, DType::I32, {3}),
                 Scalar(int64_t(on)), viewOf(w, DType::F32, {4, 8})});
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 8; ++j) {
        float v = bf16BitsToFloat(a[i * 8 + j]);
        auto at = [&](int k) { return p[k * 32 + i * 8 + j]; };
        ASSERT_TRUE(sameFloat(at(0), v)) << v << " read as " << at(0);
        // maximumf, then minimumf: NaN stays NaN.
        ASSERT_TRUE(sameFloat(at(1), std::isnan(v) ? v
                                     : std::min(std::max(v, lo), row[j])));
        ASSERT_TRUE(sameFloat(at(2), t * 4 + i < n ? v : 0.0f));
        ASSERT_TRUE(sameFloat(at(3), t * 8 + j < m ? v : -INFINITY));
        ASSERT_TRUE(sameFloat(bf16BitsToFloat(q[i * 8 + j]), refBF16(v * lo)))
            << v * lo << " stored as " << bf16BitsToFloat(q[i * 8 + j]);
        ASSERT_TRUE(sameFloat(w[i * 8 + j], on ? at(1) : kPoison));
      }
    EXPECT_EQ(d, (std::vector<int32_t>{int32_t(x / 15), int32_t(x / 5 % 3),
                                       int32_t(x % 5)}));
  }
}

TEST_F(ComputeTest, LoopTriLinearizeAndFlagForms) {
  // tile.for over the 4-element tiles of n elements (a sum, zeros past n)
  // and over range(m) (a count, none when m is 0); delinearize and linearize of %x by the
  // tile count tiles(n, 4); tile (r, c) of the lower-triangular mask; a
  // load and a store `unless` an i1 flag and a where of it; a column of
  // view row 1 (a 4 x 1 tile) chosen under the mask.
  const char *source = R"(
!F = !tile.tile<4 x 8 x f32>
!V = !tile.tile<4 x f32>
tile.kernel @loop_forms(%a: !tile.view<1, f32>, %n: index, %m: index, %r: index,
                        %c: index, %x: index, %flag: i1,
                        %sums: !tile.view<1, f32>, %tri: !tile.view<2, i32>,
                        %d: !tile.view<1, i32>, %g: !tile.view<1, f32>,
                        %u: !tile.view<1, f32>, %col: !tile.view<2, f32>,
                        %out: !tile.view<2, f32>) {
  %four = arith.constant 4 : index
  %zero = tile.full 0.0 : !V
  %one = tile.full 1.0 : !V
  %total = tile.for %k in tiles(%n, %four) iter_args(%acc = %zero) -> (!V) {
    %t = tile.load %a[%k] : !tile.view<1, f32> -> !V
    %next = arith.addf %acc, %t : !V
    tile.yield %next : !V
  }
  %count = tile.for %k in range(%m) iter_args(%acc = %zero) -> (!V) {
    %next = arith.addf %acc, %one : !V
    tile.yield %next : !V
  }
  tile.store %total, %sums[0] : !V, !tile.view<1, f32>
  tile.store %count, %sums[1] : !V, !tile.view<1, f32>
  %q, %rest = tile.delinearize %x by tiles(%n, %four)
  %l = tile.linearize %q, %rest by tiles(%n, %four)
  %q32 = arith.index_cast %q : index to i32
  %rest32 = arith.index_cast %rest : index to i32
  %l32 = arith.index_cast %l : index to i32
  %qs = tile.full %q32 : !tile.tile<1 x i32>
  %rests = tile.full %rest32 : !tile.tile<1 x i32>
  %ls = tile.full %l32 : !tile.tile<1 x i32>
  tile.store %qs, %d[0] : !tile.tile<1 x i32>, !tile.view<1, i32>
  tile.store %rests, %d[1] : !tile.tile<1 x i32>, !tile.view<1, i32>
  tile.store %ls, %d[2] : !tile.tile<1 x i32>, !tile.view<1, i32>
  %mask = tile.tri at %r, %c : !tile.tile<4 x 8 x i1>
  %one32 = arith.constant 1 : i32
  %zero32 = arith.constant 0 : i32
  %maskI = tile.where %mask, %one32, %zero32
      : !tile.tile<4 x 8 x i1>, i32, i32 -> !tile.tile<4 x 8 x i32>
  tile.store %maskI, %tri[0, 0] : !tile.tile<4 x 8 x i32>, !tile.view<2, i32>
  %v = tile.load %g[0] unless %flag : !tile.view<1, f32>, i1 -> !tile.tile<8 x f32>
  %e = math.exp %v : !tile.tile<8 x f32>
  %w = tile.where %flag, %e, %v : i1, !tile.tile<8 x f32>
  tile.store %w, %u[0] unless %flag : !tile.tile<8 x f32>, !tile.view<1, f32>, i1
  tile.store %w, %u[1] if %flag : !tile.tile<8 x f32>, !tile.view<1, f32>, i1
  %column = tile.load %col[1, 0] dims = [1, 0]
      : !tile.view<2, f32> -> !tile.tile<4 x 1 x f32>
  %zerof = arith.constant 0.0 : f32
  %o = tile.where %mask, %column, %zerof
      : !tile.tile<4 x 8 x i1>, !tile.tile<4 x 1 x f32>, f32 -> !F
  tile.store %o, %out[0, 0] : !F, !tile.view<2, f32>
}
)";
  mlir::tile::KernelOp kernel = parse(source);
  for (int flag : {0, 1}) {
    int64_t n = uniformInt(1, 23), m = flag ? 0 : uniformInt(1, 5),
            r = uniformInt(0, 3), c = uniformInt(0, 2), x = uniformInt(0, 60);
    SCOPED_TRACE("n " + std::to_string(n) + ", m " + std::to_string(m) +
                 ", r " + std::to_string(r) +
                 ", c " + std::to_string(c) + ", x " + std::to_string(x) +
                 ", flag " + std::to_string(flag));
    std::vector<float> a = randomFloats(n),
                       sums(8, kPoison), g = randomFloats(8),
                       u(16, kPoison), col = randomFloats(8),
                       out(32, kPoison);
    std::vector<int32_t> tri(32, int32_t(kPoisonInt)),
        d(3, int32_t(kPoisonInt));
    run(kernel,
        {viewOf(a, DType::F32, {n}), Scalar(n), Scalar(m), Scalar(r),
         Scalar(c),
         Scalar(x), Scalar(int64_t(flag)), viewOf(sums, DType::F32, {8}),
         viewOf(tri, DType::I32, {4, 8}), viewOf(d, DType::I32, {3}),
         viewOf(g, DType::F32, {8}), viewOf(u, DType::F32, {16}),
         viewOf(col, DType::F32, {2, 4}), viewOf(out, DType::F32, {4, 8})});
    for (int i = 0; i < 4; ++i) {
      float sum = 0;
      for (int64_t k = i; k < n; k += 4)
        sum += a[k];
      ASSERT_TRUE(sameFloat(sums[i], sum)) << i;
      ASSERT_EQ(sums[4 + i], float(m)) << i;
    }
    int64_t tiles = (n + 3) / 4;
    EXPECT_EQ(d, (std::vector<int32_t>{int32_t(x / tiles), int32_t(x % tiles),
                                       int32_t(x)}));
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 8; ++j) {
        bool below = r * 4 + i >= c * 8 + j;
        ASSERT_EQ(tri[i * 8 + j], below ? 1 : 0) << i << ", " << j;
        ASSERT_EQ(out[i * 8 + j], below ? col[4 + i] : 0.0f) << i << ", " << j;
      }
    for (int j = 0; j < 8; ++j) {
      // Unless the flag: g, written to u[0:8]; with it: exp of the padding
      // (1), written to u[8:16].
      ASSERT_EQ(u[j], flag ? kPoison : g[j]) << j;
      ASSERT_EQ(u[8 + j], flag ? 1.0f : kPoison) << j;
    }
  }
}

TEST_F(ComputeTest, FormsRunWhereOnlyTheTileDialectIsLoaded) {
  // The `if %c` forms expand into scf.if and the activations into math ops
  // even when the kernel's text has neither (the tile dialect loads both),
  // as the Mamba-2 library's chunk_cumsum needs.
  const char *source = R"(
tile.kernel @forms(%a: !tile.view<1, f32>, %flag: i32, %o: !tile.view<1, f32>) {
  %x = tile.load %a[0] if %flag : !tile.view<1, f32>, i32 -> !tile.tile<16 x f32>
  %s = tile.softplus %x if %flag : !tile.tile<16 x f32>, i32
  %g = tile.silu %s : !tile.tile<16 x f32>
  tile.store %g, %o[0] : !tile.tile<16 x f32>, !tile.view<1, f32>
  tile.return
}
)";
  mlir::MLIRContext bare;
  bare.loadDialect<mlir::tile::TileDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> parsed =
      mlir::parseSourceString<mlir::ModuleOp>(source, &bare);
  ASSERT_TRUE(parsed);
  auto kernel = *parsed->getOps<mlir::tile::KernelOp>().begin();
  std::vector<float> a = randomFloats(16, -30, 30), o(16, kPoison);
  std::string error;
  ASSERT_TRUE(mlir::succeeded(runKernel(
      kernel,
      {viewOf(a, DType::F32, {16}), Scalar(int64_t(1)),
       viewOf(o, DType::F32, {16})},
      {}, error)))
      << error;
  for (int i = 0; i < 16; ++i) {
    float soft = a[i] <= 20 ? std::log1p(std::exp(a[i])) : a[i];
    ASSERT_TRUE(sameFloat(o[i], soft / (1.0f + std::exp(-soft))))
        << a[i] << " gave " << o[i];
  }
}

TEST_F(ComputeTest, ArangeAlongADimension) {
  // Rows and columns of a 3 x 5 x 2 tile counted from a start along each
  // dimension; q[k] holds the count along dimension k.
  const char *source = R"(
!I = !tile.tile<3 x 5 x 2 x i32>
tile.kernel @arange_dim(%start: index, %q: !tile.view<4, i32>) {
  %d0 = tile.arange %start dim 0 : !I
  %d1 = tile.arange dim 1 : !I
  %d2 = tile.arange %start dim 2 : !I
  tile.store %d0, %q[0, 0, 0, 0] dims = [1, 2, 3] : !I, !tile.view<4, i32>
  tile.store %d1, %q[1, 0, 0, 0] dims = [1, 2, 3] : !I, !tile.view<4, i32>
  tile.store %d2, %q[2, 0, 0, 0] dims = [1, 2, 3] : !I, !tile.view<4, i32>
  tile.return
}
)";
  int64_t start = uniformInt(-100, 100);
  std::vector<int32_t> q(3 * 30, static_cast<int32_t>(kPoisonInt));
  run(parse(source), {Scalar(start), viewOf(q, DType::I32, {3, 3, 5, 2})});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 2; ++k) {
        int at = (i * 5 + j) * 2 + k;
        ASSERT_EQ(q[at], start + i);
        ASSERT_EQ(q[30 + at], j);
        ASSERT_EQ(q[60 + at], start + k);
      }
}

TEST_F(ComputeTest, DenseAndScalarConstants) {
  const char *source = R"(
tile.kernel @constants(%o: !tile.view<1, f32>, %q: !tile.view<1, i32>) {
  %c0 = arith.constant 0 : index
  %d = arith.constant dense<[1.5, -2.0, 3.25, 0.1]> : tensor<4xf32>
  %h = arith.constant dense<[0.1, 0.2, 0.3, 65519.0]> : tensor<4xf16>
  %hf = tile.convert %h : tensor<4xf16> -> tensor<4xf32>
  %sum = arith.addf %d, %hf : tensor<4xf32>
  tile.store %sum, %o[%c0] : tensor<4xf32>, !tile.view<1, f32>
  %i = arith.constant dense<[7, -8, 2147483647, -2147483648]> : tensor<4xi32>
  %b = arith.constant dense<[true, false, true, true]> : tensor<4xi1>
  %bi = arith.extui %b : tensor<4xi1> to tensor<4xi32>
  %r = arith.addi %i, %bi : tensor<4xi32>
  tile.store %r, %q[%c0] : tensor<4xi32>, !tile.view<1, i32>
  tile.return
}
)";
  std::vector<float> o(4, kPoison);
  std::vector<int32_t> q(4, kPoisonInt);
  run(parse(source),
      {viewOf(o, DType::F32, {4}), viewOf(q, DType::I32, {4})});
  EXPECT_EQ(o[0], 1.5f + refF16(0.1f));
  EXPECT_EQ(o[1], -2.0f + refF16(0.2f));
  EXPECT_EQ(o[2], 3.25f + refF16(0.3f));
  EXPECT_EQ(o[3], 0.1f + 65504.0f);
  EXPECT_EQ(q[0], 8);
  EXPECT_EQ(q[1], -8);
  EXPECT_EQ(q[2], INT32_MIN);
  EXPECT_EQ(q[3], -2147483647);
}

} // namespace
