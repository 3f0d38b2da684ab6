// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt.
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cubin --target=sm_90 -o %t.sm90.cubin
// RUN: tilec %s --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry mma_f32(
// CHECK-DAG: ld.global.b32
// CHECK-DAG: fma.rn.f32
// CHECK-DAG: st.global.b32

// c += a @ b in f32, 8x5 by 5x8.
tile.kernel @mma_f32(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>,
                     %c: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<8x5xf32>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<5x8xf32>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<8x8xf32>
  %d = tile.mma %ta, %tb, %tc : tensor<8x5xf32>, tensor<5x8xf32>, tensor<8x8xf32>
  tile.store %d, %c[%c0, %c0] : tensor<8x8xf32>, !tile.view<2, f32>
  tile.return
}
