//===- ConversionTest.cpp - the conversion planner, by simulation ---------===//
//
// Each plan is executed on a model of the hardware: every thread's registers
// hold the row-major index of the element the source layout puts there; the
// plan's moves (register renaming, shfl.sync rounds, or a store and a load
// through the chosen shared layout) must leave in every destination
// register the element the destination layout puts there. Shared-memory
// plans are also checked for bank conflicts with the model in
// LayoutTestUtils.h.
//
//===----------------------------------------------------------------------===//

#include "LayoutTestUtils.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <thread>

using namespace tilec;
using namespace tilec::testing;
using llvm::SmallVector;
using Kind = ConversionPlan::Kind;

namespace {

/// registers[warp][lane][register]: the element each holds under `layout`.
using Registers = std::vector<std::vector<std::vector<int64_t>>>;

Registers holdings(const LinearLayout &layout) {
  Registers regs(layout.getInDimSize(kWarp),
                 std::vector<std::vector<int64_t>>(
                     32, std::vector<int64_t>(layout.getInDimSize(kRegister))));
  forEachThreadRegister(layout, [&](int64_t r, int64_t l, int64_t w) {
    regs[w][l][r] = linearIndex(layout, at(layout, r, l, w));
  });
  return regs;
}

ConversionPlan plan(const LinearLayout &src, const LinearLayout &dst,
                    unsigned elementBytes) {
  llvm::Expected<ConversionPlan> result =
      planConversion(src, dst, elementBytes);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return {};
  }
  return std::move(*result);
}

void expectRegisterPermutation(const LinearLayout &src, const LinearLayout &dst,
                               const ConversionPlan &p) {
  ASSERT_EQ(p.kind, Kind::RegisterPermutation);
  Registers from = holdings(src), want = holdings(dst);
  ASSERT_EQ(int64_t(p.srcRegisterOf.size()), dst.getInDimSize(kRegister));
  for (size_t w = 0; w < want.size(); ++w)
    for (int l = 0; l < 32; ++l)
      for (size_t r = 0; r < p.srcRegisterOf.size(); ++r)
        EXPECT_EQ(from[w][l][p.srcRegisterOf[r]], want[w][l][r])
            << "warp " << w << " lane " << l << " register " << r;
}

/// Runs the rounds in every warp; every destination register of every lane
/// must be written exactly once, with the element dst expects.
void expectShufflesDeliver(const LinearLayout &src, const LinearLayout &dst,
                           const ConversionPlan &p) {
  ASSERT_EQ(p.kind, Kind::WarpShuffle);
  Registers from = holdings(src), want = holdings(dst);
  for (size_t w = 0; w < want.size(); ++w) {
    std::vector<std::vector<int>> writes(
        32, std::vector<int>(dst.getInDimSize(kRegister), 0));
    std::vector<std::vector<int64_t>> got(
        32, std::vector<int64_t>(dst.getInDimSize(kRegister), -1));
    for (const ShuffleRound &round : p.shuffles) {
      ASSERT_EQ(round.srcLane.size(), 32u);
      for (int l = 0; l < 32; ++l) {
        if (!((round.lanesKept >> l) & 1))
          continue;
        unsigned sender = round.srcLane[l];
        got[l][round.dstRegister] = from[w][sender][round.sendRegister[sender]];
        ++writes[l][round.dstRegister];
      }
    }
    for (int l = 0; l < 32; ++l)
      for (size_t r = 0; r < got[l].size(); ++r) {
        EXPECT_EQ(writes[l][r], 1) << "lane " << l << " register " << r;
        EXPECT_EQ(got[l][r], want[w][l][r])
            << "warp " << w << " lane " << l << " register " << r;
      }
  }
}

struct SharedResult {
  int64_t storeConflicts = 0;
  int64_t loadConflicts = 0;
};

