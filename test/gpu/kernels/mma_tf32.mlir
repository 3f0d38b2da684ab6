// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt.
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cubin --target=sm_90 -o %t.sm90.cubin
// RUN: tilec %s --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry mma_tf32(
// CHECK-DAG: cvt.rna.tf32.f32
// CHECK-DAG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-DAG: st.global.b32

// c += tf32(a) @ tf32(b), 20x12 by 12x6: padded to the instruction shape.
tile.kernel @mma_tf32(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>,
                      %c: !tile.view<2, f32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<20x12xf32>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<12x6xf32>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<20x6xf32>
  %xa = tile.convert %ta : tensor<20x12xf32> -> tensor<20x12xtf32>
  %xb = tile.convert %tb : tensor<12x6xf32> -> tensor<12x6xtf32>
  %d = tile.mma %xa, %xb, %tc : tensor<20x12xtf32>, tensor<12x6xtf32>, tensor<20x6xf32>
  tile.store %d, %c[%c0, %c0] : tensor<20x6xf32>, !tile.view<2, f32>
  tile.return
}
