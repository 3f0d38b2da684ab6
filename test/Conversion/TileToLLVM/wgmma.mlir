// tile.mma through the wgmma target (sm_90a; lib/Conversion/TileToLLVM/
// MmaWgmma.cpp): A and B stored into swizzled shared memory, then
// wgmma.mma_async with matrix descriptors, the accumulator in the warpgroup
// accumulator layout, in registers across loops.
// RUN: tile-opt %s --split-input-file --tile-expand-forms --tilegpu-assign-layouts="sm=90" --tilegpu-remove-layout-conversions --convert-tile-to-llvm="sm=90" | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-to-llvm="codegen=layouts vectorize=true sm=90" | FileCheck %s --check-prefix=PTX
// RUN: tile-opt %s --split-input-file --tile-to-llvm="codegen=layouts vectorize=true sm=80" | FileCheck %s --check-prefix=SM80

// 128 x 128 x 32 on 8 warps: 2 warpgroups stacked along M, one
// m64n128k16 per k-step each (64 f32 accumulator registers per thread,
// carried by the loop). A (128 x 32, 64-byte rows) and B (32 x 128,
// 128-byte rows) are stored in 16-byte vectors, made visible to the async
// proxy, then the two k-steps follow with no barrier between them; the
// group is committed and waited for before the accumulator leaves.
// CHECK-LABEL: llvm.func @wgmma_loop(
// CHECK: scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<64xf32>)
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: scf.yield %{{.*}} : vector<64xf32>
// The PTX the pipeline makes of it (wgmma is inline PTX).
// PTX-LABEL: llvm.func @wgmma_loop(
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-NOT: nvvm.mma.sync
// PTX: llvm.return
// On sm_80 the same kernel takes mma.sync.
// SM80-LABEL: llvm.func @wgmma_loop(
// SM80-NOT: wgmma.mma_async
// SM80: nvvm.mma.sync
// SM80-NOT: wgmma.mma_async
// SM80: llvm.return
tile.kernel @wgmma_loop(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                        %c: !tile.view<2, f32>, %n: index) attributes {num_warps = 8 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> tensor<128x128xf32> {
    %ta = tile.load %a[%c0, %k] : !tile.view<2, bf16> -> tensor<128x32xbf16>
    %tb = tile.load %b[%k, %c0] : !tile.view<2, bf16> -> tensor<32x128xbf16>
    %d = tile.mma %ta, %tb, %acc : tensor<128x32xbf16>, tensor<32x128xbf16>, tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %c[%c0, %c0] : tensor<128x128xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// The descriptors of 64 x 64 x 64 f16 on one warpgroup. Both operands have
// 128-byte rows: swizzle mode 1 (bit 62), stride byte offset 1024 (8 rows
// of 128 bytes: 64 << 32). A is K-major, its leading byte offset unused
// (1 << 16): 4611686293305360384; B is N-major, its leading byte offset one
// 64-column block of all 64 rows, 8192 bytes (512 << 16):
// 4611686293338849280. The k-steps move A's start by 16 elements (32
// bytes) and B's by 16 rows (1024 elements); B starts 8192 bytes in.
// CHECK-LABEL: llvm.func @wgmma_descriptors(
// CHECK: llvm.getelementptr %{{.*}}[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[DA:.*]] = arith.constant 4611686293305360384 : i64
// CHECK-NEXT: llvm.or %{{.*}}, %[[DA]] : i64
// CHECK: %[[DB:.*]] = arith.constant 4611686293338849280 : i64
// CHECK-NEXT: llvm.or %{{.*}}, %[[DB]] : i64
// CHECK-NEXT: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>
// CHECK: arith.xori %{{.*}}, %c16_i32
// CHECK: arith.xori %{{.*}}, %c1024_i32
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
tile.kernel @wgmma_descriptors(%a: !tile.view<2, f16>, %b: !tile.view<2, f16>,
                               %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<64x64xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, f16> -> tensor<64x64xf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, f16> -> tensor<64x64xf16>
  %d = tile.mma %ta, %tb, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// 64 x 64 on 8 warps: one 64-row block, so the two warpgroups share N, one
// m64n32k16 each per k-step (16 accumulator registers per thread).
// CHECK-LABEL: llvm.func @wgmma_split_n(
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 32, k = 16>
// CHECK-SAME: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
tile.kernel @wgmma_split_n(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                           %c: !tile.view<2, f32>) attributes {num_warps = 8 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<64x64xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<64x16xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x64xbf16>
  %d = tile.mma %ta, %tb, %zero : tensor<64x16xbf16>, tensor<16x64xbf16>, tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// Ragged 100 x 40 x 24 (padded to 128 x 64 x 32) on 4 warps: one
// warpgroup, two 64-row blocks of m64n64k16 per k-step; the padding of A
// and B is zeroed before it is stored (selects), and the edges of C are
// masked by the store.
// CHECK-LABEL: llvm.func @wgmma_ragged(
// CHECK: llvm.select
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
tile.kernel @wgmma_ragged(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                          %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<100x40xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<100x24xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<24x40xbf16>
  %d = tile.mma %ta, %tb, %zero : tensor<100x24xbf16>, tensor<24x40xbf16>, tensor<100x40xf32>
  tile.store %d, %c[%c0, %c0] : tensor<100x40xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// tf32 (64 x 64 x 32 on one warpgroup): m64n64k8, four k-steps. A is
// stored K-major in 16-byte vectors of f32 bits; B K-major too (tf32 wgmma
// reads no N-major B), transposed on the way, one element per store; both
// with 128-byte rows. B's descriptor is then also K-major: leading byte
// offset unused (1 << 16), the same constant as A's; B starts 8192 bytes
// in; its layout is col (imm-trans-b 0).
// CHECK-LABEL: llvm.func @wgmma_tf32(
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: llvm.getelementptr %{{.*}}[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[DA:.*]] = arith.constant 4611686293305360384 : i64
// CHECK-NEXT: llvm.or %{{.*}}, %[[DA]] : i64
// CHECK: %[[DB:.*]] = arith.constant 4611686293305360384 : i64
// CHECK-NEXT: llvm.or %{{.*}}, %[[DB]] : i64
// CHECK-NEXT: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 8>
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// PTX-LABEL: llvm.func @wgmma_tf32(
// PTX: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
tile.kernel @wgmma_tf32(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>,
                        %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<64x64xf32>
  %fa = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<64x32xf32>
  %fb = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<32x64xf32>
  %ta = tile.convert %fa : tensor<64x32xf32> -> tensor<64x32xtf32>
  %tb = tile.convert %fb : tensor<32x64xf32> -> tensor<32x64xtf32>
  %d = tile.mma %ta, %tb, %zero : tensor<64x32xtf32>, tensor<32x64xtf32>, tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// A split product (bf16 A, f32 B: x^T B_lo, then x^T B_hi on that sum) is
// one wgmma pair: A at 0, B_lo at 2048 and B_hi at 4096 of the scratch
// area, all stored before one fence and barrier; the first product is
// committed without a wait, the second waits for both and ends with the
// only other barrier.
// CHECK-LABEL: llvm.func @wgmma_split_pair(
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.getelementptr %{{.*}}[2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr<3>
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.getelementptr %{{.*}}[4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr<3>
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.fence.proxy
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.getelementptr %{{.*}}[2048]
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.getelementptr %{{.*}}[4096]
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
tile.kernel @wgmma_split_pair(%a: !tile.view<2, bf16>, %b: !tile.view<2, f32>,
                              %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<64x64xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<64x16xbf16>
  %fb = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<16x64xf32>
  %d = tile.mma %ta, %fb, %zero precision = split_bf16
      : tensor<64x16xbf16>, tensor<16x64xf32>, tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// Two products on one sum with different A are no pair: each stores its
// operands at offset 0 behind its own barriers and waits for itself.
// CHECK-LABEL: llvm.func @wgmma_no_pair(
// CHECK: nvvm.barrier0
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.barrier0
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: nvvm.barrier0
tile.kernel @wgmma_no_pair(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                           %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<64x64xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<64x16xbf16>
  %ta2 = tile.load %a[%c0, %c16] : !tile.view<2, bf16> -> tensor<64x16xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x64xbf16>
  %d1 = tile.mma %ta, %tb, %zero : tensor<64x16xbf16>, tensor<16x64xbf16>, tensor<64x64xf32>
  %d2 = tile.mma %ta2, %tb, %d1 : tensor<64x16xbf16>, tensor<16x64xbf16>, tensor<64x64xf32>
  tile.store %d2, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// A computed in registers (tilegpu-assign-layouts formed it in the
// fragment layout of getWgmmaRegisterALayout) is read from registers: per
// k-step and 64-row block an inline wgmma.mma_async with A as four 32-bit
// registers (pairs of bf16 packed by bitcasts), B by its descriptor
// (N-major: imm-trans-b 1), no scratch for A. Only B is stored (this
// pipeline has no cp.async ring), 16 bytes per store, then the fence and
// barrier before the product.
// CHECK-LABEL: llvm.func @wgmma_register_a(
// CHECK-NOT: llvm.store
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: llvm.store
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, {{.*}}, $31}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;\0A}", "=f,{{.*}},=f,r,r,r,r,l,0,{{.*}},31"
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{{.*}}wgmma.mma_async.sync.aligned.m64n64k16
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK-NOT: llvm.inline_asm
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: nvvm.barrier0
// With B from the cp.async buffer too, nothing is stored: no fence or
// barrier of the product's own.
// PTX-LABEL: llvm.func @wgmma_register_a(
// PTX: nvvm.cp.async.wait.group 0
// PTX-NEXT: nvvm.fence.proxy
// PTX-NEXT: nvvm.barrier0
// PTX-NOT: llvm.store {{.*}}!llvm.ptr<3>
// PTX-NOT: nvvm.barrier0
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, {{.*}}, $31}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;
// PTX-NOT: llvm.store {{.*}}!llvm.ptr<3>
// PTX-NOT: nvvm.barrier0
// PTX: llvm.return
tile.kernel @wgmma_register_a(%w: !tile.view<2, f32>, %s: !tile.view<2, f32>,
                              %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>) attributes {num_warps = 8 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<128x64xf32>
  %tw = tile.load %w[%c0, %c0] : !tile.view<2, f32> -> tensor<128x32xf32>
  %ts = tile.load %s[%c0, %c0] : !tile.view<2, f32> -> tensor<1x32xf32>
  %sb = tile.broadcast %ts : tensor<1x32xf32> -> tensor<128x32xf32>
  %x = arith.mulf %tw, %sb : tensor<128x32xf32>
  %a = tile.convert %x : tensor<128x32xf32> -> tensor<128x32xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x64xbf16>
  %d = tile.mma %a, %tb, %zero : tensor<128x32xbf16>, tensor<32x64xbf16>, tensor<128x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<128x64xf32>, !tile.view<2, f32>
  tile.return
}
