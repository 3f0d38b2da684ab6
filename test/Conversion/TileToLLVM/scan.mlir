// RUN: tile-opt %s --convert-tile-to-llvm --split-input-file | FileCheck %s

// cumsum: each element sums its column prefix from shared memory in order,
// in f32 for a bf16 tile.
// CHECK-LABEL: llvm.func @cumsum(
// CHECK-SAME: tile.shared_bytes = 128 : i64
// CHECK-COUNT-2: llvm.store %{{.*}} : bf16, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// Element (i, j) of register 0 (linear index tid) sums rows 0..i of column j.
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[I:.*]] = arith.divui %[[TID]], %{{.*}} : i32
// CHECK: %[[J:.*]] = arith.remui %[[TID]], %{{.*}} : i32
// CHECK: %[[BASE:.*]] = arith.addi %{{.*}}, %[[J]] : i32
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK: %[[END:.*]] = arith.addi %[[I]], %c1_i32{{.*}} : i32
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %c0_i32{{.*}} to %[[END]] step %c1_i32{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32)  : i32 {
// CHECK:   %[[KOFF:.*]] = arith.muli %[[K]], %c4_i32{{.*}} : i32
// CHECK:   %[[OFF:.*]] = arith.addi %[[BASE]], %[[KOFF]] : i32
// CHECK:   %[[P:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
// CHECK:   %[[X:.*]] = llvm.load %[[P]] {alignment = 2 : i64} : !llvm.ptr<3> -> bf16
// CHECK:   %[[XF:.*]] = llvm.fpext %[[X]] : bf16 to f32
// CHECK:   %[[NEXT:.*]] = llvm.fadd %[[ACC]], %[[XF]] : f32
// CHECK:   scf.yield %[[NEXT]] : f32
// CHECK: }
// CHECK: llvm.fptrunc %[[SUM]] : f32 to bf16
// CHECK: scf.for
// CHECK: nvvm.barrier0
tile.kernel @cumsum(%v: !tile.view<2, bf16>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %v[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x4xbf16>
  %s = tile.cumsum %t axis = 0 : tensor<16x4xbf16>
  tile.store %s, %v[%c0, %c0] : tensor<16x4xbf16>, !tile.view<2, bf16>
  tile.return
}

// -----

// reduce max: NaN-propagating llvm.intr.maximum from the first element.
// CHECK-LABEL: llvm.func @reduce_max(
// CHECK: nvvm.barrier0
// 8 results over 32 threads: threads 8..31 redo row 7 and store nothing.
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[ROW:.*]] = arith.minui %[[TID]], %c7_i32 : i32
// CHECK: %[[FIRST:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[MAX:.*]] = scf.for %{{.*}} = %c1_i32{{.*}} to %c16_i32{{.*}} step %c1_i32{{.*}} iter_args(%[[ACC:.*]] = %[[FIRST]]) -> (f32)  : i32 {
// CHECK:   %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:   %[[NEXT:.*]] = llvm.intr.maximum(%[[ACC]], %[[X]]) : (f32, f32) -> f32
// CHECK:   scf.yield %[[NEXT]] : f32
// CHECK: nvvm.barrier0
// CHECK: arith.cmpi ult, %{{.*}}, %c8_i32 : i32
// CHECK: scf.if
// CHECK:   llvm.store %{{.*}} : f32, !llvm.ptr<1>
tile.kernel @reduce_max(%v: !tile.view<2, f32>, %o: !tile.view<1, f32>)
    attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %v[%c0, %c0] : !tile.view<2, f32> -> tensor<8x16xf32>
  %m = tile.reduce max %t axis = 1 : tensor<8x16xf32> -> tensor<8xf32>
  tile.store %m, %o[%c0] : tensor<8xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// reduce sum of integers, to a rank-0 tile.
// CHECK-LABEL: llvm.func @reduce_sum(
// CHECK: nvvm.barrier0
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: scf.for %{{.*}} = %c0_i32{{.*}} to %c64_i32 step %c1_i32{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (i32)  : i32 {
// CHECK:   %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK:   llvm.add %[[ACC]], %[[X]] : i32
// CHECK: llvm.insertelement %{{.*}} : vector<1xi32>
// CHECK: nvvm.barrier0
tile.kernel @reduce_sum() attributes {num_warps = 1 : i32} {
  %i = tile.arange : tensor<64xi32>
  %s = tile.reduce sum %i axis = 0 : tensor<64xi32> -> tensor<i32>
  tile.return
}