/// Which element of dst instruction `g` of an ldmatrix read delivers to
/// (lane, register) of one warp, through `offsetOf` (tensor -> offset):
/// lane L addresses the row that rowStarts names, each lane receives what
/// ldmatrixLayout says. Adds the rows' bank conflicts to `conflicts`.
void simulateLdmatrix(const LinearLayout &dst, const LinearLayout &offsetOf,
                      const LdmatrixRead &read, unsigned elementBytes,
                      int64_t warp, int64_t g, const std::vector<int64_t> &memory,
                      const Registers &want, int64_t &conflicts) {
  std::vector<int64_t> rowStart(32);
  std::vector<int64_t> addresses;
  for (int64_t lane = 0; lane < 32; ++lane) {
    SmallVector<int64_t> point = read.rowStarts.apply({lane});
    int64_t offset =
        offsetOf.apply(at(dst, g * read.registersPerRead + point[0], point[1],
                          warp))[0];
    EXPECT_EQ(offset * elementBytes % 16, 0) << "row not 16-byte aligned";
    rowStart[lane] = offset;
    if (lane < 8 * int64_t(read.numMatrices))
      addresses.push_back(offset * elementBytes);
  }
  conflicts += excessWavefronts(addresses, 16);
  LinearLayout instruction = ldmatrixLayout(read.numMatrices, read.transposed);
  bool pairs = read.registersPerRead == 2 * read.numMatrices;
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t half = 0; half < 2 * int64_t(read.numMatrices); ++half) {
      SmallVector<int64_t> where = instruction.apply({half, lane});
      int64_t start = rowStart[8 * where[0] + where[1]];
      // A 32-bit element is the pair of halves at columns 2 i, 2 i + 1.
      int64_t offset = start + (pairs ? where[2] : where[2] / 2);
      int64_t reg = g * read.registersPerRead + (pairs ? half : half / 2);
      EXPECT_EQ(memory[offset], want[warp][lane][reg])
          << "warp " << warp << " lane " << lane << " register " << reg;
    }
}

/// Stores src's registers at `shared`'s offsets in vectors of `storeVec`
/// registers, loads dst's in vectors of `loadVec` (or with the ldmatrix
/// read), and checks every loaded element. Returns the excess wavefronts of
/// all store and load instructions.
SharedResult simulateShared(const LinearLayout &src, const LinearLayout &dst,
                            const LinearLayout &shared, unsigned storeVec,
                            unsigned loadVec, unsigned elementBytes,
                            const std::optional<LdmatrixRead> &ldmatrix = {}) {
  LinearLayout offsetOf = shared.invert();
  int64_t elements = shared.getInDimSize(kOffset);
  std::vector<int64_t> memory(elements, -1);
  SharedResult result;
  auto access = [&](const LinearLayout &layout, bool store) {
    unsigned vec = store ? storeVec : loadVec;
    Registers regs = holdings(layout);
    for (int64_t w = 0; w < layout.getInDimSize(kWarp); ++w)
      for (int64_t r0 = 0; r0 < layout.getInDimSize(kRegister); r0 += vec) {
        std::vector<int64_t> addresses;
        for (int64_t l = 0; l < 32; ++l) {
          int64_t first = offsetOf.apply(at(layout, r0, l, w))[0];
          EXPECT_EQ(first % vec, 0) << "misaligned vector";
          addresses.push_back(first * elementBytes);
          for (int64_t i = 0; i < vec; ++i) {
            int64_t offset = offsetOf.apply(at(layout, r0 + i, l, w))[0];
            ASSERT_EQ(offset, first + i) << "vector not contiguous";
            int64_t value = regs[w][l][r0 + i];
            if (store) {
              // Replicated elements may be stored twice, with one value.
              EXPECT_TRUE(memory[offset] == -1 || memory[offset] == value);
              memory[offset] = value;
            } else {
              EXPECT_EQ(memory[offset], value)
                  << "warp " << w << " lane " << l << " register " << r0 + i;
            }
          }
        }
        (store ? result.storeConflicts : result.loadConflicts) +=
            excessWavefronts(addresses, vec * elementBytes);
      }
  };
  access(src, /*store=*/true);
  for (int64_t value : memory)
    EXPECT_NE(value, -1) << "an element was never stored";
  if (!ldmatrix) {
    access(dst, /*store=*/false);
    return result;
  }
  Registers want = holdings(dst);
  for (int64_t w = 0; w < dst.getInDimSize(kWarp); ++w)
    for (int64_t g = 0; g * ldmatrix->registersPerRead <
                        dst.getInDimSize(kRegister);
         ++g)
      simulateLdmatrix(dst, offsetOf, *ldmatrix, elementBytes, w, g, memory,
                       want, result.loadConflicts);
  return result;
}

