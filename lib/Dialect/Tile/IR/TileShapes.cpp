//===- TileShapes.cpp - symbolic tile shapes --------------------*- C++ -*-===//

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

// An extent is a number, a parameter name, or `?` (a dynamic extent with no
// name, which kernels reject but a type outside a kernel may have).
static bool isUnknown(const TileDim &dim) {
  return dim.isStatic() && ShapedType::isDynamic(dim.size);
}

bool TileDim::mayEqual(const TileDim &other) const {
  if (isUnknown(*this) || isUnknown(other))
    return true;
  if (isStatic() && other.isStatic())
    return size == other.size;
  if (!isStatic() && !other.isStatic())
    return symbol == other.symbol;
  // A parameter may be bound to any number.
  return true;
}

bool TileDim::knownEqual(const TileDim &other) const {
  if (isUnknown(*this) || isUnknown(other))
    return false;
  if (isStatic() && other.isStatic())
    return size == other.size;
  return !isStatic() && symbol == other.symbol;
}

std::string TileDim::str() const {
  if (!isStatic())
    return symbol.getValue().str();
  return isUnknown(*this) ? "?" : std::to_string(size);
}

SmallVector<TileDim> tile::getTileDims(RankedTensorType type) {
  auto encoding = dyn_cast_or_null<DimsAttr>(type.getEncoding());
  SmallVector<TileDim> dims;
  for (auto [i, size] : llvm::enumerate(type.getShape())) {
    TileDim dim;
    dim.size = size;
    if (encoding && ShapedType::isDynamic(size))
      dim.symbol = encoding.getSymbol(i);
    dims.push_back(dim);
  }
  return dims;
}

std::string tile::formatTileShape(RankedTensorType type) {
  std::string text;
  for (auto [i, dim] : llvm::enumerate(getTileDims(type))) {
    if (i)
      text += "x";
    text += dim.str();
  }
  return text.empty() ? "scalar" : text;
}

std::optional<int64_t> tile::getStaticElementCount(RankedTensorType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  // ShapedType::getNumElements wraps: 2^32 x 2^32 would count 0.
  int64_t count = 1;
  for (int64_t size : type.getShape())
    if (llvm::MulOverflow(count, size, count))
      return std::nullopt;
  return count;
}

int64_t tile::getMaxRegistersPerThread(int64_t numThreads) {
  return std::min<int64_t>(255, 65536 / numThreads);
}

std::optional<int64_t> tile::getTileRegistersPerThread(RankedTensorType type,
                                                       int64_t numThreads) {
  std::optional<int64_t> count = getStaticElementCount(type);
  if (!count)
    return std::nullopt;
  Type element = type.getElementType();
  // index (and any other non-integer, non-float element) counts as 64 bits.
  unsigned bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
  int64_t perElement = llvm::divideCeil(std::max(1u, bits), 32);
  return llvm::divideCeil(*count, numThreads) * perElement;
}

bool tile::isValidKernelName(StringRef name) {
  if (name.empty() || name == "_" || llvm::isDigit(name.front()))
    return false;
  return llvm::all_of(
      name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

RankedTensorType tile::makeTileType(ArrayRef<TileDim> dims, Type elementType) {
  MLIRContext *context = elementType.getContext();
  Builder builder(context);
  SmallVector<int64_t> shape;
  SmallVector<Attribute> names;
  bool symbolic = false;
  for (const TileDim &dim : dims) {
    shape.push_back(dim.size);
    if (dim.isStatic()) {
      names.push_back(builder.getI64IntegerAttr(dim.size));
    } else {
      names.push_back(dim.symbol);
      symbolic = true;
    }
  }
  if (!symbolic)
    return RankedTensorType::get(shape, elementType);
  return RankedTensorType::get(
      shape, elementType, DimsAttr::get(context, builder.getArrayAttr(names)));
}

FullRankAccess tile::getFullRankAccess(RankedTensorType tile,
                                       unsigned viewRank,
                                       ArrayRef<int64_t> dims) {
  SmallVector<TileDim> in = getTileDims(tile);
  SmallVector<TileDim> out(viewRank, TileDim{1, {}});
  FullRankAccess access;
  // Only the order of the dimensions with more than one element matters: a
  // `BLOCK_M x 1` column of view dimension 3 (`dims = [3, 2]`) is read in
  // the view's own order, as the row `dims = [3]` is, and reshaped.
  SmallVector<int64_t> moving;
  for (auto [k, d] : llvm::enumerate(dims))
    if (!in[k].isStatic() || in[k].size != 1)
      moving.push_back(d);
  if (llvm::is_sorted(moving)) {
    for (auto [k, d] : llvm::enumerate(dims))
      out[d] = in[k];
  } else {
    // Result dimension k walks view dimension order[k]: the left-out view
    // dimensions (extent 1) first, then the tile's in its own order.
    for (unsigned d = 0; d < viewRank; ++d)
      if (!llvm::is_contained(dims, d))
        access.order.push_back(d);
    unsigned first = access.order.size();
    llvm::append_range(access.order, dims);
    for (auto [k, dim] : llvm::enumerate(in))
      out[first + k] = dim;
  }
  access.type = makeTileType(out, tile.getElementType());
  return access;
}
