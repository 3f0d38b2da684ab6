// RUN: tile-opt %s --tile-bind-params="params=BLOCK=256" --convert-tile-to-llvm | FileCheck %s

// The kernel ABI (Pipeline.h): view -> ptr<1>, sizes, strides; scalars as is.
// CHECK-LABEL: llvm.func @scale(
// CHECK-SAME: %[[X:arg[0-9]+]]: !llvm.ptr<1>, %[[XSIZE:arg[0-9]+]]: i64, %[[XSTRIDE:arg[0-9]+]]: i64,
// CHECK-SAME: %[[Y:arg[0-9]+]]: !llvm.ptr<1>, %[[YSIZE:arg[0-9]+]]: i64, %[[YSTRIDE:arg[0-9]+]]: i64,
// CHECK-SAME: %[[S:arg[0-9]+]]: f32)
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 128, 1, 1>
// CHECK-SAME: tile.num_warps = 4 : i32
// CHECK-SAME: tile.shared_bytes = 0 : i64
//
// 256 elements over 128 threads: two registers per thread.
// CHECK: %[[BID:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK: %[[BID64:.*]] = arith.extui %[[BID]] : i32 to i64
// CHECK: %[[ORIGIN:.*]] = arith.muli %[[BID64]], %{{.*}} : i64
// CHECK: %[[TILES:.*]] = arith.divui %{{.*}}, %{{.*}} : i64
// CHECK: %[[TIN:.*]] = arith.cmpi ult, %[[BID64]], %[[TILES]] : i64
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: %[[I0:.*]] = arith.addi %[[ORIGIN]], %{{.*}} : i64
// CHECK: %[[EIN0:.*]] = arith.cmpi ult, %[[I0]], %[[XSIZE]] : i64
// CHECK: %[[IN0:.*]] = arith.andi %[[TIN]], %[[EIN0]] : i1
// CHECK: %[[OFF0:.*]] = arith.muli %[[I0]], %[[XSTRIDE]] : i64
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[X]][%[[OFF0]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: scf.if %[[IN0]] -> (f32) {
// CHECK:   llvm.load %[[P0]] {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: } else {
// CHECK:   scf.yield %{{.*}} : f32
// CHECK: llvm.insertelement {{.*}} : vector<2xf32>
// CHECK: scf.if
// CHECK: llvm.insertelement {{.*}} : vector<2xf32>
// CHECK: llvm.shufflevector {{.*}} [0, 0] : vector<2xf32>
// CHECK: arith.mulf {{.*}} : vector<2xf32>
// CHECK: arith.cmpi ult, %{{.*}}, %[[YSIZE]] : i64
// CHECK: llvm.getelementptr %[[Y]]
// CHECK: scf.if
// CHECK:   llvm.store {{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK: scf.if
// CHECK:   llvm.store
// CHECK: llvm.return

!Block = tensor<?xf32, #tile.dims<[BLOCK]>>

tile.kernel @scale(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>, %s: f32)
    attributes {num_warps = 4 : i32, params = {BLOCK = 128 : i64}} {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> !Block
  %f = tile.full %s : !Block
  %r = arith.mulf %t, %f : !Block
  tile.store %r, %y[%i] : !Block, !tile.view<1, f32>
  tile.return
}
