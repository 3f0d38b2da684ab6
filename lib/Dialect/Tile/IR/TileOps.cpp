//===- TileOps.cpp - tile dialect operations --------------------*- C++ -*-===//

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace mlir::tile;

static ParseResult
parseTileIndices(OpAsmParser &parser,
                 SmallVectorImpl<OpAsmParser::UnresolvedOperand> &indices,
                 DenseI64ArrayAttr &staticIndices);
static void printTileIndices(OpAsmPrinter &printer, Operation *op,
                             OperandRange indices,
                             DenseI64ArrayAttr staticIndices);

/// The extents of tile.delinearize and tile.linearize: `%e` or
/// `tiles(%e, %s)` each (two operands, marked in `tiled`, which is set only
/// when one appears).
static ParseResult
parseExtents(OpAsmParser &parser,
             SmallVectorImpl<OpAsmParser::UnresolvedOperand> &extents,
             DenseBoolArrayAttr &tiled) {
  SmallVector<bool> marks;
  auto parseExtent = [&]() -> ParseResult {
    bool isTiles = succeeded(parser.parseOptionalKeyword("tiles"));
    marks.push_back(isTiles);
    OpAsmParser::UnresolvedOperand extent, size;
    if (!isTiles)
      return failure(parser.parseOperand(extent) ||
                     (extents.push_back(extent), false));
    if (parser.parseLParen() || parser.parseOperand(extent) ||
        parser.parseComma() || parser.parseOperand(size) ||
        parser.parseRParen())
      return failure();
    extents.push_back(extent);
    extents.push_back(size);
    return success();
  };
  if (parser.parseCommaSeparatedList(parseExtent))
    return failure();
  if (llvm::is_contained(marks, true))
    tiled = parser.getBuilder().getDenseBoolArrayAttr(marks);
  return success();
}
static void printExtents(OpAsmPrinter &printer, Operation *,
                         OperandRange extents, DenseBoolArrayAttr tiled) {
  if (!tiled) {
    printer << extents;
    return;
  }
  unsigned next = 0;
  llvm::interleaveComma(tiled.asArrayRef(), printer, [&](bool isTiles) {
    if (!isTiles) {
      printer << extents[next++];
      return;
    }
    printer << "tiles(" << extents[next] << ", " << extents[next + 1] << ')';
    next += 2;
  });
}

/// The number of extents `tiled` marks in `numOperands` operands (each
/// `tiles(%e, %s)` takes two), or nullopt when they do not add up.
static std::optional<unsigned>
countExtents(unsigned numOperands, std::optional<ArrayRef<bool>> tiled) {
  if (!tiled)
    return numOperands;
  unsigned operands = tiled->size() + llvm::count(*tiled, true);
  if (operands != numOperands)
    return std::nullopt;
  return tiled->size();
}

/// A load's or store's `if %c` or `unless %c` (the `unless` unit attribute).
static ParseResult
parseCondition(OpAsmParser &parser,
               std::optional<OpAsmParser::UnresolvedOperand> &condition,
               UnitAttr &unless) {
  bool negated = succeeded(parser.parseOptionalKeyword("unless"));
  if (!negated && failed(parser.parseOptionalKeyword("if")))
    return success();
  OpAsmParser::UnresolvedOperand operand;
  if (parser.parseOperand(operand))
    return failure();
  condition = operand;
  if (negated)
    unless = parser.getBuilder().getUnitAttr();
  return success();
}
static void printCondition(OpAsmPrinter &printer, Operation *, Value condition,
                           UnitAttr unless) {
  if (condition)
    printer << (unless ? "unless " : "if ") << condition;
}

/// `slt` and the other predicates of arith.cmpi and arith.cmpf, by their
/// names, held as the I64Attr of the enum's value.
template <typename Predicate,
          std::optional<Predicate> (*symbolize)(StringRef)>
static ParseResult parsePredicate(OpAsmParser &parser, IntegerAttr &attr) {
  SMLoc at = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<Predicate> predicate = symbolize(keyword);
  if (!predicate)
    return parser.emitError(at) << "'" << keyword
                                << "' is not a predicate of the comparison";
  attr = parser.getBuilder().getI64IntegerAttr(
      static_cast<int64_t>(*predicate));
  return success();
}
static ParseResult parseCmpIPredicate(OpAsmParser &parser, IntegerAttr &attr) {
  return parsePredicate<arith::CmpIPredicate, arith::symbolizeCmpIPredicate>(
      parser, attr);
}
static ParseResult parseCmpFPredicate(OpAsmParser &parser, IntegerAttr &attr) {
  return parsePredicate<arith::CmpFPredicate, arith::symbolizeCmpFPredicate>(
      parser, attr);
}
static void printCmpIPredicate(OpAsmPrinter &printer, Operation *,
                               IntegerAttr attr) {
  printer << arith::stringifyCmpIPredicate(
      static_cast<arith::CmpIPredicate>(attr.getInt()));
}
static void printCmpFPredicate(OpAsmPrinter &printer, Operation *,
                               IntegerAttr attr) {
  printer << arith::stringifyCmpFPredicate(
      static_cast<arith::CmpFPredicate>(attr.getInt()));
}

/// tile.where's types: `C, T` (the values and the result are T) or
/// `C, A, B -> R` (the broadcasting form).
static ParseResult parseWhereTypes(OpAsmParser &parser, Type &condition,
                                   Type &trueValue, Type &falseValue,
                                   Type &result) {
  if (parser.parseType(condition) || parser.parseComma() ||
      parser.parseType(trueValue))
    return failure();
  if (failed(parser.parseOptionalComma())) {
    falseValue = result = trueValue;
    return success();
  }
  return failure(parser.parseType(falseValue) || parser.parseArrow() ||
                 parser.parseType(result));
}
static void printWhereTypes(OpAsmPrinter &printer, Operation *,
                            Type condition, Type trueValue, Type falseValue,
                            Type result) {
  printer << condition << ", " << trueValue;
  if (trueValue != result || falseValue != result)
    printer << ", " << falseValue << " -> " << result;
}

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/IR/TileOps.cpp.inc"

