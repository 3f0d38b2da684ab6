//===- LoopIndices.cpp - a load's indices at another iteration --*- C++ -*-===//

#include "tilec/Dialect/TileGPU/Transforms/LoopIndices.h"

#include "mlir/IR/IRMapping.h"

#include <functional>

namespace mlir::tilegpu {

SmallVector<Value> indicesAt(OpBuilder &b, scf::ForOp loop, tile::LoadOp load,
                             Value iv) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  std::function<Value(Value)> at = [&](Value value) -> Value {
    if (Value mapped = mapping.lookupOrNull(value))
      return mapped;
    if (loop.isDefinedOutsideOfLoop(value))
      return value;
    Operation *def = value.getDefiningOp();
    for (Value operand : def->getOperands())
      at(operand);
    b.clone(*def, mapping);
    return mapping.lookup(value);
  };
  SmallVector<Value> indices;
  for (Value index : load.getIndices())
    indices.push_back(at(index));
  return indices;
}

} // namespace mlir::tilegpu
