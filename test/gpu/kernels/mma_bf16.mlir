// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt.
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cubin --target=sm_90 -o %t.sm90.cubin
// RUN: tilec %s --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry mma_bf16(
// CHECK-DAG: ld.global.b16
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-DAG: st.global.b32

// c += a @ b, bf16, 64x32 by 32x48 on 4 warps (several tiles per warp).
tile.kernel @mma_bf16(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                      %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<64x32xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x48xbf16>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<64x48xf32>
  %d = tile.mma %ta, %tb, %tc : tensor<64x32xbf16>, tensor<32x48xbf16>, tensor<64x48xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x48xf32>, !tile.view<2, f32>
  tile.return
}