namespace {
/// "tensor<64x32xbf16>" reads as "64x32 bf16 tile" in messages.
std::string describe(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return "scalar";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << formatTileShape(tensor) << " " << tensor.getElementType() << " tile";
  return text;
}

/// Whether `list` names distinct dimensions of a rank-`rank` value.
bool isDimensionList(ArrayRef<int64_t> list, int64_t rank) {
  SmallVector<bool> seen(rank, false);
  for (int64_t d : list) {
    if (d < 0 || d >= rank || seen[d])
      return false;
    seen[d] = true;
  }
  return true;
}

/// Shared by load and store: one index per view dimension (literal ones not
/// negative), the tile's element type is the view's or both are floats,
/// `order` is a
/// permutation, and the tile has the view's rank or `dims` maps each of its
/// dimensions to a distinct view dimension.
LogicalResult verifyViewAccess(Operation *op, ViewType view,
                               RankedTensorType tile, size_t numDynamic,
                               std::optional<ArrayRef<int64_t>> staticIndices,
                               std::optional<ArrayRef<int64_t>> order,
                               std::optional<ArrayRef<int64_t>> dims) {
  int64_t viewRank = view.getRank();
  size_t numIndices = numDynamic;
  if (staticIndices) {
    numIndices = staticIndices->size();
    if (static_cast<size_t>(llvm::count(*staticIndices, ShapedType::kDynamic)) !=
        numDynamic)
      return op->emitOpError() << "static_indices must mark each SSA index "
                                  "with "
                               << ShapedType::kDynamic;
    for (int64_t index : *staticIndices)
      if (index != ShapedType::kDynamic && index < 0)
        return op->emitOpError() << "tile index " << index
                                 << " is negative";
  }
  if (numIndices != static_cast<size_t>(viewRank))
    return op->emitOpError() << "takes one tile index per view dimension: the "
                             << "view has " << viewRank << ", but "
                             << numIndices << " indices are given";
  if (order && dims)
    return op->emitOpError() << "takes order or dims, not both: dims also "
                                "says which view dimension each tile "
                                "dimension walks";
  if (dims) {
    if (static_cast<int64_t>(dims->size()) != tile.getRank())
      return op->emitOpError() << "dims maps each dimension of the "
                               << describe(tile) << " to a view dimension: "
                               << "it needs " << tile.getRank()
                               << " entries, not " << dims->size();
    if (!isDimensionList(*dims, viewRank))
      return op->emitOpError() << "dims must name distinct dimensions of "
                                  "the view, from 0 to "
                               << viewRank - 1;
  } else if (tile.getRank() != viewRank) {
    return op->emitOpError() << "a " << describe(tile)
                             << " has rank " << tile.getRank()
                             << ", but the view has rank " << viewRank
                             << " (reshape to add or drop extent-1 axes), or "
                                "give dims to map the tile's dimensions to "
                                "the view's";
  }
  // Between floats the access converts; a type parameter is checked again
  // once bound.
  auto isFloat = [](Type type) { return isa<FloatType, TypeParamType>(type); };
  if (tile.getElementType() != view.getElementType() &&
      !(isFloat(tile.getElementType()) && isFloat(view.getElementType())))
    return op->emitOpError() << "the tile holds " << tile.getElementType()
                             << " but the view holds " << view.getElementType()
                             << ": an access converts between float types "
                                "only (use tile.convert)";
  for (int64_t size : tile.getShape())
    if (!ShapedType::isDynamic(size) && size <= 0)
      return op->emitOpError() << "tile extents must be positive";
  if (order && (order->size() != static_cast<size_t>(viewRank) ||
                !isDimensionList(*order, viewRank)))
    return op->emitOpError() << "order must list each of the view's "
                             << viewRank << " dimensions once";
  return success();
}

LogicalResult verifyAxis(Operation *op, RankedTensorType type, int64_t axis) {
  if (axis < 0 || axis >= type.getRank())
    return op->emitOpError() << "axis " << axis << " is not a dimension of a "
                             << describe(type);
  return success();
}

/// The element types of tiles (Tile_Element in TileOps.td), a type
/// parameter included.
bool isTileElement(Type type) {
  return isTileElementType(type) || isa<TypeParamType>(type);
}

/// The scalar kernel arguments: the types a generated launcher passes (an
/// i0 or an f64 parameter, say, has no C type there and no PTX parameter
/// the NVPTX backend accepts for every target), or a type parameter (checked
/// again once bound).
bool isKernelScalarType(Type type) {
  return type.isIndex() || (isTileElement(type) && !isa<FloatTF32Type>(type));
}

/// The math functions docs/semantics.md defines (and the interpreter and the
/// lowering implement); the NVPTX backend has no code for the others.
bool isSupportedMathOp(Operation *op) {
  return isa<math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp,
             math::Log2Op, math::Log10Op, math::Log1pOp, math::SqrtOp,
             math::RsqrtOp, math::AbsFOp, math::AbsIOp, math::TanhOp,
             math::SinOp, math::CosOp, math::ErfOp, math::AtanOp,
             math::Atan2Op, math::PowFOp, math::FloorOp, math::CeilOp,
             math::TruncOp, math::RoundOp, math::RoundEvenOp,
             math::CopySignOp, math::FmaOp>(op);
}
} // namespace

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

// tile.kernel @name<CHUNK = 64, XT : type = bf16>(%x: !tile.view<1, XT>)
//     warps 4 occupancy 2 mma_sync_occupancy 1 attributes {...} { ... }
// The header forms of `params`, `num_warps`, `occupancy` and
// `mma_sync_occupancy` are optional, and
// each may be written in the attribute dictionary instead (as the printer
// does), but not in both places.
ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  (void)impl::parseOptionalVisibilityKeyword(parser, result.attributes);
  StringAttr symName;
  if (parser.parseSymbolName(symName, SymbolTable::getSymbolAttrName(),
                             result.attributes))
    return failure();

  SmallVector<NamedAttribute> params;
  if (succeeded(parser.parseOptionalLess())) {
    auto parseParam = [&]() -> ParseResult {
      SMLoc at = parser.getCurrentLocation();
      std::string name;
      if (parser.parseKeywordOrString(&name))
        return failure();
      // NAME : type = TYPE declares an element type, NAME = N an extent.
      Attribute value;
      if (succeeded(parser.parseOptionalColon())) {
        Type type;
        if (parser.parseKeyword("type") || parser.parseEqual() ||
            parser.parseType(type))
          return failure();
        value = TypeAttr::get(type);
      } else {
        int64_t extent = 0;
        if (parser.parseEqual() || parser.parseInteger(extent))
          return failure();
        value = builder.getI64IntegerAttr(extent);
      }
      if (llvm::any_of(params, [&](const NamedAttribute &param) {
            return param.getName() == name;
          }))
        return parser.emitError(at)
               << "parameter '" << name << "' is declared twice";
      params.emplace_back(builder.getStringAttr(name), value);
      return success();
    };
    if (parser.parseCommaSeparatedList(parseParam) || parser.parseGreater())
      return failure();
  }

  SmallVector<OpAsmParser::Argument> arguments;
  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  bool isVariadic = false;
  if (function_interface_impl::parseFunctionSignatureWithArguments(
          parser, /*allowVariadic=*/false, arguments, isVariadic, resultTypes,
          resultAttrs))
    return failure();

  // `warps 8` or `warps WARPS`: a number, or an extent parameter whose
  // value (its default until tile-bind-params binds it) is the number.
  NamedAttrList header;
  auto parseHeaderNumber = [&](StringRef keyword, StringAttr name,
                               StringAttr paramName) -> ParseResult {
    if (failed(parser.parseOptionalKeyword(keyword)))
      return success();
    int32_t value = 0;
    OptionalParseResult number = parser.parseOptionalInteger(value);
    if (number.has_value()) {
      if (failed(*number))
        return failure();
      header.set(name, builder.getI32IntegerAttr(value));
      return success();
    }
    SMLoc at = parser.getCurrentLocation();
    std::string param;
    if (parser.parseKeywordOrString(&param))
      return failure();
    const NamedAttribute *declared =
        llvm::find_if(params, [&](const NamedAttribute &candidate) {
          return candidate.getName() == param;
        });
    auto extent = declared == params.end()
                      ? IntegerAttr()
                      : dyn_cast<IntegerAttr>(declared->getValue());
    if (!extent)
      return parser.emitError(at)
             << "'" << keyword << " " << param << "' names no extent "
             << "parameter of the kernel: declare it in the header, e.g. <"
             << param << " = 4>, or write a number";
    header.set(name, builder.getI32IntegerAttr(
                         static_cast<int32_t>(extent.getInt())));
    header.set(paramName, builder.getStringAttr(param));
    return success();
  };
  if (failed(parseHeaderNumber("warps", getNumWarpsAttrName(result.name),
                               getNumWarpsParamAttrName(result.name))) ||
      failed(parseHeaderNumber("occupancy",
                               getOccupancyAttrName(result.name),
                               getOccupancyParamAttrName(result.name))) ||
      failed(parseHeaderNumber(
          "mma_sync_occupancy", getMmaSyncOccupancyAttrName(result.name),
          getMmaSyncOccupancyParamAttrName(result.name))))
    return failure();
  if (!params.empty())
    header.set(getParamsAttrName(result.name),
               builder.getDictionaryAttr(params));

  SMLoc attrLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  for (NamedAttribute attr : header) {
    if (result.attributes.get(attr.getName()))
      return parser.emitError(attrLoc)
             << "'" << attr.getName().getValue()
             << "' is given in the kernel header and in attributes";
    result.attributes.push_back(attr);
  }

  SmallVector<Type> argTypes;
  for (OpAsmParser::Argument &arg : arguments)
    argTypes.push_back(arg.type);
  result.addAttribute(getFunctionTypeAttrName(result.name),
                      TypeAttr::get(builder.getFunctionType(argTypes,
                                                            resultTypes)));
  call_interface_impl::addArgAndResultAttrs(
      builder, result, arguments, resultAttrs, getArgAttrsAttrName(result.name),
      getResAttrsAttrName(result.name));
  // A kernel without a body parses, so that the verifier can say it needs
  // one.
  OptionalParseResult body = parser.parseOptionalRegion(
      *result.addRegion(), arguments, /*enableNameShadowing=*/false);
  if (body.has_value() && failed(*body))
    return failure();
  // The closing `tile.return` may be left out: a kernel returns nothing, so
  // there is nothing for it to say.
  Region &region = *result.regions.back();
  if (body.has_value() && !region.empty()) {
    Block &block = region.back();
    if (block.empty() || !block.back().mightHaveTrait<OpTrait::IsTerminator>()) {
      // The region has no parent op yet: the builder takes the context.
      OpBuilder end(parser.getContext());
      end.setInsertionPointToEnd(&block);
      ReturnOp::create(end, result.location);
    }
  }

  // A custom parser's attributes become properties without their ODS
  // constraints: `num_warps = unit` or `params = [1]` would be dropped
  // silently (and then read as a null attribute). Check them here.
  std::optional<RegisteredOperationName> name =
      result.name.getRegisteredInfo();
  return name->verifyInherentAttrs(result.attributes, [&] {
    return mlir::emitError(result.location) << "'tile.kernel' op ";
  });
}

void KernelOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(
      printer, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

std::optional<int64_t> KernelOp::getParamValue(StringRef name) {
  DictionaryAttr params = getParamsAttr();
  if (!params)
    return std::nullopt;
  if (auto value = dyn_cast_or_null<IntegerAttr>(params.get(name)))
    return value.getInt();
  return std::nullopt;
}

Type KernelOp::getTypeParamValue(StringRef name) {
  DictionaryAttr params = getParamsAttr();
  if (!params)
    return {};
  if (auto value = dyn_cast_or_null<TypeAttr>(params.get(name)))
    return value.getValue();
  return {};
}

LogicalResult KernelOp::verify() {
  if (!isValidKernelName(getSymName()))
    return emitOpError() << "name '" << getSymName()
                         << "' is not a PTX and C++ identifier: use letters, "
                            "digits and '_', not starting with a digit";
  FunctionType type = getFunctionType();
  if (type.getNumResults() != 0)
    return emitOpError() << "kernels return nothing; write results to a view";
  for (auto [i, arg] : llvm::enumerate(type.getInputs()))
    if (!isa<ViewType>(arg) && !isKernelScalarType(arg))
      return emitOpError() << "argument " << i << " is " << arg
                           << ": kernel arguments are views (!tile.view) or "
                              "scalars of type f16, bf16, f32, i1, i8, i16, "
                              "i32, i64, index or a type parameter";
  // A number taken from a parameter is the parameter's value, and the
  // errors name the parameter the user binds.
  auto fromParam = [&](std::optional<StringRef> param, StringRef attr,
                       int64_t number, std::string &origin) -> LogicalResult {
    if (!param)
      return success();
    origin = (" (parameter " + *param + ")").str();
    std::optional<int64_t> value = getParamValue(*param);
    if (!value)
      return emitOpError() << attr << " is parameter '" << *param
                           << "', which the kernel does not declare as an "
                              "extent";
    if (*value != number)
      return emitOpError() << attr << " is " << number << " but its parameter '"
                           << *param << "' is " << *value;
    return success();
  };
  std::string warpsOrigin;
  // The accessors return the attributes' bits as unsigned numbers; read them
  // signed so that a negative value is rejected rather than wrapped.
  int32_t warps = getNumWarps();
  if (failed(fromParam(getNumWarpsParam(), "num_warps", warps, warpsOrigin)))
    return failure();
  if (warps < 1 || warps > 32 || (warps & (warps - 1)))
    return emitOpError() << "num_warps" << warpsOrigin
                         << " must be a power of two from 1 to 32, not "
                         << warps;
  auto checkOccupancy = [&](StringRef attr, int32_t occupancy,
                            std::optional<StringRef> param) -> LogicalResult {
    std::string origin;
    if (failed(fromParam(param, attr, occupancy, origin)))
      return failure();
    if (occupancy < 1)
      return emitOpError() << attr << origin << " must be at least 1";
    // 64 warps is what a multiprocessor of sm_80 and sm_90 holds.
    if (static_cast<int64_t>(occupancy) * warps > 64)
      return emitOpError() << attr << origin << " " << occupancy
                           << " of programs of " << warps << " warps"
                           << warpsOrigin
                           << " asks for more than the 64 warps a "
                              "multiprocessor holds";
    return success();
  };
  if (failed(checkOccupancy("occupancy",
                            static_cast<int32_t>(getOccupancy()),
                            getOccupancyParam())))
    return failure();
  if (std::optional<uint32_t> syncOccupancy = getMmaSyncOccupancy()) {
    if (failed(checkOccupancy("mma_sync_occupancy",
                              static_cast<int32_t>(*syncOccupancy),
                              getMmaSyncOccupancyParam())))
      return failure();
  } else if (getMmaSyncOccupancyParam()) {
    return emitOpError() << "mma_sync_occupancy_param needs a "
                            "mma_sync_occupancy";
  }
  if (DictionaryAttr params = getParamsAttr())
    for (NamedAttribute param : params) {
      if (auto type = dyn_cast<TypeAttr>(param.getValue())) {
        if (!isTileElementType(type.getValue()))
          return emitOpError()
                 << "type parameter " << param.getName() << " is "
                 << type.getValue()
                 << ": an element type is f32, f16, bf16, tf32, i1, i8, "
                    "i16, i32 or i64";
        continue;
      }
      auto value = dyn_cast<IntegerAttr>(param.getValue());
      if (!value || value.getInt() <= 0)
        return emitOpError() << "parameter " << param.getName()
                             << " needs a positive integer default value "
                                "(or an element type, as a type parameter)";
    }
  return success();
}

// The body's presence (SizedRegion<1>) and its entry block's argument types
// (FunctionOpInterface) are verified before this runs.
LogicalResult KernelOp::verifyRegions() {
  Region &body = getBody();
  // Every element type that is a parameter must name a declared type
  // parameter, and every tile extent that is not a number a declared extent
  // parameter, or tile-bind-params could not give it a value.
  auto checkTypeParams = [&](Type type, Location loc) -> LogicalResult {
    WalkResult walk = type.walk([&](TypeParamType param) {
      StringRef name = param.getName().getValue();
      if (getTypeParamValue(name))
        return WalkResult::advance();
      if (getParamValue(name))
        mlir::emitError(loc) << "'" << name << "' is an extent parameter of "
                             << "kernel @" << getSymName()
                             << ", not an element type: declare it as '"
                             << name << " : type = f32'";
      else
        mlir::emitError(loc) << "element type '" << name
                             << "' is not a type: kernel @" << getSymName()
                             << " declares no type parameter '" << name
                             << "'";
      return WalkResult::interrupt();
    });
    return failure(walk.wasInterrupted());
  };
  auto checkType = [&](Type type, Location loc) -> LogicalResult {
    if (failed(checkTypeParams(type, loc)))
      return failure();
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || tensor.hasStaticShape())
      return success();
    for (TileDim dim : getTileDims(tensor)) {
      if (dim.isStatic() && ShapedType::isDynamic(dim.size))
        return mlir::emitError(loc)
               << "a tile extent is '?' without a parameter name; write the "
                  "shape with #tile.dims";
      if (!dim.isStatic() && getTypeParamValue(dim.symbol))
        return mlir::emitError(loc)
               << "tile shape uses type parameter '" << dim.symbol.getValue()
               << "' as an extent; extents are numbers or extent parameters";
      if (!dim.isStatic() && !getParamValue(dim.symbol))
        return mlir::emitError(loc)
               << "tile shape uses parameter '" << dim.symbol.getValue()
               << "', which kernel @" << getSymName() << " does not declare";
    }
    return success();
  };
  for (Type arg : getFunctionType().getInputs())
    if (failed(checkTypeParams(arg, getLoc())))
      return failure();
  // A bound tile must fit in the registers of the program's threads; this
  // also bounds the size of the code the lowering unrolls per thread.
  int64_t numThreads = 32 * static_cast<int64_t>(getNumWarps());
  auto checkSize = [&](Type type, Location loc) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return success();
    if (llvm::any_of(tensor.getShape(), [](int64_t size) { return size <= 0; }))
      return mlir::emitError(loc)
             << "tile extents must be positive, not " << describe(tensor);
    std::optional<int64_t> registers =
        getTileRegistersPerThread(tensor, numThreads);
    int64_t limit = getMaxRegistersPerThread(numThreads);
    if (!registers)
      return mlir::emitError(loc) << "a " << describe(tensor)
                                  << " has more elements than a 64-bit "
                                     "count holds";
    if (*registers > limit)
      return mlir::emitError(loc)
             << "a " << describe(tensor) << " needs " << *registers
             << " registers per thread with num_warps = " << getNumWarps()
             << ", more than the " << limit
             << " a thread of a program of " << numThreads
             << " threads has: use smaller tiles or more warps";
    return success();
  };
  auto checkValue = [&](Type type, Location loc) {
    return success(succeeded(checkType(type, loc)) &&
                   succeeded(checkSize(type, loc)));
  };
  WalkResult walk = body.walk([&](Operation *op) {
    if (isa_and_nonnull<math::MathDialect>(op->getDialect()) &&
        !isSupportedMathOp(op)) {
      op->emitOpError() << "is not supported in tile kernels (see "
                           "docs/semantics.md for the math functions they "
                           "may use)";
      return WalkResult::interrupt();
    }
    for (Value result : op->getResults())
      if (failed(checkValue(result.getType(), op->getLoc())))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(checkValue(arg.getType(), op->getLoc())))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

void ForOp::build(OpBuilder &builder, OperationState &state, Value count,
                  Value tileSize, ValueRange inits) {
  state.addOperands(count);
  if (tileSize)
    state.addOperands(tileSize);
  state.addOperands(inits);
  state.getOrAddProperties<Properties>().operandSegmentSizes = {
      1, tileSize ? 1 : 0, static_cast<int32_t>(inits.size())};
  state.addTypes(inits.getTypes());
  Block *body = new Block;
  state.addRegion()->push_back(body);
  body->addArgument(builder.getIndexType(), state.location);
  for (Value init : inits)
    body->addArgument(init.getType(), state.location);
  if (inits.empty()) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(body);
    YieldOp::create(builder, state.location);
  }
}

