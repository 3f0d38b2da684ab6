//===- MemoryTest.cpp - tile.load, tile.store and the grid ------*- C++ -*-===//
//
// Loads and stores at random tile indices of random strided views, with every
// order and padding, checked element by element against the definition:
// tile element r of a load with order p reads view coordinate
// c[p[k]] = index[p[k]] * shape[k] + r[k], or the padding outside the view.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace tilec::interp;
using namespace tilec::interp::test;

namespace {

struct DTypeCase {
  DType dtype;
  const char *name;
  bool isFloat;
};

const DTypeCase kDTypes[] = {
    {DType::F32, "f32", true},  {DType::F16, "f16", true},
    {DType::BF16, "bf16", true}, {DType::I8, "i8", false},
    {DType::I16, "i16", false}, {DType::I32, "i32", false},
    {DType::I64, "i64", false},
};

/// Raw host memory of any dtype, read and written element by element.
struct RawBuffer {
  DType dtype;
  std::vector<uint8_t> bytes;

  RawBuffer(DType dtype, int64_t n) : dtype(dtype), bytes(n * dtypeSize(dtype)) {}
  int64_t size() const { return bytes.size() / dtypeSize(dtype); }

  float getFloat(int64_t i) const {
    if (dtype == DType::F32) {
      float v;
      std::memcpy(&v, &bytes[i * 4], 4);
      return v;
    }
    uint16_t h;
    std::memcpy(&h, &bytes[i * 2], 2);
    return dtype == DType::F16 ? f16BitsToFloat(h) : bf16BitsToFloat(h);
  }
  void setFloat(int64_t i, float v) {
    if (dtype == DType::F32) {
      std::memcpy(&bytes[i * 4], &v, 4);
      return;
    }
    uint16_t h = dtype == DType::F16 ? floatToF16Bits(v) : floatToBF16Bits(v);
    std::memcpy(&bytes[i * 2], &h, 2);
  }
  int64_t getInt(int64_t i) const {
    switch (dtype) {
    case DType::I8:
      return static_cast<int8_t>(bytes[i]);
    case DType::I16: {
      int16_t v;
      std::memcpy(&v, &bytes[i * 2], 2);
      return v;
    }
    case DType::I32: {
      int32_t v;
      std::memcpy(&v, &bytes[i * 4], 4);
      return v;
    }
    default: {
      int64_t v;
      std::memcpy(&v, &bytes[i * 8], 8);
      return v;
    }
    }
  }
  void setInt(int64_t i, int64_t v) {
    size_t size = dtypeSize(dtype);
    // Little-endian: the low bytes are the truncated value.
    std::memcpy(&bytes[i * size], &v, size);
  }
  HostView view(std::vector<int64_t> shape, std::vector<int64_t> strides) {
    HostView v;
    v.data = bytes.data();
    v.dtype = dtype;
    v.shape = std::move(shape);
    v.strides = std::move(strides);
    return v;
  }
};

/// A random tile access of a rank-3 view: the view's layout, the tile's
/// shape, the order of the tile's dimensions in the view and the tile's
/// index, from one tile before the view to one past its end.
struct TiledAccess {
  std::vector<int64_t> viewShape, strides, tile;
  int64_t span = 0;
  std::vector<unsigned> order;
  std::vector<int64_t> index;

  /// Whether element `r` of the tile falls inside the view; `offset` is its
  /// element offset there when it does.
  bool locate(const std::vector<int64_t> &r, int64_t &offset) const {
    offset = 0;
    for (unsigned k = 0; k < 3; ++k) {
      unsigned d = order[k];
      int64_t coord = index[d] * tile[k] + r[k];
      if (coord < 0 || coord >= viewShape[d])
        return false;
      offset += coord * strides[d];
    }
    return true;
  }
};

class MemoryTest : public KernelTest {
protected:
  TiledAccess randomTiledAccess() {
    TiledAccess a;
    randomLayout(3, 9, a.viewShape, a.strides, a.span);
    a.tile.resize(3);
    for (int64_t &t : a.tile)
      t = uniformInt(1, 5);
    a.order = {0, 1, 2};
    std::shuffle(a.order.begin(), a.order.end(), rng);
    a.index.resize(3);
    for (unsigned k = 0; k < 3; ++k) {
      unsigned d = a.order[k];
      a.index[d] = uniformInt(-1, a.viewShape[d] / a.tile[k] + 1);
    }
    return a;
  }

