//===- TileGPUDialect.cpp - tilegpu dialect, types and layouts --*- C++ -*-===//

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilegpu;
using namespace tilec;

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.cpp.inc"
#include "tilec/Dialect/TileGPU/IR/TileGPUEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"

namespace {
/// Layouts are long; `#dist`, `#dist1`, ... and `#shared` keep the IR readable.
struct TileGPUAsmInterface : OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<DistributedLayoutAttr>(attr)) {
      os << "dist";
      return AliasResult::FinalAlias;
    }
    if (isa<SharedLayoutAttr>(attr)) {
      os << "shared";
      return AliasResult::FinalAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void TileGPUDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tilec/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"
      >();
  addInterfaces<TileGPUAsmInterface>();
}

SmallVector<int64_t> mlir::tilegpu::getPaddedShape(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> padded;
  for (int64_t extent : shape)
    padded.push_back(int64_t(llvm::PowerOf2Ceil(uint64_t(extent))));
  return padded;
}

int64_t mlir::tilegpu::getVectorRun(const LinearLayout &layout,
                                    ArrayRef<int64_t> shape, int64_t dim,
                                    unsigned elementBytes) {
  int64_t width = 1;
  unsigned bits = llvm::Log2_64(uint64_t(layout.getInDimSize(kRegister)));
  for (unsigned bit = 0; bit < bits; ++bit) {
    LinearLayout::Basis image = layout.getBasis(kRegister, bit);
    bool unit = true;
    for (auto [d, coord] : llvm::enumerate(image))
      unit &= coord == (int64_t(d) == dim ? int64_t(1) << bit : 0);
    if (!unit || 2 * width * elementBytes > 16 || shape[dim] % (2 * width) != 0)
      break;
    width *= 2;
  }
  return width;
}

unsigned mlir::tilegpu::getElementBytes(Type elementType) {
  // tf32 has 19 significant bits in a 32-bit register.
  if (isa<FloatTF32Type>(elementType))
    return 4;
  return std::max(1u, elementType.getIntOrFloatBitWidth() / 8);
}

//===----------------------------------------------------------------------===//
// Bases: the common part of both layout attributes
//===----------------------------------------------------------------------===//

namespace {

/// Parses `[[0, 1], [8, 0]]` (or `[]`) into flat coordinates, checking that
/// every image has `rank` coordinates; the first image fixes the rank.
ParseResult parseBases(AsmParser &parser, std::optional<unsigned> &rank,
                       SmallVectorImpl<int64_t> &flat) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        SmallVector<int64_t> basis;
        SMLoc loc = parser.getCurrentLocation();
        if (parser.parseCommaSeparatedList(
                AsmParser::Delimiter::Square, [&]() -> ParseResult {
                  return parser.parseInteger(basis.emplace_back());
                }))
          return failure();
        if (!rank)
          rank = basis.size();
        if (basis.size() != *rank)
          return parser.emitError(loc)
                 << "every image has one coordinate per tile dimension: "
                 << basis.size() << " given where " << *rank << " were";
        flat.append(basis);
        return success();
      });
}

void printBases(AsmPrinter &printer, unsigned rank, ArrayRef<int64_t> flat) {
  printer << "[";
  for (size_t i = 0; i < flat.size(); i += rank) {
    if (i)
      printer << ", ";
    printer << "[";
    llvm::interleaveComma(flat.slice(i, rank), printer);
    printer << "]";
  }
  printer << "]";
}

SmallVector<LinearLayout::Basis> unflatten(ArrayRef<int64_t> flat,
                                           unsigned rank) {
  SmallVector<LinearLayout::Basis> bases;
  for (size_t i = 0; i < flat.size(); i += rank)
    bases.emplace_back(flat.slice(i, rank).begin(), flat.slice(i, rank).end());
  return bases;
}

void flatten(const LinearLayout &layout, StringRef inDim,
             SmallVectorImpl<int64_t> &flat) {
  if (!layout.hasInDim(inDim))
    return;
  for (unsigned bit = 0, e = llvm::Log2_64(layout.getInDimSize(inDim)); bit < e;
       ++bit)
    flat.append(layout.getBasis(inDim, bit));
}

SmallVector<LayoutDim> outDimsOf(ArrayRef<int64_t> shape) {
  SmallVector<LayoutDim> outs;
  for (auto [i, extent] : llvm::enumerate(getPaddedShape(shape)))
    outs.push_back({tensorDimName(i), llvm::Log2_64(uint64_t(extent))});
  return outs;
}