LinearLayout coalesced(int64_t rows, int64_t cols, unsigned elementBytes,
                       int64_t warps) {
  // 16 bytes per thread along the rows, the warp covering whole rows.
  int64_t vec = 16 / elementBytes,
          lanesPerRow = std::min<int64_t>(32, cols / vec);
  return blockedLayout({rows, cols}, {1, vec}, {32 / lanesPerRow, lanesPerRow},
                       {warps, 1}, {1, 0});
}

//===----------------------------------------------------------------------===//

TEST(ConversionPlanner, SameLayoutIsFree) {
  LinearLayout layout = coalesced(64, 64, 2, 4);
  ConversionPlan p = plan(layout, layout, 2);
  EXPECT_EQ(p.kind, Kind::Free);
  // The same layout written with the optional dims left out and in
  // another order is still free.
  LinearLayout acc = mmaSyncAccumulatorLayout({16, 8}, {1, 1});
  LinearLayout spelled({{"lane", {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}},
                        {"register", {{0, 1}, {8, 0}}}},
                       {{"dim0", 4}, {"dim1", 3}});
  EXPECT_EQ(plan(acc, spelled, 4).kind, Kind::Free);
  // A row of a reduction result and the 1-D blocked layout with the same
  // owners are one layout.
  LinearLayout parent =
      blockedLayout({32, 64}, {1, 2}, {1, 32}, {4, 1}, {1, 0});
  LinearLayout blocked1d = blockedLayout({64}, {2}, {32}, {4}, {0});
  EXPECT_EQ(plan(sliceLayout(parent, 0), blocked1d, 4).kind, Kind::Free);
}

TEST(ConversionPlanner, RegisterPermutations) {
  // Two register bits swapped.
  LinearLayout src = blockedLayout({64, 64}, {2, 4}, {8, 4}, {2, 2}, {1, 0});
  SmallVector<LinearLayout::InDim> bases = src.getBases();
  std::swap(bases[0].bases[0], bases[0].bases[2]);
  LinearLayout dst(bases, src.getOutDims());
  ConversionPlan p = plan(src, dst, 2);
  expectRegisterPermutation(src, dst, p);
  EXPECT_EQ(p.srcRegisterOf[1], 4u);

  // The destination holds every element twice (a replicated register).
  LinearLayout twice = src * LinearLayout::zeros1D(2, "register", "dim0");
  ConversionPlan q = plan(src, twice, 2);
  expectRegisterPermutation(src, twice, q);
}

TEST(ConversionPlanner, WarpShuffles) {
  // The mma accumulator to a blocked layout whose warps own the same rows:
  // data stays in each warp.
  LinearLayout acc = mmaSyncAccumulatorLayout({64, 16}, {4, 1});
  LinearLayout rows = blockedLayout({64, 16}, {1, 2}, {16, 2}, {4, 1}, {1, 0});
  ConversionPlan q = plan(acc, rows, 4);
  expectShufflesDeliver(acc, rows, q);
  // A destination lane bit comes from a source register bit, so half the
  // source lanes send two values per destination register: two rounds each.
  EXPECT_EQ(q.shuffles.size(), 16u);
  // And back.
  ConversionPlan back = plan(rows, acc, 4);
  expectShufflesDeliver(rows, acc, back);
  EXPECT_EQ(back.shuffles.size(), 16u);

  // Each destination lane reads a different source lane, but which source
  // register depends on the lane: one round per register, the senders
  // choosing what to send.
  LinearLayout byLanes(
      {{"register", {{32}}}, {"lane", {{1}, {2}, {4}, {8}, {16}}}},
      {{"dim0", 6}});
  LinearLayout mixed(
      {{"register", {{16}}}, {"lane", {{1}, {2}, {4}, {8}, {48}}}},
      {{"dim0", 6}});
  ConversionPlan m = plan(byLanes, mixed, 4);
  expectShufflesDeliver(byLanes, mixed, m);
  EXPECT_EQ(m.shuffles.size(), 2u);

  // A broadcast: one element per lane to every lane holding all 32.
  LinearLayout spread = blockedLayout({32}, {1}, {32}, {1}, {0});
  LinearLayout everywhere({{"register", {{1}, {2}, {4}, {8}, {16}}},
                           {"lane", {{0}, {0}, {0}, {0}, {0}}}},
                          {{"dim0", 5}});
  ConversionPlan b = plan(spread, everywhere, 4);
  expectShufflesDeliver(spread, everywhere, b);
  EXPECT_EQ(b.shuffles.size(), 32u);

  // Lanes exchanging whole registers: one round per destination register.
  LinearLayout swapped(
      {{"register", {{16}}}, {"lane", {{1}, {2}, {4}, {8}, {32}}}},
      {{"dim0", 6}});
  LinearLayout straight(
      {{"register", {{32}}}, {"lane", {{1}, {2}, {4}, {8}, {16}}}},
      {{"dim0", 6}});
  ConversionPlan s = plan(swapped, straight, 4);
  expectShufflesDeliver(swapped, straight, s);
  EXPECT_EQ(s.shuffles.size(), 4u); // two source registers per destination
}