// tile.for %k in range(%n) | tiles(%extent, %size)
//     [iter_args(%a = %init, ...) -> (T, ...)] { ... }
ParseResult ForOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  Type indexType = builder.getIndexType();
  OpAsmParser::Argument iv;
  iv.type = indexType;
  StringRef form;
  SMLoc formLoc;
  OpAsmParser::UnresolvedOperand count, tileSize;
  if (parser.parseArgument(iv) || parser.parseKeyword("in") ||
      (formLoc = parser.getCurrentLocation(), parser.parseKeyword(&form)))
    return failure();
  bool tiles = form == "tiles";
  if (!tiles && form != "range")
    return parser.emitError(formLoc)
           << "expected 'range(%n)' or 'tiles(%extent, %size)', not '" << form
           << "'";
  if (parser.parseLParen() || parser.parseOperand(count) ||
      (tiles && (parser.parseComma() || parser.parseOperand(tileSize))) ||
      parser.parseRParen() ||
      parser.resolveOperand(count, indexType, result.operands) ||
      (tiles && parser.resolveOperand(tileSize, indexType, result.operands)))
    return failure();
  SmallVector<OpAsmParser::Argument> args{iv};
  SmallVector<OpAsmParser::UnresolvedOperand> inits;
  SmallVector<Type> types;
  if (succeeded(parser.parseOptionalKeyword("iter_args"))) {
    if (parser.parseAssignmentList(args, inits) ||
        parser.parseArrowTypeList(types))
      return failure();
    if (types.size() != inits.size())
      return parser.emitError(parser.getCurrentLocation())
             << "iter_args has " << inits.size() << " values but "
             << types.size() << " types";
    for (auto [arg, type] : llvm::zip(llvm::drop_begin(args), types))
      arg.type = type;
    if (parser.resolveOperands(inits, types, parser.getCurrentLocation(),
                               result.operands))
      return failure();
  }
  result.addTypes(types);
  result.getOrAddProperties<Properties>().operandSegmentSizes = {
      1, tiles ? 1 : 0, static_cast<int32_t>(inits.size())};
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, args) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  ForOp::ensureTerminator(*body, builder, result.location);
  return success();
}

void ForOp::print(OpAsmPrinter &printer) {
  printer << ' ' << getInductionVar() << " in ";
  if (getTileSize())
    printer << "tiles(" << getCount() << ", " << getTileSize() << ')';
  else
    printer << "range(" << getCount() << ')';
  if (!getInits().empty()) {
    printer << " iter_args(";
    llvm::interleaveComma(
        llvm::zip(getBody().getArguments().drop_front(), getInits()), printer,
        [&](auto pair) {
          printer << std::get<0>(pair) << " = " << std::get<1>(pair);
        });
    printer << ") -> (" << getResultTypes() << ')';
  }
  printer << ' ';
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                      /*printBlockTerminators=*/!getInits().empty());
  printer.printOptionalAttrDict((*this)->getAttrs(),
                                {getOperandSegmentSizesAttrName()});
}

LogicalResult ForOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInits().size() + 1 ||
      !body.getArgument(0).getType().isIndex())
    return emitOpError() << "the body takes the index and one value per "
                            "iter_args entry";
  for (auto [i, init, arg, result] :
       llvm::enumerate(getInits(), body.getArguments().drop_front(),
                       getResults()))
    if (init.getType() != arg.getType() || init.getType() != result.getType())
      return emitOpError() << "iter_args entry " << i << " is "
                           << init.getType()
                           << ": its argument and the loop's result must "
                              "have that type";
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getResults().getTypes() != getResultTypes())
    return yield.emitOpError()
           << "yields the next value of each iter_args entry, of its type ("
           << getResultTypes() << "), not (" << yield.getResults().getTypes()
           << ')';
  return success();
}

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

// tile.param "A", "B": one index result per parameter.
ParseResult ParamOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<Attribute> names;
  auto parseName = [&]() -> ParseResult {
    std::string name;
    if (parser.parseString(&name))
      return failure();
    names.push_back(parser.getBuilder().getStringAttr(name));
    return success();
  };
  if (parser.parseCommaSeparatedList(parseName) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  Builder &builder = parser.getBuilder();
  result.addAttribute(getNamesAttrName(result.name),
                      builder.getArrayAttr(names));
  result.addTypes(SmallVector<Type>(names.size(), builder.getIndexType()));
  return success();
}

void ParamOp::print(OpAsmPrinter &printer) {
  printer << ' ';
  llvm::interleaveComma(getNames(), printer, [&](Attribute name) {
    printer.printString(cast<StringAttr>(name).getValue());
  });
  printer.printOptionalAttrDict((*this)->getAttrs(), {getNamesAttrName()});
}

LogicalResult ParamOp::verify() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!kernel)
    return emitOpError() << "must be inside a tile.kernel";
  if (getNames().empty() || getNames().size() != getNumResults())
    return emitOpError() << "names one parameter per result";
  for (unsigned i = 0, e = getNumResults(); i < e; ++i) {
    if (kernel.getTypeParamValue(getName(i)))
      return emitOpError() << "'" << getName(i)
                           << "' is a type parameter; tile.param reads "
                              "extent parameters, which are numbers";
    if (!kernel.getParamValue(getName(i)))
      return emitOpError() << "kernel @" << kernel.getSymName()
                           << " declares no parameter '" << getName(i) << "'";
  }
  return success();
}

// tile.dim %v[2, 3] : !tile.view<4, bf16>: one index result per dimension.
ParseResult DimOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand view;
  SmallVector<int64_t> dims;
  ViewType type;
  auto parseDim = [&]() -> ParseResult {
    int64_t dim = 0;
    if (parser.parseInteger(dim))
      return failure();
    dims.push_back(dim);
    return success();
  };
  if (parser.parseOperand(view) ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseDim) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseCustomTypeWithFallback(type) ||
      parser.resolveOperand(view, type, result.operands))
    return failure();
  Builder &builder = parser.getBuilder();
  result.addAttribute(getDimsAttrName(result.name),
                      builder.getDenseI64ArrayAttr(dims));
  result.addTypes(SmallVector<Type>(dims.size(), builder.getIndexType()));
  return success();
}

void DimOp::print(OpAsmPrinter &printer) {
  printer << ' ' << getView() << '[';
  llvm::interleaveComma(getDims(), printer);
  printer << ']';
  printer.printOptionalAttrDict((*this)->getAttrs(), {getDimsAttrName()});
  printer << " : ";
  printer.printStrippedAttrOrType(getView().getType());
}

// tile.delinearize %x by %B, tiles(%e, %s): one index result more than
// extents.
ParseResult DelinearizeOp::parse(OpAsmParser &parser,
                                 OperationState &result) {
  OpAsmParser::UnresolvedOperand index;
  SmallVector<OpAsmParser::UnresolvedOperand> extents;
  DenseBoolArrayAttr tiled;
  Type indexType = parser.getBuilder().getIndexType();
  if (parser.parseOperand(index) || parser.parseKeyword("by") ||
      parseExtents(parser, extents, tiled) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.resolveOperand(index, indexType, result.operands) ||
      parser.resolveOperands(extents, indexType, result.operands))
    return failure();
  if (tiled)
    result.getOrAddProperties<Properties>().tiled = tiled;
  unsigned numExtents = tiled ? tiled.size() : extents.size();
  result.addTypes(SmallVector<Type>(numExtents + 1, indexType));
  return success();
}

void DelinearizeOp::print(OpAsmPrinter &printer) {
  printer << ' ' << getIndex() << " by ";
  printExtents(printer, *this, getExtents(), getTiledAttr());
  printer.printOptionalAttrDict((*this)->getAttrs(), {getTiledAttrName()});
}

