// A dense array of `index` elements: MLIR 22's parser asks index for a bit
// width and crashes (mlir-opt too). Found by tilec-fuzz-lower in the
// generic form of tile.linearize; tilec and tile-opt reject it, and an
// alias that may stand for index, before parsing.
// (split-file restarts the line numbers in each part.)
// RUN: split-file %s %t
// RUN: not tilec %t/index.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: not tile-opt %t/index.mlir 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: not tilec %t/comment.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMMENT
// RUN: not tilec %t/alias.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALIAS
// RUN: tile-opt %t/integer.mlir | FileCheck %s --check-prefix=INTEGER

//--- index.mlir
// INDEX: index.mlir:3:53: error: a dense array's element type must be written as an integer or float type (i64, f32, ...), not index or a type alias
tile.kernel @linearize(%x: index) {
  %a = "tile.linearize"(%x) <{operandSegmentSizes = array<index: 1, 0>}> : (index) -> index
  tile.return
}

//--- comment.mlir
// COMMENT: comment.mlir:2:18: error: a dense array's element type
"test.op"() {a = array< // the type follows
  index: 1>} : () -> ()

//--- alias.mlir
!i = index
// ALIAS: alias.mlir:3:18: error: a dense array's element type
"test.op"() {a = array<!i: 1>} : () -> ()

//--- integer.mlir
// Integer arrays, and names that only contain `array`, still parse.
// INTEGER-LABEL: tile.kernel @linearize
// INTEGER: linearize %arg0, %arg1 by %arg1
tile.kernel @linearize(%x: index, %y: index) {
  %array = "tile.linearize"(%x, %y, %y) <{operandSegmentSizes = array<i32: 2, 1>}> : (index, index, index) -> index
  tile.return
}
