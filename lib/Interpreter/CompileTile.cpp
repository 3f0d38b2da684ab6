//===- CompileTile.cpp - tile ops for the interpreter -----------*- C++ -*-===//
//
// Memory access, block ids, tile construction and data movement, scans,
// reductions and matrix products. The loops over elements are in
// Kernels.cpp; tile.convert is in CompileCasts.cpp, tile.exp2 in
// CompileMath.cpp.
//
//===----------------------------------------------------------------------===//

#include "Closures.h"
#include "Compiler.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace tilec::interp;
using namespace tilec::interp::detail;

namespace {

/// The value a load yields outside its view (tile.load, tile.load_scalar).
float paddingValue(tile::Padding padding) {
  switch (padding) {
  case tile::Padding::zero:
    return 0.0f;
  case tile::Padding::nan:
    return std::numeric_limits<float>::quiet_NaN();
  case tile::Padding::neg_inf:
    return -INFINITY;
  case tile::Padding::pos_inf:
    return INFINITY;
  }
  return 0.0f;
}

/// Where an access's tile lies in its view. Per view dimension d: the tile
/// index, in slot[d] or (where slot[d] is -1) the literal[d]. Per tile
/// dimension k: the view dimension perm[k] it walks and its extent shape[k].
struct AccessPlan {
  unsigned arg = 0, rank = 0;
  std::array<int64_t, 8> slot = filled(-1), literal{}, shape{};
  std::array<unsigned, 8> perm{};

  static std::array<int64_t, 8> filled(int64_t value) {
    std::array<int64_t, 8> a;
    a.fill(value);
    return a;
  }

  /// The tile's element r_k sits at view coordinate index * shape[k] + r_k
  /// along view dimension perm[k]. The first coordinate saturates at
  /// +-2^62: an index whose product overflows lies outside every view, and
  /// the walk negates a negative one.
  void geometry(const Frame &f, TileGeometry &g) const {
    constexpr int64_t kFar = std::numeric_limits<int64_t>::max() / 2;
    const ViewArg &v = f.views[arg];
    g.rank = rank;
    for (unsigned k = 0; k < rank; ++k) {
      unsigned d = perm[k];
      int64_t index = slot[d] < 0 ? literal[d] : f.slots[slot[d]].i[0], base;
      if (__builtin_mul_overflow(index, shape[k], &base))
        base = index < 0 ? -kFar : kFar;
      g.shape[k] = shape[k];
      g.base[k] = std::clamp(base, -kFar, kFar);
      g.limit[k] = v.shape[d];
      g.stride[k] = v.strides[d];
    }
  }
};

/// Reads the `n` elements at `plan` into slot `r`: floats pad with `pad`
/// outside the view, integers with zero.
void pushLoad(Instrs &out, const AccessPlan &plan, unsigned r, int64_t n,
              bool isFloatElem, float pad) {
  if (isFloatElem)
    out.push_back([=](Frame &f) {
      TileGeometry g;
      plan.geometry(f, g);
      std::vector<float> &o = f.slots[r].f;
      o.resize(n);
      loadFloats(f.views[plan.arg], g, o.data(), pad);
      return true;
    });
  else
    out.push_back([=](Frame &f) {
      TileGeometry g;
      plan.geometry(f, g);
      std::vector<int64_t> &o = f.slots[r].i;
      o.resize(n);
      loadInts(f.views[plan.arg], g, o.data());
      return true;
    });
}

/// Row-major strides of `shape`.
SmallVector<int64_t, 4> rowMajor(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int k = static_cast<int>(shape.size()) - 2; k >= 0; --k)
    strides[k] = strides[k + 1] * shape[k + 1];
  return strides;
}

AxisShape axisShape(ArrayRef<int64_t> shape, int64_t axis) {
  AxisShape s;
  for (int64_t k = 0; k < static_cast<int64_t>(shape.size()); ++k) {
    if (k < axis)
      s.outer *= shape[k];
    else if (k == axis)
      s.length = shape[k];
    else
      s.inner *= shape[k];
  }
  return s;
}

} // namespace

