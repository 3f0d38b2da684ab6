// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt.
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cubin --target=sm_90 -o %t.sm90.cubin
// RUN: tilec %s --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry load_scan(
// CHECK-DAG: ld.global.b32
// CHECK-DAG: st.shared.b32
// CHECK-DAG: bar.sync{{.*}}0;
// CHECK-DAG: ld.shared.b32
// CHECK-DAG: max.NaN.f32
// CHECK-DAG: add.rn.f32
// CHECK-DAG: st.global.b32

// Program (i, j) reads tile (i, j) of x (a ragged 2-D view, 16x8 tiles)
// transposed through order = [1, 0] and stores it as tile (j, i) of y, so
// y = x^T; s[16 i + r, j] = max of row r of the tile (neg_inf padding); z is
// the cumsum down the columns of each tile.
tile.kernel @load_scan(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>,
                       %z: !tile.view<2, f32>, %s: !tile.view<2, f32>)
    attributes {num_warps = 2 : i32} {
  %i = tile.block_id x
  %j = tile.block_id y
  %t = tile.load %x[%i, %j] order = [1, 0] : !tile.view<2, f32> -> tensor<8x16xf32>
  tile.store %t, %y[%j, %i] : tensor<8x16xf32>, !tile.view<2, f32>
  %u = tile.load %x[%i, %j] padding = neg_inf : !tile.view<2, f32> -> tensor<16x8xf32>
  %m = tile.reduce max %u axis = 1 : tensor<16x8xf32> -> tensor<16xf32>
  %m2 = tile.reshape %m : tensor<16xf32> -> tensor<16x1xf32>
  tile.store %m2, %s[%i, %j] : tensor<16x1xf32>, !tile.view<2, f32>
  %v = tile.load %x[%i, %j] : !tile.view<2, f32> -> tensor<16x8xf32>
  %c = tile.cumsum %v axis = 0 : tensor<16x8xf32>
  tile.store %c, %z[%i, %j] : tensor<16x8xf32>, !tile.view<2, f32>
  tile.return
}
