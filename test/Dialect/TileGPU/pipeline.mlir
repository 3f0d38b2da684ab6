// tilegpu-pipeline: mma-operand loads by cp.async into swizzled buffers,
// prefetched through a ring in loops with latency >= 2.
// RUN: tile-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-remove-layout-conversions --tilegpu-pipeline | FileCheck %s
// RUN: tile-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-remove-layout-conversions --tilegpu-pipeline=interior-copies=true | FileCheck %s --check-prefix=INTERIOR

// Outside a loop: one buffer per operand; barrier, copy, commit, wait for
// it, barrier, then the read straight into the mma operand layout. B is
// read transposed: its buffer holds the view's order and tile.permute
// (free) gives the tile's.
// CHECK-LABEL: kernel @single_stage
// CHECK: tilegpu.barrier
// CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.smem<64x32xbf16, {{.*}}, mutable>
// CHECK: %[[T:.*]] = tilegpu.async_copy %{{.*}}[%{{.*}}, %{{.*}}] -> %[[A]] kind = cp_async layout =
// CHECK: %[[G:.*]] = tilegpu.async_commit %[[T]]
// CHECK: tilegpu.async_wait %[[G]] pending = 0
// CHECK: tilegpu.barrier
// CHECK: %[[RA:.*]] = tilegpu.local_load %[[A]]
// CHECK: tilegpu.local_alloc : () -> !tilegpu.smem<64x32xbf16
// CHECK: async_copy
// CHECK: %[[RB:.*]] = tilegpu.local_load
// CHECK: %[[PB:.*]] = permute %[[RB]] [1, 0]
// CHECK-NOT: convert_layout
// CHECK: mma %[[RA]], %[[PB]]
// interior-copies marks every copy for the lowering's unchecked path.
// INTERIOR-LABEL: kernel @single_stage
// INTERIOR: tilegpu.async_copy {{.*}} {tilegpu.interior_copies}
// INTERIOR: tilegpu.async_copy {{.*}} {tilegpu.interior_copies}
tile.kernel @single_stage(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<64x32xbf16>
  %tb = tile.load %b[%c0, %c0] order = [1, 0] : !tile.view<2, bf16> -> tensor<32x64xbf16>
  %acc = tile.full %zero : tensor<64x64xf32>
  %d = tile.mma %ta, %tb, %acc : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// latency = 2 in a loop: a 3-stage ring per operand. The prologue issues
// iterations 0 and 1 (each guarded by its bound, each one commit), the body
// waits for all but the newest group, passes a barrier, reads stage k mod 3
// into the mma.sync operands, multiplies, and then (the product reads both
// operands from the ring: its fragments come first) issues iteration k + 2
// into stage (k + 2) mod 3 at the end of the body. A (no latency hint)
// joins B's ring.
// CHECK-LABEL: kernel @ring
// CHECK: tilegpu.barrier
// CHECK: %[[RA:.*]] = tilegpu.local_alloc : () -> !tilegpu.smem<3x64x32xbf16
// CHECK: %[[RB:.*]] = tilegpu.local_alloc : () -> !tilegpu.smem<3x32x64xbf16
// CHECK: scf.if
// CHECK: async_copy {{.*}} -> %[[RA]][%c0{{.*}}]
// CHECK: async_copy {{.*}} -> %[[RB]][%c0{{.*}}]
// CHECK: tilegpu.async_commit
// CHECK: scf.if
// CHECK: async_copy {{.*}} -> %[[RA]][%c1{{.*}}]
// CHECK: tilegpu.async_commit
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args
// CHECK-NEXT: tilegpu.async_wait pending = 1
// CHECK-NEXT: tilegpu.barrier
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]]
// CHECK: %[[AHEAD:.*]] = arith.remui %{{.*}}, %c3
// CHECK: %[[STAGE:.*]] = arith.remui %{{.*}}, %c3
// CHECK-NOT: async_copy
// CHECK: tilegpu.local_load %[[RA]][%[[STAGE]]]
// CHECK: tilegpu.local_load %[[RB]][%[[STAGE]]]
// CHECK-NOT: convert_layout
// CHECK: %[[D:.*]] = {{(tile.)?}}mma
// CHECK: %[[VALID:.*]] = arith.cmpi slt, %[[NEXT]]
// CHECK: scf.if %[[VALID]]
// CHECK: async_copy %{{.*}}[%{{.*}}, %[[NEXT]]] -> %[[RA]][%[[AHEAD]]]
// CHECK: async_copy %{{.*}}[%[[NEXT]], %{{.*}}] -> %[[RB]][%[[AHEAD]]]
// CHECK: tilegpu.async_commit
// CHECK-NEXT: scf.yield %[[D]]
tile.kernel @ring(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>, %n: index) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.full %zero : tensor<64x64xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0) -> tensor<64x64xf32> {
    %ta = tile.load %a[%c0, %k] : !tile.view<2, bf16> -> tensor<64x32xbf16>
    %tb = tile.load %b[%k, %c0] latency = 2 : !tile.view<2, bf16> -> tensor<32x64xbf16>
    %d = tile.mma %ta, %tb, %acc : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// A ragged tile (48 rows, padded to 64 in the layouts) of a 4-D view read
// through a reshape and converted to tf32 in the operand layout: the buffer
// holds the padded box of the view's bf16, the conversion happens after the
// read.
// CHECK-LABEL: kernel @masked_edge
// CHECK: tilegpu.local_alloc : () -> !tilegpu.smem<1x48x1x32xbf16
// CHECK: async_copy {{.*}} kind = cp_async layout =
// CHECK: %[[R:.*]] = tilegpu.local_load {{.*}} -> tensor<1x48x1x32xbf16
// CHECK: %[[S:.*]] = reshape %[[R]] : {{.*}} -> tensor<48x32xbf16
// CHECK: %[[W:.*]] = convert %[[S]] : {{.*}} -> tensor<48x32xf32
// CHECK: %[[F:.*]] = convert %[[W]] : {{.*}} -> tensor<48x32xtf32
// CHECK: mma %[[F]]
tile.kernel @masked_edge(%a: !tile.view<4, bf16>, %b: !tile.view<2, f32>, %c: !tile.view<2, f32>, %i: index) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ta = tile.load %a[%c0, %i, %c0, %c0] : !tile.view<4, bf16> -> tensor<1x48x1x32xbf16>
  %ra = tile.reshape %ta : tensor<1x48x1x32xbf16> -> tensor<48x32xbf16>
  %wa = tile.convert %ra : tensor<48x32xbf16> -> tensor<48x32xf32>
  %fa = tile.convert %wa : tensor<48x32xf32> -> tensor<48x32xtf32>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<32x64xf32>
  %fb = tile.convert %tb : tensor<32x64xf32> -> tensor<32x64xtf32>
  %acc = tile.full %zero : tensor<48x64xf32>
  %d = tile.mma %fa, %fb, %acc : tensor<48x32xtf32>, tensor<32x64xtf32>, tensor<48x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<48x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// A load with a second user keeps its registers (and its conversion); a
// load padded with NaN is left alone too (cp.async fills with zeros).
// CHECK-LABEL: kernel @not_rewritten
// CHECK-NOT: async_copy
// CHECK: convert_layout
// CHECK: convert_layout
// CHECK-NOT: async_copy
// CHECK: return
tile.kernel @not_rewritten(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<64x32xbf16>
  %tb = tile.load %b[%c0, %c0] padding = nan : !tile.view<2, bf16> -> tensor<32x64xbf16>
  %acc = tile.full %zero : tensor<64x64xf32>
  %d = tile.mma %ta, %tb, %acc : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.store %ta, %a[%c0, %c0] : tensor<64x32xbf16>, !tile.view<2, bf16>
  tile.return
}
