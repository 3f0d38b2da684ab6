// tilegpu-allocate-shared: offsets from buffer lifetimes, one case per rule.
// RUN: tile-opt %s -split-input-file --tilegpu-allocate-shared | FileCheck %s
// RUN: tile-opt %s -split-input-file --tilegpu-allocate-shared="conversions=false" | FileCheck %s --check-prefix=BUFFERS

// A 16x8 f32 tile (512 bytes) in one warp, and row-major buffers for it.
#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>

// One buffer is dead before the next is allocated: both at offset 0.
// CHECK-LABEL: kernel @disjoint
// CHECK-SAME: tilegpu.shared_bytes = 512
// CHECK: local_alloc {{.*}}{tilegpu.offset = 0 : i64}
// CHECK: local_alloc {{.*}}{tilegpu.offset = 0 : i64}
tile.kernel @disjoint(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #blocked>
  %a = tilegpu.local_alloc : () -> !tilegpu.smem<16x8xf32, #rowmajor, mutable>
  tilegpu.local_store %t, %a : tensor<16x8xf32, #blocked>, !tilegpu.smem<16x8xf32, #rowmajor, mutable>
  %u = tilegpu.local_load %a : !tilegpu.smem<16x8xf32, #rowmajor, mutable> -> tensor<16x8xf32, #blocked>
  %b = tilegpu.local_alloc : () -> !tilegpu.smem<16x8xf32, #rowmajor, mutable>
  tilegpu.local_store %u, %b : tensor<16x8xf32, #blocked>, !tilegpu.smem<16x8xf32, #rowmajor, mutable>
  %v = tilegpu.local_load %b : !tilegpu.smem<16x8xf32, #rowmajor, mutable> -> tensor<16x8xf32, #blocked>
  tile.store %v, %x[%c0, %c0] : tensor<16x8xf32, #blocked>, !tile.view<2, f32>
  tile.return
}

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>

