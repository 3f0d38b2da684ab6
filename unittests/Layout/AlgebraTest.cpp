//===- AlgebraTest.cpp - apply, compose, invert and the rest --------------===//
//
// The operations on linear layouts, on hand-made layouts with known answers
// and on random ones (a fresh seed per run, printed on failure) checked
// point by point against the definition of each operation.
//
//===----------------------------------------------------------------------===//

#include "LayoutTestUtils.h"

#include <gtest/gtest.h>

#include <random>

using namespace tilec;
using namespace tilec::testing;
using llvm::SmallVector;

namespace {

using Coords = SmallVector<int64_t>;

/// A random layout from (register 2^a, lane 2^b) to (dim0 2^c, dim1 2^d);
/// bijective when `bijective` (then a + b == c + d).
LinearLayout randomLayout(std::mt19937_64 &rng, unsigned a, unsigned b,
                          unsigned c, unsigned d, bool bijective) {
  while (true) {
    auto bases = [&](unsigned bits) {
      SmallVector<LinearLayout::Basis> result;
      for (unsigned k = 0; k < bits; ++k)
        result.push_back({int64_t(rng() % (uint64_t(1) << c)),
                          int64_t(rng() % (uint64_t(1) << d))});
      return result;
    };
    LinearLayout layout({{"register", bases(a)}, {"lane", bases(b)}},
                        {{"dim0", c}, {"dim1", d}});
    if (!bijective || (layout.isSurjective() && layout.isInjective()))
      return layout;
  }
}

class RandomLayouts : public ::testing::Test {
protected:
  void SetUp() override {
    seed = std::random_device{}();
    rng.seed(seed);
  }
  uint64_t seed = 0;
  std::mt19937_64 rng;
};

TEST(LinearLayoutAlgebra, ApplyIsTheXorOfTheBases) {
  LinearLayout layout({{"register", {{0, 1}, {8, 0}}},
                       {"lane", {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}}},
                      {{"dim0", 4}, {"dim1", 3}});
  EXPECT_EQ(layout.getTotalInBits(), 7u);
  EXPECT_EQ(layout.getTotalOutBits(), 7u);
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t l = 0; l < 32; ++l) {
      // The m16n8 accumulator fragment.
      Coords want = {(l >> 2) + 8 * (r >> 1), 2 * (l % 4) + (r & 1)};
      EXPECT_EQ(layout.apply({r, l}), want);
      EXPECT_EQ(layout.applyFlat(uint64_t(r + 4 * l)),
                uint64_t(want[0] + 16 * want[1]));
    }
  EXPECT_EQ(layout.getBasis("lane", 2), (Coords{1, 0}));
  EXPECT_EQ(layout.toString(), "register = [[0, 1], [8, 0]], lane = [[0, 2], "
                               "[0, 4], [1, 0], [2, 0], [4, 0]] -> dim0:16, "
                               "dim1:8");
  // A basis with two set bits: images XOR, they do not add.
  LinearLayout swizzle({{"offset", {{1, 1}, {2, 0}}}},
                       {{"dim0", 2}, {"dim1", 1}});
  EXPECT_EQ(swizzle.apply({3}), (Coords{3, 1}));
  LinearLayout xorred({{"offset", {{1}, {3}}}}, {{"dim0", 2}});
  EXPECT_EQ(xorred.apply({3}), (Coords{2}));
}

TEST(LinearLayoutAlgebra, IdentityZerosAndProduct) {
  LinearLayout identity = LinearLayout::identity1D(8, "lane", "dim0");
  for (int64_t i = 0; i < 8; ++i)
    EXPECT_EQ(identity.apply({i}), (Coords{i}));
  LinearLayout zeros = LinearLayout::zeros1D(4, "warp", "dim0", 8);
  EXPECT_EQ(zeros.getOutDimSize("dim0"), 8);
  EXPECT_EQ(zeros.apply({3}), (Coords{0}));
  EXPECT_FALSE(zeros.isInjective());

  // Same input and output dim: the second factor takes the high bits.
  LinearLayout stacked = LinearLayout::identity1D(4, "register", "dim0") *
                         LinearLayout::identity1D(8, "register", "dim0");
  EXPECT_EQ(stacked.getInDimSize("register"), 32);
  EXPECT_EQ(stacked.getOutDimSize("dim0"), 32);
  for (int64_t r = 0; r < 32; ++r)
    EXPECT_EQ(stacked.apply({r}), (Coords{r}));
  // Different dims: a direct product.
  LinearLayout grid = LinearLayout::identity1D(4, "register", "dim1") *
                      LinearLayout::identity1D(32, "lane", "dim0");
  EXPECT_EQ(grid.apply({3, 17}), (Coords{3, 17}));
  EXPECT_EQ(grid.getOutDims()[0].name, "dim1");
  // Lanes then registers along one dim: register r of lane l is 32 r + l.
  LinearLayout strided = LinearLayout::identity1D(32, "lane", "dim0") *
                         LinearLayout::identity1D(4, "register", "dim0");
  EXPECT_EQ(strided.apply({5, 2}), (Coords{2 * 32 + 5}));
  EXPECT_EQ(LinearLayout() * identity, identity);
}