unsigned DelinearizeOp::getNumExtents() {
  return countExtents(getExtents().size(), getTiled())
      .value_or(getExtents().size());
}

/// The rules tile.delinearize and tile.linearize share: at least one
/// extent, `tiled` matching the operands, a coordinate per extent and the
/// outer one (`split`: tile.delinearize's results, else tile.linearize's
/// operands).
static LogicalResult verifyExtents(Operation *op, unsigned numOperands,
                                   std::optional<ArrayRef<bool>> tiled,
                                   unsigned coordinates, bool split) {
  std::optional<unsigned> extents = countExtents(numOperands, tiled);
  if (!extents)
    return op->emitOpError() << "has " << numOperands
                             << " extent operands, but `tiled` marks extents "
                                "of "
                             << tiled->size() + llvm::count(*tiled, true);
  if (*extents == 0)
    return op->emitOpError() << "needs at least one extent to "
                             << (split ? "split" : "combine") << " by";
  if (coordinates != *extents + 1)
    return op->emitOpError()
           << (split ? "gives" : "takes")
           << " one coordinate per extent and the outer one: " << *extents + 1
           << (split ? " results, not " : " coordinates, not ") << coordinates;
  return success();
}

LogicalResult DelinearizeOp::verify() {
  return verifyExtents(*this, getExtents().size(), getTiled(),
                       getNumResults(), /*split=*/true);
}

unsigned LinearizeOp::getNumExtents() {
  return countExtents(getExtents().size(), getTiled())
      .value_or(getExtents().size());
}

LogicalResult LinearizeOp::verify() {
  return verifyExtents(*this, getExtents().size(), getTiled(),
                       getCoords().size(), /*split=*/false);
}

// tile.block_id x, y, z: one index result per axis.
ParseResult BlockIdOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<int32_t> axes;
  auto parseAxis = [&]() -> ParseResult {
    SMLoc at = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return failure();
    std::optional<Axis> axis = symbolizeAxis(keyword);
    if (!axis)
      return parser.emitError(at)
             << "expected string or keyword containing one of the following "
                "enum values for attribute 'axis' [x, y, z]";
    axes.push_back(static_cast<int32_t>(*axis));
    return success();
  };
  if (parser.parseCommaSeparatedList(parseAxis) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  Builder &builder = parser.getBuilder();
  result.addAttribute(getAxesAttrName(result.name),
                      builder.getDenseI32ArrayAttr(axes));
  result.addTypes(SmallVector<Type>(axes.size(), builder.getIndexType()));
  return success();
}

void BlockIdOp::print(OpAsmPrinter &printer) {
  printer << ' ';
  llvm::interleaveComma(getAxes(), printer, [&](int32_t axis) {
    printer << stringifyAxis(static_cast<Axis>(axis));
  });
  printer.printOptionalAttrDict((*this)->getAttrs(), {getAxesAttrName()});
}

LogicalResult BlockIdOp::verify() {
  ArrayRef<int32_t> axes = getAxes();
  if (axes.empty() || axes.size() != getNumResults())
    return emitOpError() << "names one grid axis per result: "
                         << getNumResults() << " results, " << axes.size()
                         << " axes";
  SmallVector<bool> seen(3, false);
  for (int32_t axis : axes) {
    if (!symbolizeAxis(axis))
      return emitOpError() << "grid axes are x, y and z (0 to 2), not "
                           << axis;
    if (seen[axis])
      return emitOpError() << "names axis "
                           << stringifyAxis(static_cast<Axis>(axis))
                           << " twice";
    seen[axis] = true;
  }
  return success();
}

LogicalResult DimOp::verify() {
  unsigned rank = getView().getType().getRank();
  if (getDims().empty() || getDims().size() != getNumResults())
    return emitOpError() << "names one view dimension per result";
  for (int64_t dim : getDims())
    if (dim < 0 || dim >= static_cast<int64_t>(rank))
      return emitOpError() << "dimension " << dim
                           << " is not one of the view's " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  if (IntegerAttr latency = getLatencyAttr(); latency && latency.getInt() < 1)
    return emitOpError() << "latency is a number of iterations, at least 1";
  // NaN and infinities exist only for floats; an integer tile could only
  // get some other value silently.
  if (getPadding() != Padding::zero &&
      isa<IntegerType>(getType().getElementType()))
    return emitOpError() << "padding = " << stringifyPadding(getPadding())
                         << " needs a float tile; integer tiles pad with zero";
  return verifyViewAccess(*this, getView().getType(), getType(),
                          getIndices().size(), getStaticIndices(), getOrder(),
                          getDims());
}

LogicalResult StoreOp::verify() {
  return verifyViewAccess(*this, getView().getType(), getValue().getType(),
                          getIndices().size(), getStaticIndices(), getOrder(),
                          getDims());
}

LogicalResult LoadScalarOp::verify() {
  ViewType view = getView().getType();
  if (getType() != view.getElementType())
    return emitOpError() << "the result is " << getType()
                         << " but the view holds " << view.getElementType()
                         << "; a scalar load reads the view's element type";
  // A type parameter is checked once bound.
  if (getPadding() != Padding::zero && isa<IntegerType>(getType()))
    return emitOpError() << "padding = " << stringifyPadding(getPadding())
                         << " needs a float view; integer views pad with zero";
  size_t numIndices = getIndices().size();
  if (std::optional<ArrayRef<int64_t>> literal = getStaticIndices()) {
    if (static_cast<size_t>(llvm::count(*literal, ShapedType::kDynamic)) !=
        numIndices)
      return emitOpError() << "static_indices must mark each SSA index with "
                           << ShapedType::kDynamic;
    for (int64_t index : *literal)
      if (index != ShapedType::kDynamic && index < 0)
        return emitOpError() << "element index " << index
                             << " is negative: it would always read the "
                                "padding";
    numIndices = literal->size();
  }
  if (numIndices != view.getRank())
    return emitOpError() << "takes one element index per view dimension: the "
                         << "view has " << view.getRank() << ", but "
                         << numIndices << " indices are given";
  return success();
}

// [%i, 0, %j]: SSA indices and literal ones. `static_indices` is set only
// when a literal appears, with ShapedType::kDynamic for each SSA index.
static ParseResult
parseTileIndices(OpAsmParser &parser,
                 SmallVectorImpl<OpAsmParser::UnresolvedOperand> &indices,
                 DenseI64ArrayAttr &staticIndices) {
  SmallVector<int64_t> mixed;
  bool anyLiteral = false;
  auto parseIndex = [&]() -> ParseResult {
    OpAsmParser::UnresolvedOperand operand;
    OptionalParseResult ssa = parser.parseOptionalOperand(operand);
    if (ssa.has_value()) {
      if (failed(*ssa))
        return failure();
      indices.push_back(operand);
      mixed.push_back(ShapedType::kDynamic);
      return success();
    }
    int64_t value = 0;
    if (parser.parseInteger(value))
      return failure();
    mixed.push_back(value);
    anyLiteral = true;
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseIndex))
    return failure();
  if (anyLiteral)
    staticIndices = parser.getBuilder().getDenseI64ArrayAttr(mixed);
  return success();
}

static void printTileIndices(OpAsmPrinter &printer, Operation *,
                             OperandRange indices,
                             DenseI64ArrayAttr staticIndices) {
  printer << '[';
  if (!staticIndices) {
    printer << indices;
  } else {
    unsigned next = 0;
    llvm::interleaveComma(staticIndices.asArrayRef(), printer,
                          [&](int64_t index) {
                            if (index == ShapedType::kDynamic)
                              printer << indices[next++];
                            else
                              printer << index;
                          });
  }
  printer << ']';
}

//===----------------------------------------------------------------------===//
// Tile construction and movement
//===----------------------------------------------------------------------===//

