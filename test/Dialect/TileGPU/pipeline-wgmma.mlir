// tilegpu-pipeline for wgmma products (sm_90a layouts): a 16-bit operand
// load goes by cp.async into the swizzled buffer the wgmma descriptors
// read, with no conversion; after its wait each thread fences its copies
// for the async proxy; a ring read by wgmma has one stage more than its
// latency asks, and a top-level product reading both operands from it is
// marked to stay in flight for one iteration.
// RUN: tile-opt %s -split-input-file --tilegpu-assign-layouts="sm=90" --tilegpu-remove-layout-conversions --tilegpu-pipeline | FileCheck %s
// RUN: tile-opt %s -split-input-file --tilegpu-assign-layouts="sm=90" --tilegpu-remove-layout-conversions --tilegpu-pipeline --tilegpu-allocate-shared="conversions=false" | FileCheck %s --check-prefix=ALLOC

// A ring of latency 2 read by wgmma: 2 + 2 stages; the loads are replaced
// by reads of the current stage in the operands' own layouts (B, read
// transposed, through a free permute), the product marked pending 1. The
// loop's last iteration runs after it, under `if 0 < n`, as a copy of the
// body whose product is not pending (it waits for every product); the
// loop stops before that last iteration, and without iterations the result
// is the initial accumulator.
// CHECK-LABEL: kernel @ring
// CHECK: %[[INIT:.*]] = {{(tile.)?}}full
// CHECK: tilegpu.local_alloc : () -> !tilegpu.smem<4x64x32xbf16, {{.*}}, mutable>
// CHECK: tilegpu.local_alloc : () -> !tilegpu.smem<4x64x32xbf16, {{.*}}, mutable>
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %c0, %[[N:.*]] : index
// CHECK: %[[R:.*]] = scf.if %[[RUNS]]
// CHECK: %[[LAST:.*]] = arith.addi %c0, %{{.*}} : index
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %[[LAST]] step %c1 iter_args(%{{.*}} = %[[INIT]])
// CHECK-NEXT: tilegpu.async_wait pending = 1
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: tilegpu.barrier
// CHECK: %[[A:.*]] = tilegpu.local_load
// CHECK: %[[RB:.*]] = tilegpu.local_load
// CHECK: %[[B:.*]] = tile.permute %[[RB]] [1, 0]
// CHECK-NOT: convert_layout
// CHECK: tile.mma %[[A]], %[[B]], %{{.*}} {tilegpu.wgmma, tilegpu.wgmma_pending = 1 : i32}
// CHECK: tilegpu.async_wait pending = 1
// CHECK: arith.subi %[[LAST]], %c0
// CHECK: tile.mma %{{.*}}, %{{.*}}, %[[SUM]] {tilegpu.wgmma} :
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[INIT]]
// CHECK: {{(tile.)?}}store %[[R]]
tile.kernel @ring(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>, %n: index) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.full %zero : tensor<64x64xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<64x64xf32> {
    %ta = tile.load %a[%c0, %k] latency = 2 : !tile.view<2, bf16> -> tensor<64x32xbf16>
    %tb = tile.load %b[%c0, %k] order = [1, 0] latency = 2 : !tile.view<2, bf16> -> tensor<32x64xbf16>
    %d = tile.mma %ta, %tb, %acc : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// One load read by two products (tile-expand-forms' `precision =
// split_bf16`: x^T B_lo, then x^T B_hi): one buffer, whose stage both
// products read; the B halves are computed in registers, so no product
// reads both operands from the ring and none stays in flight (3 stages).
// CHECK-LABEL: kernel @two_products
// CHECK: tilegpu.local_alloc : () -> !tilegpu.smem<3x64x32xbf16, {{.*}}, mutable>
// CHECK-NOT: tilegpu.local_alloc
// CHECK: scf.for
// CHECK: %[[A:.*]] = tilegpu.local_load
// CHECK: %[[S:.*]] = tile.mma %[[A]], %{{.*}}, %{{.*}} {tilegpu.wgmma} :
// CHECK: tile.mma %[[A]], %{{.*}}, %[[S]] {tilegpu.wgmma} :
tile.kernel @two_products(%a: !tile.view<2, bf16>, %b: !tile.view<2, f32>, %c: !tile.view<2, f32>, %n: index) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.full %zero : tensor<64x64xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<64x64xf32> {
    %ta = tile.load %a[%c0, %k] latency = 2 : !tile.view<2, bf16> -> tensor<64x32xbf16>
    %fb = tile.load %b[%k, %c0] : !tile.view<2, f32> -> tensor<32x64xf32>
    %hi = tile.convert %fb : tensor<32x64xf32> -> tensor<32x64xbf16>
    %wide = tile.convert %hi : tensor<32x64xbf16> -> tensor<32x64xf32>
    %rest = arith.subf %fb, %wide : tensor<32x64xf32>
    %lo = tile.convert %rest : tensor<32x64xf32> -> tensor<32x64xbf16>
    %s = tile.mma %ta, %lo, %acc : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
    %d = tile.mma %ta, %hi, %s : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// The same ring in a loop nested in another: the product is not marked
// (ptxas would serialize every wgmma, docs/codegen-layouts.md), and the
// ring has no spare stage.
// CHECK-LABEL: kernel @nested
// CHECK: scf.for
// CHECK: tilegpu.local_alloc : () -> !tilegpu.smem<3x64x32xbf16
// CHECK: scf.for
// CHECK: tilegpu.fence_async_shared
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {tilegpu.wgmma} :
tile.kernel @nested(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>, %n: index) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %init = tile.full %zero : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<64x64xf32> {
      %ta = tile.load %a[%i, %k] latency = 2 : !tile.view<2, bf16> -> tensor<64x32xbf16>
      %tb = tile.load %b[%k, %c0] latency = 2 : !tile.view<2, bf16> -> tensor<32x64xbf16>
      %d = tile.mma %ta, %tb, %acc : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%i, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  }
  tile.return
}

// -----

// Outside a loop: one buffer per operand, wait, fence, barrier, read.
// CHECK-LABEL: kernel @single
// CHECK: tilegpu.async_wait %{{.*}} pending = 0
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: tilegpu.barrier
// CHECK: tilegpu.async_wait %{{.*}} pending = 0
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: tilegpu.barrier
// CHECK: mma {{.*}} {tilegpu.wgmma} :
tile.kernel @single(%a: !tile.view<2, f16>, %b: !tile.view<2, f16>, %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.full %zero : tensor<64x64xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, f16> -> tensor<64x64xf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, f16> -> tensor<64x64xf16>
  %d = tile.mma %ta, %tb, %init : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// tf32 operands stay in registers: wgmma reads the f32 bits of rounded
// values, which the buffer of the view's bytes does not hold.
// CHECK-LABEL: kernel @tf32
// CHECK-NOT: async_copy
// CHECK: load %arg0
// CHECK: mma {{.*}} {tilegpu.wgmma} :
tile.kernel @tf32(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>, %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.full %zero : tensor<64x64xf32>
  %fa = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<64x32xf32>
  %fb = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<32x64xf32>
  %ta = tile.convert %fa : tensor<64x32xf32> -> tensor<64x32xtf32>
  %tb = tile.convert %fb : tensor<32x64xf32> -> tensor<32x64xtf32>
  %d = tile.mma %ta, %tb, %init : tensor<64x32xtf32>, tensor<32x64xtf32>, tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// test/gpu/kernels/mma_bf16.mlir: N = 48 (B's rows padded to 64 columns,
// 128 bytes). wgmma reads A's and B's buffers at the product, after the
// accumulator's buffer was read: tilegpu-allocate-shared keeps A and B
// alive until the product, so neither shares bytes with the other or with
// the accumulator's (which the product does not read).
// CHECK-LABEL: kernel @n48
// CHECK: tilegpu.local_alloc : () -> !tilegpu.smem<64x32xbf16
// CHECK: tilegpu.local_alloc : () -> !tilegpu.smem<32x48xbf16
// ALLOC-LABEL: kernel @n48
// ALLOC-SAME: tilegpu.shared_bytes = 24576
// ALLOC: local_alloc {tilegpu.offset = 16384 : i64} : () -> !tilegpu.smem<64x32xbf16
// ALLOC: local_alloc {tilegpu.offset = 20480 : i64} : () -> !tilegpu.smem<32x48xbf16
// ALLOC: local_alloc {tilegpu.offset = 0 : i64} : () -> !tilegpu.smem<64x48xf32
// ALLOC: mma {{.*}} {tilegpu.wgmma}
tile.kernel @n48(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<64x32xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x48xbf16>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<64x48xf32>
  %d = tile.mma %ta, %tb, %tc : tensor<64x32xbf16>, tensor<32x48xbf16>, tensor<64x48xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x48xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// K = 24 is padded to 32: the copy would leave K's padding unwritten, which
// every sum would read, so both operands stay in registers (the lowering
// stores them with the padding zeroed).
// CHECK-LABEL: kernel @padded_k
// CHECK-NOT: async_copy
// CHECK: mma {{.*}} {tilegpu.wgmma} :
tile.kernel @padded_k(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.full %zero : tensor<64x64xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<64x24xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<24x64xbf16>
  %d = tile.mma %ta, %tb, %init : tensor<64x24xbf16>, tensor<24x64xbf16>, tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}