LogicalResult Compiler::compileTile(Operation *op, Instrs &out) {
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](tile::LoadOp load) {
        return compileAccess(op, load.getView(), load.getIndices(),
                             load.getOrder(), load.getResult(),
                             /*isLoad=*/true, load.getPadding(), out);
      })
      .Case([&](tile::StoreOp store) {
        return compileAccess(op, store.getView(), store.getIndices(),
                             store.getOrder(), store.getValue(),
                             /*isLoad=*/false, tile::Padding::zero, out);
      })
      .Case([&](tile::LoadScalarOp load) { return compileLoadScalar(load, out); })
      .Case([&](tile::DimOp dim) { return compileDim(dim, out); })
      .Case(
          [&](tile::BlockIdOp blockId) { return compileBlockId(blockId, out); })
      .Case([&](tile::NumBlocksOp numBlocks) {
        return compileNumBlocks(numBlocks, out);
      })
      .Case([&](tile::FullOp full) { return compileFull(full, out); })
      .Case([&](tile::ArangeOp arange) { return compileArange(arange, out); })
      .Case(
          [&](tile::ReshapeOp reshape) { return compileReshape(reshape, out); })
      .Case<tile::ExtractOp, tile::BroadcastOp, tile::PermuteOp>(
          [&](Operation *gather) { return compileGather(gather, out); })
      .Case([&](tile::ConvertOp convert) { return compileCast(convert, out); })
      .Case([&](tile::Exp2Op exp2) { return compileMath(exp2, out); })
      .Case([&](tile::CumsumOp cumsum) { return compileCumsum(cumsum, out); })
      .Case([&](tile::ReduceOp reduce) { return compileReduce(reduce, out); })
      .Case([&](tile::MmaOp mma) { return compileMma(mma, out); })
      .Case([&](tile::WhereOp where) {
        return compileSelect(where, /*scalarCondition=*/false, out);
      })
      .Default([&](Operation *) { return unsupported(op); });
}

LogicalResult Compiler::compileAccess(Operation *op, Value view,
                                      ValueRange indices,
                                      std::optional<ArrayRef<int64_t>> order,
                                      Value tile, bool isLoad,
                                      tile::Padding padding, Instrs &out) {
  FailureOr<unsigned> arg = viewArg(view, op);
  FailureOr<ValueType> type = typeOf(tile, op);
  if (failed(arg) || failed(type))
    return failure();
  AccessPlan plan;
  plan.arg = *arg;
  plan.rank = type->shape.size();
  for (unsigned k = 0; k < plan.rank; ++k) {
    FailureOr<unsigned> slot = use(indices[k], op);
    if (failed(slot))
      return failure();
    plan.slot[k] = *slot;
    plan.perm[k] = order ? (*order)[k] : k;
    plan.shape[k] = type->shape[k];
  }
  bool isFloatElem = isFloat(type->elem);
  if (isLoad) {
    pushLoad(out, plan, define(tile), type->numElements, isFloatElem,
             paddingValue(padding));
    return success();
  }
  FailureOr<unsigned> value = use(tile, op);
  if (failed(value))
    return failure();
  unsigned v = *value;
  if (isFloatElem)
    out.push_back([=](Frame &f) {
      TileGeometry g;
      plan.geometry(f, g);
      storeFloats(f.views[plan.arg], g, f.slots[v].f.data());
      return true;
    });
  else
    out.push_back([=](Frame &f) {
      TileGeometry g;
      plan.geometry(f, g);
      storeInts(f.views[plan.arg], g, f.slots[v].i.data());
      return true;
    });
  return success();
}

// A one-element tile load at element coordinates: the same bounds check and
// padding as tile.load, so the two cannot disagree.
LogicalResult Compiler::compileLoadScalar(tile::LoadScalarOp op, Instrs &out) {
  FailureOr<unsigned> arg = viewArg(op.getView(), op);
  FailureOr<ValueType> type = typeOf(op.getResult(), op);
  if (failed(arg) || failed(type))
    return failure();
  AccessPlan plan;
  plan.arg = *arg;
  plan.rank = op.getView().getType().getRank();
  std::optional<ArrayRef<int64_t>> staticIndices = op.getStaticIndices();
  unsigned next = 0;
  for (unsigned d = 0; d < plan.rank; ++d) {
    plan.perm[d] = d;
    plan.shape[d] = 1;
    if (staticIndices && (*staticIndices)[d] != ShapedType::kDynamic) {
      plan.literal[d] = (*staticIndices)[d];
      continue;
    }
    FailureOr<unsigned> slot = use(op.getIndices()[next++], op);
    if (failed(slot))
      return failure();
    plan.slot[d] = *slot;
  }
  pushLoad(out, plan, define(op.getResult()), 1, isFloat(type->elem),
           paddingValue(op.getPadding()));
  return success();
}