struct SharedCase {
  const char *name;
  LinearLayout src, dst;
  unsigned elementBytes;
  unsigned expectedStoreVector, expectedLoadVector;
};

TEST(ConversionPlanner, SharedMemoryWithoutBankConflicts) {
  const SharedCase cases[] = {
      // A 16-byte store of the accumulator's registers 0 and 1 (columns
      // 0-1 of rows 0 and 8) would put row 8 on a bank bit the coalesced
      // 8-byte loads need for their lanes: both sides take the pair of
      // columns they share.
      {"mma.sync accumulator f32 -> coalesced (epilogue)",
       mmaSyncAccumulatorLayout({64, 64}, {2, 2}), coalesced(64, 64, 4, 4), 4,
       2, 2},
      {"wgmma accumulator f32 -> coalesced",
       wgmmaAccumulatorLayout({64, 128}, 128, 4), coalesced(64, 128, 4, 4), 4,
       2, 2},
      // Within one warp, but 8 shuffle rounds per register would cost more.
      {"transpose f32 32x32 in one warp",
       blockedLayout({32, 32}, {1, 4}, {4, 8}, {1, 1}, {1, 0}),
       blockedLayout({32, 32}, {4, 1}, {8, 4}, {1, 1}, {0, 1}), 4, 4, 1},
      // Smaller than the banks: the bank bits are what is left over.
      {"8x8 f32 split over two warps by rows, then by columns",
       blockedLayout({8, 8}, {1, 1}, {4, 8}, {2, 1}, {1, 0}),
       blockedLayout({8, 8}, {1, 1}, {8, 4}, {1, 2}, {0, 1}), 4, 1, 1},
      {"transpose f16 64x64", coalesced(64, 64, 2, 4),
       blockedLayout({64, 64}, {8, 1}, {8, 4}, {1, 4}, {0, 1}), 2, 8, 1},
  };
  for (const SharedCase &c : cases) {
    SCOPED_TRACE(c.name);
    ConversionPlan p = plan(c.src, c.dst, c.elementBytes);
    ASSERT_EQ(p.kind, Kind::SharedMemory);
    ASSERT_TRUE(p.shared);
    EXPECT_FALSE(p.shared->ldmatrix);
    EXPECT_EQ(p.shared->storeVectorElements, c.expectedStoreVector);
    EXPECT_EQ(p.shared->loadVectorElements, c.expectedLoadVector);
    EXPECT_TRUE(p.shared->layout.isSurjective() &&
                p.shared->layout.isInjective());
    SharedResult r = simulateShared(
        c.src, c.dst, p.shared->layout, p.shared->storeVectorElements,
        p.shared->loadVectorElements, c.elementBytes);
    EXPECT_EQ(r.storeConflicts, 0);
    EXPECT_EQ(r.loadConflicts, 0);
    // The same exchange through an unswizzled row-major buffer conflicts:
    // the chosen layout is what removes them.
    LinearLayout plain = swizzledSharedLayout(
        {c.src.getOutDimSize("dim0"), c.src.getOutDimSize("dim1")},
        c.elementBytes, 0);
    SharedResult naive = simulateShared(
        c.src, c.dst, plain, p.shared->storeVectorElements,
        p.shared->loadVectorElements, c.elementBytes);
    EXPECT_GT(naive.storeConflicts + naive.loadConflicts, 0);
  }
}

struct LdmatrixCase {
  const char *name;
  LinearLayout src, dst;
  unsigned elementBytes;
  unsigned expectedStoreVector;
  unsigned numMatrices;
  bool transposed;
};

