// scripts/count-kernel-ops counts what issue 8's kernel-size targets count:
// every op nested in a kernel (terminators included, an op with several
// results once, nothing expanded) and the body's lines that are not blank or
// comments; --check fails on a kernel over its target.
// RUN: python3 %tilec_src/scripts/count-kernel-ops tile-opt %s | FileCheck %s
// RUN: not python3 %tilec_src/scripts/count-kernel-ops tile-opt %s --check | FileCheck %s --check-prefix=MISSED

// CHECK: kernel ops target lines target
// CHECK-NEXT: small 9 - 11 -
// MISSED: chunk_cumsum 17 - 17 15 MISSED
tile.kernel @small<BLOCK = 64>(%x: !tile.view<1, f32>,
                               %n: index) warps 4 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i, %j = tile.block_id x, y
  %t = tile.load %x[%i]
      : !tile.view<1, f32> -> !tile.tile<BLOCK x f32>
  %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %t) -> !tile.tile<BLOCK x f32> {
    %e = tile.exp2 %acc : !tile.tile<BLOCK x f32>
    scf.yield %e : !tile.tile<BLOCK x f32>
  }
  tile.store %s, %x[%j] : !tile.tile<BLOCK x f32>, !tile.view<1, f32>
  tile.return
}

// Over the 15 body lines that issue 8 allows this kernel.
tile.kernel @chunk_cumsum(%x: !tile.view<1, f32>) {
  %i = tile.block_id x
  %t0 = tile.load %x[%i] : !tile.view<1, f32> -> !tile.tile<64 x f32>
  %t1 = tile.exp2 %t0 : !tile.tile<64 x f32>
  %t2 = tile.exp2 %t1 : !tile.tile<64 x f32>
  %t3 = tile.exp2 %t2 : !tile.tile<64 x f32>
  %t4 = tile.exp2 %t3 : !tile.tile<64 x f32>
  %t5 = tile.exp2 %t4 : !tile.tile<64 x f32>
  %t6 = tile.exp2 %t5 : !tile.tile<64 x f32>
  %t7 = tile.exp2 %t6 : !tile.tile<64 x f32>
  %t8 = tile.exp2 %t7 : !tile.tile<64 x f32>
  %t9 = tile.exp2 %t8 : !tile.tile<64 x f32>
  %t10 = tile.exp2 %t9 : !tile.tile<64 x f32>
  %t11 = tile.exp2 %t10 : !tile.tile<64 x f32>
  %t12 = tile.exp2 %t11 : !tile.tile<64 x f32>
  %t13 = tile.exp2 %t12 : !tile.tile<64 x f32>
  tile.store %t13, %x[%i] : !tile.tile<64 x f32>, !tile.view<1, f32>
  tile.return
}