  void fillRandom(RawBuffer &buffer, bool isFloat) {
    for (int64_t i = 0; i < buffer.size(); ++i) {
      if (isFloat)
        buffer.setFloat(i, uniform(-100, 100));
      else
        buffer.setInt(i, static_cast<int64_t>(rng()));
    }
  }
  void poison(RawBuffer &buffer, bool isFloat) {
    for (int64_t i = 0; i < buffer.size(); ++i) {
      if (isFloat)
        buffer.setFloat(i, kPoison);
      else
        buffer.setInt(i, kPoisonInt);
    }
  }

  /// Random extents in [1, maxExtent] and strides of a random memory
  /// order with gaps between dimensions: distinct elements never alias.
  void randomLayout(unsigned rank, int64_t maxExtent,
                    std::vector<int64_t> &shape,
                    std::vector<int64_t> &strides, int64_t &span) {
    shape.resize(rank);
    strides.resize(rank);
    for (int64_t &s : shape)
      s = uniformInt(1, maxExtent);
    std::vector<unsigned> memoryOrder(rank);
    std::iota(memoryOrder.begin(), memoryOrder.end(), 0);
    std::shuffle(memoryOrder.begin(), memoryOrder.end(), rng);
    int64_t stride = uniformInt(1, 2);
    for (unsigned d : memoryOrder) {
      strides[d] = stride;
      stride = stride * shape[d] + uniformInt(0, 3);
    }
    span = 1;
    for (unsigned d = 0; d < rank; ++d)
      span += (shape[d] - 1) * strides[d];
  }
};

std::string tileType(const std::vector<int64_t> &shape, const char *elem) {
  std::string text = "tensor<";
  for (int64_t s : shape)
    text += std::to_string(s) + "x";
  return text + elem + ">";
}

std::string orderText(const std::vector<unsigned> &order) {
  std::string text = "[";
  for (size_t k = 0; k < order.size(); ++k)
    text += (k ? ", " : "") + std::to_string(order[k]);
  return text + "]";
}

/// Calls `fn(index)` for each multi-index of `shape`, row-major.
template <typename Fn>
void forEachIndex(const std::vector<int64_t> &shape, Fn fn) {
  std::vector<int64_t> index(shape.size(), 0);
  int64_t total = 1;
  for (int64_t s : shape)
    total *= s;
  for (int64_t n = 0; n < total; ++n) {
    fn(index, n);
    for (int k = static_cast<int>(shape.size()) - 1; k >= 0; --k) {
      if (++index[k] < shape[k])
        break;
      index[k] = 0;
    }
  }
}

const char *kLoadKernel = R"(
tile.kernel @load(%v: !tile.view<3, $E>, %o: !tile.view<3, $E>, %i0: index,
                  %i1: index, %i2: index) {
  %c0 = arith.constant 0 : index
  %t = tile.load %v[%i0, %i1, %i2] padding = $PAD order = $ORDER
      : !tile.view<3, $E> -> $TILE
  tile.store %t, %o[%c0, %c0, %c0] : $TILE, !tile.view<3, $E>
  tile.return
}
)";

const char *kStoreKernel = R"(
tile.kernel @store(%v: !tile.view<3, $E>, %o: !tile.view<3, $E>, %i0: index,
                   %i1: index, %i2: index) {
  %c0 = arith.constant 0 : index
  %t = tile.load %v[%c0, %c0, %c0] : !tile.view<3, $E> -> $TILE
  tile.store %t, %o[%i0, %i1, %i2] order = $ORDER : $TILE, !tile.view<3, $E>
  tile.return
}
)";

