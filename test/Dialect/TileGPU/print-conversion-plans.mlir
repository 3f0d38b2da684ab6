// tilegpu-print-conversion-plans: one remark per conversion with the plan
// tilec::planConversion makes for it, one case per plan kind.
// RUN: tile-opt %s -split-input-file -verify-diagnostics --tilegpu-print-conversion-plans

// A 16x8 f32 tile in one warp, 4 registers per thread.
#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#swapped = #tilegpu.dist<register = [[0, 2], [0, 1]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#mma = #tilegpu.dist<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>

tile.kernel @kinds(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #blocked>
  // expected-remark @+1 {{free}}
  %same = tilegpu.convert_layout %t : tensor<16x8xf32, #blocked> -> tensor<16x8xf32, #blocked>
  // The same elements in each thread, in other registers.
  // expected-remark @+1 {{register permutation of 4 registers}}
  %renamed = tilegpu.convert_layout %t : tensor<16x8xf32, #blocked> -> tensor<16x8xf32, #swapped>
  // Inside the warp: two shuffle rounds per destination register.
  // expected-remark @+1 {{warp shuffles: 8 rounds}}
  %fragment = tilegpu.convert_layout %t : tensor<16x8xf32, #blocked> -> tensor<16x8xf32, #mma>
  tile.store %same, %x[%c0, %c0] : tensor<16x8xf32, #blocked>, !tile.view<2, f32>
  tile.store %renamed, %x[%c0, %c0] : tensor<16x8xf32, #swapped>, !tile.view<2, f32>
  tile.store %fragment, %x[%c0, %c0] : tensor<16x8xf32, #mma>, !tile.view<2, f32>
  tile.return
}

// -----

// Two warps splitting the rows, then the columns: the data crosses warps,
// through a 32x8 f32 staging buffer (1024 bytes).
#rows = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = [[16, 0]]>
#cols = #tilegpu.dist<register = [[1, 0], [2, 0]], lane = [[4, 0], [8, 0], [16, 0], [0, 1], [0, 2]], warp = [[0, 4]]>

tile.kernel @across_warps(%x: !tile.view<2, f32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<32x8xf32, #rows>
  // expected-remark @+1 {{shared memory: 1024 bytes}}
  %u = tilegpu.convert_layout %t : tensor<32x8xf32, #rows> -> tensor<32x8xf32, #cols>
  tile.store %u, %x[%c0, %c0] : tensor<32x8xf32, #cols>, !tile.view<2, f32>
  tile.return
}
