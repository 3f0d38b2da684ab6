// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt.
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cubin --target=sm_90 -o %t.sm90.cubin
// RUN: tilec %s --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry grid3d(
// CHECK-DAG: %ctaid.x
// CHECK-DAG: %ctaid.y
// CHECK-DAG: %ctaid.z
// CHECK-DAG: %nctaid.x
// CHECK-DAG: st.global.b32

// Each program writes its coordinates and the grid size into its element of
// a 3-D view of i32 (a 1x1x4 tile: x, y, z, programs), exercising block_id,
// num_blocks, dim and a strided (non-contiguous) view.
tile.kernel @grid3d(%out: !tile.view<4, i32>) attributes {num_warps = 1 : i32} {
  %x = tile.block_id x
  %y = tile.block_id y
  %z = tile.block_id z
  %nx = tile.num_blocks x
  %ny = tile.num_blocks y
  %nz = tile.num_blocks z
  %c0 = arith.constant 0 : index
  %xi = arith.index_cast %x : index to i32
  %yi = arith.index_cast %y : index to i32
  %zi = arith.index_cast %z : index to i32
  %nxy = arith.muli %nx, %ny : index
  %n = arith.muli %nxy, %nz : index
  %ni = arith.index_cast %n : index to i32
  %idx = tile.arange : tensor<4xi32>
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %one = tile.full %c1 : tensor<4xi32>
  %two = tile.full %c2 : tensor<4xi32>
  %vx = tile.full %xi : tensor<4xi32>
  %vy = tile.full %yi : tensor<4xi32>
  %vz = tile.full %zi : tensor<4xi32>
  %vn = tile.full %ni : tensor<4xi32>
  %zeros = arith.subi %idx, %idx : tensor<4xi32>
  %is0 = arith.cmpi eq, %idx, %zeros : tensor<4xi32>
  %is1 = arith.cmpi eq, %idx, %one : tensor<4xi32>
  %is2 = arith.cmpi eq, %idx, %two : tensor<4xi32>
  %s2 = tile.where %is2, %vz, %vn : tensor<4xi1>, tensor<4xi32>
  %s1 = tile.where %is1, %vy, %s2 : tensor<4xi1>, tensor<4xi32>
  %s0 = tile.where %is0, %vx, %s1 : tensor<4xi1>, tensor<4xi32>
  %t = tile.reshape %s0 : tensor<4xi32> -> tensor<1x1x1x4xi32>
  tile.store %t, %out[%z, %y, %x, %c0] : tensor<1x1x1x4xi32>, !tile.view<4, i32>
  tile.return
}
