// RUN: split-file %s %t
// RUN: tile-opt %t/tf32.mlir --convert-tile-to-llvm | FileCheck %s --check-prefix=TF32
// RUN: tilec %t/tf32.mlir --emit=ptx --target=sm_80 -o - | FileCheck %s --check-prefix=TF32-PTX
// RUN: tile-opt %t/index.mlir --convert-tile-to-llvm | FileCheck %s --check-prefix=INDEX

// s04: arith.mulf on tf32 tiles was an f32 product, not rounded to tf32 as
// docs/semantics.md says. Now the product is rounded to nearest even at
// bit 13 (add 0xfff plus the lowest kept bit, clear 13 bits); NaN is
// quieted instead.
// TF32-LABEL: llvm.func @k(
// TF32: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<1xf32>
// TF32: %[[BITS:.*]] = llvm.bitcast %[[P]] : vector<1xf32> to vector<1xi32>
// TF32: llvm.lshr %[[BITS]], %{{.*}} : vector<1xi32>
// TF32: %[[MASK:.*]] = llvm.mlir.constant(dense<-8192> : vector<1xi32>) : vector<1xi32>
// TF32: %[[SUM:.*]] = llvm.add %[[BITS]], %{{.*}} : vector<1xi32>
// TF32: %[[ROUNDED:.*]] = llvm.and %[[SUM]], %[[MASK]] : vector<1xi32>
// TF32: %[[NAN:.*]] = llvm.fcmp "uno" %[[P]], %[[P]] : vector<1xf32>
// TF32: %[[R:.*]] = llvm.select %[[NAN]], %{{.*}}, %[[ROUNDED]] : vector<1xi1>, vector<1xi32>
// TF32: llvm.bitcast %[[R]] : vector<1xi32> to vector<1xf32>
// TF32-PTX-LABEL: .entry k(
// TF32-PTX: cvt.rna.tf32.f32
// TF32-PTX: mul.rn.f32
// TF32-PTX: and.b32 {{.*}}, -8192;

// s05: the origin of a tile, tile index x extent, was computed in wrapping
// i64: a store at tile index 2^62 with extent 4 wrote elements 0..3. Now the
// tile index must be below ceil(size / extent) before any element is
// accessed (negative indices, huge as unsigned, fail it too).
// INDEX-LABEL: llvm.func @k(
// INDEX-SAME: %[[PTR:arg[0-9]+]]: !llvm.ptr<1>, %[[SIZE:arg[0-9]+]]: i64, %[[STRIDE:arg[0-9]+]]: i64, %[[S:arg[0-9]+]]: f32, %[[I:arg[0-9]+]]: i64)
// INDEX: %[[ORIGIN:.*]] = arith.muli %[[I]], %c4_i64 : i64
// INDEX: %[[UP:.*]] = arith.addi %[[SIZE]], %c3_i64 : i64
// INDEX: %[[TILES:.*]] = arith.divui %[[UP]], %{{.*}} : i64
// INDEX: %[[TIN:.*]] = arith.cmpi ult, %[[I]], %[[TILES]] : i64
// Four elements over 128 threads: threads 4..127 hold none.
// INDEX: %[[HOLDS:.*]] = arith.cmpi ult, %{{.*}}, %c4_i32 : i32
// INDEX: %[[VALID:.*]] = arith.andi %[[HOLDS]], %[[TIN]] : i1
// INDEX: %[[E:.*]] = arith.addi %[[ORIGIN]], %{{.*}} : i64
// INDEX: %[[EIN:.*]] = arith.cmpi ult, %[[E]], %[[SIZE]] : i64
// INDEX: %[[IN:.*]] = arith.andi %[[VALID]], %[[EIN]] : i1
// INDEX: scf.if %[[IN]] {
// INDEX:   llvm.store

//--- tf32.mlir
// semantics.md: "On tf32 values, arithmetic rounds to nearest even to tf32"
tile.kernel @k(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>) {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> tensor<128xf32>
  %a = tile.convert %t : tensor<128xf32> -> tensor<128xtf32>
  %s = arith.mulf %a, %a : tensor<128xtf32>
  %r = tile.convert %s : tensor<128xtf32> -> tensor<128xf32>
  tile.store %r, %y[%i] : tensor<128xf32>, !tile.view<1, f32>
  tile.return
}

//--- index.mlir
// tile index 2^62 * extent 4 wraps to 0 in i64: semantics say out of the view
tile.kernel @k(%y: !tile.view<1, f32>, %s: f32, %i: index) {
  %t = tile.full %s : tensor<4xf32>
  tile.store %t, %y[%i] : tensor<4xf32>, !tile.view<1, f32>
  tile.return
}