/// K along the rows of a K x N tile (B stored with K contiguous).
LinearLayout kContiguous(int64_t k, int64_t n, unsigned elementBytes,
                         int64_t warps) {
  int64_t vec = 16 / elementBytes,
          lanesPerCol = std::min<int64_t>(32, k / vec);
  return blockedLayout({k, n}, {vec, 1}, {lanesPerCol, 32 / lanesPerCol},
                       {1, warps}, {0, 1});
}

TEST(ConversionPlanner, LdmatrixReadsTheMmaOperands) {
  const LdmatrixCase cases[] = {
      {"coalesced bf16 -> mma.sync A (m16n8k16)", coalesced(64, 64, 2, 4),
       mmaSyncOperandLayout(MmaSyncShape::M16N8K16, MmaOperand::A, {64, 64},
                            {2, 2}),
       2, 8, 4, false},
      {"coalesced bf16 (N contiguous) -> mma.sync B (m16n8k16): .trans",
       coalesced(64, 64, 2, 4),
       mmaSyncOperandLayout(MmaSyncShape::M16N8K16, MmaOperand::B, {64, 64},
                            {2, 2}),
       2, 8, 4, true},
      {"K-contiguous bf16 -> mma.sync B (m16n8k16)", kContiguous(64, 64, 2, 4),
       mmaSyncOperandLayout(MmaSyncShape::M16N8K16, MmaOperand::B, {64, 64},
                            {2, 2}),
       2, 8, 4, false},
      {"one k-step of B, 16 x 8: x2.trans", coalesced(16, 8, 2, 1),
       mmaSyncOperandLayout(MmaSyncShape::M16N8K16, MmaOperand::B, {16, 8},
                            {1, 1}),
       2, 8, 2, true},
      {"coalesced f32 -> mma.sync A (m16n8k8 tf32): 32-bit pairs",
       coalesced(64, 32, 4, 4),
       mmaSyncOperandLayout(MmaSyncShape::M16N8K8, MmaOperand::A, {64, 32},
                            {4, 1}),
       4, 4, 4, false},
      {"K-contiguous f32 -> mma.sync B (m16n8k8 tf32)",
       kContiguous(32, 64, 4, 4),
       mmaSyncOperandLayout(MmaSyncShape::M16N8K8, MmaOperand::B, {32, 64},
                            {1, 4}),
       4, 4, 4, false},
  };
  for (const LdmatrixCase &c : cases) {
    SCOPED_TRACE(c.name);
    ConversionPlan p = plan(c.src, c.dst, c.elementBytes);
    ASSERT_EQ(p.kind, Kind::SharedMemory);
    ASSERT_TRUE(p.shared && p.shared->ldmatrix);
    const LdmatrixRead &read = *p.shared->ldmatrix;
    EXPECT_EQ(read.numMatrices, c.numMatrices);
    EXPECT_EQ(read.transposed, c.transposed);
    EXPECT_EQ(p.shared->storeVectorElements, c.expectedStoreVector);
    EXPECT_TRUE(p.shared->layout.isSurjective() &&
                p.shared->layout.isInjective());
    SharedResult r = simulateShared(c.src, c.dst, p.shared->layout,
                                    p.shared->storeVectorElements, 1,
                                    c.elementBytes, read);
    EXPECT_EQ(r.loadConflicts, 0);
    EXPECT_EQ(r.storeConflicts, 0);
  }
}

TEST(ConversionPlanner, LdmatrixOnlyWhereItSaves) {
  // 8-bit elements have no ldmatrix form here.
  LinearLayout bytes = blockedLayout({64, 64}, {1, 1}, {1, 32}, {4, 1}, {1, 0});
  LinearLayout bytesT = blockedLayout({64, 64}, {1, 1}, {32, 1}, {1, 4}, {0, 1});
  ConversionPlan q = plan(bytes, bytesT, 1);
  ASSERT_TRUE(q.shared);
  EXPECT_FALSE(q.shared->ldmatrix);
  // A transposed blocked destination could be read by ldmatrix (its lanes
  // walk 8-element rows of the staging buffer), but the source then stores
  // single elements: no fewer instructions than plain loads, which win.
  ConversionPlan t = plan(coalesced(64, 64, 2, 4),
                          blockedLayout({64, 64}, {8, 1}, {8, 4}, {1, 4}, {0, 1}),
                          2);
  ASSERT_TRUE(t.shared);
  EXPECT_FALSE(t.shared->ldmatrix);
}