// Both alive at once: side by side, in program order.
// CHECK-LABEL: kernel @overlapping
// CHECK-SAME: tilegpu.shared_bytes = 1024
// CHECK: local_alloc {{.*}}{tilegpu.offset = 0 : i64}
// CHECK: local_alloc {{.*}}{tilegpu.offset = 512 : i64}
tile.kernel @overlapping(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #blocked>
  %a = tilegpu.local_alloc %t : (tensor<16x8xf32, #blocked>) -> !tilegpu.smem<16x8xf32, #rowmajor>
  %b = tilegpu.local_alloc %t : (tensor<16x8xf32, #blocked>) -> !tilegpu.smem<16x8xf32, #rowmajor>
  %u = tilegpu.local_load %a : !tilegpu.smem<16x8xf32, #rowmajor> -> tensor<16x8xf32, #blocked>
  %v = tilegpu.local_load %b : !tilegpu.smem<16x8xf32, #rowmajor> -> tensor<16x8xf32, #blocked>
  %w = arith.addf %u, %v : tensor<16x8xf32, #blocked>
  tile.store %w, %x[%c0, %c0] : tensor<16x8xf32, #blocked>, !tile.view<2, f32>
  tile.return
}

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
// 32 bf16 of a 16x8 tile (as a 4x8 f32 row block would be): 128 bytes.
#small = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]]>

// The larger buffer is placed first, although allocated second.
// CHECK-LABEL: kernel @largest_first
// CHECK-SAME: tilegpu.shared_bytes = 640
// CHECK: local_alloc {{.*}}{tilegpu.offset = 512 : i64} : () -> !tilegpu.smem<4x8xf32
// CHECK: local_alloc {{.*}}{tilegpu.offset = 0 : i64} : () -> !tilegpu.smem<16x8xf32
tile.kernel @largest_first(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #blocked>
  %a = tilegpu.local_alloc : () -> !tilegpu.smem<4x8xf32, #small, mutable>
  %b = tilegpu.local_alloc : () -> !tilegpu.smem<16x8xf32, #rowmajor, mutable>
  tilegpu.local_store %t, %b : tensor<16x8xf32, #blocked>, !tilegpu.smem<16x8xf32, #rowmajor, mutable>
  %r = tilegpu.async_copy %x[%c0, %c0] -> %a kind = cp_async : !tile.view<2, f32>, !tilegpu.smem<4x8xf32, #small, mutable>
  tile.return
}

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>

// %a is last used at the top of the loop body and %b allocated below it, but
// the next iteration writes %a again: %a lives through the loop.
// CHECK-LABEL: kernel @loop_extends_lifetime
// CHECK-SAME: tilegpu.shared_bytes = 1024
// CHECK: local_alloc {{.*}}{tilegpu.offset = 0 : i64}
// CHECK: scf.for
// CHECK: local_alloc {{.*}}{tilegpu.offset = 512 : i64}
tile.kernel @loop_extends_lifetime(%x: !tile.view<2, f32>, %n: index) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #blocked>
  %a = tilegpu.local_alloc : () -> !tilegpu.smem<16x8xf32, #rowmajor, mutable>
  scf.for %k = %c0 to %n step %c1 {
    tilegpu.local_store %t, %a : tensor<16x8xf32, #blocked>, !tilegpu.smem<16x8xf32, #rowmajor, mutable>
    %b = tilegpu.local_alloc %t : (tensor<16x8xf32, #blocked>) -> !tilegpu.smem<16x8xf32, #rowmajor>
    %u = tilegpu.local_load %b : !tilegpu.smem<16x8xf32, #rowmajor> -> tensor<16x8xf32, #blocked>
    tile.store %u, %x[%k, %c0] : tensor<16x8xf32, #blocked>, !tile.view<2, f32>
  }
  tile.return
}

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#staged = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
#rows8 = #tilegpu.dist<register = [[0, 1], [0, 2], [0, 4], [4, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = []>
#swizzled = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]]>

// Three stages of 512 bytes take [0, 1536); the swizzled 8x64 bf16 buffer
// (1024 bytes) is aligned to 1024, at 2048; the last 512 bytes fill the gap
// at 1536.
// CHECK-LABEL: kernel @alignment_and_gaps
// CHECK-SAME: tilegpu.shared_bytes = 3072
// CHECK: local_alloc {{.*}}{tilegpu.offset = 0 : i64} : () -> !tilegpu.smem<3x16x8xf32
// CHECK: local_alloc {{.*}}{tilegpu.offset = 2048 : i64} : () -> !tilegpu.smem<8x64xbf16
// CHECK: local_alloc {{.*}}{tilegpu.offset = 1536 : i64} : () -> !tilegpu.smem<16x8xf32
tile.kernel @alignment_and_gaps(%x: !tile.view<2, f32>, %y: !tile.view<2, bf16>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %ring = tilegpu.local_alloc : () -> !tilegpu.smem<3x16x8xf32, #staged, mutable>
  %swz = tilegpu.local_alloc : () -> !tilegpu.smem<8x64xbf16, #swizzled, mutable>
  %row = tilegpu.local_alloc : () -> !tilegpu.smem<16x8xf32, #staged, mutable>
  %t0 = tilegpu.async_copy %x[%c0, %c0] -> %ring[%c0] kind = cp_async : !tile.view<2, f32>, !tilegpu.smem<3x16x8xf32, #staged, mutable>
  %t1 = tilegpu.async_copy %y[%c0, %c0] -> %swz kind = cp_async : !tile.view<2, bf16>, !tilegpu.smem<8x64xbf16, #swizzled, mutable>
  %t2 = tilegpu.async_copy %x[%c0, %c0] -> %row kind = cp_async : !tile.view<2, f32>, !tilegpu.smem<16x8xf32, #staged, mutable>
  tile.return
}

// -----

#rows = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = [[16, 0]]>
#cols = #tilegpu.dist<register = [[1, 0], [2, 0]], lane = [[4, 0], [8, 0], [16, 0], [0, 1], [0, 2]], warp = [[0, 4]]>
#swapped = #tilegpu.dist<register = [[0, 2], [0, 1]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = [[16, 0]]>

// A conversion across warps stages its 32x8 f32 tile (1024 bytes) at the
// conversion; a register permutation needs no buffer.
// With conversions=false (the layouts pipeline, whose conversions use the
// lowering's scratch area) only local_alloc buffers are placed.
// BUFFERS-LABEL: kernel @conversion_staging
// BUFFERS-SAME: tilegpu.shared_bytes = 0
// BUFFERS-NOT: tilegpu.offset
// BUFFERS: return
// CHECK-LABEL: kernel @conversion_staging
// CHECK-SAME: tilegpu.shared_bytes = 1024
// CHECK: tilegpu.convert_layout %{{.*}} {tilegpu.offset = 0 : i64} : tensor<32x8xf32, #{{.*}}> -> tensor<32x8xf32, #{{.*}}>
// CHECK: tilegpu.convert_layout %{{.*}} : tensor<32x8xf32
tile.kernel @conversion_staging(%x: !tile.view<2, f32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<32x8xf32, #rows>
  %u = tilegpu.convert_layout %t : tensor<32x8xf32, #rows> -> tensor<32x8xf32, #cols>
  %v = tilegpu.convert_layout %t : tensor<32x8xf32, #rows> -> tensor<32x8xf32, #swapped>
  tile.store %u, %x[%c0, %c0] : tensor<32x8xf32, #cols>, !tile.view<2, f32>
  tile.store %v, %x[%c0, %c0] : tensor<32x8xf32, #swapped>, !tile.view<2, f32>
  tile.return
}