// tile.full %s : T, or tile.full 1.5 : T with a literal of T's element type.
ParseResult FullOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand operand;
  OptionalParseResult ssa = parser.parseOptionalOperand(operand);
  bool isLiteral = !ssa.has_value();
  if (!isLiteral && failed(*ssa))
    return failure();
  SMLoc literalLoc = parser.getCurrentLocation();
  Builder &builder = parser.getBuilder();
  double number = 0;
  int64_t integer = 0;
  bool isInteger = false;
  if (isLiteral) {
    OptionalParseResult asInteger = parser.parseOptionalInteger(integer);
    isInteger = asInteger.has_value();
    if (isInteger && failed(*asInteger))
      return failure();
    if (isInteger)
      number = static_cast<double>(integer);
    else if (parser.parseFloat(number))
      return failure();
  }
  RankedTensorType type;
  SMLoc typeLoc;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.getCurrentLocation(&typeLoc) || parser.parseType(type))
    return failure();
  // As a declarative format would, before the operand's type is resolved
  // from the tile's.
  if (!isTileElement(type.getElementType()))
    return parser.emitError(typeLoc)
           << "'result' must be ranked tensor of 32-bit float or 16-bit float "
              "or bfloat16 type or tf32 type or 1-bit signless integer or "
              "8-bit signless integer or 16-bit signless integer or 32-bit "
              "signless integer or 64-bit signless integer or element-type "
              "parameter values, but got "
           << type;
  result.addTypes(type);
  Type element = type.getElementType();
  if (!isLiteral)
    return parser.resolveOperand(operand, element, result.operands);
  TypedAttr constant;
  if (auto floatType = dyn_cast<FloatType>(element)) {
    // As arith.constant reads a literal: the nearest double, then rounded
    // to nearest even to the element type.
    APFloat value(number);
    bool losesInfo = false;
    value.convert(floatType.getFloatSemantics(),
                  APFloat::rmNearestTiesToEven, &losesInfo);
    constant = builder.getFloatAttr(floatType, value);
  } else if (auto intType = dyn_cast<IntegerType>(element)) {
    if (!isInteger)
      return parser.emitError(literalLoc)
             << "an integer tile needs an integer literal, not " << number;
    constant = builder.getIntegerAttr(intType, integer);
  } else {
    return parser.emitError(literalLoc)
           << "a " << element << " tile cannot be filled from a literal";
  }
  result.addAttribute(getConstantAttrName(result.name), constant);
  return success();
}

void FullOp::print(OpAsmPrinter &printer) {
  printer << ' ';
  if (Value value = getValue())
    printer << value;
  else
    printer.printAttributeWithoutType(*getConstant());
  printer.printOptionalAttrDict((*this)->getAttrs(), {getConstantAttrName()});
  printer << " : " << getType();
}

LogicalResult FullOp::verify() {
  Type element = getType().getElementType();
  std::optional<TypedAttr> constant = getConstant();
  if (static_cast<bool>(getValue()) == static_cast<bool>(constant))
    return emitOpError() << "takes either a scalar operand or a literal";
  Type given = getValue() ? getValue().getType() : constant->getType();
  if (given != element)
    return emitOpError() << "failed to verify that the value has the tile's "
                            "element type";
  if (constant && !isa<FloatAttr, IntegerAttr>(*constant))
    return emitOpError() << "the literal must be a number";
  return success();
}

LogicalResult ArangeOp::verify() {
  int64_t rank = getType().getRank();
  std::optional<int64_t> dim = getDim();
  if (!dim && rank != 1)
    return emitOpError() << "makes a 1-D tile, not a " << describe(getType())
                         << ", unless `dim` says which dimension it counts "
                            "along";
  if (dim && (*dim < 0 || *dim >= rank))
    return emitOpError() << "counts along dimension " << *dim
                         << ", but the tile has dimensions 0 to " << rank - 1;
  return success();
}

LogicalResult ExtractOp::verify() {
  RankedTensorType source = getSource().getType(), result = getType();
  if (source.getElementType() != result.getElementType())
    return emitOpError() << "the sub-tile must hold the source's "
                         << source.getElementType();
  if (source.getRank() != result.getRank())
    return emitOpError() << "a " << describe(result)
                         << " cannot be a sub-tile of a " << describe(source)
                         << ": ranks differ";
  if (getIndices().size() != static_cast<size_t>(source.getRank()))
    return emitOpError() << "takes one tile index per dimension: "
                         << source.getRank() << ", not "
                         << getIndices().size();
  for (auto [s, r] : llvm::zip(source.getShape(), result.getShape()))
    if (!ShapedType::isDynamic(s) && !ShapedType::isDynamic(r) &&
        (r <= 0 || s % r))
      return emitOpError() << "the source's extents must be multiples of the "
                           << "sub-tile's: " << formatTileShape(source)
                           << " is not tiled by " << formatTileShape(result);
  return success();
}

OpFoldResult ExtractOp::fold(FoldAdaptor) {
  if (getSource().getType() == getType())
    return getSource();
  return {};
}

RankedTensorType BroadcastOp::getExpandedSourceType() {
  RankedTensorType source = getSource().getType();
  std::optional<ArrayRef<int64_t>> newDims = getNewDims();
  if (!newDims)
    return source;
  SmallVector<TileDim> in = getTileDims(source), out;
  int64_t rank = source.getRank() + newDims->size();
  for (int64_t d = 0, next = 0; d < rank; ++d) {
    if (llvm::is_contained(*newDims, d)) {
      out.push_back(TileDim{1, {}});
    } else if (next < source.getRank()) {
      out.push_back(in[next++]);
    }
  }
  return makeTileType(out, source.getElementType());
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType source = getSource().getType(), result = getType();
  if (source.getElementType() != result.getElementType())
    return emitOpError() << "broadcast keeps the element type "
                         << source.getElementType();
  std::optional<ArrayRef<int64_t>> newDims = getNewDims();
  int64_t added = newDims ? newDims->size() : 0;
  if (!newDims && source.getRank() != result.getRank())
    return emitOpError() << "source and result ranks differ ("
                         << source.getRank() << " and " << result.getRank()
                         << "); use tile.reshape to add extent-1 axes first, "
                            "or list the new dimensions in new_dims";
  if (source.getRank() + added != result.getRank())
    return emitOpError() << "a rank-" << source.getRank() << " source with "
                         << added << " new dimensions cannot make a rank-"
                         << result.getRank() << " result";
  if (newDims && (newDims->empty() ||
                  !isDimensionList(*newDims, result.getRank())))
    return emitOpError() << "new_dims must name distinct dimensions of the "
                            "result, from 0 to "
                         << result.getRank() - 1;
  SmallVector<TileDim> in = getTileDims(source), out = getTileDims(result);
  for (int64_t d = 0, i = 0; d < result.getRank(); ++d) {
    if (newDims && llvm::is_contained(*newDims, d))
      continue;
    const TileDim &s = in[i];
    if (!(s.isStatic() && s.size == 1) && !s.mayEqual(out[d]))
      return emitOpError() << "dimension " << i << " of the source is "
                           << s.str() << ": it must be 1 or equal the "
                           << "result's " << out[d].str();
    ++i;
  }
  return success();
}

/// Whether broadcasting `source` to `result` verifies.
static bool isBroadcastable(RankedTensorType source, RankedTensorType result) {
  if (source.getRank() != result.getRank())
    return false;
  for (auto [s, r] : llvm::zip(getTileDims(source), getTileDims(result)))
    if (!(s.isStatic() && s.size == 1) && !s.mayEqual(r))
      return false;
  return true;
}

OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getSource().getType() == getType())
    return getSource();
  // The folds below are for equal-rank broadcasts only.
  if (getNewDims())
    return {};
  // broadcast(broadcast(x)) is one broadcast. With parameters in the shapes
  // the two steps may verify when the one does not (64 -> CHUNK -> BLOCK).
  if (auto inner = getSource().getDefiningOp<BroadcastOp>();
      inner && !inner.getNewDims()) {
    if (isBroadcastable(inner.getSource().getType(), getType())) {
      getSourceMutable().assign(inner.getSource());
      return getResult();
    }
  }
  return {};
}

