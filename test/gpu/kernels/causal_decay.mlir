// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt.
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cubin --target=sm_90 -o %t.sm90.cubin
// RUN: tilec %s --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry causal_decay(
// CHECK-DAG: %ctaid.x
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: selp.f32
// CHECK-DAG: cvt.rn.bf16.f32
// CHECK-DAG: cvt.rzi.s32.f32
// CHECK-DAG: bar.sync{{.*}}0;
// CHECK-DAG: st.global.b32

// The Mamba-2 pattern on one 64-step tile: g = cumsum(a); the pairwise decay
// exp2(where(i >= j, g_i - g_j, -inf)), a row broadcast, an extracted row
// of the tile, and converts of the input to bf16 and (times 100) to i32.
tile.kernel @causal_decay(%a: !tile.view<1, f32>, %decay: !tile.view<2, f32>,
                          %last: !tile.view<2, f32>, %rounded: !tile.view<1, f32>,
                          %ints: !tile.view<1, i32>) {
  %i = tile.block_id x
  %c0 = arith.constant 0 : index
  %c63 = arith.constant 63 : index
  %negInf = arith.constant 0xFF800000 : f32
  %t = tile.load %a[%i] : !tile.view<1, f32> -> tensor<64xf32>
  %g = tile.cumsum %t axis = 0 : tensor<64xf32>
  %gc = tile.reshape %g : tensor<64xf32> -> tensor<64x1xf32>
  %gr = tile.reshape %g : tensor<64xf32> -> tensor<1x64xf32>
  %gi = tile.broadcast %gc : tensor<64x1xf32> -> tensor<64x64xf32>
  %gj = tile.broadcast %gr : tensor<1x64xf32> -> tensor<64x64xf32>
  %diff = arith.subf %gi, %gj : tensor<64x64xf32>
  %idx = tile.arange : tensor<64xi32>
  %ic = tile.reshape %idx : tensor<64xi32> -> tensor<64x1xi32>
  %ir = tile.reshape %idx : tensor<64xi32> -> tensor<1x64xi32>
  %ii = tile.broadcast %ic : tensor<64x1xi32> -> tensor<64x64xi32>
  %jj = tile.broadcast %ir : tensor<1x64xi32> -> tensor<64x64xi32>
  %causal = arith.cmpi sge, %ii, %jj : tensor<64x64xi32>
  %ninf = tile.full %negInf : tensor<64x64xf32>
  %masked = tile.where %causal, %diff, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
  %e = tile.exp2 %masked : tensor<64x64xf32>
  tile.store %e, %decay[%i, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  %row = tile.extract %e[%c63, %c0] : tensor<64x64xf32> -> tensor<1x64xf32>
  tile.store %row, %last[%i, %c0] : tensor<1x64xf32>, !tile.view<2, f32>
  %b = tile.convert %t : tensor<64xf32> -> tensor<64xbf16>
  %f = tile.convert %b : tensor<64xbf16> -> tensor<64xf32>
  tile.store %f, %rounded[%i] : tensor<64xf32>, !tile.view<1, f32>
  %hundred = arith.constant 100.0 : f32
  %h = tile.full %hundred : tensor<64xf32>
  %th = arith.mulf %t, %h : tensor<64xf32>
  %s = tile.convert %th : tensor<64xf32> -> tensor<64xi32>
  tile.store %s, %ints[%i] : tensor<64xi32>, !tile.view<1, i32>
  tile.return
}
