//===- FactoryTest.cpp - every layout factory against its definition ------===//
//
// Each factory is compared, point by point, with its definition written as
// plain index arithmetic: Triton-style blocked layouts, the PTX ISA fragment
// tables of mma.sync, ldmatrix and wgmma, and the CUDA TMA swizzle pattern.
//
//===----------------------------------------------------------------------===//

#include "LayoutTestUtils.h"

#include <gtest/gtest.h>

using namespace tilec;
using namespace tilec::testing;
using llvm::SmallVector;

namespace {

using Coords = SmallVector<int64_t>;

/// Checks every (register, lane, warp) of `layout` against `expected`, and
/// that the layout has `registers` registers, 32 lanes and `warps` warps.
void expectLayout(
    const LinearLayout &layout, int64_t registers, int64_t warps,
    const std::function<Coords(int64_t, int64_t, int64_t)> &expected) {
  ASSERT_EQ(layout.getInDimSize(kRegister), registers) << layout.toString();
  ASSERT_EQ(layout.getInDimSize(kLane), 32) << layout.toString();
  ASSERT_EQ(layout.getInDimSize(kWarp), warps) << layout.toString();
  int64_t mismatches = 0;
  forEachThreadRegister(layout, [&](int64_t r, int64_t l, int64_t w) {
    Coords want = expected(r, l, w);
    Coords got = at(layout, r, l, w);
    if (got != want && mismatches++ < 5)
      ADD_FAILURE() << "register " << r << " lane " << l << " warp " << w
                    << ": got (" << got[0] << ", " << got[1] << ") want ("
                    << want[0] << ", " << want[1] << ")\n"
                    << layout.toString();
  });
  EXPECT_EQ(mismatches, 0);
}

//===----------------------------------------------------------------------===//
// Blocked and slice
//===----------------------------------------------------------------------===//

struct BlockedCase {
  SmallVector<int64_t> shape, sizePerThread, threadsPerWarp, warpsPerCTA;
  SmallVector<unsigned> order;
};

/// The definition: per dim d, element coordinate
///   (rep_d * cover_d + warp_d * spt_d * tpw_d + lane_d * spt_d + reg_d)
///   mod shape_d,
/// with lane, warp and the in-thread index split over dims fastest-first in
/// `order`, the in-thread index over min(spt, shape), and the register
/// repetitions over shape / cover where the tile is larger than one cover.
Coords blockedDefinition(const BlockedCase &c, int64_t r, int64_t l,
                         int64_t w) {
  size_t rank = c.shape.size();
  auto split = [&](int64_t index, const std::function<int64_t(size_t)> &n) {
    Coords parts(rank, 0);
    for (unsigned d : c.order) {
      parts[d] = index % n(d);
      index /= n(d);
    }
    return parts;
  };
  auto cover = [&](size_t d) {
    return c.sizePerThread[d] * c.threadsPerWarp[d] * c.warpsPerCTA[d];
  };
  int64_t inThread = 1;
  for (size_t d = 0; d < rank; ++d)
    inThread *= std::min(c.sizePerThread[d], c.shape[d]);
  Coords reg = split(r % inThread, [&](size_t d) {
    return std::min(c.sizePerThread[d], c.shape[d]);
  });
  Coords rep = split(r / inThread, [&](size_t d) {
    return std::max<int64_t>(1, c.shape[d] / cover(d));
  });
  Coords lane = split(l, [&](size_t d) { return c.threadsPerWarp[d]; });
  Coords warp = split(w, [&](size_t d) { return c.warpsPerCTA[d]; });
  Coords coords(rank);
  for (size_t d = 0; d < rank; ++d)
    coords[d] = (rep[d] * cover(d) +
                 warp[d] * c.sizePerThread[d] * c.threadsPerWarp[d] +
                 lane[d] * c.sizePerThread[d] + reg[d]) %
                c.shape[d];
  return coords;
}

TEST(LayoutFactories, BlockedMatchesDefinition) {
  const BlockedCase cases[] = {
      // Coalesced 16-byte bf16 loads of a 64 x 64 tile, 4 warps.
      {{64, 64}, {1, 8}, {4, 8}, {4, 1}, {1, 0}},
      // Column-major order with repetitions along both dims.
      {{128, 32}, {4, 1}, {8, 4}, {2, 2}, {0, 1}},
      // A tile smaller than the threads: replication over lanes and warps.
      {{8, 4}, {1, 8}, {4, 8}, {2, 2}, {1, 0}},
      // 1-D.
      {{1024}, {4}, {32}, {4}, {0}},
      // 3-D, order neither row- nor column-major.
      {{4, 16, 32}, {1, 2, 4}, {2, 4, 4}, {1, 2, 2}, {2, 0, 1}},
  };
  for (const BlockedCase &c : cases) {
    LinearLayout layout = blockedLayout(
        c.shape, c.sizePerThread, c.threadsPerWarp, c.warpsPerCTA, c.order);
    int64_t warps = 1, registers = 1, covered = 1;
    for (size_t d = 0; d < c.shape.size(); ++d) {
      warps *= c.warpsPerCTA[d];
      int64_t cover =
          c.sizePerThread[d] * c.threadsPerWarp[d] * c.warpsPerCTA[d];
      registers *= std::min(c.sizePerThread[d], c.shape[d]) *
                   std::max<int64_t>(1, c.shape[d] / cover);
      covered *= c.shape[d];
    }
    ASSERT_EQ(layout.getInDimSize(kRegister), registers) << layout.toString();
    ASSERT_EQ(layout.getInDimSize(kWarp), warps);
    EXPECT_TRUE(layout.isSurjective()) << layout.toString();
    int64_t mismatches = 0;
    forEachThreadRegister(layout, [&](int64_t r, int64_t l, int64_t w) {
      if (at(layout, r, l, w) != blockedDefinition(c, r, l, w) &&
          mismatches++ < 5)
        ADD_FAILURE() << "r " << r << " l " << l << " w " << w << " in "
                      << layout.toString();
    });
    EXPECT_EQ(mismatches, 0);
  }
}

TEST(LayoutFactories, SliceHoldsTheProjectionOnce) {
  const BlockedCase cases[] = {{{64, 64}, {1, 8}, {4, 8}, {4, 1}, {1, 0}},
                               {{32, 128}, {2, 4}, {8, 4}, {2, 2}, {0, 1}}};
  for (const BlockedCase &c : cases) {
    LinearLayout parent = blockedLayout(
        c.shape, c.sizePerThread, c.threadsPerWarp, c.warpsPerCTA, c.order);
    for (unsigned dim = 0; dim < 2; ++dim) {
      LinearLayout slice = sliceLayout(parent, dim);
      ASSERT_EQ(slice.getOutDims().size(), 1u);
      EXPECT_EQ(slice.getOutDimSize("dim0"), c.shape[1 - dim]);
      // Per thread: the slice's elements are the parent's with `dim`
      // dropped, each once.
      for (int64_t w = 0; w < parent.getInDimSize(kWarp); ++w)
        for (int64_t l = 0; l < 32; ++l) {
          std::set<int64_t> want, got;
          for (int64_t r = 0; r < parent.getInDimSize(kRegister); ++r)
            want.insert(at(parent, r, l, w)[1 - dim]);
          for (int64_t r = 0; r < slice.getInDimSize(kRegister); ++r)
            got.insert(at(slice, r, l, w)[0]);
          EXPECT_EQ(got, want) << "lane " << l << " warp " << w;
          EXPECT_EQ(int64_t(got.size()), slice.getInDimSize(kRegister));
        }
    }
  }
}

//===----------------------------------------------------------------------===//
// mma.sync (PTX ISA, "Matrix Fragments for mma.m16n8k16" and "mma.m16n8k8")
//===----------------------------------------------------------------------===//

struct MmaCase {
  int64_t rows, cols, wm, wn;
};
const MmaCase kMmaCases[] = {{16, 8, 1, 1},
                             {64, 64, 2, 2},
                             {128, 32, 4, 1},
                             {32, 128, 1, 4},
                             {16, 16, 1, 2}};

TEST(LayoutFactories, MmaSyncAccumulatorIsThePtxFragment) {
  for (const MmaCase &c : kMmaCases) {
    if (c.rows < 16 * c.wm || c.cols < 8 * c.wn)
      continue;
    int64_t repsN = c.cols / (8 * c.wn);
    int64_t registers = 4 * (c.rows / (16 * c.wm)) * repsN;
    expectLayout(mmaSyncAccumulatorLayout({c.rows, c.cols}, {c.wm, c.wn}),
                 registers, c.wm * c.wn, [&](int64_t r, int64_t l, int64_t w) {
                   int64_t group = l >> 2, inGroup = l % 4, i = r % 4;
                   int64_t rep = r / 4;
                   int64_t row = group + 8 * (i >= 2);
                   int64_t col = inGroup * 2 + (i & 1);
                   return Coords{
                       (rep / repsN) * 16 * c.wm + (w % c.wm) * 16 + row,
                       (rep % repsN) * 8 * c.wn + (w / c.wm) * 8 + col};
                 });
  }
}

TEST(LayoutFactories, MmaSyncOperandsAreThePtxFragments) {
  for (bool k16 : {true, false}) {
    MmaSyncShape shape = k16 ? MmaSyncShape::M16N8K16 : MmaSyncShape::M16N8K8;
    int64_t k = k16 ? 16 : 8, perA = k16 ? 8 : 4, perB = k16 ? 4 : 2;
    for (const MmaCase &c : kMmaCases) {
      SCOPED_TRACE(::testing::Message()
                   << "k" << k << " " << c.rows << "x" << c.cols << " warps "
                   << c.wm << "x" << c.wn);
      // A: rows x cols = M x K.
      if (c.rows >= 16 * c.wm && c.cols % k == 0) {
        int64_t repsK = c.cols / k;
        expectLayout(
            mmaSyncOperandLayout(shape, MmaOperand::A, {c.rows, c.cols},
                                 {c.wm, c.wn}),
            perA * repsK * (c.rows / (16 * c.wm)), c.wm * c.wn,
            [&](int64_t r, int64_t l, int64_t w) {
              int64_t g = l >> 2, t = l % 4, i = r % perA, rep = r / perA;
              int64_t row, col;
              if (k16) {
                row = g + ((i == 2 || i == 3 || i == 6 || i == 7) ? 8 : 0);
                col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
              } else {
                row = g + ((i == 1 || i == 3) ? 8 : 0);
                col = t + (i >= 2 ? 4 : 0);
              }
              return Coords{(rep / repsK) * 16 * c.wm + (w % c.wm) * 16 + row,
                            (rep % repsK) * k + col};
            });
      }
      // B: rows x cols = K x N.
      if (c.rows % k == 0 && c.cols >= 8 * c.wn) {
        int64_t repsK = c.rows / k;
        expectLayout(
            mmaSyncOperandLayout(shape, MmaOperand::B, {c.rows, c.cols},
                                 {c.wm, c.wn}),
            perB * repsK * (c.cols / (8 * c.wn)), c.wm * c.wn,
            [&](int64_t r, int64_t l, int64_t w) {
              int64_t g = l >> 2, t = l % 4, i = r % perB, rep = r / perB;
              int64_t row = k16 ? t * 2 + (i & 1) + (i >= 2 ? 8 : 0)
                                : t + (i == 1 ? 4 : 0);
              return Coords{(rep % repsK) * k + row,
                            (rep / repsK) * 8 * c.wn + (w / c.wm) * 8 + g};
            });
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// ldmatrix (PTX ISA, "ldmatrix")
//===----------------------------------------------------------------------===//

TEST(LayoutFactories, LdmatrixIsThePtxDefinition) {
  for (unsigned matrices : {1u, 2u, 4u})
    for (bool trans : {false, true}) {
      LinearLayout layout = ldmatrixLayout(matrices, trans);
      ASSERT_EQ(layout.getInDimSize(kRegister), 2 * matrices);
      ASSERT_EQ(layout.getInDimSize(kLane), 32);
      for (int64_t l = 0; l < 32; ++l)
        for (int64_t j = 0; j < matrices; ++j)
          for (int64_t half = 0; half < 2; ++half) {
            // Destination register j of lane l: row l / 4, columns
            // 2 (l % 4) and 2 (l % 4) + 1 of matrix j; transposed with .trans.
            Coords want = trans ? Coords{j, 2 * (l % 4) + half, l / 4}
                                : Coords{j, l / 4, 2 * (l % 4) + half};
            EXPECT_EQ(layout.apply({2 * j + half, l}), want)
                << "x" << matrices << (trans ? ".trans" : "") << " lane " << l
                << " register " << j << " half " << half;
          }
      LinearLayout address = ldmatrixAddressLayout(matrices);
      ASSERT_EQ(address.getInDimSize(kLane), 8 * matrices);
      for (int64_t l = 0; l < 8 * matrices; ++l)
        EXPECT_EQ(address.apply({l}), (Coords{l / 8, l % 8}));
    }
}

TEST(LayoutFactories, LdmatrixX4FeedsTheMmaAFragment) {
  // Matrices 0..3 at (rows, cols) offsets (0,0), (8,0), (0,8), (8,8) of a
  // 16 x 16 A tile: the lanes then hold exactly the m16n8k16 A fragment.
  LinearLayout placement({{"matrix", {{8, 0}, {0, 8}}},
                          {"row", {{1, 0}, {2, 0}, {4, 0}}},
                          {"col", {{0, 1}, {0, 2}, {0, 4}}}},
                         {{"dim0", 4}, {"dim1", 4}});
  LinearLayout loaded = ldmatrixLayout(4, false).compose(placement);
  LinearLayout fragment = mmaSyncOperandLayout(MmaSyncShape::M16N8K16,
                                               MmaOperand::A, {16, 16}, {1, 1});
  EXPECT_EQ(loaded, fragment.sublayout({"register", "lane"}, {"dim0", "dim1"}));
  // B (K x N) stored N-major (rows = n): ldmatrix.x2 without .trans gives
  // the B fragment; stored K-major (rows = k) the same needs .trans.
  LinearLayout bFragment = mmaSyncOperandLayout(MmaSyncShape::M16N8K16,
                                                MmaOperand::B, {16, 8}, {1, 1});
  LinearLayout nMajor({{"matrix", {{8, 0}}},
                       {"row", {{0, 1}, {0, 2}, {0, 4}}},
                       {"col", {{1, 0}, {2, 0}, {4, 0}}}},
                      {{"dim0", 4}, {"dim1", 3}});
  LinearLayout kMajor({{"matrix", {{8, 0}}},
                       {"row", {{1, 0}, {2, 0}, {4, 0}}},
                       {"col", {{0, 1}, {0, 2}, {0, 4}}}},
                      {{"dim0", 4}, {"dim1", 3}});
  LinearLayout bOnly =
      bFragment.sublayout({"register", "lane"}, {"dim0", "dim1"});
  EXPECT_EQ(ldmatrixLayout(2, false).compose(nMajor), bOnly);
  EXPECT_EQ(ldmatrixLayout(2, true).compose(kMajor), bOnly);
}

//===----------------------------------------------------------------------===//
// wgmma (PTX ISA, "Register Fragments and Shared Memory Matrix Layouts")
//===----------------------------------------------------------------------===//

TEST(LayoutFactories, WgmmaAccumulatorIsThePtxFragment) {
  struct Case {
    int64_t rows, cols, instrN, warps;
  };
  for (Case c :
       {Case{64, 8, 8, 4}, Case{64, 256, 256, 4}, Case{128, 128, 64, 4},
        Case{128, 64, 64, 8}, Case{256, 128, 32, 8}}) {
    SCOPED_TRACE(::testing::Message() << c.rows << "x" << c.cols << " n"
                                      << c.instrN << " warps " << c.warps);
    int64_t groups = c.warps / 4, perInstr = c.instrN / 2;
    int64_t repsN = c.cols / c.instrN, repsM = c.rows / (64 * groups);
    expectLayout(wgmmaAccumulatorLayout({c.rows, c.cols}, c.instrN, c.warps),
                 perInstr * repsN * repsM, c.warps,
                 [&](int64_t r, int64_t l, int64_t w) {
                   int64_t g = l >> 2, t = l % 4, i = r % perInstr;
                   int64_t rep = r / perInstr;
                   int64_t row = 16 * (w % 4) + g + 8 * ((i >> 1) & 1);
                   int64_t col = (i >> 2) * 8 + t * 2 + (i & 1);
                   return Coords{(rep / repsN) * 64 * groups + 64 * (w / 4) +
                                     row,
                                 (rep % repsN) * c.instrN + col};
                 });
  }
}

TEST(LayoutFactories, WgmmaRegisterAIsThePtxFragment) {
  for (auto [rows, cols, warps] :
       {std::tuple<int64_t, int64_t, int64_t>{64, 16, 4},
        {128, 64, 4},
        {128, 32, 8}}) {
    int64_t groups = warps / 4, repsK = cols / 16;
    expectLayout(wgmmaOperandALayout({rows, cols}, warps),
                 8 * repsK * (rows / (64 * groups)), warps,
                 [&](int64_t r, int64_t l, int64_t w) {
                   int64_t g = l >> 2, t = l % 4, i = r % 8, rep = r / 8;
                   int64_t row = g + 8 * ((i >> 1) & 1);
                   int64_t col = t * 2 + (i & 1) + 8 * (i >> 2);
                   return Coords{(rep / repsK) * 64 * groups + 64 * (w / 4) +
                                     16 * (w % 4) + row,
                                 (rep % repsK) * 16 + col};
                 });
  }
}

//===----------------------------------------------------------------------===//
// Shared-memory swizzles (CUDA programming guide, "TMA Swizzle")
//===----------------------------------------------------------------------===//

/// The documented pattern: a tile row is stored as lines of `swizzle` bytes
/// (one per column block of swizzle bytes, blocks one after another); within
/// a line the 16-byte chunk index is XORed with the line's position in the
/// pattern: line % 8 for 128B, (line / 2) % 4 for 64B, (line / 4) % 2 for
/// 32B (the pattern repeats every 1024, 512, 256 bytes).
int64_t documentedOffset(int64_t rows, int64_t cols, int64_t elementBytes,
                         int64_t swizzle, int64_t row, int64_t col) {
  if (swizzle == 0)
    return row * cols + col;
  int64_t perLine = swizzle / elementBytes;
  int64_t line = (col / perLine) * rows + row;
  int64_t byteInLine = (col % perLine) * elementBytes;
  int64_t chunk = byteInLine / 16, byteInChunk = byteInLine % 16;
  int64_t pattern = swizzle == 128  ? line % 8
                    : swizzle == 64 ? (line / 2) % 4
                                    : (line / 4) % 2;
  int64_t bytes = line * swizzle + (chunk ^ pattern) * 16 + byteInChunk;
  return bytes / elementBytes;
}

TEST(LayoutFactories, SwizzlesAreTheCudaPattern) {
  struct Case {
    int64_t rows, cols;
    unsigned elementBytes, swizzle;
  };
  for (Case c :
       {Case{64, 64, 2, 128}, Case{64, 128, 2, 128}, Case{32, 32, 4, 128},
        Case{16, 32, 2, 64}, Case{64, 16, 2, 32}, Case{8, 64, 1, 64},
        Case{128, 64, 2, 0}, Case{4, 64, 2, 128}}) {
    SCOPED_TRACE(::testing::Message()
                 << c.rows << "x" << c.cols << " x" << c.elementBytes
                 << "B swizzle " << c.swizzle);
    LinearLayout layout =
        swizzledSharedLayout({c.rows, c.cols}, c.elementBytes, c.swizzle);
    ASSERT_EQ(layout.getInDimSize(kOffset), c.rows * c.cols);
    int64_t mismatches = 0;
    for (int64_t offset = 0; offset < c.rows * c.cols; ++offset) {
      Coords coords = layout.apply({offset});
      if (documentedOffset(c.rows, c.cols, c.elementBytes, c.swizzle, coords[0],
                           coords[1]) != offset &&
          mismatches++ < 5)
        ADD_FAILURE() << "offset " << offset << " holds (" << coords[0] << ", "
                      << coords[1] << ")";
    }
    EXPECT_EQ(mismatches, 0);
  }
}

TEST(LayoutFactories, LdmatrixFromA128ByteSwizzleHasNoBankConflicts) {
  // ldmatrix: each phase of 8 lanes reads 8 rows x 16 bytes of one matrix.
  // From a 64 x 64 bf16 tile with the 128-byte swizzle, every 8 x 8 matrix
  // is conflict free; without swizzle the 8 rows hit the same banks.
  for (unsigned swizzle : {128u, 0u}) {
    LinearLayout offsets = swizzledSharedLayout({64, 64}, 2, swizzle).invert();
    int64_t excess = 0;
    for (int64_t row0 = 0; row0 < 64; row0 += 8)
      for (int64_t col0 = 0; col0 < 64; col0 += 8) {
        std::vector<int64_t> addresses;
        for (int64_t r = 0; r < 8; ++r)
          addresses.push_back(2 * offsets.apply({row0 + r, col0})[0]);
        excess += excessWavefronts(addresses, 16);
      }
    if (swizzle)
      EXPECT_EQ(excess, 0);
    else
      EXPECT_EQ(excess, 64 * 7); // each of the 64 matrices: 8-way
  }
}

} // namespace
