//===- TileShapes.cpp - symbolic tile shapes --------------------*- C++ -*-===//

#include "tile/IR/Tile.h"

using namespace mlir;
using namespace mlir::tile;

bool TileDim::mayEqual(const TileDim &other) const {
  if (isStatic() && other.isStatic())
    return size == other.size;
  if (!isStatic() && !other.isStatic())
    return symbol == other.symbol;
  // A parameter may be bound to any number.
  return true;
}

bool TileDim::knownEqual(const TileDim &other) const {
  if (isStatic() && other.isStatic())
    return size == other.size;
  return !isStatic() && symbol == other.symbol;
}

std::string TileDim::str() const {
  return isStatic() ? std::to_string(size) : symbol.getValue().str();
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
    text += dim.isStatic() ? (ShapedType::isDynamic(dim.size)
                                  ? std::string("?")
                                  : std::to_string(dim.size))
                           : dim.str();
  }
  return text.empty() ? "scalar" : text;
}

std::optional<int64_t> tile::getStaticElementCount(RankedTensorType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  return type.getNumElements();
}