/// The images must lie inside the padded tile and reach all of it (with
/// `bijective`, also each point once).
LogicalResult verifyCoverage(ArrayRef<int64_t> shape, unsigned rank,
                             ArrayRef<ArrayRef<int64_t>> inputs, bool bijective,
                             StringRef what,
                             function_ref<InFlightDiagnostic()> emitError) {
  if (shape.size() != rank)
    return emitError() << what << " has images with " << rank
                       << " coordinates, but the tile has rank "
                       << shape.size();
  SmallVector<int64_t> padded = getPaddedShape(shape);
  for (ArrayRef<int64_t> flat : inputs)
    for (size_t i = 0; i < flat.size(); ++i) {
      int64_t extent = padded[i % rank];
      if (flat[i] < 0 || flat[i] >= extent)
        return emitError() << what << " maps a bit to coordinate " << flat[i]
                           << " of dimension " << i % rank
                           << ", outside the tile's extent " << shape[i % rank]
                           << (extent != shape[i % rank]
                                   ? " (padded to " + std::to_string(extent) +
                                         ")"
                                   : std::string());
    }
  // Rank over GF(2) of all images together, on flat coordinates.
  SmallVector<uint64_t> columns;
  unsigned outBits = 0;
  SmallVector<unsigned> shift;
  for (int64_t extent : padded) {
    shift.push_back(outBits);
    outBits += llvm::Log2_64(uint64_t(extent));
  }
  if (outBits > 63)
    return emitError() << what
                       << " describes a tile of more than 2^63 elements";
  size_t numInputs = 0;
  for (ArrayRef<int64_t> flat : inputs)
    for (size_t i = 0; i < flat.size(); i += rank) {
      uint64_t column = 0;
      for (unsigned d = 0; d < rank; ++d)
        column |= uint64_t(flat[i + d]) << shift[d];
      columns.push_back(column);
      ++numInputs;
    }
  unsigned gf2Rank = 0;
  for (unsigned bit = 0; bit < outBits; ++bit) {
    uint64_t mask = uint64_t(1) << bit;
    auto pivot = llvm::find_if(llvm::drop_begin(columns, gf2Rank),
                               [&](uint64_t c) { return c & mask; });
    if (pivot == columns.end())
      continue;
    std::iter_swap(columns.begin() + gf2Rank, pivot);
    for (size_t j = 0; j < columns.size(); ++j)
      if (j != gf2Rank && (columns[j] & mask))
        columns[j] ^= columns[gf2Rank];
    ++gf2Rank;
  }
  if (gf2Rank != outBits)
    return emitError() << what << " does not reach every element of the "
                       << formatShape(shape) << " tile";
  if (bijective && numInputs != outBits)
    return emitError() << what << " has " << numInputs
                       << " offset bits for a tile of 2^" << outBits
                       << " elements (a buffer holds each element once)";
  return success();
}

} // namespace

std::string mlir::tilegpu::formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, "x");
  return text;
}

//===----------------------------------------------------------------------===//
// DistributedLayoutAttr
//===----------------------------------------------------------------------===//

// #tilegpu.dist<register = [[0, 1]], lane = [...], warp = [...]>
Attribute DistributedLayoutAttr::parse(AsmParser &parser, Type) {
  std::optional<unsigned> rank;
  SmallVector<int64_t> registers, lanes, warps;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword("register") ||
      parser.parseEqual() || parseBases(parser, rank, registers) ||
      parser.parseComma() || parser.parseKeyword("lane") ||
      parser.parseEqual() || parseBases(parser, rank, lanes) ||
      parser.parseComma() || parser.parseKeyword("warp") ||
      parser.parseEqual() || parseBases(parser, rank, warps) ||
      parser.parseGreater())
    return {};
  if (!rank) {
    parser.emitError(loc) << "a layout needs the images of its 5 lane bits";
    return {};
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    *rank, registers, lanes, warps);
}

void DistributedLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<register = ";
  printBases(printer, getRank(), getRegisterBases());
  printer << ", lane = ";
  printBases(printer, getRank(), getLaneBases());
  printer << ", warp = ";
  printBases(printer, getRank(), getWarpBases());
  printer << ">";
}

LogicalResult
DistributedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              unsigned rank, ArrayRef<int64_t> registerBases,
                              ArrayRef<int64_t> laneBases,
                              ArrayRef<int64_t> warpBases) {
  if (rank == 0)
    return emitError() << "a register layout describes a tile of rank >= 1";
  if (laneBases.size() != 5 * rank)
    return emitError() << "a register layout gives the images of the 5 lane "
                          "bits of a warp, not "
                       << laneBases.size() / rank;
  if (warpBases.size() / rank > 5)
    return emitError() << "a CTA has at most 32 warps, not 2^"
                       << warpBases.size() / rank;
  return success();
}