LogicalResult Compiler::compileDim(tile::DimOp op, Instrs &out) {
  FailureOr<unsigned> arg = viewArg(op.getView(), op);
  if (failed(arg))
    return failure();
  for (auto [result, d] : llvm::zip(op.getResults(), op.getDims())) {
    unsigned r = define(result);
    out.push_back([=, d = d](Frame &f) {
      f.slots[r].i.assign(1, f.views[*arg].shape[d]);
      return true;
    });
  }
  return success();
}

LogicalResult Compiler::compileBlockId(tile::BlockIdOp op, Instrs &out) {
  for (unsigned i = 0, e = op.getNumResults(); i < e; ++i) {
    unsigned axis = static_cast<unsigned>(op.getAxis(i));
    unsigned r = define(op.getResult(i));
    out.push_back([=](Frame &f) {
      f.slots[r].i.assign(1, f.blockId[axis]);
      return true;
    });
  }
  return success();
}

LogicalResult Compiler::compileNumBlocks(tile::NumBlocksOp op, Instrs &out) {
  unsigned axis = static_cast<unsigned>(op.getAxis());
  unsigned r = define(op.getResult());
  out.push_back([=](Frame &f) {
    f.slots[r].i.assign(1, f.numBlocks[axis]);
    return true;
  });
  return success();
}

LogicalResult Compiler::compileFull(tile::FullOp op, Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  unsigned a = e->in[0], r = e->result;
  int64_t n = e->type.numElements;
  if (isFloat(e->type.elem))
    return emit(
        op,
        [=](Frame &f) {
          f.slots[r].f.assign(n, f.slots[a].f[0]);
          return true;
        },
        out);
  return emit(
      op,
      [=](Frame &f) {
        f.slots[r].i.assign(n, f.slots[a].i[0]);
        return true;
      },
      out);
}

LogicalResult Compiler::compileArange(tile::ArangeOp op, Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  unsigned r = e->result;
  int64_t n = e->type.numElements;
  Elem elem = e->type.elem;
  return emit(
      op,
      [=](Frame &f) {
        std::vector<int64_t> &o = f.slots[r].i;
        o.resize(n);
        for (int64_t k = 0; k < n; ++k)
          o[k] = k;
        normalizeInts(elem, o.data(), n);
        return true;
      },
      out);
}

LogicalResult Compiler::compileReshape(tile::ReshapeOp op, Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  if (isFloat(e->type.elem))
    return emit(op, copyValue<float>(e->in[0], e->result), out);
  return emit(op, copyValue<int64_t>(e->in[0], e->result), out);
}

