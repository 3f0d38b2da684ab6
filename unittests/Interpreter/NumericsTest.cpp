//===- NumericsTest.cpp - rounding to bf16, f16 and tf32 --------*- C++ -*-===//
//
// Known answers (ties in particular) and random bit patterns against
// llvm::APFloat, whose conversions are an independent implementation.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

using namespace tilec::interp;
using namespace tilec::interp::test;

namespace {

class NumericsTest : public KernelTest {};

TEST_F(NumericsTest, BF16TiesToEven) {
  // Between 1 and 1 + 2^-7 (the bf16 ulp at 1): exact half is a tie.
  EXPECT_EQ(roundToBF16(1.0f + 0x1p-8f), 1.0f);
  EXPECT_EQ(roundToBF16(1.0f + 0x1p-7f + 0x1p-8f), 1.0f + 0x1p-6f);
  EXPECT_EQ(roundToBF16(-(1.0f + 0x1p-8f)), -1.0f);
  EXPECT_EQ(roundToBF16(1.0f + 0x1p-8f + 0x1p-20f), 1.0f + 0x1p-7f);
  // The largest finite bf16 and the overflow to infinity.
  EXPECT_EQ(roundToBF16(0x1.fep127f), 0x1.fep127f);
  EXPECT_EQ(roundToBF16(0x1.ffp127f), INFINITY);
  EXPECT_EQ(roundToBF16(-0x1.ffp127f), -INFINITY);
  EXPECT_TRUE(std::isnan(roundToBF16(NAN)));
  EXPECT_TRUE(std::signbit(roundToBF16(-0.0f)));
  // A NaN whose payload is only in the low bits stays a NaN.
  EXPECT_TRUE(std::isnan(bf16BitsToFloat(floatToBF16Bits(bitsFloat(0x7f800001u)))));
}

TEST_F(NumericsTest, TF32TiesAwayFromZero) {
  // tf32 keeps 10 mantissa bits: the ulp at 1 is 2^-10.
  EXPECT_EQ(roundToTF32(1.0f + 0x1p-11f), 1.0f + 0x1p-10f);
  EXPECT_EQ(roundToTF32(-(1.0f + 0x1p-11f)), -(1.0f + 0x1p-10f));
  EXPECT_EQ(roundToTF32(1.0f + 0x1p-10f + 0x1p-11f), 1.0f + 0x1p-9f);
  EXPECT_EQ(roundToTF32(1.0f + 0x1p-11f - 0x1p-23f), 1.0f);
  // To nearest even on request (arith.truncf's default).
  EXPECT_EQ(roundToTF32(1.0f + 0x1p-11f, Rounding::NearestEven), 1.0f);
  // The low 13 bits are cleared: the value keeps its f32 storage.
  EXPECT_EQ(floatBits(roundToTF32(bitsFloat(0x3f8fffffu))) & 0x1fffu, 0u);
  EXPECT_EQ(roundToTF32(0x1.ffcp127f), 0x1.ffcp127f);
  EXPECT_EQ(roundToTF32(0x1.ffdp127f), 0x1.ffcp127f);
  EXPECT_EQ(roundToTF32(0x1.ffep127f), INFINITY);
}

TEST_F(NumericsTest, F16TiesSubnormalsAndOverflow) {
  EXPECT_EQ(roundToF16(1.0f + 0x1p-11f), 1.0f);
  EXPECT_EQ(roundToF16(1.0f + 0x1p-10f + 0x1p-11f), 1.0f + 0x1p-9f);
  EXPECT_EQ(roundToF16(65504.0f), 65504.0f);
  EXPECT_EQ(roundToF16(65519.0f), 65504.0f);
  EXPECT_EQ(roundToF16(65520.0f), INFINITY);
  EXPECT_EQ(roundToF16(-65520.0f), -INFINITY);
  // Subnormals are multiples of 2^-24; halfway rounds to even.
  EXPECT_EQ(roundToF16(0x1p-25f), 0.0f);
  EXPECT_EQ(roundToF16(0x3p-25f), 0x1p-23f);
  EXPECT_EQ(roundToF16(0x1p-25f + 0x1p-30f), 0x1p-24f);
  EXPECT_EQ(roundToF16(0x1.ffap-15f), 0x1.ff8p-15f);
  EXPECT_EQ(roundToF16(0x1.ffcp-15f), 0x1p-14f);
  EXPECT_TRUE(std::signbit(roundToF16(-0x1p-30f)));
  EXPECT_TRUE(std::isnan(roundToF16(NAN)));
}

TEST_F(NumericsTest, RandomBitPatternsMatchAPFloat) {
  for (int n = 0; n < 200000; ++n) {
    uint32_t bits = static_cast<uint32_t>(rng());
    // Every third value is made a tie of one of the formats.
    if (n % 3 == 1)
      bits = (bits & ~0xffffu) | 0x8000u;
    else if (n % 3 == 2)
      bits = (bits & ~0x1fffu) | 0x1000u;
    float x = bitsFloat(bits);
    ASSERT_TRUE(sameFloat(roundToBF16(x), refBF16(x))) << std::hex << bits;
    ASSERT_TRUE(sameFloat(roundToF16(x), refF16(x))) << std::hex << bits;
    ASSERT_TRUE(sameFloat(roundToTF32(x), refTF32(x))) << std::hex << bits;
  }
}

TEST_F(NumericsTest, SixteenBitEncodingsRoundTrip) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    auto bits = static_cast<uint16_t>(h);
    float f16 = f16BitsToFloat(bits), bf16 = bf16BitsToFloat(bits);
    llvm::APFloat ref(llvm::APFloat::IEEEhalf(), llvm::APInt(16, h));
    bool lost;
    ref.convert(llvm::APFloat::IEEEsingle(),
                llvm::RoundingMode::NearestTiesToEven, &lost);
    ASSERT_TRUE(sameFloat(f16, ref.convertToFloat())) << std::hex << h;
    ASSERT_EQ(floatBits(bf16), h << 16);
    if (std::isnan(f16))
      ASSERT_TRUE(std::isnan(f16BitsToFloat(floatToF16Bits(f16))));
    else
      ASSERT_EQ(floatToF16Bits(f16), bits) << std::hex << h;
    if (std::isnan(bf16))
      ASSERT_TRUE(std::isnan(bf16BitsToFloat(floatToBF16Bits(bf16))));
    else
      ASSERT_EQ(floatToBF16Bits(bf16), bits) << std::hex << h;
  }
}

} // namespace
