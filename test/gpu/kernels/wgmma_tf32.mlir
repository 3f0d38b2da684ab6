// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt (the sm_90a image of the layouts path: wgmma with tf32
// operands, B stored K-major).
// RUN: tilec %s --codegen=layouts --emit=ptx --target=sm_90a -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: tilec %s --codegen=layouts --emit=cubin --target=sm_90a -o %t.cubin
// CHECK-LABEL: .entry wgmma_tf32(
// CHECK-DAG: cvt.rna.tf32.f32
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK-NOT: mma.sync.aligned

// c += tf32(a) @ tf32(b), 100x40 by 40x70 on one warpgroup: padded to
// 128 x 64 by 64 x 128, two 64-row blocks of m64n128k8, eight k-steps.
tile.kernel @wgmma_tf32(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>,
                        %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<100x40xf32>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<40x70xf32>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<100x70xf32>
  %xa = tile.convert %ta : tensor<100x40xf32> -> tensor<100x40xtf32>
  %xb = tile.convert %tb : tensor<40x70xf32> -> tensor<40x70xtf32>
  %d = tile.mma %xa, %xb, %tc : tensor<100x40xtf32>, tensor<40x70xtf32>, tensor<100x70xf32>
  tile.store %d, %c[%c0, %c0] : tensor<100x70xf32>, !tile.view<2, f32>
  tile.return
}
