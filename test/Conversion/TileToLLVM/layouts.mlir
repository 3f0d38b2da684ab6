// The layouts path of convert-tile-to-llvm (docs/codegen-layouts.md, "As
// built"): tiles with #tilegpu.dist layouts become the registers their
// layout gives each thread.
// RUN: tile-opt %s --split-input-file --tile-expand-forms --tilegpu-assign-layouts="vectorize=false" --tilegpu-remove-layout-conversions --convert-tile-to-llvm | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-to-llvm="codegen=layouts vectorize=true" | FileCheck %s --check-prefix=VEC
// RUN: tile-opt %s --split-input-file --tile-to-llvm="codegen=layouts" | FileCheck %s --check-prefix=GENERIC

// 64 elements on one warp, one per access: lane l holds l and l ^ 32 (the
// register's image XOR the lane's). No lane bit reaches bit 5, so that XOR
// is an add of a constant (an address immediate, not one more live value).
// CHECK-LABEL: llvm.func @arange_add(
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32_i32
// CHECK: %[[B0:.*]] = arith.andi %[[LANE]], %c1_i32
// CHECK: %[[B1:.*]] = arith.andi %[[LANE]], %c2_i32
// CHECK: arith.xori %[[B0]], %[[B1]]
// CHECK: llvm.insertelement %[[R0:.*]], %{{.*}} : vector<2xi32>
// CHECK: %[[R1:.*]] = arith.addi %[[R0]], %c32_i32{{.*}} overflow<nsw, nuw> : i32
// CHECK: llvm.insertelement %[[R1]], %{{.*}} : vector<2xi32>
// CHECK: arith.addi %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK-NOT: llvm.store
// CHECK: llvm.return
tile.kernel @arange_add(%o: !tile.view<1, i32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %a = tile.arange : tensor<64xi32>
  %one = arith.constant dense<1> : tensor<64xi32>
  %s = arith.addi %a, %one : tensor<64xi32>
  tile.store %s, %o[%c0] : tensor<64xi32>, !tile.view<1, i32>
  tile.return
}

// -----