/// tile.extract, tile.broadcast and tile.permute: the result is the source
/// read with strides (0 along a broadcast dimension, permuted for a
/// permutation, offset to the sub-tile for an extract).
LogicalResult Compiler::compileGather(Operation *op, Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  FailureOr<ValueType> source = typeOf(op->getOperand(0), op);
  if (failed(source))
    return failure();
  ArrayRef<int64_t> shape = e->type.shape;
  unsigned rank = shape.size();
  SmallVector<int64_t, 4> srcStrides = rowMajor(source->shape);
  std::array<int64_t, 8> strides{}, outShape{}, srcShape{};
  for (unsigned k = 0; k < rank; ++k) {
    outShape[k] = shape[k];
    srcShape[k] = source->shape[k];
  }
  bool isExtract = isa<tile::ExtractOp>(op);
  if (auto permute = dyn_cast<tile::PermuteOp>(op)) {
    for (unsigned k = 0; k < rank; ++k)
      strides[k] = srcStrides[permute.getPermutation()[k]];
  } else {
    for (unsigned k = 0; k < rank; ++k)
      strides[k] =
          source->shape[k] == shape[k] || isExtract ? srcStrides[k] : 0;
  }
  std::array<unsigned, 8> indexSlots{};
  for (unsigned k = 0; isExtract && k < rank; ++k)
    indexSlots[k] = e->in[k + 1];
  unsigned a = e->in[0], r = e->result;
  int64_t n = e->type.numElements;
  std::string where = describe(op);
  auto run = [=](Frame &f, auto *dst, const auto *src) {
    int64_t base = 0;
    for (unsigned k = 0; isExtract && k < rank; ++k) {
      int64_t index = f.slots[indexSlots[k]].i[0];
      if (index < 0 || index >= srcShape[k] / outShape[k]) {
        f.error = where + ": sub-tile index " + std::to_string(index) +
                  " along dimension " + std::to_string(k) +
                  " is outside the source (" +
                  std::to_string(srcShape[k] / outShape[k]) + " sub-tiles)";
        return false;
      }
      base += index * outShape[k] * strides[k];
    }
    gather(dst, src + base, outShape.data(), strides.data(), rank);
    return true;
  };
  if (isFloat(e->type.elem))
    return emit(
        op,
        [=](Frame &f) {
          std::vector<float> &o = f.slots[r].f;
          o.resize(n);
          return run(f, o.data(), f.slots[a].f.data());
        },
        out);
  return emit(
      op,
      [=](Frame &f) {
        std::vector<int64_t> &o = f.slots[r].i;
        o.resize(n);
        return run(f, o.data(), f.slots[a].i.data());
      },
      out);
}

LogicalResult Compiler::compileCumsum(tile::CumsumOp op, Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  AxisShape s = axisShape(e->type.shape, op.getAxis());
  unsigned a = e->in[0], r = e->result;
  int64_t n = e->type.numElements;
  Elem elem = e->type.elem;
  if (isFloat(elem))
    return emit(
        op,
        [=](Frame &f) {
          std::vector<float> &o = f.slots[r].f;
          o.resize(n);
          cumsumFloats(f.slots[a].f.data(), o.data(), s, elem);
          return true;
        },
        out);
  return emit(
      op,
      [=](Frame &f) {
        std::vector<int64_t> &o = f.slots[r].i;
        o.resize(n);
        cumsumInts(f.slots[a].i.data(), o.data(), s, elem);
        return true;
      },
      out);
}

LogicalResult Compiler::compileReduce(tile::ReduceOp op, Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  FailureOr<ValueType> source = typeOf(op.getSource(), op);
  if (failed(source))
    return failure();
  AxisShape s = axisShape(source->shape, op.getAxis());
  ReduceKind kind = op.getKind() == tile::ReduceKind::sum   ? ReduceKind::Sum
                    : op.getKind() == tile::ReduceKind::max ? ReduceKind::Max
                                                            : ReduceKind::Min;
  unsigned a = e->in[0], r = e->result;
  int64_t n = e->type.numElements;
  Elem elem = e->type.elem;
  if (isFloat(elem))
    return emit(
        op,
        [=](Frame &f) {
          std::vector<float> &o = f.slots[r].f;
          o.resize(n);
          reduceFloats(f.slots[a].f.data(), o.data(), s, elem, kind);
          return true;
        },
        out);
  return emit(
      op,
      [=](Frame &f) {
        std::vector<int64_t> &o = f.slots[r].i;
        o.resize(n);
        reduceInts(f.slots[a].i.data(), o.data(), s, elem, kind);
        return true;
      },
      out);
}

LogicalResult Compiler::compileMma(tile::MmaOp op, Instrs &out) {
  FailureOr<Elementwise> e = elementwise(op);
  if (failed(e))
    return failure();
  FailureOr<ValueType> a = typeOf(op.getA(), op);
  if (failed(a))
    return failure();
  int64_t m = e->type.shape[0], n = e->type.shape[1], k = a->shape[1];
  unsigned sa = e->in[0], sb = e->in[1], sc = e->in[2], r = e->result;
  return emit(
      op,
      [=](Frame &f) {
        std::vector<float> &o = f.slots[r].f;
        o = f.slots[sc].f;
        matmulAccumulate(f.slots[sa].f.data(), f.slots[sb].f.data(), o.data(),
                         m, n, k);
        return true;
      },
      out);
}