TEST_F(MemoryTest, LoadEveryDTypePaddingAndOrder) {
  const char *paddings[] = {"zero", "nan", "neg_inf", "pos_inf"};
  const float padValues[] = {0.0f, NAN, -INFINITY, INFINITY};
  for (const DTypeCase &dt : kDTypes) {
    for (int p = 0; p < 4; ++p) {
      if (!dt.isFloat && p != 0)
        continue;
      for (int trial = 0; trial < 12; ++trial) {
        SCOPED_TRACE(std::string(dt.name) + " padding " + paddings[p] +
                     " trial " + std::to_string(trial));
        TiledAccess a = randomTiledAccess();
        const std::vector<int64_t> &tile = a.tile;
        RawBuffer in(dt.dtype, a.span),
            out(dt.dtype, tile[0] * tile[1] * tile[2]);
        fillRandom(in, dt.isFloat);
        poison(out, dt.isFloat);
        mlir::tile::KernelOp kernel = parse(
            subst(kLoadKernel, {{"$E", dt.name},
                                {"$PAD", paddings[p]},
                                {"$ORDER", orderText(a.order)},
                                {"$TILE", tileType(tile, dt.name)}}));
        run(kernel, {in.view(a.viewShape, a.strides),
                     out.view(tile, HostView::contiguousStrides(tile)),
                     Scalar(a.index[0]), Scalar(a.index[1]),
                     Scalar(a.index[2])});
        forEachIndex(tile, [&](const std::vector<int64_t> &r, int64_t n) {
          int64_t offset;
          bool inside = a.locate(r, offset);
          if (dt.isFloat) {
            float expect = inside ? in.getFloat(offset) : padValues[p];
            ASSERT_TRUE(sameFloat(out.getFloat(n), expect))
                << "element " << n << ": " << out.getFloat(n) << " vs "
                << expect;
          } else {
            int64_t expect = inside ? in.getInt(offset) : 0;
            ASSERT_EQ(out.getInt(n), expect) << "element " << n;
          }
        });
      }
    }
  }
}

const char *kLoadScalarKernel = R"(
tile.kernel @load_scalar(%v: !tile.view<2, $E>, %o: !tile.view<1, $E>,
                         %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %s = tile.load_scalar %v[%i, %j] padding = $PAD : !tile.view<2, $E> -> $E
  %t = tile.full %s : tensor<1x$E>
  tile.store %t, %o[%c0] : tensor<1x$E>, !tile.view<1, $E>
  tile.return
}
)";

// Element indices from two before the view to two past its end, and the
// most negative index (its bound check must not overflow).
TEST_F(MemoryTest, LoadScalarEveryDTypeAndPadding) {
  const char *paddings[] = {"zero", "nan", "neg_inf", "pos_inf"};
  const float padValues[] = {0.0f, NAN, -INFINITY, INFINITY};
  for (const DTypeCase &dt : kDTypes) {
    for (int p = 0; p < 4; ++p) {
      if (!dt.isFloat && p != 0)
        continue;
      mlir::tile::KernelOp kernel = parse(subst(
          kLoadScalarKernel, {{"$E", dt.name}, {"$PAD", paddings[p]}}));
      for (int trial = 0; trial < 24; ++trial) {
        SCOPED_TRACE(std::string(dt.name) + " padding " + paddings[p] +
                     " trial " + std::to_string(trial));
        std::vector<int64_t> viewShape, strides;
        int64_t span;
        randomLayout(2, 9, viewShape, strides, span);
        int64_t i = uniformInt(-2, viewShape[0] + 1);
        int64_t j = trial == 0 ? std::numeric_limits<int64_t>::min()
                               : uniformInt(-2, viewShape[1] + 1);
        RawBuffer in(dt.dtype, span), out(dt.dtype, 1);
        fillRandom(in, dt.isFloat);
        poison(out, dt.isFloat);
        run(kernel, {in.view(viewShape, strides), out.view({1}, {1}),
                     Scalar(i), Scalar(j)});
        bool inside = i >= 0 && i < viewShape[0] && j >= 0 && j < viewShape[1];
        int64_t offset = inside ? i * strides[0] + j * strides[1] : 0;
        if (dt.isFloat) {
          float expect = inside ? in.getFloat(offset) : padValues[p];
          ASSERT_TRUE(sameFloat(out.getFloat(0), expect))
              << out.getFloat(0) << " vs " << expect;
        } else {
          ASSERT_EQ(out.getInt(0), inside ? in.getInt(offset) : 0);
        }
      }
    }
  }
}

TEST_F(MemoryTest, StoreMasksEveryDTypeAndOrder) {
  for (const DTypeCase &dt : kDTypes) {
    for (int trial = 0; trial < 12; ++trial) {
      SCOPED_TRACE(std::string(dt.name) + " trial " + std::to_string(trial));
      TiledAccess a = randomTiledAccess();
      const std::vector<int64_t> &tile = a.tile;
      // Slack after the view: a write past its end would land there.
      RawBuffer in(dt.dtype, tile[0] * tile[1] * tile[2]),
          out(dt.dtype, a.span + 16);
      fillRandom(in, dt.isFloat);
      poison(out, dt.isFloat);
      RawBuffer expect = out;
      mlir::tile::KernelOp kernel =
          parse(subst(kStoreKernel, {{"$E", dt.name},
                                     {"$ORDER", orderText(a.order)},
                                     {"$TILE", tileType(tile, dt.name)}}));
      run(kernel, {in.view(tile, HostView::contiguousStrides(tile)),
                   out.view(a.viewShape, a.strides), Scalar(a.index[0]),
                   Scalar(a.index[1]), Scalar(a.index[2])});
      forEachIndex(tile, [&](const std::vector<int64_t> &r, int64_t n) {
        int64_t offset;
        if (!a.locate(r, offset))
          return;
        if (dt.isFloat)
          expect.setFloat(offset, in.getFloat(n));
        else
          expect.setInt(offset, in.getInt(n));
      });
      for (int64_t i = 0; i < out.size(); ++i) {
        if (dt.isFloat)
          ASSERT_TRUE(sameFloat(out.getFloat(i), expect.getFloat(i)))
              << "element " << i;
        else
          ASSERT_EQ(out.getInt(i), expect.getInt(i)) << "element " << i;
      }
    }
  }
}