/// Whether a `source` tile may have as many elements as a `result` tile once
/// parameters are bound. Parameters that both shapes use cancel; what is left
/// can be decided when one side has no parameter left: its number of
/// elements must then equal (or, if the other side still has parameters, be
/// a multiple of) the product of the other side's numbers.
static bool mayHaveEqualCounts(RankedTensorType source,
                               RankedTensorType result) {
  auto split = [](RankedTensorType type, int64_t &product,
                  SmallVector<StringRef> &symbols) {
    product = 1;
    for (TileDim dim : getTileDims(type)) {
      if (!dim.isStatic())
        symbols.push_back(dim.symbol.getValue());
      else if (ShapedType::isDynamic(dim.size))
        return false;
      else if (llvm::MulOverflow(product, dim.size, product))
        return false;
    }
    llvm::sort(symbols);
    return true;
  };
  // An unnamed `?` extent may equal anything; a count that overflows int64_t
  // is no tile's (2^32 x 2^32 must not equal 0).
  auto hasUnknown = [](RankedTensorType type) {
    return llvm::any_of(getTileDims(type), [](const TileDim &dim) {
      return dim.isStatic() && ShapedType::isDynamic(dim.size);
    });
  };
  if (hasUnknown(source) || hasUnknown(result))
    return true;
  int64_t in, out;
  SmallVector<StringRef> inSymbols, outSymbols;
  if (!split(source, in, inSymbols) || !split(result, out, outSymbols))
    return false;
  SmallVector<StringRef> inOnly, outOnly;
  std::set_difference(inSymbols.begin(), inSymbols.end(), outSymbols.begin(),
                      outSymbols.end(), std::back_inserter(inOnly));
  std::set_difference(outSymbols.begin(), outSymbols.end(), inSymbols.begin(),
                      inSymbols.end(), std::back_inserter(outOnly));
  if (inOnly.empty() && outOnly.empty())
    return in == out;
  if (inOnly.empty())
    return out == 0 ? in == 0 : in % out == 0;
  if (outOnly.empty())
    return in == 0 ? out == 0 : out % in == 0;
  return true;
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType source = getSource().getType(), result = getType();
  if (source.getElementType() != result.getElementType())
    return emitOpError() << "reshape keeps the element type "
                         << source.getElementType();
  if (!mayHaveEqualCounts(source, result))
    return emitOpError() << "a " << formatTileShape(source)
                         << " tile cannot have as many elements as a "
                         << formatTileShape(result) << " tile";
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getSource().getType() == getType())
    return getSource();
  // reshape(reshape(x)) is one reshape, unless only the intermediate shape
  // made the counts of x and the result comparable.
  if (auto inner = getSource().getDefiningOp<ReshapeOp>()) {
    if (mayHaveEqualCounts(inner.getSource().getType(), getType())) {
      getSourceMutable().assign(inner.getSource());
      return getResult();
    }
  }
  return {};
}

LogicalResult PermuteOp::verify() {
  RankedTensorType source = getSource().getType(), result = getType();
  ArrayRef<int64_t> perm = getPermutation();
  if (source.getElementType() != result.getElementType())
    return emitOpError() << "permute keeps the element type "
                         << source.getElementType();
  if (perm.size() != static_cast<size_t>(source.getRank()) ||
      result.getRank() != source.getRank())
    return emitOpError() << "the permutation must list each of the source's "
                         << source.getRank() << " dimensions once";
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t d : perm) {
    if (d < 0 || d >= source.getRank() || seen[d])
      return emitOpError() << "the permutation must list each of the "
                           << "source's " << source.getRank()
                           << " dimensions once";
    seen[d] = true;
  }
  SmallVector<TileDim> in = getTileDims(source), out = getTileDims(result);
  for (auto [k, d] : llvm::enumerate(perm))
    if (!out[k].mayEqual(in[d]))
      return emitOpError() << "result dimension " << k << " is source "
                           << "dimension " << d << " of extent " << in[d].str()
                           << ", not " << out[k].str();
  return success();
}

OpFoldResult PermuteOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  // An identity permutation between a `#tile.dims` type and a static one is
  // not a no-op: it changes the type.
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())) &&
      getSource().getType() == getType())
    return getSource();
  // permute(permute(x, p), q) is permute(x, p o q): result dimension k is
  // dimension q[k] of the inner result, which is dimension p[q[k]] of x.
  if (auto inner = getSource().getDefiningOp<PermuteOp>()) {
    ArrayRef<int64_t> first = inner.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t d : perm)
      composed.push_back(first[d]);
    SmallVector<TileDim> in = getTileDims(inner.getSource().getType()),
                         out = getTileDims(getType());
    for (auto [k, d] : llvm::enumerate(composed))
      if (!out[k].mayEqual(in[d]))
        return {};
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())) &&
        inner.getSource().getType() == getType())
      return inner.getSource();
    getSourceMutable().assign(inner.getSource());
    setPermutation(composed);
    return getResult();
  }
  return {};
}

/// Whether tile.convert may convert `from` to `to`: tf32 is made from floats
/// only (a type parameter is checked once bound).
static bool isConvertible(Type from, Type to) {
  return !isa<FloatTF32Type>(to) || isa<FloatType, TypeParamType>(from);
}

/// Whether the interpreter and the lowering convert `from` to `to` in one
/// step: every conversion but bf16 or f16 to tf32, which tile-expand-forms
/// writes as the exact widening to f32 and then the rounding to tf32.
static bool isOneStep(Type from, Type to) {
  return !isa<FloatTF32Type>(to) ||
         isa<Float32Type, FloatTF32Type, TypeParamType>(from);
}

/// Whether every value of `from` is a value of `to`, so that converting to
/// `to` first changes the result of no later conversion. Every conversion is
/// a function of the value alone (docs/dialect.md). i1 is left out: it
/// converts as 0 or 1 rather than as a sign-extended integer.
static bool isExact(Type from, Type to) {
  if (from.isInteger(1) || to.isInteger(1))
    return false;
  auto toFloat = dyn_cast<FloatType>(to);
  if (auto fromFloat = dyn_cast<FloatType>(from))
    return toFloat && APFloat::isRepresentableBy(fromFloat.getFloatSemantics(),
                                                 toFloat.getFloatSemantics());
  auto fromInt = dyn_cast<IntegerType>(from);
  if (!fromInt)
    return false;
  if (auto toInt = dyn_cast<IntegerType>(to))
    return fromInt.getWidth() <= toInt.getWidth();
  // A float holds every integer of magnitude up to 2^precision, and the
  // integers of an iN have magnitudes up to 2^(N-1).
  if (!toFloat)
    return false;
  const llvm::fltSemantics &semantics = toFloat.getFloatSemantics();
  int64_t magnitudeBits = fromInt.getWidth() - 1;
  return magnitudeBits <= APFloat::semanticsPrecision(semantics) &&
         magnitudeBits <= APFloat::semanticsMaxExponent(semantics);
}

LogicalResult ConvertOp::verify() {
  RankedTensorType source = getSource().getType(), result = getType();
  if (source.getRank() != result.getRank())
    return emitOpError() << "convert keeps the shape: "
                         << formatTileShape(source) << " cannot become "
                         << formatTileShape(result);
  for (auto [s, r] : llvm::zip(getTileDims(source), getTileDims(result)))
    if (!s.mayEqual(r))
      return emitOpError() << "convert keeps the shape: "
                           << formatTileShape(source) << " cannot become "
                           << formatTileShape(result);
  if (!isConvertible(source.getElementType(), result.getElementType()))
    return emitOpError() << "only float tiles convert to tf32 (an integer "
                            "tile converts to f32 first)";
  return success();
}

