//===- TileDialect.cpp - tile dialect, types and attributes -----*- C++ -*-===//

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/Tile/IR/TileAttrNames.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "tilec/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "tilec/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileTypes.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tilec/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tilec/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned /*regionIndex*/,
                                                    unsigned argIndex,
                                                    NamedAttribute attribute) {
  if (attribute.getName() != kAnyStridesAttrName)
    return op->emitOpError()
           << "argument " << argIndex << " has attribute '"
           << attribute.getName().getValue()
           << "', which the tile dialect does not define (it defines '"
           << kAnyStridesAttrName << "' on kernel views)";
  if (!isa<UnitAttr>(attribute.getValue()))
    return op->emitOpError() << "'" << kAnyStridesAttrName
                             << "' takes no value: write {"
                             << kAnyStridesAttrName << "}";
  auto kernel = dyn_cast<KernelOp>(op);
  if (!kernel)
    return op->emitOpError() << "'" << kAnyStridesAttrName
                             << "' marks arguments of a tile.kernel only";
  // From the signature: a kernel without a body still reaches here.
  Type type = kernel.getArgumentTypes()[argIndex];
  if (!isa<ViewType>(type))
    return op->emitOpError()
           << "argument " << argIndex << " is " << type << ": '"
           << kAnyStridesAttrName << "' marks views, whose strides it frees";
  return success();
}

bool mlir::tile::hasAnyStrides(Value view) {
  auto arg = dyn_cast<BlockArgument>(view);
  if (!arg)
    return false;
  auto kernel = dyn_cast_or_null<KernelOp>(arg.getOwner()->getParentOp());
  return kernel && arg.getOwner()->isEntryBlock() &&
         kernel.getArgAttr(arg.getArgNumber(), kAnyStridesAttrName);
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// `!tile.tile<CHUNK x 64 x f32>`: a tile written with its shape once. It is
/// the builtin tensor `tensor<?x64xf32, #tile.dims<[CHUNK, 64]>>` (or a
/// static tensor when every extent is a number), so that parsing it is all
/// there is to it; docs/dialect.md says why tiles stay builtin tensors.
static Type parseTileType(DialectAsmParser &parser) {
  MLIRContext *context = parser.getContext();
  SmallVector<TileDim> dims;
  Type element;
  if (parser.parseLess())
    return {};
  while (true) {
    OptionalParseResult type = parser.parseOptionalType(element);
    if (type.has_value()) {
      if (failed(*type))
        return {};
      break;
    }
    SMLoc at = parser.getCurrentLocation();
    int64_t size = 0;
    OptionalParseResult number = parser.parseOptionalInteger(size);
    if (number.has_value()) {
      if (failed(*number))
        return {};
      if (size <= 0) {
        parser.emitError(at) << "tile extents are positive, not " << size;
        return {};
      }
      dims.push_back(TileDim{size, {}});
    } else {
      std::string name;
      if (succeeded(parser.parseOptionalQuestion()) ||
          failed(parser.parseOptionalKeywordOrString(&name))) {
        parser.emitError(at) << "a tile extent is a number or the name of a "
                                "kernel parameter";
        return {};
      }
      // A name last, where the element type goes, is a type parameter.
      if (succeeded(parser.parseOptionalGreater())) {
        element = TypeParamType::get(context, StringAttr::get(context, name));
        break;
      }
      dims.push_back(TileDim{ShapedType::kDynamic,
                             StringAttr::get(context, name)});
    }
    if (parser.parseKeyword("x"))
      return {};
  }
  if (!isa<TypeParamType>(element) && parser.parseGreater())
    return {};
  if (dims.empty()) {
    parser.emitError(parser.getNameLoc())
        << "a tile has at least one dimension: !tile.tile<64 x " << element
        << ">";
    return {};
  }
  return makeTileType(dims, element);
}

Type TileDialect::parseType(DialectAsmParser &parser) const {
  SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic;
  Type type;
  OptionalParseResult parsed = generatedTypeParser(parser, &mnemonic, type);
  if (parsed.has_value())
    return type;
  if (mnemonic == "tile")
    return parseTileType(parser);
  parser.emitError(loc) << "unknown tile dialect type '" << mnemonic << "'";
  return {};
}

void TileDialect::printType(Type type, DialectAsmPrinter &printer) const {
  (void)generatedTypePrinter(type, printer);
}

bool mlir::tile::isTileElementType(Type type) {
  return isa<Float32Type, Float16Type, BFloat16Type, FloatTF32Type>(type) ||
         type.isSignlessInteger(1) || type.isSignlessInteger(8) ||
         type.isSignlessInteger(16) || type.isSignlessInteger(32) ||
         type.isSignlessInteger(64);
}

//===----------------------------------------------------------------------===//
// ViewType and TypeParamType
//===----------------------------------------------------------------------===//

// !tile.view<4, bf16>, or !tile.view<4, XT> with a type parameter.
Type ViewType::parse(AsmParser &parser) {
  unsigned rank = 0;
  Type element;
  if (parser.parseLess() || parser.parseInteger(rank) || parser.parseComma())
    return {};
  OptionalParseResult type = parser.parseOptionalType(element);
  if (type.has_value()) {
    if (failed(*type))
      return {};
  } else {
    std::string name;
    if (parser.parseKeywordOrString(&name))
      return {};
    element = TypeParamType::get(parser.getContext(),
                                 parser.getBuilder().getStringAttr(name));
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<ViewType>(parser.getContext(), rank, element);
}

void ViewType::print(AsmPrinter &printer) const {
  printer << '<' << getRank() << ", ";
  if (auto param = dyn_cast<TypeParamType>(getElementType()))
    printer.printKeywordOrString(param.getName().getValue());
  else
    printer << getElementType();
  printer << '>';
}

Type TypeParamType::parse(AsmParser &parser) {
  std::string name;
  if (parser.parseLess() || parser.parseKeywordOrString(&name) ||
      parser.parseGreater())
    return {};
  return TypeParamType::get(parser.getContext(),
                            parser.getBuilder().getStringAttr(name));
}

void TypeParamType::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printKeywordOrString(getName().getValue());
  printer << '>';
}

LogicalResult ViewType::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned rank, Type elementType) {
  if (rank == 0 || rank > 8)
    return emitError() << "a view has 1 to 8 dimensions, not " << rank;
  if (!isa<Float32Type, Float16Type, BFloat16Type, TypeParamType>(
          elementType) &&
      !elementType.isSignlessInteger(8) && !elementType.isSignlessInteger(16) &&
      !elementType.isSignlessInteger(32) && !elementType.isSignlessInteger(64))
    return emitError() << "a view holds f32, f16, bf16, i8, i16, i32 or i64 "
                          "elements, not "
                       << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// DimsAttr
//===----------------------------------------------------------------------===//

// #tile.dims<[CHUNK, 64]>: numbers and bare parameter names.
Attribute DimsAttr::parse(AsmParser &parser, Type) {
  Builder &b = parser.getBuilder();
  SmallVector<Attribute> dims;
  auto parseDim = [&]() -> ParseResult {
    int64_t size = 0;
    OptionalParseResult number = parser.parseOptionalInteger(size);
    if (number.has_value()) {
      if (failed(*number))
        return failure();
      dims.push_back(b.getI64IntegerAttr(size));
      return success();
    }
    std::string name;
    if (parser.parseKeywordOrString(&name))
      return failure();
    dims.push_back(b.getStringAttr(name));
    return success();
  };
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseDim) ||
      parser.parseGreater())
    return {};
  return DimsAttr::get(parser.getContext(), b.getArrayAttr(dims));
}

void DimsAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(getDims(), printer, [&](Attribute dim) {
    if (auto size = dyn_cast<IntegerAttr>(dim))
      printer << size.getInt();
    else
      printer.printKeywordOrString(cast<StringAttr>(dim).getValue());
  });
  printer << "]>";
}

StringAttr DimsAttr::getSymbol(unsigned i) const {
  return dyn_cast<StringAttr>(getDims()[i]);
}

LogicalResult
DimsAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                         function_ref<InFlightDiagnostic()> emitError) const {
  ArrayAttr dims = getDims();
  if (dims.size() != shape.size())
    return emitError() << "#tile.dims names " << dims.size()
                       << " extents for a tile of rank " << shape.size();
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (auto size = dyn_cast<IntegerAttr>(dim)) {
      if (size.getInt() != shape[i])
        return emitError() << "#tile.dims gives extent " << size.getInt()
                           << " to dimension " << i << ", but the tile's is "
                           << (ShapedType::isDynamic(shape[i])
                                   ? std::string("?")
                                   : std::to_string(shape[i]));
    } else if (!isa<StringAttr>(dim)) {
      return emitError() << "#tile.dims entries are numbers or parameter names";
    } else if (!ShapedType::isDynamic(shape[i])) {
      return emitError() << "dimension " << i << " is named by parameter "
                         << cast<StringAttr>(dim) << ", so the tile must have "
                         << "'?' there, not " << shape[i];
    }
  }
  return success();
}