// A copy tiled over a grid with parameter tile sizes that do not divide the
// view: the ragged last tiles read padding and their writes are masked.
TEST_F(MemoryTest, RaggedGridCopyWithBoundParameters) {
  const char *source = R"(
!Tile = tensor<?x?xf32, #tile.dims<[BM, BN]>>
tile.kernel @copy(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>)
    attributes {params = {BM = 16 : i64, BN = 16 : i64}} {
  %i = tile.block_id x
  %j = tile.block_id y
  %t = tile.load %x[%i, %j] : !tile.view<2, f32> -> !Tile
  tile.store %t, %y[%i, %j] : !Tile, !tile.view<2, f32>
  tile.return
}
)";
  for (int trial = 0; trial < 8; ++trial) {
    int64_t bm = uniformInt(1, 9), bn = uniformInt(1, 9);
    int64_t m = uniformInt(1, 40), n = uniformInt(1, 40);
    int64_t ldx = n + uniformInt(0, 3), ldy = n + uniformInt(1, 3);
    SCOPED_TRACE("BM=" + std::to_string(bm) + " BN=" + std::to_string(bn) +
                 " view " + std::to_string(m) + "x" + std::to_string(n));
    std::vector<float> x = randomFloats(m * ldx), y(m * ldy + 8, kPoison);
    mlir::tile::KernelOp kernel =
        parse(source, /*bind=*/true,
              {"BM=" + std::to_string(bm), "BN=" + std::to_string(bn)});
    Grid grid;
    grid.size = {(m + bm - 1) / bm, (n + bn - 1) / bn, 1};
    run(kernel,
        {viewOf(x, DType::F32, {m, n}, {ldx, 1}),
         viewOf(y, DType::F32, {m, n}, {ldy, 1})},
        grid, static_cast<unsigned>(uniformInt(1, 4)));
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < ldy; ++c)
        ASSERT_EQ(y[r * ldy + c], c < n ? x[r * ldx + c] : kPoison)
            << "at " << r << ", " << c;
    for (int64_t k = m * ldy; k < static_cast<int64_t>(y.size()); ++k)
      ASSERT_EQ(y[k], kPoison);
  }
}

// A transposing copy: load with order [1, 0] from a ragged view, store into
// the transposed view; what falls outside either view is padding or masked.
TEST_F(MemoryTest, TransposedLoadFeedsPlainStore) {
  const char *source = R"(
tile.kernel @transpose(%x: !tile.view<2, bf16>, %y: !tile.view<2, bf16>) {
  %i = tile.block_id x
  %j = tile.block_id y
  %t = tile.load %x[%j, %i] order = [1, 0] : !tile.view<2, bf16> -> tensor<4x8xbf16>
  tile.store %t, %y[%i, %j] : tensor<4x8xbf16>, !tile.view<2, bf16>
  tile.return
}
)";
  int64_t m = uniformInt(1, 30), n = uniformInt(1, 30);
  SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
  std::vector<uint16_t> x(m * n), y(n * m, floatToBF16Bits(kPoison));
  for (uint16_t &v : x)
    v = floatToBF16Bits(uniform(-10, 10));
  Grid grid;
  grid.size = {(n + 3) / 4, (m + 7) / 8, 1};
  run(parse(source),
      {viewOf(x, DType::BF16, {m, n}), viewOf(y, DType::BF16, {n, m})}, grid);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < m; ++c)
      ASSERT_EQ(y[r * m + c], x[c * n + r]) << "at " << r << ", " << c;
}

