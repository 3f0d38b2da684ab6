//===- ViewByteSpanTest.cpp - the bytes a strided view spans --------------===//

#include "tilec/Support/ViewByteSpan.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

std::optional<int64_t> span(std::vector<int64_t> shape,
                            std::vector<int64_t> strides, size_t elementSize) {
  return tilec::viewByteSpan(shape.data(), strides.data(), shape.size(),
                             elementSize);
}

TEST(ViewByteSpan, CountsFromTheFirstElementToOnePastTheLast) {
  EXPECT_EQ(span({1}, {7}, 4), 4);
  // Row-major 2 x 3 of f32.
  EXPECT_EQ(span({2, 3}, {3, 1}, 4), 24);
  // Padded rows: the last row's padding is not spanned.
  EXPECT_EQ(span({2, 3}, {5, 1}, 2), (5 + 2 + 1) * 2);
  // A broadcast dimension (stride 0) spans nothing more.
  EXPECT_EQ(span({4, 3}, {0, 1}, 8), 3 * 8);
}

TEST(ViewByteSpan, LargestSpanFitsExactly) {
  EXPECT_EQ(span({kMax}, {1}, 1), kMax);
  EXPECT_EQ(span({kMax / 2 + 1}, {1}, 2), std::nullopt);
  EXPECT_EQ(span({kMax / 2}, {1}, 2), kMax - 1);
}

TEST(ViewByteSpan, OverflowAnywhereIsNone) {
  // (shape - 1) * stride.
  EXPECT_EQ(span({3}, {kMax / 2 + 1}, 1), std::nullopt);
  // The sum over dimensions.
  EXPECT_EQ(span({2, 2}, {kMax / 2 + 1, kMax / 2 + 1}, 1), std::nullopt);
  // One past the last element.
  EXPECT_EQ(span({2}, {kMax}, 1), std::nullopt);
  EXPECT_EQ(span({2}, {kMax - 1}, 1), kMax);
  // The element size.
  EXPECT_EQ(span({2}, {kMax / 4}, 4), std::nullopt);
}

} // namespace
