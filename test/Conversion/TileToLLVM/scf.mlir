// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s

// Tiles carried by scf.for and yielded by scf.if become per-thread vectors.
// CHECK-LABEL: llvm.func @loop(
// CHECK-SAME: %[[N:arg3]]: i64, %[[FLAG:arg4]]: i1)
// CHECK: %[[INIT:.*]] = scf.if %[[FLAG]] -> (vector<2xf32>) {
// CHECK:   scf.yield %{{.*}} : vector<2xf32>
// CHECK: } else {
// CHECK:   %[[Z:.*]] = llvm.shufflevector %{{.*}} [0, 0] : vector<2xf32>
// CHECK:   scf.yield %[[Z]] : vector<2xf32>
// CHECK: }
// The induction variable indexes tiles as i64.
// CHECK: %[[SUM:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<2xf32>)  : i64 {
// CHECK:   arith.muli %[[I]], %c128_i64{{.*}} : i64
// CHECK:   %[[T:.*]] = llvm.insertelement %{{.*}}[%c1_i32{{.*}} : i32] : vector<2xf32>
// CHECK:   %[[S:.*]] = arith.addf %[[ACC]], %[[T]] : vector<2xf32>
// CHECK:   scf.yield %[[S]] : vector<2xf32>
// CHECK: }
// CHECK: llvm.extractelement %[[SUM]]
tile.kernel @loop(%v: !tile.view<1, f32>, %n: index, %flag: i1)
    attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %init = scf.if %flag -> tensor<128xf32> {
    %t = tile.load %v[%c0] : !tile.view<1, f32> -> tensor<128xf32>
    scf.yield %t : tensor<128xf32>
  } else {
    %z = tile.full %zero : tensor<128xf32>
    scf.yield %z : tensor<128xf32>
  }
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<128xf32> {
    %t = tile.load %v[%i] : !tile.view<1, f32> -> tensor<128xf32>
    %s = arith.addf %acc, %t : tensor<128xf32>
    scf.yield %s : tensor<128xf32>
  }
  tile.store %sum, %v[%c0] : tensor<128xf32>, !tile.view<1, f32>
  tile.return
}