OpFoldResult ConvertOp::fold(FoldAdaptor) {
  if (getSource().getType() == getType())
    return getSource();
  // convert(convert(x)) is one conversion when the first one is exact
  // (bf16 -> f32 -> tf32 is bf16 -> tf32, but f32 -> bf16 -> f32 rounds and
  // stays). The shapes must still agree without the intermediate type.
  auto inner = getSource().getDefiningOp<ConvertOp>();
  if (!inner)
    return {};
  RankedTensorType original = inner.getSource().getType(), result = getType();
  if (!isExact(original.getElementType(), inner.getType().getElementType()))
    return {};
  if (original == result)
    return inner.getSource();
  // Not into a conversion that tile-expand-forms has written as two.
  if (!isOneStep(original.getElementType(), result.getElementType()))
    return {};
  for (auto [s, r] : llvm::zip(getTileDims(original), getTileDims(result)))
    if (!s.mayEqual(r))
      return {};
  getSourceMutable().assign(inner.getSource());
  return getResult();
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

LogicalResult CumsumOp::verify() {
  return verifyAxis(*this, getType(), getAxisAttr().getInt());
}

LogicalResult ReduceOp::verify() {
  RankedTensorType source = getSource().getType(), result = getType();
  if (failed(verifyAxis(*this, source, getAxisAttr().getInt())))
    return failure();
  if (source.getElementType() != result.getElementType())
    return emitOpError() << "the result must hold the source's "
                         << source.getElementType();
  SmallVector<TileDim> in = getTileDims(source), out = getTileDims(result);
  in.erase(in.begin() + getAxis());
  bool match = in.size() == out.size();
  for (size_t i = 0; match && i < in.size(); ++i)
    match = in[i].mayEqual(out[i]);
  if (!match)
    return emitOpError() << "reducing a " << formatTileShape(source)
                         << " tile along axis " << getAxis()
                         << " leaves the other extents, not "
                         << formatTileShape(result);
  return success();
}

LogicalResult MmaOp::verify() {
  RankedTensorType a = getA().getType(), b = getB().getType(),
                   acc = getAcc().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError() << "multiplies matrices: a, b and acc must be 2-D "
                            "tiles (a is "
                         << formatTileShape(a) << ", b is "
                         << formatTileShape(b) << ", acc is "
                         << formatTileShape(acc) << ")";
  // With precision = tf32 each operand is rounded to tf32 first, whatever
  // float type it holds; with split_bf16 each is split into bf16 halves,
  // which tf32 operands (already rounded to another format) cannot be.
  std::optional<MmaPrecision> precision = getPrecision();
  if (!precision && a.getElementType() != b.getElementType())
    return emitOpError() << "a and b must have one element type; a holds "
                         << a.getElementType() << " and b holds "
                         << b.getElementType()
                         << " (or give precision = tf32 or split_bf16)";
  if (precision == MmaPrecision::split_bf16)
    for (auto [name, type] : {std::pair{"a", a}, std::pair{"b", b}})
      if (!isa<BFloat16Type, Float16Type, Float32Type, TypeParamType>(
              type.getElementType()))
        return emitOpError()
               << "with precision = split_bf16, " << name
               << " must hold bf16, f16 or f32 (each is split into bf16 "
                  "halves), not "
               << type.getElementType();
  SmallVector<TileDim> da = getTileDims(a), db = getTileDims(b),
                       dc = getTileDims(acc);
  if (!da[1].mayEqual(db[0]))
    return emitOpError() << "a is " << formatTileShape(a) << " and b is "
                         << formatTileShape(b) << ": a's columns (K = "
                         << da[1].str() << ") must equal b's rows (K = "
                         << db[0].str() << ")";
  if (!da[0].mayEqual(dc[0]) || !db[1].mayEqual(dc[1]))
    return emitOpError() << "a " << formatTileShape(a) << " by "
                         << formatTileShape(b) << " product is "
                         << da[0].str() << "x" << db[1].str()
                         << ", but acc is " << formatTileShape(acc);
  return success();
}

bool WhereOp::isPlain() {
  RankedTensorType result = getType();
  auto condition = dyn_cast<RankedTensorType>(getCondition().getType());
  return condition && getTrueValue().getType() == result &&
         getFalseValue().getType() == result &&
         condition.getShape() == result.getShape() &&
         condition.getEncoding() == result.getEncoding();
}

//===----------------------------------------------------------------------===//
// Broadcasting float arithmetic
//===----------------------------------------------------------------------===//

/// The broadcasting ops' rule (TileOps.td): `operand` is a scalar of the
/// result's element type, or a tile of it that broadcasts to the result with
/// its dimensions aligned to the result's last ones. (For a comparison,
/// `result` has the operands' element type and the result's shape.)
static LogicalResult verifyBroadcastOperand(Operation *op, StringRef which,
                                            Type operand,
                                            RankedTensorType result) {
  Type element = getElementTypeOrSelf(operand);
  if (element != result.getElementType())
    return op->emitOpError()
           << "the " << which << " operand holds " << element
           << " elements but the result " << result.getElementType();
  auto tile = dyn_cast<RankedTensorType>(operand);
  if (!tile)
    return success();
  if (tile.getRank() > result.getRank())
    return op->emitOpError()
           << "the " << which << " operand (" << formatTileShape(tile)
           << ") has more dimensions than the result ("
           << formatTileShape(result) << ")";
  SmallVector<TileDim> in = getTileDims(tile), out = getTileDims(result);
  int64_t offset = result.getRank() - tile.getRank();
  for (int64_t i = 0; i < tile.getRank(); ++i) {
    const TileDim &d = in[i], &r = out[offset + i];
    if (!(d.isStatic() && d.size == 1) && !d.mayEqual(r))
      return op->emitOpError()
             << "the " << which << " operand is " << formatTileShape(tile)
             << ": aligned with the last dimensions of the result ("
             << formatTileShape(result) << "), its dimension " << i
             << " must be 1 or " << r.str() << ", not " << d.str();
  }
  return success();
}

/// The broadcasting arithmetic ops (float and integer alike).
static LogicalResult verifyBroadcastingOp(Operation *op) {
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  if (failed(verifyBroadcastOperand(op, "first", op->getOperand(0).getType(),
                                    result)) ||
      failed(verifyBroadcastOperand(op, "second", op->getOperand(1).getType(),
                                    result)))
    return failure();
  return success();
}

LogicalResult AddFOp::verify() { return verifyBroadcastingOp(*this); }
LogicalResult SubFOp::verify() { return verifyBroadcastingOp(*this); }
LogicalResult MulFOp::verify() { return verifyBroadcastingOp(*this); }
LogicalResult DivFOp::verify() { return verifyBroadcastingOp(*this); }
LogicalResult MaximumFOp::verify() { return verifyBroadcastingOp(*this); }
LogicalResult MinimumFOp::verify() { return verifyBroadcastingOp(*this); }

LogicalResult ClampOp::verify() {
  RankedTensorType result = getType();
  if (failed(verifyBroadcastOperand(*this, "low", getLow().getType(),
                                    result)) ||
      failed(verifyBroadcastOperand(*this, "high", getHigh().getType(),
                                    result)))
    return failure();
  return success();
}

LogicalResult PadOp::verify() {
  RankedTensorType type = getType();
  if (failed(verifyAxis(*this, type, getDim())))
    return failure();
  if (getPadding() != Padding::zero &&
      isa<IntegerType>(type.getElementType()))
    return emitOpError() << "padding = " << stringifyPadding(getPadding())
                         << " needs a float tile; integer tiles pad with zero";
  return success();
}

LogicalResult TriOp::verify() {
  if (getType().getRank() != 2)
    return emitOpError() << "makes a tile of a matrix's mask: the result must "
                            "be a 2-D tile, not a "
                         << describe(getType());
  return success();
}

LogicalResult AddIOp::verify() { return verifyBroadcastingOp(*this); }
LogicalResult SubIOp::verify() { return verifyBroadcastingOp(*this); }
LogicalResult MulIOp::verify() { return verifyBroadcastingOp(*this); }
LogicalResult AndIOp::verify() { return verifyBroadcastingOp(*this); }
LogicalResult OrIOp::verify() { return verifyBroadcastingOp(*this); }

/// A broadcasting comparison: the operands have one element type and each
/// broadcasts to the result's shape.
static LogicalResult verifyBroadcastingCompare(Operation *op,
                                               bool validPredicate) {
  if (!validPredicate)
    return op->emitOpError() << "predicate " << op->getAttr("predicate")
                             << " is not one of the comparison's";
  Type lhs = op->getOperand(0).getType(), rhs = op->getOperand(1).getType();
  Type element = getElementTypeOrSelf(lhs);
  if (getElementTypeOrSelf(rhs) != element)
    return op->emitOpError() << "compares operands of one element type, not "
                             << element << " and "
                             << getElementTypeOrSelf(rhs);
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  RankedTensorType operands = makeTileType(getTileDims(result), element);
  if (failed(verifyBroadcastOperand(op, "first", lhs, operands)) ||
      failed(verifyBroadcastOperand(op, "second", rhs, operands)))
    return failure();
  return success();
}

LogicalResult CmpIOp::verify() {
  return verifyBroadcastingCompare(
      *this, arith::symbolizeCmpIPredicate(getPredicate()).has_value());
}
LogicalResult CmpFOp::verify() {
  return verifyBroadcastingCompare(
      *this, arith::symbolizeCmpFPredicate(getPredicate()).has_value());
}

/// tile.where: the condition (in i1) and each value broadcast to the result.
LogicalResult WhereOp::verify() {
  RankedTensorType result = getType();
  RankedTensorType mask =
      makeTileType(getTileDims(result), IntegerType::get(getContext(), 1));
  if (failed(verifyBroadcastOperand(*this, "condition",
                                    getCondition().getType(), mask)) ||
      failed(verifyBroadcastOperand(*this, "true value",
                                    getTrueValue().getType(), result)) ||
      failed(verifyBroadcastOperand(*this, "false value",
                                    getFalseValue().getType(), result)))
    return failure();
  return success();
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  // A fold result must have the result's type: a value that would still
  // need its broadcast stays.
  auto asResult = [&](Value value) -> OpFoldResult {
    if (value.getType() == getType())
      return value;
    return {};
  };
  if (getTrueValue() == getFalseValue())
    return asResult(getTrueValue());
  auto cond = dyn_cast_or_null<DenseElementsAttr>(adaptor.getCondition());
  if (cond && cond.isSplat())
    return asResult(cond.getSplatValue<bool>() ? getTrueValue()
                                               : getFalseValue());
  return {};
}
