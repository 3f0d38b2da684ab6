//===- BindParams.cpp - bind compile-time kernel parameters -----*- C++ -*-===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEBINDPARAMS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The static type of a tile once its parameters have values.
RankedTensorType bindShape(RankedTensorType type,
                           const llvm::StringMap<int64_t> &values) {
  auto dims = dyn_cast_or_null<DimsAttr>(type.getEncoding());
  if (!dims)
    return type;
  SmallVector<int64_t> shape;
  for (TileDim dim : getTileDims(type))
    shape.push_back(dim.isStatic() ? dim.size
                                   : values.lookup(dim.symbol.getValue()));
  return RankedTensorType::get(shape, type.getElementType());
}

void bindKernel(KernelOp kernel, const llvm::StringMap<int64_t> &overrides) {
  llvm::StringMap<int64_t> values;
  Builder builder(kernel.getContext());
  SmallVector<NamedAttribute> bound;
  if (DictionaryAttr params = kernel.getParamsAttr()) {
    for (NamedAttribute param : params) {
      int64_t value = cast<IntegerAttr>(param.getValue()).getInt();
      auto it = overrides.find(param.getName().getValue());
      if (it != overrides.end())
        value = it->second;
      values[param.getName().getValue()] = value;
      bound.emplace_back(param.getName(), builder.getI64IntegerAttr(value));
    }
    kernel.setParamsAttr(builder.getDictionaryAttr(bound));
  }

  auto bindValue = [&](Value value) {
    if (auto type = dyn_cast<RankedTensorType>(value.getType()))
      value.setType(bindShape(type, values));
  };
  SmallVector<ParamOp> paramOps;
  kernel.getBody().walk([&](Operation *op) {
    if (auto param = dyn_cast<ParamOp>(op))
      paramOps.push_back(param);
    for (Value result : op->getResults())
      bindValue(result);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          bindValue(arg);
  });
  for (ParamOp param : paramOps) {
    OpBuilder b(param);
    SmallVector<Value> constants;
    for (unsigned i = 0, e = param.getNumResults(); i < e; ++i)
      constants.push_back(arith::ConstantIndexOp::create(
          b, param.getLoc(), values.lookup(param.getName(i))));
    param.replaceAllUsesWith(constants);
    param.erase();
  }
}

struct TileBindParamsPass
    : public tile::impl::TileBindParamsBase<TileBindParamsPass> {
  using TileBindParamsBase::TileBindParamsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringMap<int64_t> overrides;
    for (const std::string &binding : params) {
      auto [name, text] = StringRef(binding).split('=');
      int64_t value;
      if (name.empty() || text.getAsInteger(10, value) || value <= 0) {
        module.emitError() << "parameter binding '" << binding
                           << "' is not NAME=VALUE with a positive VALUE";
        return signalPassFailure();
      }
      if (!overrides.try_emplace(name, value).second) {
        module.emitError() << "parameter '" << name << "' is bound twice";
        return signalPassFailure();
      }
    }
    llvm::StringSet<> declared;
    module.walk([&](KernelOp kernel) {
      if (DictionaryAttr params = kernel.getParamsAttr())
        for (NamedAttribute param : params)
          declared.insert(param.getName().getValue());
    });
    for (auto &entry : overrides)
      if (!declared.contains(entry.getKey())) {
        module.emitError() << "no kernel declares parameter '"
                           << entry.getKey() << "'";
        return signalPassFailure();
      }
    // Kernels in nested modules count as declaring their parameters above,
    // so they are bound too.
    module.walk([&](KernelOp kernel) { bindKernel(kernel, overrides); });
  }
};

} // namespace

std::optional<Unbound> mlir::tile::findUnbound(Operation *root) {
  std::optional<Unbound> found;
  auto symbolic = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && !tensor.hasStaticShape() ? tensor : RankedTensorType();
  };
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto param = dyn_cast<ParamOp>(op)) {
      found = Unbound{op, "parameter '" + param.getName(0).str() +
                              "' is not bound: run tile-bind-params first"};
      return WalkResult::interrupt();
    }
    SmallVector<Type> types(op->getResultTypes());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        llvm::append_range(types, block.getArgumentTypes());
    for (Type type : types)
      if (RankedTensorType tile = symbolic(type)) {
        found = Unbound{op, "has a tile whose shape names a parameter (" +
                                formatTileShape(tile) +
                                "): run tile-bind-params first"};
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return found;
}
