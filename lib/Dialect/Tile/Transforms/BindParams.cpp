//===- BindParams.cpp - bind compile-time kernel parameters -----*- C++ -*-===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <limits>

namespace mlir::tile {
#define GEN_PASS_DEF_TILEBINDPARAMS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The value a binding's text gives a parameter of `kernel`: a positive
/// integer for an extent parameter, an element type for a type parameter.
/// Null, with the error emitted on the kernel, when the text is not one.
Attribute parseBinding(KernelOp kernel, StringRef name, StringRef text) {
  if (kernel.getTypeParamValue(name)) {
    Type type = parseType(text, kernel.getContext(), /*numRead=*/nullptr,
                          /*isKnownNullTerminated=*/false);
    if (!type || !isTileElementType(type)) {
      kernel.emitError() << "type parameter '" << name << "' of kernel @"
                         << kernel.getSymName() << " is bound to '" << text
                         << "': bind it to an element type (f32, f16, bf16, "
                            "tf32, i1, i8, i16, i32 or i64)";
      return {};
    }
    return TypeAttr::get(type);
  }
  int64_t value;
  if (text.getAsInteger(10, value) || value <= 0) {
    kernel.emitError() << "parameter binding '" << name << "=" << text
                       << "' is not NAME=VALUE with a positive VALUE";
    return {};
  }
  return Builder(kernel.getContext()).getI64IntegerAttr(value);
}

LogicalResult bindKernel(KernelOp kernel,
                         const llvm::StringMap<std::string> &overrides) {
  llvm::StringMap<int64_t> extents;
  llvm::StringMap<Type> types;
  Builder builder(kernel.getContext());
  if (DictionaryAttr params = kernel.getParamsAttr()) {
    SmallVector<NamedAttribute> bound;
    for (NamedAttribute param : params) {
      StringRef name = param.getName().getValue();
      Attribute value = param.getValue();
      auto it = overrides.find(name);
      if (it != overrides.end() &&
          !(value = parseBinding(kernel, name, it->second)))
        return failure();
      if (auto type = dyn_cast<TypeAttr>(value))
        types[name] = type.getValue();
      else
        extents[name] = cast<IntegerAttr>(value).getInt();
      bound.emplace_back(param.getName(), value);
    }
    kernel.setParamsAttr(builder.getDictionaryAttr(bound));
  }
  // `warps WARPS`, `occupancy OCC` and `mma_sync_occupancy OCC_SYNC` take
  // the bound value (the verifier then checks it, naming the parameter); an
  // i32 attribute holds it.
  auto bindNumber = [&](std::optional<StringRef> param,
                        llvm::function_ref<void(int32_t)> set,
                        StringRef attr) -> LogicalResult {
    if (!param)
      return success();
    int64_t value = extents.lookup(*param);
    if (value > std::numeric_limits<int32_t>::max())
      return kernel.emitError() << "parameter '" << *param << "' sets "
                                << attr << " of kernel @"
                                << kernel.getSymName() << " to " << value
                                << ", which is too large";
    set(static_cast<int32_t>(value));
    return success();
  };
  if (failed(bindNumber(
          kernel.getNumWarpsParam(),
          [&](int32_t value) { kernel.setNumWarps(value); }, "num_warps")) ||
      failed(bindNumber(
          kernel.getOccupancyParam(),
          [&](int32_t value) { kernel.setOccupancy(value); }, "occupancy")) ||
      failed(bindNumber(
          kernel.getMmaSyncOccupancyParam(),
          [&](int32_t value) { kernel.setMmaSyncOccupancy(value); },
          "mma_sync_occupancy")))
    return failure();

  // Every type that names a parameter, wherever it appears (results, block
  // arguments, the kernel's signature, views inside it), gets its bound form:
  // tiles their static shape, type parameters their type.
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](RankedTensorType type) -> Type {
    auto dims = dyn_cast_or_null<DimsAttr>(type.getEncoding());
    if (!dims)
      return type;
    SmallVector<int64_t> shape;
    for (TileDim dim : getTileDims(type))
      shape.push_back(dim.isStatic() ? dim.size
                                     : extents.lookup(dim.symbol.getValue()));
    return RankedTensorType::get(shape, type.getElementType());
  });
  replacer.addReplacement([&](TypeParamType type) -> Type {
    return types.lookup(type.getName().getValue());
  });
  replacer.recursivelyReplaceElementsIn(kernel, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);

  SmallVector<ParamOp> paramOps;
  kernel.getBody().walk([&](ParamOp param) { paramOps.push_back(param); });
  for (ParamOp param : paramOps) {
    OpBuilder b(param);
    SmallVector<Value> constants;
    for (unsigned i = 0, e = param.getNumResults(); i < e; ++i)
      constants.push_back(arith::ConstantIndexOp::create(
          b, param.getLoc(), extents.lookup(param.getName(i))));
    param.replaceAllUsesWith(constants);
    param.erase();
  }
  return success();
}

struct TileBindParamsPass
    : public tile::impl::TileBindParamsBase<TileBindParamsPass> {
  using TileBindParamsBase::TileBindParamsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // NAME=VALUE; the value is read as an extent or a type by each kernel
    // that declares NAME.
    llvm::StringMap<std::string> overrides;
    for (const std::string &binding : params) {
      auto [name, text] = StringRef(binding).split('=');
      if (name.empty() || text.empty()) {
        module.emitError() << "parameter binding '" << binding
                           << "' is not NAME=VALUE with a positive VALUE";
        return signalPassFailure();
      }
      if (!overrides.try_emplace(name, text.str()).second) {
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
    WalkResult walk = module.walk([&](KernelOp kernel) {
      return failed(bindKernel(kernel, overrides)) ? WalkResult::interrupt()
                                                   : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
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
    if (auto kernel = dyn_cast<KernelOp>(op))
      llvm::append_range(types, kernel.getArgumentTypes());
    for (Type type : types) {
      TypeParamType param;
      type.walk([&](TypeParamType inner) {
        param = inner;
        return WalkResult::interrupt();
      });
      if (param) {
        found = Unbound{op, "has a value whose element type is type "
                            "parameter '" +
                                param.getName().str() +
                                "': run tile-bind-params first"};
        return WalkResult::interrupt();
      }
      if (RankedTensorType tile = symbolic(type)) {
        found = Unbound{op, "has a tile whose shape names a parameter (" +
                                formatTileShape(tile) +
                                "): run tile-bind-params first"};
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return found;
}