TEST_F(RandomLayouts, ComposeIsFunctionComposition) {
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (int trial = 0; trial < 20; ++trial) {
    LinearLayout inner = randomLayout(rng, 3, 2, 2, 3, false);
    // outer: (dim0, dim1) -> (x), arbitrary.
    SmallVector<LinearLayout::Basis> b0, b1;
    for (int k = 0; k < 2; ++k)
      b0.push_back({int64_t(rng() % 64)});
    for (int k = 0; k < 3; ++k)
      b1.push_back({int64_t(rng() % 64)});
    LinearLayout outer({{"dim1", b1}, {"dim0", b0}}, {{"x", 6}});
    LinearLayout composed = inner.compose(outer);
    for (int64_t r = 0; r < 8; ++r)
      for (int64_t l = 0; l < 4; ++l) {
        Coords mid = inner.apply({r, l});
        EXPECT_EQ(composed.apply({r, l}), outer.apply({mid[1], mid[0]}));
      }
  }
}

TEST_F(RandomLayouts, InvertRoundTrips) {
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (int trial = 0; trial < 20; ++trial) {
    LinearLayout layout = randomLayout(rng, 3, 4, 4, 3, true);
    LinearLayout inverse = layout.invert();
    EXPECT_EQ(inverse.getInDims()[0].name, "dim0");
    EXPECT_EQ(inverse.getOutDims()[1].name, "lane");
    EXPECT_EQ(inverse.invert(), layout);
    // compose with the inverse is the identity, both ways round.
    EXPECT_EQ(layout.compose(inverse),
              LinearLayout::identity1D(8, "register", "register") *
                  LinearLayout::identity1D(16, "lane", "lane"));
    EXPECT_EQ(inverse.compose(layout),
              LinearLayout::identity1D(16, "dim0", "dim0") *
                  LinearLayout::identity1D(8, "dim1", "dim1"));
    for (int64_t r = 0; r < 8; ++r)
      for (int64_t l = 0; l < 16; ++l)
        EXPECT_EQ(inverse.apply(layout.apply({r, l})), (Coords{r, l}));
  }
}

TEST_F(RandomLayouts, PseudoInvertIsARightInverse) {
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (int trial = 0; trial < 20; ++trial) {
    LinearLayout layout = randomLayout(rng, 4, 5, 3, 3, false);
    if (!layout.isSurjective())
      continue;
    LinearLayout right = layout.pseudoInvert();
    for (int64_t y0 = 0; y0 < 8; ++y0)
      for (int64_t y1 = 0; y1 < 8; ++y1)
        EXPECT_EQ(layout.apply(right.apply({y0, y1})), (Coords{y0, y1}));
  }
  // Replicated elements are found in registers before lanes.
  LinearLayout replicated({{"register", {{1}, {2}}}, {"lane", {{1}, {4}}}},
                          {{"dim0", 3}});
  LinearLayout right = replicated.pseudoInvert();
  EXPECT_EQ(right.apply({1}), (Coords{1, 0}));
  EXPECT_EQ(right.apply({4}), (Coords{0, 2}));
  EXPECT_EQ(right.apply({7}), (Coords{3, 2}));
}

TEST(LinearLayoutAlgebra, TransposeAndReshapeOutputs) {
  LinearLayout layout = blockedLayout({8, 16}, {1, 4}, {8, 4}, {1, 1}, {1, 0});
  LinearLayout transposed = layout.transposeOuts({"dim1", "dim0"});
  // Reshape 8 x 16 -> 128 -> 4 x 32: the row-major index is kept.
  LinearLayout flat = layout.reshapeOuts({{"dim0", 7}});
  LinearLayout reshaped = layout.reshapeOuts({{"dim0", 2}, {"dim1", 5}});
  forEachThreadRegister(layout, [&](int64_t r, int64_t l, int64_t) {
    Coords c = layout.apply({r, l, 0});
    EXPECT_EQ(transposed.apply({r, l, 0}), (Coords{c[1], c[0]}));
    EXPECT_EQ(flat.apply({r, l, 0}), (Coords{c[0] * 16 + c[1]}));
    Coords d = reshaped.apply({r, l, 0});
    EXPECT_EQ(d[0] * 32 + d[1], c[0] * 16 + c[1]);
  });
}

