// RUN: tile-opt %s --convert-tile-to-llvm --split-input-file --verify-diagnostics

// The layouts path needs every tile of a kernel to carry a layout.
tile.kernel @mixed(%s: f32) attributes {num_warps = 1 : i32} {
  %a = tile.full %s : tensor<32xf32, #tilegpu.dist<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>>
  // expected-error @+1 {{mixes tiles with and without #tilegpu.dist layouts: run tilegpu-assign-layouts on the whole kernel, or neither}}
  %b = tile.full %s : tensor<32xf32>
  tile.return
}

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>

// A cp.async copy says which thread copies what (tilegpu-pipeline gives it
// the load's layout).
tile.kernel @copy_without_layout(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %buf = tilegpu.local_alloc {tilegpu.offset = 0 : i64} : () -> !tilegpu.smem<16x8xf32, #rowmajor, mutable>
  // expected-error @+1 {{needs a `layout` saying which thread copies which elements}}
  %t = tilegpu.async_copy %x[%c0, %c0] -> %buf kind = cp_async : !tile.view<2, f32>, !tilegpu.smem<16x8xf32, #rowmajor, mutable>
  %u = tilegpu.local_load %buf : !tilegpu.smem<16x8xf32, #rowmajor, mutable> -> tensor<16x8xf32, #blocked>
  tile.store %u, %x[%c0, %c0] : tensor<16x8xf32, #blocked>, !tile.view<2, f32>
  tile.return
}

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>

// Buffers are placed by tilegpu-allocate-shared before the lowering.
tile.kernel @unplaced_buffer(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{has no tilegpu.offset: run tilegpu-allocate-shared first}}
  %buf = tilegpu.local_alloc : () -> !tilegpu.smem<16x8xf32, #rowmajor, mutable>
  %t = tilegpu.async_copy %x[%c0, %c0] -> %buf kind = cp_async layout = #blocked : !tile.view<2, f32>, !tilegpu.smem<16x8xf32, #rowmajor, mutable>
  %u = tilegpu.local_load %buf : !tilegpu.smem<16x8xf32, #rowmajor, mutable> -> tensor<16x8xf32, #blocked>
  tile.store %u, %x[%c0, %c0] : tensor<16x8xf32, #blocked>, !tile.view<2, f32>
  tile.return
}