LogicalResult DistributedLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return emitError() << "a tile with a register layout has a static shape";
  return verifyCoverage(shape, getRank(),
                        {getRegisterBases(), getLaneBases(), getWarpBases()},
                        /*bijective=*/false, "the register layout", emitError);
}

DistributedLayoutAttr DistributedLayoutAttr::get(MLIRContext *context,
                                                 const LinearLayout &layout) {
  SmallVector<int64_t> registers, lanes, warps;
  flatten(layout, kRegister, registers);
  flatten(layout, kLane, lanes);
  flatten(layout, kWarp, warps);
  return get(context, layout.getOutDims().size(), registers, lanes, warps);
}

LinearLayout
DistributedLayoutAttr::getLinearLayout(ArrayRef<int64_t> shape) const {
  unsigned rank = getRank();
  return LinearLayout(
      {{std::string(kRegister), unflatten(getRegisterBases(), rank)},
       {std::string(kLane), unflatten(getLaneBases(), rank)},
       {std::string(kWarp), unflatten(getWarpBases(), rank)}},
      outDimsOf(shape));
}

//===----------------------------------------------------------------------===//
// SharedLayoutAttr
//===----------------------------------------------------------------------===//

// #tilegpu.shared<offset = [[0, 1], ...]>
Attribute SharedLayoutAttr::parse(AsmParser &parser, Type) {
  std::optional<unsigned> rank;
  SmallVector<int64_t> offsets;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword("offset") ||
      parser.parseEqual() || parseBases(parser, rank, offsets) ||
      parser.parseGreater())
    return {};
  if (!rank) {
    parser.emitError(loc) << "a shared layout needs at least one offset bit";
    return {};
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    *rank, offsets);
}

void SharedLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<offset = ";
  printBases(printer, getRank(), getOffsetBases());
  printer << ">";
}

LogicalResult
SharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         unsigned rank, ArrayRef<int64_t>) {
  if (rank == 0)
    return emitError() << "a shared layout describes a tile of rank >= 1";
  return success();
}

LogicalResult SharedLayoutAttr::verifyTile(
    ArrayRef<int64_t> shape,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyCoverage(shape, getRank(), {getOffsetBases()},
                        /*bijective=*/true, "the shared layout", emitError);
}

SharedLayoutAttr SharedLayoutAttr::get(MLIRContext *context,
                                       const LinearLayout &layout) {
  SmallVector<int64_t> offsets;
  flatten(layout, kOffset, offsets);
  return get(context, layout.getOutDims().size(), offsets);
}

LinearLayout SharedLayoutAttr::getLinearLayout(ArrayRef<int64_t> shape) const {
  return LinearLayout(
      {{std::string(kOffset), unflatten(getOffsetBases(), getRank())}},
      outDimsOf(shape));
}

//===----------------------------------------------------------------------===//
// SmemType
//===----------------------------------------------------------------------===//

// !tilegpu.smem<3x64x64xbf16, #tilegpu.shared<...>, mutable>
Type SmemType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  SharedLayoutAttr layout;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseAttribute(layout))
    return {};
  bool isMutable = succeeded(parser.parseOptionalComma());
  if (isMutable && parser.parseKeyword("mutable"))
    return {};
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    shape, elementType, layout, isMutable);
}

void SmemType::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printDimensionList(getShape());
  printer << "x" << getElementType() << ", " << getLayout();
  if (getIsMutable())
    printer << ", mutable";
  printer << ">";
}

LogicalResult SmemType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               SharedLayoutAttr layout, bool) {
  if (!elementType.isIntOrFloat() || isa<IndexType>(elementType))
    return emitError() << "a shared buffer holds integers or floats, not "
                       << elementType;
  if (llvm::any_of(shape, [](int64_t extent) { return extent <= 0; }))
    return emitError() << "shared buffer extents must be positive";
  unsigned rank = layout.getRank();
  if (shape.size() != rank && shape.size() != rank + 1)
    return emitError() << "a shared layout of rank " << rank
                       << " describes a buffer of rank " << rank << ", or "
                       << rank + 1 << " with a leading stage dimension; not "
                       << shape.size();
  return layout.verifyTile(shape.drop_front(shape.size() - rank), emitError);
}