TEST_F(MemoryTest, GridCoordinatesAndViewExtents) {
  const char *source = R"(
tile.kernel @ids(%o: !tile.view<3, i64>) {
  %x = tile.block_id x
  %y = tile.block_id y
  %z = tile.block_id z
  %nx = tile.num_blocks x
  %ny = tile.num_blocks y
  %nz = tile.num_blocks z
  %d0 = tile.dim %o[0] : !tile.view<3, i64>
  %c10 = arith.constant 10 : index
  %c1000 = arith.constant 1000 : index
  // ((x * 10 + y) * 10 + z) + 1000 * (((nx * 10 + ny) * 10 + nz) * 10 + d0)
  %a = arith.muli %x, %c10 : index
  %b = arith.addi %a, %y : index
  %c = arith.muli %b, %c10 : index
  %d = arith.addi %c, %z : index
  %e = arith.muli %nx, %c10 : index
  %f = arith.addi %e, %ny : index
  %g = arith.muli %f, %c10 : index
  %h = arith.addi %g, %nz : index
  %k = arith.muli %h, %c10 : index
  %l = arith.addi %k, %d0 : index
  %m = arith.muli %l, %c1000 : index
  %v = arith.addi %d, %m : index
  %w = arith.index_cast %v : index to i64
  %t = tile.full %w : tensor<1x1x1xi64>
  tile.store %t, %o[%z, %y, %x] : tensor<1x1x1xi64>, !tile.view<3, i64>
  tile.return
}
)";
  int64_t gx = uniformInt(1, 5), gy = uniformInt(1, 5), gz = uniformInt(1, 5);
  std::vector<int64_t> o(gx * gy * gz, kPoisonInt);
  Grid grid;
  grid.size = {gx, gy, gz};
  run(parse(source), {viewOf(o, DType::I64, {gz, gy, gx})}, grid);
  int64_t tail = 1000 * (((gx * 10 + gy) * 10 + gz) * 10 + gz);
  for (int64_t z = 0; z < gz; ++z)
    for (int64_t y = 0; y < gy; ++y)
      for (int64_t x = 0; x < gx; ++x)
        ASSERT_EQ(o[(z * gy + y) * gx + x], (x * 10 + y) * 10 + z + tail);
}

// Offsets past 2^32 elements: rows 3 * 2^31 elements apart. Only row 1 of
// each view is touched, so both views are placed such that row 1 lies in a
// small buffer (the pointers to their row 0 are formed, never dereferenced);
// an offset computed in 32 bits would land elsewhere.
TEST_F(MemoryTest, SixtyFourBitOffsets) {
  const char *source = R"(
tile.kernel @far(%x: !tile.view<2, i8>, %y: !tile.view<2, i8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tile.load %x[%c1, %c0] : !tile.view<2, i8> -> tensor<1x1xi8>
  tile.store %t, %y[%c1, %c0] : tensor<1x1xi8>, !tile.view<2, i8>
  tile.return
}
)";
  int64_t stride = int64_t(3) << 31;
  std::vector<int8_t> memory = {0, 9, kPoisonInt, kPoisonInt};
  auto address = reinterpret_cast<uintptr_t>(memory.data());
  HostView x, y;
  x.dtype = y.dtype = DType::I8;
  x.shape = y.shape = {2, 1};
  x.strides = y.strides = {stride, 1};
  x.data = reinterpret_cast<void *>(address + 1 - stride);
  y.data = reinterpret_cast<void *>(address + 2 - stride);
  run(parse(source), {x, y});
  EXPECT_EQ(memory[2], 9);
  EXPECT_EQ(memory[3], kPoisonInt);
}

} // namespace

