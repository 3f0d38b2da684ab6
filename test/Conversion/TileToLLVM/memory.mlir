// RUN: tile-opt %s --convert-tile-to-llvm --split-input-file | FileCheck %s

// A 2-D load padded with -inf: origin = index * extent per view dimension,
// offsets and bounds checks in i64, the padding value when out of bounds.
// The tile index itself is checked against ceil(size / extent) first, so
// that index * extent cannot wrap (docs/codegen.md).
// CHECK-LABEL: llvm.func @load_padding(
// CHECK-SAME: %[[PTR:arg[0-9]+]]: !llvm.ptr<1>, %[[SIZE0:arg[0-9]+]]: i64, %[[SIZE1:arg[0-9]+]]: i64, %[[STRIDE0:arg[0-9]+]]: i64, %[[STRIDE1:arg[0-9]+]]: i64, %[[I:arg[0-9]+]]: i64, %[[J:arg[0-9]+]]: i64)
// CHECK: %[[ORIGIN0:.*]] = arith.muli %[[I]], %c4_i64 : i64
// CHECK: %[[UP0:.*]] = arith.addi %[[SIZE0]], %c3_i64 : i64
// CHECK: %[[TILES0:.*]] = arith.divui %[[UP0]], %{{.*}} : i64
// CHECK: %[[TIN0:.*]] = arith.cmpi ult, %[[I]], %[[TILES0]] : i64
// CHECK: %[[ORIGIN1:.*]] = arith.muli %[[J]], %c8_i64 : i64
// CHECK: %[[UP1:.*]] = arith.addi %[[SIZE1]], %c7_i64 : i64
// CHECK: %[[TILES1:.*]] = arith.divui %[[UP1]], %{{.*}} : i64
// CHECK: %[[TIN1:.*]] = arith.cmpi ult, %[[J]], %[[TILES1]] : i64
// CHECK: %[[TIN:.*]] = arith.andi %[[TIN0]], %[[TIN1]] : i1
// CHECK: %[[PAD:.*]] = llvm.mlir.constant(0xFF800000 : f32) : f32
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %{{.*}} : i32
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %{{.*}} : i32
// CHECK: %[[ROW64:.*]] = arith.extui %[[ROW]] : i32 to i64
// CHECK: %[[G0:.*]] = arith.addi %[[ORIGIN0]], %[[ROW64]] : i64
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[G0]], %[[SIZE0]] : i64
// CHECK: %[[INT0:.*]] = arith.andi %[[TIN]], %[[IN0]] : i1
// CHECK: %[[OFF0:.*]] = arith.muli %[[G0]], %[[STRIDE0]] : i64
// CHECK: %[[COL64:.*]] = arith.extui %[[COL]] : i32 to i64
// CHECK: %[[G1:.*]] = arith.addi %[[ORIGIN1]], %[[COL64]] : i64
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %[[G1]], %[[SIZE1]] : i64
// CHECK: %[[IN:.*]] = arith.andi %[[INT0]], %[[IN1]] : i1
// CHECK: %[[OFF1:.*]] = arith.muli %[[G1]], %[[STRIDE1]] : i64
// CHECK: %[[OFF:.*]] = arith.addi %[[OFF0]], %[[OFF1]] : i64
// CHECK: %[[P:.*]] = llvm.getelementptr %[[PTR]][%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: %[[V:.*]] = scf.if %[[IN]] -> (f32) {
// CHECK:   %[[L:.*]] = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK:   scf.yield %[[L]] : f32
// CHECK: } else {
// CHECK:   scf.yield %[[PAD]] : f32
// CHECK: }
// CHECK: llvm.insertelement %[[V]], %{{.*}} : vector<1xf32>
tile.kernel @load_padding(%v: !tile.view<2, f32>, %i: index, %j: index)
    attributes {num_warps = 1 : i32} {
  %t = tile.load %v[%i, %j] padding = neg_inf : !tile.view<2, f32> -> tensor<4x8xf32>
  tile.return
}

// -----