TEST(ConversionPlanner, ExplainsWhatItCannotDo) {
  LinearLayout a = coalesced(64, 64, 2, 4);
  auto error = [](llvm::Expected<ConversionPlan> result) {
    EXPECT_FALSE(bool(result));
    return result ? std::string() : llvm::toString(result.takeError());
  };
  EXPECT_NE(error(planConversion(a, coalesced(64, 32, 2, 4), 2))
                .find("different tiles"),
            std::string::npos);
  LinearLayout partial = a.sublayout({"register", "lane"}, {"dim0", "dim1"});
  EXPECT_NE(error(planConversion(partial, a, 2)).find("every element"),
            std::string::npos);
  EXPECT_NE(error(planConversion(a, a, 3)).find("element size"),
            std::string::npos);
  LinearLayout offsets = swizzledSharedLayout({64, 64}, 2, 128);
  EXPECT_NE(error(planConversion(offsets, a, 2)).find("'offset'"),
            std::string::npos);
  // Two CTAs splitting the tile along different dims.
  LinearLayout byRows = blockedLayout({64, 32}, {1, 4}, {4, 8}, {4, 1}, {1, 0});
  LinearLayout rowsSplit =
      byRows.sublayout({"register", "lane", "warp"}, {"dim0", "dim1"});
  SmallVector<LinearLayout::InDim> b1 = rowsSplit.getBases(),
                                   b2 = rowsSplit.getBases();
  // Take the highest register bit of each as the block bit.
  auto moveToBlock = [](SmallVector<LinearLayout::InDim> &bases,
                        unsigned registerBit) {
    LinearLayout::Basis bit = bases[0].bases[registerBit];
    bases[0].bases.erase(bases[0].bases.begin() + registerBit);
    bases.push_back({"block", {bit}});
  };
  moveToBlock(b1, b1[0].bases.size() - 1); // a row bit
  moveToBlock(b2, 0);                      // a column bit
  LinearLayout ctaRows(b1, rowsSplit.getOutDims()),
      ctaCols(b2, rowsSplit.getOutDims());
  EXPECT_NE(error(planConversion(ctaRows, ctaCols, 2)).find("CTAs"),
            std::string::npos);
}

} // namespace

// The cp.async buffers of tilegpu-pipeline (swizzledSharedLayout, rows along
// the view's contiguous dim) read straight into the mma.sync operand
// fragments: A (K contiguous) by plain ldmatrix, B (N contiguous) by .trans;
// every delivered element checked against what the copy stored there, with
// no bank conflicts. A layout whose 16-byte rows are not in element order
// gets no ldmatrix read.
TEST(ConversionPlanner, LdmatrixReadsSwizzledBuffers) {
  struct Case {
    const char *name;
    LinearLayout copy, dst, shared;
    bool transposed;
  };
  const Case cases[] = {
      {"A 64 x 32 bf16, 64-byte swizzle", coalesced(64, 32, 2, 4),
       mmaSyncOperandLayout(MmaSyncShape::M16N8K16, MmaOperand::A, {64, 32},
                            {2, 2}),
       swizzledSharedLayout({64, 32}, 2, 64), false},
      {"B 32 x 128 bf16, 128-byte swizzle", coalesced(32, 128, 2, 4),
       mmaSyncOperandLayout(MmaSyncShape::M16N8K16, MmaOperand::B, {32, 128},
                            {2, 2}),
       swizzledSharedLayout({32, 128}, 2, 128), true},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    std::optional<LdmatrixRead> read = planLdmatrixRead(c.dst, c.shared, 2);
    ASSERT_TRUE(read);
    EXPECT_EQ(read->numMatrices, 4u);
    EXPECT_EQ(read->transposed, c.transposed);
    SharedResult r = simulateShared(c.copy, c.dst, c.shared, 8, 1, 2, *read);
    EXPECT_EQ(r.loadConflicts, 0);
  }
  // Columns 2 and 4 of each row swapped: the rows are whole but out of
  // order, which ldmatrix cannot deliver.
  SmallVector<LinearLayout::InDim> bases =
      swizzledSharedLayout({64, 32}, 2, 64).getBases();
  std::swap(bases[0].bases[1], bases[0].bases[2]);
  LinearLayout shuffled(bases, {{"dim0", 6}, {"dim1", 5}});
  EXPECT_FALSE(planLdmatrixRead(
      mmaSyncOperandLayout(MmaSyncShape::M16N8K16, MmaOperand::A, {64, 32},
                           {2, 2}),
      shuffled, 2));
}

