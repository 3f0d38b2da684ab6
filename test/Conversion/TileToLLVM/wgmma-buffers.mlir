// wgmma reading its operands where tilegpu-pipeline put them (MmaWgmma.cpp:
// findBufferRead): the descriptors address the ring's current stage, no
// operand is stored to shared memory, the product stays in flight for one
// iteration. Without the pipeline the same operands are stored from
// registers, each in the orientation that keeps its vectors whole.
// RUN: tile-opt %s --split-input-file --tilegpu-assign-layouts="sm=90" --tilegpu-remove-layout-conversions --tilegpu-pipeline --tilegpu-allocate-shared="conversions=false" --convert-tile-to-llvm="sm=90 vectorize=true" | FileCheck %s
// RUN: tile-opt %s --split-input-file --tilegpu-assign-layouts="sm=90" --tilegpu-remove-layout-conversions --convert-tile-to-llvm="sm=90 vectorize=true" | FileCheck %s --check-prefix=STORED

// 64 x 64 x 32 per step on one warpgroup, A (64 x 32) K-major, B read
// transposed from an N x K view: K-major too (B col, imm-trans-b 0). Both
// have 64-byte rows: swizzle mode 2 (2 << 62), stride byte offset 512
// (8 rows: 32 << 32), leading byte offset unused (1 << 16), so the same
// descriptor constant, -9223371899415756800. In the loop: the wait for
// this step's copies, their fence for the async proxy, one barrier, the
// next step's copies, the products; then wait_group 1 and, in the last
// iteration only, wait_group 0; no barrier after the products.
// CHECK-LABEL: llvm.func @ring(
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.cp.async.shared.global {{.*}}, 16, cache =  cg
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[DA:.*]] = arith.constant -9223371899415756800 : i64
// CHECK-NEXT: llvm.or %{{.*}}, %[[DA]] : i64
// CHECK: %[[DB:.*]] = arith.constant -9223371899415756800 : i64
// CHECK-NEXT: llvm.or %{{.*}}, %[[DB]] : i64
// CHECK-NEXT: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: scf.if
// CHECK-NEXT: } else {
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.barrier0
// CHECK: scf.yield %{{.*}} : vector<32xf32>
// From registers: A and B (K contiguous in both) stored K-major in 16-byte
// vectors (B stored N-major would be one element per store), fenced, one
// barrier before the products and one after them.
// STORED-LABEL: llvm.func @ring(
// STORED: scf.for
// STORED-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// STORED-NOT: llvm.store {{.*}} !llvm.ptr<3>
// STORED: nvvm.fence.proxy
// STORED-NEXT: nvvm.barrier0
// STORED: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// STORED: nvvm.wgmma.commit.group.sync.aligned
// STORED-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// STORED-NEXT: nvvm.barrier0
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

// A read transposed from a K x M view (M contiguous): M-major (A col,
// imm-trans-a 1), its descriptor's leading byte offset one 64-column block
// of the K = 32 rows (32 x 128 bytes: 256 << 16) and stride byte offset
// 1024 (8 rows of 128 bytes), swizzle 128 (1 << 62): 4611686293322072064.
// A single product: wait_group 0, and no barrier of its own after it (the
// accumulator is read from the group's registers at once).
// CHECK-LABEL: llvm.func @m_major(
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[DA:.*]] = arith.constant 4611686293322072064 : i64
// CHECK-NEXT: llvm.or %{{.*}}, %[[DA]] : i64
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: llvm.extractvalue
tile.kernel @m_major(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.full %zero : tensor<64x64xf32>
  %ta = tile.load %a[%c0, %c0] order = [1, 0] : !tile.view<2, bf16> -> tensor<64x32xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x64xbf16>
  %d = tile.mma %ta, %tb, %init : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}