// A 16 x 64 f32 copy on 2 warps: the vec variant moves 16 bytes per access,
// one predicate per vector; the generic one an element per access.
// VEC-LABEL: llvm.func @copy_rows(
// VEC-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// VEC-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// VEC-NOT: llvm.store
// VEC: llvm.return
// GENERIC-LABEL: llvm.func @copy_rows(
// GENERIC-COUNT-16: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// GENERIC-COUNT-16: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// GENERIC-NOT: llvm.store
// GENERIC: llvm.return
tile.kernel @copy_rows(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x64xf32>
  tile.store %t, %y[%c0, %c0] : tensor<16x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// The vec variant with a view marked tile.any_strides: the marked view is
// read an element at a time (it may be a broadcast with stride 0: one
// 4-byte cp.async per element, each at its own strided address, since its
// tile goes to shared memory to meet the store's layout), the other written
// 16 bytes at a time.
// VEC-LABEL: llvm.func @copy_any_strides(
// VEC-COUNT-16: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache =  ca
// VEC-NOT: !llvm.ptr<1> -> vector
// VEC-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// VEC-NOT: f32, !llvm.ptr<1>
// VEC: llvm.return
tile.kernel @copy_any_strides(%x: !tile.view<2, f32> {tile.any_strides}, %y: !tile.view<2, f32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x64xf32>
  tile.store %t, %y[%c0, %c0] : tensor<16x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// Ragged: 12 columns of bf16 give 4-element (8-byte) vectors, and the
// padded columns 12..15 are one vector whose predicate is false.
// VEC-LABEL: llvm.func @ragged_bf16(
// VEC: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<4xbf16>
// VEC: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr<1>
tile.kernel @ragged_bf16(%x: !tile.view<2, bf16>, %y: !tile.view<2, bf16>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, bf16> -> tensor<8x12xbf16>
  tile.store %t, %y[%c0, %c0] : tensor<8x12xbf16>, !tile.view<2, bf16>
  tile.return
}

// -----

// A row broadcast is free: the registers of the 64-vector are repeated, no
// shared memory.
// GENERIC-LABEL: llvm.func @broadcast_row(
// GENERIC-SAME: tile.shared_bytes = 0 : i64
// GENERIC-NOT: nvvm.barrier0
// GENERIC: llvm.shufflevector
// GENERIC-NOT: nvvm.barrier0
// GENERIC: llvm.return
tile.kernel @broadcast_row(%x: !tile.view<1, f32>, %y: !tile.view<2, f32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0] : !tile.view<1, f32> -> tensor<64xf32>
  %r = tile.reshape %t : tensor<64xf32> -> tensor<1x64xf32>
  %b = tile.broadcast %r : tensor<1x64xf32> -> tensor<16x64xf32>
  tile.store %b, %y[%c0, %c0] : tensor<16x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// bf16 products: the accumulator stays in its mma.sync registers across the
// loop (8 f32 per thread for 32 x 32 on 4 warps); the operands reach their
// fragment layouts through shared memory (the loads' layouts differ), then
// 2 blocks x 2 k-steps of mma.sync follow with no barrier between them.
// CHECK-LABEL: llvm.func @mma_loop(
// CHECK: scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<8xf32>)
// CHECK: nvvm.barrier0
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>{{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: nvvm.mma.sync
// CHECK: scf.yield %{{.*}} : vector<8xf32>
tile.kernel @mma_loop(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                      %c: !tile.view<2, f32>, %n: index) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> tensor<32x32xf32> {
    %ta = tile.load %a[%c0, %k] : !tile.view<2, bf16> -> tensor<32x32xbf16>
    %tb = tile.load %b[%k, %c0] : !tile.view<2, bf16> -> tensor<32x32xbf16>
    %d = tile.mma %ta, %tb, %acc : tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  tile.store %acc, %c[%c0, %c0] : tensor<32x32xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// tf32: m16n8k8 on the f32 bits of the rounded operands.
// CHECK-LABEL: llvm.func @mma_tf32(
// CHECK: nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK: llvm.bitcast %{{.*}} : f32 to i32
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>{{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 8>
tile.kernel @mma_tf32(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>,
                      %c: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<8x8xf32>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32>
  %a32 = tile.convert %ta : tensor<16x8xf32> -> tensor<16x8xtf32>
  %b32 = tile.convert %tb : tensor<8x8xf32> -> tensor<8x8xtf32>
  %d = tile.mma %a32, %b32, %tc : tensor<16x8xtf32>, tensor<8x8xtf32>, tensor<16x8xf32>
  tile.store %d, %c[%c0, %c0] : tensor<16x8xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// f32 products: fused multiply-adds over K in order, A and B from the
// scratch area.
// CHECK-LABEL: llvm.func @mma_f32(
// CHECK: nvvm.barrier0
// CHECK: scf.for
// CHECK: llvm.intr.fma
// CHECK-NOT: nvvm.mma.sync
// CHECK: llvm.return
tile.kernel @mma_f32(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>,
                     %c: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<8x8xf32>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32>
  %d = tile.mma %ta, %tb, %tc : tensor<16x8xf32>, tensor<8x8xf32>, tensor<16x8xf32>
  tile.store %d, %c[%c0, %c0] : tensor<16x8xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// A transpose through shared memory in the planner's layout: 16-byte
// stores of the source's 4 columns, one barrier, and the destination's 4
// rows per thread read as 32-bit ldmatrix rows (a lane's 4 registers are
// one row element of 4 matrices), and the barrier that frees the scratch
// area.
// CHECK-LABEL: llvm.func @transpose(
// CHECK-SAME: tile.shared_bytes = 4096 : i64
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: nvvm.ldmatrix %{{.*}}num = 4 : i32
// CHECK: llvm.bitcast %{{.*}} : i32 to f32
// CHECK: nvvm.barrier0
tile.kernel @transpose(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<32x32xf32>
  %p = tile.permute %t [1, 0] : tensor<32x32xf32> -> tensor<32x32xf32>
  tile.store %p, %y[%c0, %c0] : tensor<32x32xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// A row sum over lanes: in-thread, then shfl.bfly over the 5 lane bits
// that walk the row; no shared memory for the reduction itself.
// CHECK-LABEL: llvm.func @row_sum(
// CHECK: nvvm.shfl.sync bfly %{{.*}} : f32 -> f32
// CHECK-COUNT-4: nvvm.shfl.sync bfly
// CHECK: llvm.return
tile.kernel @row_sum(%x: !tile.view<2, f32>, %y: !tile.view<1, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<4x32xf32>
  %s = tile.reduce sum %t axis = 1 : tensor<4x32xf32> -> tensor<4xf32>
  tile.store %s, %y[%c0] : tensor<4xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// A scan along 256 elements on 2 warps: in-thread, Kogge-Stone shfl.up over
// the lanes, then the warp totals through the scratch area.
// CHECK-LABEL: llvm.func @scan(
// CHECK: nvvm.shfl.sync up
// CHECK: nvvm.barrier0
// CHECK: llvm.return
tile.kernel @scan(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0] : !tile.view<1, f32> -> tensor<256xf32>
  %s = tile.cumsum %t axis = 0 : tensor<256xf32>
  tile.store %s, %y[%c0] : tensor<256xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// The vec variant moves mma operands by cp.async (tilegpu-pipeline): every
// copy is one 16-byte cp.async.cg whose src-size is 0 outside the view (the
// source then the view's base), into a buffer at offset 0 (there is no
// scratch area: the accumulator's conversion for the store is warp
// shuffles); commit, wait, barrier,
// then the fragments are read from the buffer (A by ldmatrix.x4: the
// swizzled buffer keeps its 16-byte rows whole). The three
// buffers live one after another, so they share bytes, with a barrier
// before each copy.
// VEC-LABEL: llvm.func @mma_operands_async(
// VEC-SAME: tile.shared_bytes = 512
// VEC: nvvm.barrier0
// VEC: %[[DST:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
// VEC: %[[SRC:.*]] = llvm.select %[[IN:.*]], %{{.*}}, %arg0 : i1, !llvm.ptr<1>
// VEC: %[[SIZE:.*]] = llvm.select %[[IN]], %{{.*}}, %{{.*}} : i1, i32
// VEC: nvvm.cp.async.shared.global %[[DST]], %[[SRC]], 16, cache =  cg, %[[SIZE]]
// VEC-NEXT: nvvm.cp.async.commit.group
// VEC-NEXT: nvvm.cp.async.wait.group 0
// VEC-NEXT: nvvm.barrier0
// VEC: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// VEC: nvvm.barrier0
// VEC: nvvm.cp.async.shared.global
// VEC: nvvm.cp.async.wait.group 0
// VEC: nvvm.mma.sync
tile.kernel @mma_operands_async(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x16xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x8xbf16>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32>
  %d = tile.mma %ta, %tb, %tc : tensor<16x16xbf16>, tensor<16x8xbf16>, tensor<16x8xf32>
  tile.store %d, %c[%c0, %c0] : tensor<16x8xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// A copy of two 16-byte runs per thread (A: 32 x 16 bf16 over one warp):
// the second run lies 16 rows below the first in every thread, so it is
// addressed from the first (ViewAccess::addressFrom): its source is the
// first run's address plus 16 x the row stride (a loop-invariant product
// of the stride alone), and it is inside the view where 16 < the rows left
// below the first run (the first run's room, computed once), with no index,
// compare or product of its own.
// VEC-LABEL: llvm.func @mma_operand_runs(
// VEC: %[[ROOM:.*]] = llvm.sub %arg1, %{{.*}} : i64
// VEC: %[[FIRST:.*]] = llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
// VEC: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// VEC-NEXT: %[[C16:.*]] = llvm.icmp "sgt" %[[ROOM]], %{{.*}} : i64
// VEC-NEXT: llvm.and %{{.*}}, %[[C16]] : i1
// VEC-NEXT: %[[DOWN:.*]] = llvm.mul %arg3, %{{.*}} : i64
// VEC-NEXT: llvm.and
// VEC-NEXT: %[[SECOND:.*]] = llvm.getelementptr %[[FIRST]][%[[DOWN]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
// VEC-NOT: llvm.icmp "ult"
// VEC: llvm.select %{{.*}}, %[[SECOND]], %arg0 : i1, !llvm.ptr<1>
// VEC: nvvm.cp.async.shared.global
// VEC-NEXT: nvvm.cp.async.commit.group
tile.kernel @mma_operand_runs(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x16xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x8xbf16>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<32x8xf32>
  %d = tile.mma %ta, %tb, %tc : tensor<32x16xbf16>, tensor<16x8xbf16>, tensor<32x8xf32>
  tile.store %d, %c[%c0, %c0] : tensor<32x8xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// mma.sync operands computed in registers (negated: a loaded operand would
// go global -> shared by cp.async instead) through shared memory. With
// 16-byte loads (VEC) A (16
// x 16, K contiguous) comes back by one ldmatrix.x4 and B (16 x 8, N
// contiguous) by one ldmatrix.x2.trans, after 16-byte stores, and no plain
// ld.shared feeds the product. One element per load (CHECK): the source's 8
// registers are one 16-byte store and the fragments plain loads (as many
// instructions as single stores and ldmatrix, so plain wins the tie), B
// goes by warp shuffles.
// CHECK-LABEL: llvm.func @ldmatrix_operands(
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> bf16
// CHECK: nvvm.shfl.sync idx
// CHECK: nvvm.mma.sync
// VEC-LABEL: llvm.func @ldmatrix_operands(
// VEC: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// VEC: nvvm.barrier0
// VEC: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// VEC-NOT: llvm.load %{{.*}} : !llvm.ptr<3>
// VEC: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// VEC: nvvm.barrier0
// VEC: nvvm.ldmatrix %{{.*}}layout = #nvvm.mma_layout<col>, num = 2 : i32
// VEC-NOT: llvm.load %{{.*}} : !llvm.ptr<3>
// VEC: nvvm.mma.sync
tile.kernel @ldmatrix_operands(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                               %c: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x16xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x8xbf16>
  %na = arith.negf %ta : tensor<16x16xbf16>
  %nb = arith.negf %tb : tensor<16x8xbf16>
  %zero = tile.full %f0 : tensor<16x8xf32>
  %d = tile.mma %na, %nb, %zero : tensor<16x16xbf16>, tensor<16x8xbf16>, tensor<16x8xf32>
  tile.store %d, %c[%c0, %c0] : tensor<16x8xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// Computed tf32 operands on 4 warps: A (64 x 32, K contiguous) by ldmatrix on
// 32-bit pairs (each f32 is two 16-bit halves of a row), after 16-byte
// stores.
// VEC-LABEL: llvm.func @ldmatrix_tf32(
// VEC: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// VEC: nvvm.ldmatrix %{{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32
// VEC: llvm.bitcast %{{.*}} : i32 to f32
// VEC: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>
tile.kernel @ldmatrix_tf32(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>,
                           %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<64x32xf32>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<32x32xf32>
  %na = arith.negf %ta : tensor<64x32xf32>
  %nb = arith.negf %tb : tensor<32x32xf32>
  %a32 = tile.convert %na : tensor<64x32xf32> -> tensor<64x32xtf32>
  %b32 = tile.convert %nb : tensor<32x32xf32> -> tensor<32x32xtf32>
  %zero = tile.full %f0 : tensor<64x32xf32>
  %d = tile.mma %a32, %b32, %zero : tensor<64x32xtf32>, tensor<32x32xtf32>, tensor<64x32xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// A conversion that stays in its warp is shfl.sync.idx rounds: the product's
// accumulator (one warp) to the store's layout needs no shared memory and
// no barrier after the last product.
// CHECK-LABEL: llvm.func @shuffle_conversion(
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.shfl.sync idx %{{.*}} : i32 -> i32
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.return
tile.kernel @shuffle_conversion(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                                %c: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x16xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x8xbf16>
  %zero = tile.full %f0 : tensor<16x8xf32>
  %d = tile.mma %ta, %tb, %zero : tensor<16x16xbf16>, tensor<16x8xbf16>, tensor<16x8xf32>
  tile.store %d, %c[%c0, %c0] : tensor<16x8xf32>, !tile.view<2, f32>
  tile.return
}
