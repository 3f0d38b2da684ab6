// A use that names a huge result number: MLIR's parser allocates a slot per
// result number up to it (32 GiB here) before any verifier runs. Found by
// tilec-fuzz-lower; tilec and tile-opt reject it before parsing.
// RUN: not tilec %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not tile-opt %s 2>&1 | FileCheck %s

// CHECK: result-number.mlir:[[@LINE+6]]:24: error: result number 2147483648 is past the largest a use may name (4096)
tile.kernel @k(%v: !tile.view<1, f32>) {
  %c0 = arith.constant 0 : index
  %r:2 = scf.for %i = %c0 to %c0 step %c0 iter_args(%a = %c0, %b = %c0) -> (index, index) {
    scf.yield %a, %b : index, index
  }
  %unused = arith.addi %r#2147483648, %c0 : index
  tile.return
}
