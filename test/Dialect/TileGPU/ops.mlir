// Every tilegpu op and attribute parses, verifies and prints back; the
// generic form reads back to the same IR.
// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// A 16x8 tile in one warp: blocked (two consecutive elements per thread) and
// the mma.sync m16n8 accumulator; a row-major and a staged buffer.
#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#mma = #tilegpu.dist<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
// The 128-byte swizzle of an 8x64 bf16 tile: the 16-byte chunk of a row is
// its column chunk XOR the row.
#swizzled = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]]>
// Replicated in the second warp, over a 12x8 tile padded to 16x8.
#twoWarps = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = [[0, 0]]>

// CHECK: #[[BLOCKED:dist[0-9]*]] = #tilegpu.dist<register = {{\[}}[0, 1], [0, 2]], lane = {{\[}}[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
// CHECK: #[[MMA:dist[0-9]*]] = #tilegpu.dist<register = {{\[}}[0, 1], [8, 0]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
// CHECK: #[[ROWMAJOR:shared[0-9]*]] = #tilegpu.shared<offset = {{\[}}[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
// CHECK: #[[SWIZZLED:shared[0-9]*]] = #tilegpu.shared<offset = {{\[}}[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]]>

// CHECK-LABEL: kernel @conversions
// CHECK: %[[M:.*]] = tilegpu.convert_layout %{{.*}} : tensor<16x8xf32, #[[BLOCKED]]> -> tensor<16x8xf32, #[[MMA]]>
// CHECK: tilegpu.convert_layout %[[M]] : tensor<16x8xf32, #[[MMA]]> -> tensor<16x8xf32, #[[BLOCKED]]>
tile.kernel @conversions(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #blocked>
  %m = tilegpu.convert_layout %t : tensor<16x8xf32, #blocked> -> tensor<16x8xf32, #mma>
  %b = tilegpu.convert_layout %m : tensor<16x8xf32, #mma> -> tensor<16x8xf32, #blocked>
  tile.store %b, %x[%c0, %c0] : tensor<16x8xf32, #blocked>, !tile.view<2, f32>
  tile.return
}

// CHECK-LABEL: kernel @padded_and_replicated
// CHECK: tensor<12x8xf32, #{{dist[0-9]*}}>
tile.kernel @padded_and_replicated(%x: !tile.view<2, f32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<12x8xf32, #twoWarps>
  tile.store %t, %x[%c0, %c0] : tensor<12x8xf32, #twoWarps>, !tile.view<2, f32>
  tile.return
}

// CHECK-LABEL: kernel @shared_memory
// CHECK: %[[BUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.smem<16x8xf32, #[[ROWMAJOR]], mutable>
// CHECK: tilegpu.local_store %{{.*}}, %[[BUF]] : tensor<16x8xf32, #[[MMA]]>, {{(!tilegpu.smem)?}}<16x8xf32, #[[ROWMAJOR]], mutable>
// CHECK: tilegpu.barrier
// CHECK: tilegpu.local_load %[[BUF]] : {{(!tilegpu.smem)?}}<16x8xf32, #[[ROWMAJOR]], mutable> -> tensor<16x8xf32, #[[BLOCKED]]>
// CHECK: %[[HELD:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<16x8xf32, #[[BLOCKED]]>) -> !tilegpu.smem<16x8xf32, #[[ROWMAJOR]]>
// CHECK: tilegpu.local_load %[[HELD]] : {{(!tilegpu.smem)?}}<16x8xf32, #[[ROWMAJOR]]> -> tensor<16x8xf32, #[[MMA]]>
tile.kernel @shared_memory(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #mma>
  %buf = tilegpu.local_alloc : () -> !tilegpu.smem<16x8xf32, #rowmajor, mutable>
  tilegpu.local_store %t, %buf : tensor<16x8xf32, #mma>, !tilegpu.smem<16x8xf32, #rowmajor, mutable>
  tilegpu.barrier
  %b = tilegpu.local_load %buf : !tilegpu.smem<16x8xf32, #rowmajor, mutable> -> tensor<16x8xf32, #blocked>
  %held = tilegpu.local_alloc %b : (tensor<16x8xf32, #blocked>) -> !tilegpu.smem<16x8xf32, #rowmajor>
  %m = tilegpu.local_load %held : !tilegpu.smem<16x8xf32, #rowmajor> -> tensor<16x8xf32, #mma>
  tile.store %m, %x[%c0, %c0] : tensor<16x8xf32, #mma>, !tile.view<2, f32>
  tile.return
}

// CHECK-LABEL: kernel @async_copies
// CHECK: %[[RING:.*]] = tilegpu.local_alloc : () -> !tilegpu.smem<3x8x64xbf16, #[[SWIZZLED]], mutable>
// CHECK: %[[T0:.*]] = tilegpu.async_copy %{{.*}}[%{{.*}}, %{{.*}}] -> %[[RING]][%{{.*}}] kind = cp_async : {{(!tile.view)?}}<2, bf16>, {{(!tilegpu.smem)?}}<3x8x64xbf16, #[[SWIZZLED]], mutable>
// CHECK: %[[T1:.*]] = tilegpu.async_copy %{{.*}}[%{{.*}}, %{{.*}}] -> %[[RING]][%{{.*}}] kind = tma padding = nan : {{(!tile.view)?}}<2, bf16>, {{(!tilegpu.smem)?}}<3x8x64xbf16, #[[SWIZZLED]], mutable>
// CHECK: %[[G:.*]] = tilegpu.async_commit %[[T0]], %[[T1]]
// CHECK: tilegpu.async_wait %[[G]] pending = 1
// CHECK: tilegpu.fence_async_shared
// CHECK: tilegpu.local_load %[[RING]][%{{.*}}] : {{(!tilegpu.smem)?}}<3x8x64xbf16, #[[SWIZZLED]], mutable> -> tensor<8x64xbf16, #{{dist[0-9]*}}>
#rows8 = #tilegpu.dist<register = [[0, 1], [0, 2], [0, 4], [4, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = []>
tile.kernel @async_copies(%x: !tile.view<2, bf16>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ring = tilegpu.local_alloc : () -> !tilegpu.smem<3x8x64xbf16, #swizzled, mutable>
  %t0 = tilegpu.async_copy %x[%c0, %c0] -> %ring[%c0] kind = cp_async : !tile.view<2, bf16>, !tilegpu.smem<3x8x64xbf16, #swizzled, mutable>
  %t1 = tilegpu.async_copy %x[%c1, %c0] -> %ring[%c1] kind = tma padding = nan : !tile.view<2, bf16>, !tilegpu.smem<3x8x64xbf16, #swizzled, mutable>
  %g = tilegpu.async_commit %t0, %t1
  tilegpu.async_wait %g pending = 1
  tilegpu.barrier
  tilegpu.fence_async_shared
  %v = tilegpu.local_load %ring[%c0] : !tilegpu.smem<3x8x64xbf16, #swizzled, mutable> -> tensor<8x64xbf16, #rows8>
  tile.store %v, %x[%c0, %c0] : tensor<8x64xbf16, #rows8>, !tile.view<2, bf16>
  tile.return
}
