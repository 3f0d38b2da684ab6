// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt.
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cubin --target=sm_90 -o %t.sm90.cubin
// RUN: tilec %s --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry movement(
// CHECK-DAG: st.shared.b32
// CHECK-DAG: bar.sync{{.*}}0;
// CHECK-DAG: ld.shared.b32
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: st.global.b32

// Data movement on an 8x8 tile of x: o[0] = permute, o[1] = broadcast of
// row 3, o[2..3] = extract of rows 2k..2k+1 (k = 2) twice, o[4] = exp2.
tile.kernel @movement(%x: !tile.view<2, f32>, %o: !tile.view<3, f32>)
    attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<8x8xf32>
  %p = tile.permute %t [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %p3 = tile.reshape %p : tensor<8x8xf32> -> tensor<1x8x8xf32>
  tile.store %p3, %o[%c0, %c0, %c0] : tensor<1x8x8xf32>, !tile.view<3, f32>
  %row = tile.extract %t[%c3, %c0] : tensor<8x8xf32> -> tensor<1x8xf32>
  %b = tile.broadcast %row : tensor<1x8xf32> -> tensor<8x8xf32>
  %b3 = tile.reshape %b : tensor<8x8xf32> -> tensor<1x8x8xf32>
  tile.store %b3, %o[%c1, %c0, %c0] : tensor<1x8x8xf32>, !tile.view<3, f32>
  %e = tile.extract %t[%c2, %c0] : tensor<8x8xf32> -> tensor<2x8xf32>
  %e3 = tile.reshape %e : tensor<2x8xf32> -> tensor<1x2x8xf32>
  tile.store %e3, %o[%c2, %c0, %c0] : tensor<1x2x8xf32>, !tile.view<3, f32>
  %x2 = tile.exp2 %t : tensor<8x8xf32>
  %x3 = tile.reshape %x2 : tensor<8x8xf32> -> tensor<1x8x8xf32>
  tile.store %x3, %o[%c4, %c0, %c0] : tensor<1x8x8xf32>, !tile.view<3, f32>
  tile.return
}
