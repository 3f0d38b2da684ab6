// RUN: not tilec %s 2>&1 | FileCheck %s

// A file that parses but does not verify: the error points at the op.

// CHECK: parse-verifier-error.mlir:[[@LINE+5]]:8: error: 'tile.mma' op a is 64x16 and b is 32x32: a's columns (K = 16) must equal b's rows (K = 32)
tile.kernel @bad_mma(%h: bf16, %s: f32) {
  %a = tile.full %h : tensor<64x16xbf16>
  %b = tile.full %h : tensor<32x32xbf16>
  %c = tile.full %s : tensor<64x32xf32>
  %d = tile.mma %a, %b, %c : tensor<64x16xbf16>, tensor<32x32xbf16>, tensor<64x32xf32>
  tile.return
}
