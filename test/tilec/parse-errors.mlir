// RUN: not tilec %s 2>&1 | FileCheck %s

// A syntax error is reported at its file, line and column, and tilec exits
// with a non-zero status without writing IR.

// CHECK: parse-errors.mlir:[[@LINE+3]]:22: error: custom op 'tile.block_id' expected string or keyword containing one of the following enum values for attribute 'axis' [x, y, z]
// CHECK-NOT: tile.kernel
tile.kernel @bad() {
  %x = tile.block_id w
  tile.return
}
