// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt.
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cubin --target=sm_90 -o %t.sm90.cubin
// RUN: tilec %s --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry narrow(
// CHECK-DAG: cvt.rn.bf16x2.f32
// CHECK-DAG: cvt.rn.f16x2.f32
// CHECK-DAG: cvt.rzi.s32.f32
// CHECK-DAG: st.shared.b8
// CHECK-DAG: ld.shared.b8
// CHECK-DAG: selp.f32
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-DAG: st.global.b32

// Narrow types: o[0] = f16(x) @ f16(x) (mma.sync f16), o[1] = bf16 cumsum
// along rows, o[2] = where(broadcast of row 2 of x > 0, x, -x) (an i1 tile
// through shared memory); r = bf16 sum down the columns; n = saturating
// f32 -> i32 of x * 1e10.
tile.kernel @narrow(%x: !tile.view<2, f32>, %o: !tile.view<3, f32>,
                    %r: !tile.view<1, f32>, %n: !tile.view<2, i32>)
    attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %big = arith.constant 1.0e10 : f32
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x16xf32>
  %h = tile.convert %t : tensor<16x16xf32> -> tensor<16x16xf16>
  %z = tile.full %zero : tensor<16x16xf32>
  %d = tile.mma %h, %h, %z : tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>
  %d3 = tile.reshape %d : tensor<16x16xf32> -> tensor<1x16x16xf32>
  tile.store %d3, %o[%c0, %c0, %c0] : tensor<1x16x16xf32>, !tile.view<3, f32>
  %b = tile.convert %t : tensor<16x16xf32> -> tensor<16x16xbf16>
  %cs = tile.cumsum %b axis = 1 : tensor<16x16xbf16>
  %csf = tile.convert %cs : tensor<16x16xbf16> -> tensor<16x16xf32>
  %cs3 = tile.reshape %csf : tensor<16x16xf32> -> tensor<1x16x16xf32>
  tile.store %cs3, %o[%c1, %c0, %c0] : tensor<1x16x16xf32>, !tile.view<3, f32>
  %p = arith.cmpf ogt, %t, %z : tensor<16x16xf32>
  %row = tile.extract %p[%c2, %c0] : tensor<16x16xi1> -> tensor<1x16xi1>
  %mask = tile.broadcast %row : tensor<1x16xi1> -> tensor<16x16xi1>
  %neg = arith.negf %t : tensor<16x16xf32>
  %w = tile.where %mask, %t, %neg : tensor<16x16xi1>, tensor<16x16xf32>
  %w3 = tile.reshape %w : tensor<16x16xf32> -> tensor<1x16x16xf32>
  tile.store %w3, %o[%c2, %c0, %c0] : tensor<1x16x16xf32>, !tile.view<3, f32>
  %sum = tile.reduce sum %b axis = 0 : tensor<16x16xbf16> -> tensor<16xbf16>
  %sumf = tile.convert %sum : tensor<16xbf16> -> tensor<16xf32>
  tile.store %sumf, %r[%c0] : tensor<16xf32>, !tile.view<1, f32>
  %bigs = tile.full %big : tensor<16x16xf32>
  %scaled = arith.mulf %t, %bigs : tensor<16x16xf32>
  %i = tile.convert %scaled : tensor<16x16xf32> -> tensor<16x16xi32>
  tile.store %i, %n[%c0, %c0] : tensor<16x16xi32>, !tile.view<2, i32>
  tile.return
}