/// Everything a plan says, spelled out, to compare two plans.
static std::string describe(llvm::Expected<ConversionPlan> result) {
  if (!result) {
    llvm::consumeError(result.takeError());
    return "error";
  }
  const ConversionPlan &p = *result;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << int(p.kind) << "; " << p.dstToSrc.toString() << "; registers";
  for (unsigned r : p.srcRegisterOf)
    os << ' ' << r;
  for (const ShuffleRound &round : p.shuffles) {
    os << "; round " << round.dstRegister << " kept " << round.lanesKept
       << " lanes";
    for (unsigned l : round.srcLane)
      os << ' ' << l;
    os << " send";
    for (unsigned r : round.sendRegister)
      os << ' ' << r;
  }
  if (p.shared) {
    os << "; shared " << p.shared->layout.toString() << " store "
       << p.shared->storeVectorElements << " load "
       << p.shared->loadVectorElements;
    if (p.shared->ldmatrix)
      os << " ldmatrix x" << p.shared->ldmatrix->numMatrices
         << (p.shared->ldmatrix->transposed ? ".trans " : " ")
         << p.shared->ldmatrix->registersPerRead << ' '
         << p.shared->ldmatrix->rowStarts.toString();
  }
  return text;
}

TEST(ConversionPlanner, PlansDoNotDependOnWhatWasPlannedBefore) {
  // planConversion keeps the plans it made on each thread; asked the same
  // questions in two orders on two fresh threads, and again on this one, it
  // must answer each the same way. Among them the pairs whose answers differ
  // only by the element size (ldmatrix for 16-bit elements, not for 8-bit
  // ones) and by allowShuffles (shuffles or shared memory).
  struct Query {
    LinearLayout src, dst;
    unsigned elementBytes;
    bool allowShuffles;
  };
  LinearLayout acc = mmaSyncAccumulatorLayout({64, 16}, {4, 1});
  LinearLayout rows = blockedLayout({64, 16}, {1, 2}, {16, 2}, {4, 1}, {1, 0});
  LinearLayout operandA = mmaSyncOperandLayout(
      MmaSyncShape::M16N8K16, MmaOperand::A, {64, 64}, {2, 2});
  LinearLayout blocked = blockedLayout({64, 64}, {2, 4}, {8, 4}, {2, 2}, {1, 0});
  SmallVector<LinearLayout::InDim> swapped = blocked.getBases();
  std::swap(swapped[0].bases[0], swapped[0].bases[2]);
  const Query queries[] = {
      {acc, rows, 4, true},
      {acc, rows, 4, false},
      {rows, acc, 4, true},
      {coalesced(64, 64, 2, 4), operandA, 2, true},
      {coalesced(64, 64, 2, 4), operandA, 1, true},
      {coalesced(64, 64, 2, 4), operandA, 4, true},
      {blocked, LinearLayout(swapped, blocked.getOutDims()), 2, true},
      {acc, acc, 4, true},
      // An error is answered again, not kept.
      {acc, coalesced(64, 64, 2, 4), 4, true},
      {acc, rows, 3, true},
  };
  auto ask = [&](bool reversed) {
    std::vector<std::string> answers(std::size(queries));
    for (size_t k = 0; k < std::size(queries); ++k) {
      size_t i = reversed ? std::size(queries) - 1 - k : k;
      const Query &q = queries[i];
      answers[i] = describe(
          planConversion(q.src, q.dst, q.elementBytes, q.allowShuffles));
    }
    return answers;
  };
  std::vector<std::string> forward, backward;
  std::thread([&] { forward = ask(false); }).join();
  std::thread([&] { backward = ask(true); }).join();
  std::vector<std::string> again = ask(false);
  std::vector<std::string> cached = ask(true);
  for (size_t i = 0; i < std::size(queries); ++i) {
    EXPECT_EQ(forward[i], backward[i]) << "query " << i;
    EXPECT_EQ(forward[i], again[i]) << "query " << i;
    EXPECT_EQ(forward[i], cached[i]) << "query " << i;
  }
  // The pairs that differ by one argument are answered differently.
  EXPECT_NE(forward[0], forward[1]);
  EXPECT_NE(forward[3], forward[4]);
  EXPECT_EQ(forward[8], "error");
  EXPECT_EQ(forward[9], "error");
}
