// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt.
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cubin --target=sm_90 -o %t.sm90.cubin
// RUN: tilec %s --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry scan_reduce(
// CHECK-DAG: ld.global.b32
// CHECK-DAG: max.NaN.f32
// CHECK-DAG: min.NaN.f32
// CHECK-DAG: add.rn.f32
// CHECK-DAG: bar.sync{{.*}}0;
// CHECK-DAG: st.global.b32

// Inclusive scans and reductions of one 64x32 tile along each axis.
tile.kernel @scan_reduce(%in: !tile.view<2, f32>, %cs0: !tile.view<2, f32>,
                         %cs1: !tile.view<2, f32>, %sum0: !tile.view<1, f32>,
                         %max1: !tile.view<1, f32>, %min1: !tile.view<1, f32>)
    attributes {num_warps = 2 : i32} {
  %i = tile.block_id x
  %c0 = arith.constant 0 : index
  %t = tile.load %in[%i, %c0] : !tile.view<2, f32> -> tensor<64x32xf32>
  %a = tile.cumsum %t axis = 0 : tensor<64x32xf32>
  %b = tile.cumsum %t axis = 1 : tensor<64x32xf32>
  tile.store %a, %cs0[%i, %c0] : tensor<64x32xf32>, !tile.view<2, f32>
  tile.store %b, %cs1[%i, %c0] : tensor<64x32xf32>, !tile.view<2, f32>
  %s = tile.reduce sum %t axis = 0 : tensor<64x32xf32> -> tensor<32xf32>
  %m = tile.reduce max %t axis = 1 : tensor<64x32xf32> -> tensor<64xf32>
  %n = tile.reduce min %t axis = 1 : tensor<64x32xf32> -> tensor<64xf32>
  tile.store %s, %sum0[%i] : tensor<32xf32>, !tile.view<1, f32>
  tile.store %m, %max1[%i] : tensor<64xf32>, !tile.view<1, f32>
  tile.store %n, %min1[%i] : tensor<64xf32>, !tile.view<1, f32>
  tile.return
}