// Element-type parameters: one kernel source loads XT, scales in f32 and
// stores YT; each binding is its own kernel, and the interpreter runs it with
// the bound types (the views' dtypes must match them). Rounding to YT is to
// nearest even, checked against llvm::APFloat.
TEST_F(MemoryTest, TypeParametersBindTheElementTypesOfViewsAndTiles) {
  const char *source = R"(
tile.kernel @scale<BLOCK = 8, XT : type = f32, YT : type = f32>(
    %x: !tile.view<1, XT>, %y: !tile.view<1, YT>, %s: f32) {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, XT> -> !tile.tile<BLOCK x XT>
  %f = tile.convert %t : !tile.tile<BLOCK x XT> -> !tile.tile<BLOCK x f32>
  %r = tile.mulf %f, %s : !tile.tile<BLOCK x f32>, f32 -> !tile.tile<BLOCK x f32>
  %o = tile.convert %r : !tile.tile<BLOCK x f32> -> !tile.tile<BLOCK x YT>
  tile.store %o, %y[%i] : !tile.tile<BLOCK x YT>, !tile.view<1, YT>
  tile.return
}
)";
  const DTypeCase floats[] = {kDTypes[0], kDTypes[1], kDTypes[2]};
  auto round = [](DType dtype, float v) {
    return dtype == DType::F32   ? v
           : dtype == DType::F16 ? refF16(v)
                                 : refBF16(v);
  };
  for (const DTypeCase &in : floats)
    for (const DTypeCase &out : floats) {
      SCOPED_TRACE(std::string("XT=") + in.name + " YT=" + out.name);
      int64_t n = uniformInt(1, 40), block = uniformInt(1, 9);
      float s = uniform(-3, 3);
      RawBuffer x(in.dtype, n), y(out.dtype, n + 4);
      fillRandom(x, true);
      for (int64_t i = 0; i < y.size(); ++i)
        y.setFloat(i, kPoison);
      mlir::tile::KernelOp kernel =
          parse(source, /*bind=*/true,
                {"BLOCK=" + std::to_string(block),
                 std::string("XT=") + in.name, std::string("YT=") + out.name});
      Grid grid;
      grid.size = {(n + block - 1) / block, 1, 1};
      run(kernel, {x.view({n}, {1}), y.view({n}, {1}), Scalar(double(s))}, grid);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_TRUE(sameFloat(y.getFloat(i),
                              round(out.dtype, x.getFloat(i) * s)))
            << "at " << i << ": " << y.getFloat(i) << " for "
            << x.getFloat(i) << " * " << s;
      for (int64_t i = n; i < y.size(); ++i)
        ASSERT_EQ(y.getFloat(i), round(out.dtype, kPoison));
    }
}

// A conditional load reads its tile when the condition is non-zero (any
// integer type or index) and is the padding everywhere otherwise; the
// padding of a true load's out-of-view elements is unchanged.
TEST_F(MemoryTest, ConditionalLoadReadsOnlyWhenTheConditionHolds) {
  const char *source = R"(
tile.kernel @pick(%x: !tile.view<1, f32>, %y: !tile.view<2, f32>, %flag: i32,
                  %on: i1) {
  %i = tile.block_id x
  %a = tile.load %x[%i] if %flag padding = nan
      : !tile.view<1, f32>, i32 -> !tile.tile<8 x f32>
  %b = tile.load %x[%i] if %on padding = neg_inf
      : !tile.view<1, f32>, i1 -> !tile.tile<8 x f32>
  %c = tile.load %x[%i] if %i : !tile.view<1, f32>, index -> !tile.tile<8 x f32>
  tile.store %a, %y[0, %i] dims = [1] : !tile.tile<8 x f32>, !tile.view<2, f32>
  tile.store %b, %y[1, %i] dims = [1] : !tile.tile<8 x f32>, !tile.view<2, f32>
  tile.store %c, %y[2, %i] dims = [1] : !tile.tile<8 x f32>, !tile.view<2, f32>
  tile.return
}
)";
  mlir::tile::KernelOp kernel = parse(source);
  for (int64_t flag : {0, 1, -3}) {
    for (bool on : {false, true}) {
      SCOPED_TRACE("flag " + std::to_string(flag) + " on " +
                   std::to_string(on));
      int64_t n = uniformInt(9, 20), tiles = (n + 7) / 8;
      std::vector<float> x = randomFloats(n), y(3 * tiles * 8, kPoison);
      Grid grid;
      grid.size = {tiles, 1, 1};
      run(kernel,
          {viewOf(x, DType::F32, {n}), viewOf(y, DType::F32, {3, tiles * 8}),
           Scalar(flag), Scalar(int64_t(on))},
          grid);
      const float nan = std::numeric_limits<float>::quiet_NaN();
      const float negInf = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < tiles * 8; ++k) {
        const bool inView = k < n;
        // Program k / 8 has index k / 8: only program 0 reads c's tile as 0.
        float a = flag ? (inView ? x[k] : nan) : nan;
        float b = on ? (inView ? x[k] : negInf) : negInf;
        float c = k / 8 != 0 && inView ? x[k] : 0.0f;
        ASSERT_TRUE(sameFloat(y[k], a)) << "a at " << k;
        ASSERT_TRUE(sameFloat(y[tiles * 8 + k], b)) << "b at " << k;
        ASSERT_TRUE(sameFloat(y[2 * tiles * 8 + k], c)) << "c at " << k;
      }
    }
  }
}
