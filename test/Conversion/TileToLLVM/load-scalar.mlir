// RUN: tile-opt %s --split-input-file --convert-tile-to-llvm | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-to-llvm="codegen=layouts" | FileCheck %s --check-prefix=LAYOUTS

// tile.load_scalar: one unsigned bound check per view dimension (a negative
// index is a large unsigned one), the i64 offset sum(index_d * stride_d),
// and the load inside an scf.if whose else yields the padding. Every thread
// runs the same code: no thread id takes part. The layouts generator uses
// the same pattern.
// CHECK-LABEL: llvm.func @scalar_2d(
// CHECK-SAME: %[[PTR:arg[0-9]+]]: !llvm.ptr<1>, %[[SIZE0:arg[0-9]+]]: i64, %[[SIZE1:arg[0-9]+]]: i64, %[[STRIDE0:arg[0-9]+]]: i64, %[[STRIDE1:arg[0-9]+]]: i64, %[[I:arg[0-9]+]]: i64, %[[J:arg[0-9]+]]: i64
// CHECK-NOT: nvvm.read.ptx.sreg.tid
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[I]], %[[SIZE0]] : i64
// CHECK: %[[OFF0:.*]] = arith.muli %[[I]], %[[STRIDE0]] : i64
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %[[J]], %[[SIZE1]] : i64
// CHECK: %[[IN:.*]] = arith.andi %[[IN0]], %[[IN1]] : i1
// CHECK: %[[OFF1:.*]] = arith.muli %[[J]], %[[STRIDE1]] : i64
// CHECK: %[[OFF:.*]] = arith.addi %[[OFF0]], %[[OFF1]] : i64
// CHECK: %[[P:.*]] = llvm.getelementptr %[[PTR]][%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: %[[PAD:.*]] = llvm.mlir.constant(0x7FC00000 : f32) : f32
// CHECK: %[[V:.*]] = scf.if %[[IN]] -> (f32) {
// CHECK:   %[[L:.*]] = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK:   scf.yield %[[L]] : f32
// CHECK: } else {
// CHECK:   scf.yield %[[PAD]] : f32
// CHECK: }
// LAYOUTS-LABEL: llvm.func @scalar_2d(
// LAYOUTS-SAME: %[[PTR:arg[0-9]+]]: !llvm.ptr<1>, %[[SIZE0:arg[0-9]+]]: i64, %[[SIZE1:arg[0-9]+]]: i64, %[[STRIDE0:arg[0-9]+]]: i64, %[[STRIDE1:arg[0-9]+]]: i64, %[[I:arg[0-9]+]]: i64, %[[J:arg[0-9]+]]: i64
// LAYOUTS: %[[PAD:.*]] = llvm.mlir.constant(0x7FC00000 : f32) : f32
// LAYOUTS-NOT: nvvm.read.ptx.sreg.tid
// LAYOUTS: %[[IN0:.*]] = llvm.icmp "ult" %[[I]], %[[SIZE0]] : i64
// LAYOUTS: %[[IN1:.*]] = llvm.icmp "ult" %[[J]], %[[SIZE1]] : i64
// LAYOUTS: %[[IN:.*]] = llvm.and %[[IN0]], %[[IN1]] : i1
// LAYOUTS: %[[P:.*]] = llvm.getelementptr %[[PTR]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// LAYOUTS: llvm.cond_br %[[IN]], ^[[LOAD:.*]], ^[[PADDED:.*]]
// LAYOUTS: ^[[LOAD]]:
// LAYOUTS: llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// LAYOUTS: ^[[PADDED]]:
// LAYOUTS: llvm.br ^{{.*}}(%[[PAD]] : f32)
tile.kernel @scalar_2d(%v: !tile.view<2, f32>, %i: index, %j: index,
                       %out: !tile.view<1, f32>) {
  %s = tile.load_scalar %v[%i, %j] padding = nan : !tile.view<2, f32> -> f32
  %t = tile.full %s : tensor<32xf32>
  %c0 = arith.constant 0 : index
  tile.store %t, %out[%c0] : tensor<32xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// A device-resident index: the i64 read, cast to index, is a tile index of
// another view and the bound of a loop. A literal index is an i64
// constant; an integer view pads with zero.
// CHECK-LABEL: llvm.func @scalar_index(
// CHECK: %[[C3:.*]] = arith.constant 3 : i64
// CHECK: arith.cmpi ult, %[[C3]], %{{.*}} : i64
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: %[[ROW:.*]] = scf.if %{{.*}} -> (i64) {
// CHECK:   llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> i64
// CHECK: } else {
// CHECK:   scf.yield %[[ZERO]] : i64
// CHECK: }
// CHECK: %[[IDX:.*]] = arith.index_cast %[[ROW]] : i64 to index
// CHECK: %[[ROW64:.*]] = builtin.unrealized_conversion_cast %[[IDX]] : index to i64
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[IDX]]
// CHECK: arith.muli %[[ROW64]], %{{.*}} : i64
// LAYOUTS-LABEL: llvm.func @scalar_index(
// LAYOUTS: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> i64
tile.kernel @scalar_index(%idx: !tile.view<1, i64>, %x: !tile.view<1, bf16>,
                          %y: !tile.view<1, bf16>) {
  %r = tile.load_scalar %idx[3] : !tile.view<1, i64> -> i64
  %row = arith.index_cast %r : i64 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %row step %c1 {
    %t = tile.load %x[%row] : !tile.view<1, bf16> -> tensor<64xbf16>
    tile.store %t, %y[%k] : tensor<64xbf16>, !tile.view<1, bf16>
  }
  tile.return
}
