//===- TileShapesTest.cpp - symbolic tile shapes ----------------*- C++ -*-===//
//
// The helpers behind the verifiers' shape checks: TileDim comparisons,
// getTileDims, formatTileShape, getStaticElementCount, and #tile.dims itself.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tile;

namespace {

class TileShapesTest : public ::testing::Test {
protected:
  TileShapesTest() { context.loadDialect<TileDialect>(); }

  TileDim number(int64_t size) { return TileDim{size, {}}; }
  TileDim param(StringRef name) {
    return TileDim{ShapedType::kDynamic, StringAttr::get(&context, name)};
  }
  TileDim unknown() { return TileDim{}; }

  /// A tile type written as in a kernel, e.g. "tensor<?x32xf32,
  /// #tile.dims<[CHUNK, 32]>>".
  RankedTensorType tile(StringRef text) {
    return cast<RankedTensorType>(parseType(text, &context));
  }

  MLIRContext context;
};

TEST_F(TileShapesTest, NumbersAreEqualWhenTheyAre) {
  EXPECT_TRUE(number(64).mayEqual(number(64)));
  EXPECT_TRUE(number(64).knownEqual(number(64)));
  EXPECT_FALSE(number(64).mayEqual(number(32)));
  EXPECT_FALSE(number(64).knownEqual(number(32)));
}

TEST_F(TileShapesTest, AParameterMayEqualAnyNumber) {
  EXPECT_TRUE(param("CHUNK").mayEqual(number(64)));
  EXPECT_TRUE(number(1).mayEqual(param("CHUNK")));
  EXPECT_FALSE(param("CHUNK").knownEqual(number(64)));
  EXPECT_FALSE(number(64).knownEqual(param("CHUNK")));
}

TEST_F(TileShapesTest, ParametersAreEqualOnlyToThemselves) {
  EXPECT_TRUE(param("CHUNK").mayEqual(param("CHUNK")));
  EXPECT_TRUE(param("CHUNK").knownEqual(param("CHUNK")));
  // Kernels must not rely on two parameters being bound to one value.
  EXPECT_FALSE(param("M").mayEqual(param("N")));
  EXPECT_FALSE(param("M").knownEqual(param("N")));
}

TEST_F(TileShapesTest, AnUnnamedExtentIsNeverKnown) {
  EXPECT_TRUE(unknown().mayEqual(number(64)));
  EXPECT_TRUE(number(64).mayEqual(unknown()));
  EXPECT_TRUE(unknown().mayEqual(param("CHUNK")));
  EXPECT_TRUE(unknown().mayEqual(unknown()));
  EXPECT_FALSE(unknown().knownEqual(unknown()));
  EXPECT_FALSE(unknown().knownEqual(number(64)));
  EXPECT_FALSE(param("CHUNK").knownEqual(unknown()));
}

TEST_F(TileShapesTest, DimsPrintAsWritten) {
  EXPECT_EQ(number(64).str(), "64");
  EXPECT_EQ(param("CHUNK").str(), "CHUNK");
  EXPECT_EQ(unknown().str(), "?");
  EXPECT_TRUE(number(64).isStatic());
  EXPECT_TRUE(unknown().isStatic());
  EXPECT_FALSE(param("CHUNK").isStatic());
}

TEST_F(TileShapesTest, StaticTileHasNumbers) {
  SmallVector<TileDim> dims = getTileDims(tile("tensor<64x32xf32>"));
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_TRUE(dims[0].knownEqual(number(64)));
  EXPECT_TRUE(dims[1].knownEqual(number(32)));
}

TEST_F(TileShapesTest, DimsEncodingNamesParameters) {
  SmallVector<TileDim> dims =
      getTileDims(tile("tensor<?x32x?xbf16, #tile.dims<[CHUNK, 32, P]>>"));
  ASSERT_EQ(dims.size(), 3u);
  EXPECT_TRUE(dims[0].knownEqual(param("CHUNK")));
  EXPECT_TRUE(dims[1].knownEqual(number(32)));
  EXPECT_TRUE(dims[1].isStatic());
  EXPECT_TRUE(dims[2].knownEqual(param("P")));
}

TEST_F(TileShapesTest, DynamicExtentWithoutEncodingIsUnnamed) {
  SmallVector<TileDim> dims = getTileDims(tile("tensor<?x8xf32>"));
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_TRUE(dims[0].isStatic());
  EXPECT_TRUE(ShapedType::isDynamic(dims[0].size));
  EXPECT_EQ(dims[0].str(), "?");
}

TEST_F(TileShapesTest, OtherEncodingsNameNothing) {
  auto type = RankedTensorType::get({ShapedType::kDynamic, 4},
                                    Float32Type::get(&context),
                                    StringAttr::get(&context, "layout"));
  SmallVector<TileDim> dims = getTileDims(type);
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_TRUE(dims[0].isStatic());
  EXPECT_EQ(formatTileShape(type), "?x4");
}

TEST_F(TileShapesTest, FormatTileShape) {
  EXPECT_EQ(formatTileShape(tile("tensor<64x32xf32>")), "64x32");
  EXPECT_EQ(formatTileShape(tile("tensor<?x32xf32, #tile.dims<[CHUNK, 32]>>")),
            "CHUNKx32");
  EXPECT_EQ(formatTileShape(tile("tensor<?x?xf32, #tile.dims<[M, N]>>")),
            "MxN");
  EXPECT_EQ(formatTileShape(tile("tensor<128xi32>")), "128");
  EXPECT_EQ(formatTileShape(tile("tensor<f32>")), "scalar");
}

TEST_F(TileShapesTest, StaticElementCount) {
  EXPECT_EQ(getStaticElementCount(tile("tensor<64x32xf32>")), 2048);
  EXPECT_EQ(getStaticElementCount(tile("tensor<f32>")), 1);
  EXPECT_EQ(getStaticElementCount(tile("tensor<0x8xf32>")), 0);
  EXPECT_EQ(getStaticElementCount(
                tile("tensor<?x32xf32, #tile.dims<[CHUNK, 32]>>")),
            std::nullopt);
  EXPECT_EQ(getStaticElementCount(tile("tensor<?xf32>")), std::nullopt);
}

TEST_F(TileShapesTest, DimsAttrRoundTrips) {
  Attribute attr =
      parseAttribute("#tile.dims<[CHUNK, 64, \"two words\"]>", &context);
  auto dims = dyn_cast_or_null<DimsAttr>(attr);
  ASSERT_TRUE(dims);
  EXPECT_EQ(dims.getSymbol(0).getValue(), "CHUNK");
  EXPECT_FALSE(dims.getSymbol(1));
  EXPECT_EQ(dims.getSymbol(2).getValue(), "two words");
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  EXPECT_EQ(text, "#tile.dims<[CHUNK, 64, \"two words\"]>");
}

// Only a number or a name can come from the parser; a DimsAttr built in C++
// with anything else is rejected by the tensor type's verifier.
TEST_F(TileShapesTest, DimsEntriesAreNumbersOrNames) {
  Builder b(&context);
  auto dims = DimsAttr::get(&context, b.getArrayAttr({b.getF32FloatAttr(1)}));
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&context)); };
  EXPECT_TRUE(failed(dims.verifyEncoding({1}, b.getF32Type(), emitError)));
  EXPECT_EQ(message, "#tile.dims entries are numbers or parameter names");
}

TEST_F(TileShapesTest, DimsEncodingAcceptsMatchingShapes) {
  Builder b(&context);
  auto dims = DimsAttr::get(&context, b.getArrayAttr({b.getStringAttr("CHUNK"),
                                                      b.getI64IntegerAttr(8)}));
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&context)); };
  EXPECT_TRUE(succeeded(dims.verifyEncoding({ShapedType::kDynamic, 8},
                                            b.getF32Type(), emitError)));
}

} // namespace