TEST(LinearLayoutAlgebra, SublayoutAndRemoveZeroBases) {
  LinearLayout layout = blockedLayout({4, 64}, {1, 4}, {4, 8}, {2, 1}, {1, 0});
  // 4 rows x 64 cols over 2 warps of 4 x 8 lanes: warps replicate.
  LinearLayout lanes = layout.sublayout({"lane"}, {"dim1"});
  EXPECT_EQ(lanes.getInDims().size(), 1u);
  for (int64_t l = 0; l < 32; ++l)
    EXPECT_EQ(lanes.apply({l}), (Coords{4 * (l % 8)}));
  EXPECT_EQ(layout.getBasis("warp", 0), (Coords{0, 0}));
  LinearLayout noReplication = layout.removeZeroBases("warp");
  EXPECT_EQ(noReplication.getInDimSize("warp"), 1);
  EXPECT_TRUE(noReplication.isInjective());
  EXPECT_FALSE(layout.isInjective());
  EXPECT_TRUE(layout.isSurjective());
}

TEST(LinearLayoutAlgebra, Quotient) {
  // (register, lane) -> (register, lane): a register permutation in each
  // lane quotients by lane.
  LinearLayout perThread(
      {{"register", {{2, 0}, {1, 0}}}, {"lane", {{0, 1}, {0, 2}}}},
      {{"register", 2}, {"lane", 2}});
  std::optional<LinearLayout> q = perThread.quotient({"lane"});
  ASSERT_TRUE(q);
  EXPECT_EQ(*q, LinearLayout({{"register", {{2}, {1}}}}, {{"register", 2}}));
  EXPECT_TRUE(perThread.quotient({"lane", "warp"})); // absent dims are fine
  EXPECT_FALSE(perThread.quotient({"register"}));    // registers permuted

  // A register bit that moves data to another lane: not within a thread.
  LinearLayout crossing(
      {{"register", {{1, 0}, {0, 1}}}, {"lane", {{0, 1}, {0, 2}}}},
      {{"register", 1}, {"lane", 2}});
  EXPECT_FALSE(crossing.quotient({"lane"}));
  // Lanes that also change registers: not identity on lanes either.
  LinearLayout laneToRegister(
      {{"register", {{1, 0}}}, {"lane", {{1, 1}, {0, 2}}}},
      {{"register", 1}, {"lane", 2}});
  EXPECT_FALSE(laneToRegister.quotient({"lane"}));
  // Sizes must agree.
  LinearLayout shrinking({{"lane", {{1}, {2}}}}, {{"lane", 3}});
  EXPECT_FALSE(shrinking.quotient({"lane"}));
}

TEST(LinearLayoutAlgebra, SliceApply) {
  // The result of summing a 16 x 32 mma accumulator along dim 1: each
  // thread holds the rows it held, once.
  LinearLayout parent = mmaSyncAccumulatorLayout({16, 32}, {1, 1});
  LinearLayout rows = sliceLayout(parent, 1);
  EXPECT_EQ(rows.getInDimSize("register"), 2);
  for (int64_t l = 0; l < 32; ++l)
    for (int64_t r = 0; r < 2; ++r)
      EXPECT_EQ(rows.apply({r, l, 0}), (Coords{(l >> 2) + 8 * r}));
}

// A broken precondition is a compiler bug; it must end the process with a
// message that names it, in release builds too, not compute garbage.
TEST(LinearLayoutDeathTest, BrokenPreconditionsEndWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(blockedLayout({48, 64}, {1, 8}, {4, 8}, {4, 1}, {1, 0}),
               "a tile extent must be a positive power of two, got 48");
  EXPECT_DEATH(blockedLayout({64, 64}, {1, 8}, {4, 8}, {4, 1}, {0, 0}),
               "order must be a permutation");
  EXPECT_DEATH(LinearLayout::zeros1D(4, "lane", "dim0", 4).invert(),
               "invert needs a bijective layout");
  EXPECT_DEATH(LinearLayout({{"lane", {{8}}}}, {{"dim0", 3}}),
               "outside output dim 'dim0'");
  EXPECT_DEATH(mmaSyncAccumulatorLayout({8, 8}, {1, 1}), "multiple of 16 x 8");
  EXPECT_DEATH(swizzledSharedLayout({64, 16}, 2, 128),
               "spans at least the swizzle width");
  LinearLayout layout = LinearLayout::identity1D(8, "lane", "dim0");
  EXPECT_DEATH(layout.compose(LinearLayout::identity1D(4, "dim0", "x")),
               "not an input of the same size");
}

} // namespace