// order = [1, 0]: tile dimension 0 walks view dimension 1.
// CHECK-LABEL: llvm.func @load_order(
// CHECK-SAME: %[[PTR:arg[0-9]+]]: !llvm.ptr<1>, %[[SIZE0:arg[0-9]+]]: i64, %[[SIZE1:arg[0-9]+]]: i64, %[[STRIDE0:arg[0-9]+]]: i64, %[[STRIDE1:arg[0-9]+]]: i64, %[[I:arg[0-9]+]]: i64, %[[J:arg[0-9]+]]: i64)
// The tile covers 8 elements of view dimension 1 and 4 of view dimension 0.
// CHECK: %[[ORIGIN1:.*]] = arith.muli %[[J]], %c8_i64 : i64
// CHECK: %[[ORIGIN0:.*]] = arith.muli %[[I]], %c4_i64 : i64
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[C0:.*]] = arith.divui %[[TID]], %{{.*}} : i32
// CHECK: %[[C1:.*]] = arith.remui %[[TID]], %{{.*}} : i32
// CHECK: %[[C0X:.*]] = arith.extui %[[C0]] : i32 to i64
// CHECK: %[[G1:.*]] = arith.addi %[[ORIGIN1]], %[[C0X]] : i64
// CHECK: arith.cmpi ult, %[[G1]], %[[SIZE1]] : i64
// CHECK: arith.muli %[[G1]], %[[STRIDE1]] : i64
// CHECK: %[[C1X:.*]] = arith.extui %[[C1]] : i32 to i64
// CHECK: %[[G0:.*]] = arith.addi %[[ORIGIN0]], %[[C1X]] : i64
// CHECK: arith.cmpi ult, %[[G0]], %[[SIZE0]] : i64
// CHECK: arith.muli %[[G0]], %[[STRIDE0]] : i64
// CHECK: llvm.getelementptr %[[PTR]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
// CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> bf16
tile.kernel @load_order(%v: !tile.view<2, bf16>, %i: index, %j: index)
    attributes {num_warps = 1 : i32} {
  %t = tile.load %v[%i, %j] order = [1, 0] : !tile.view<2, bf16> -> tensor<8x4xbf16>
  tile.return
}

// -----

// A store skips elements outside the view and padding registers (48
// elements over 32 threads: the second register of threads 16..31).
// CHECK-LABEL: llvm.func @store_masked(
// CHECK-SAME: %[[PTR:arg[0-9]+]]: !llvm.ptr<1>, %[[SIZE0:arg[0-9]+]]: i64
// Register 0: every thread holds an element; only the bounds (of the tile
// index, then of the element) are checked.
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %{{.*}}, %[[SIZE0]] : i64
// CHECK: %[[INT:.*]] = arith.andi %{{.*}}, %[[IN0]] : i1
// CHECK: %[[IN:.*]] = arith.andi %[[INT]], %{{.*}} : i1
// CHECK: %[[V0:.*]] = llvm.extractelement %{{.*}}[%{{.*}} : i32] : vector<2xi32>
// CHECK: scf.if %[[IN]] {
// CHECK:   llvm.store %[[V0]], %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK: }
// Register 1: linear index tid + 32 must be below 48.
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[LIN:.*]] = arith.addi %[[TID]], %c32_i32{{.*}} : i32
// CHECK: %[[HOLDS:.*]] = arith.cmpi ult, %[[LIN]], %c48_i32 : i32
// CHECK: %[[B0:.*]] = arith.andi %[[HOLDS]], %{{.*}} : i1
// CHECK: %[[B1:.*]] = arith.andi %[[B0]], %{{.*}} : i1
// CHECK: %[[B2:.*]] = arith.andi %[[B1]], %{{.*}} : i1
// CHECK: %[[V1:.*]] = llvm.extractelement %{{.*}}[%{{.*}} : i32] : vector<2xi32>
// CHECK: scf.if %[[B2]] {
// CHECK:   llvm.store %[[V1]]
tile.kernel @store_masked(%v: !tile.view<2, i32>, %i: index)
    attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %z = arith.constant 7 : i32
  %t = tile.full %z : tensor<6x8xi32>
  tile.store %t, %v[%i, %c0] : tensor<6x8xi32>, !tile.view<2, i32>
  tile.return
}
