// REQUIRES: ptxas
// A kernel using every tile op, through the whole pipeline to PTX and
// ptxas. Every op's result reaches a store (num_blocks, param and dim
// through the reduction's row index; the permuted iota stored as well as
// compared; `where` picks between two different halves), so nothing is
// dead or folded. CANON shows every op still there after the pipeline's
// first pass, the canonicalizer, i.e. at the input of convert-tile-to-llvm;
// LLVM that none is left after it; PTX the instructions each one becomes.
// RUN: tile-opt %s --tile-bind-params --canonicalize | FileCheck %s --check-prefix=CANON
// RUN: tile-opt %s --tile-bind-params --tile-to-llvm="sm=80" -o %t.mlir
// RUN: FileCheck %s --check-prefix=LLVM < %t.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.mlir -o %t.ll
// RUN: llc -march=nvptx64 -mcpu=sm_80 -mattr=+ptx80 %t.ll -o %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.sm80.ptx
// RUN: llc -march=nvptx64 -mcpu=sm_90 -mattr=+ptx80 %t.ll -o %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: llc -march=nvptx64 -mcpu=sm_100a -mattr=+ptx88 %t.ll -o %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o %t.sm100a.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.sm100a.ptx

// CANON-LABEL: tile.kernel @all_ops(
// CANON-DAG: block_id x
// CANON-DAG: num_blocks y
// CANON-DAG: %[[BM:.*]] = arith.constant 64 : index
// CANON-DAG: %[[D:.*]] = dim %arg0[1]
// CANON-DAG: arith.addi %[[D]], %[[BM]]
// CANON-DAG: load %arg0[{{.*}}] padding = neg_inf latency = 2
// CANON-DAG: load %arg0[{{.*}}] order = [1, 0]
// CANON-DAG: full %arg4
// CANON-DAG: cumsum
// CANON-DAG: reduce sum
// CANON-DAG: store {{.*}}, %arg2[
// CANON-DAG: exp2
// CANON-DAG: arange
// CANON-DAG: reshape
// CANON-DAG: broadcast
// CANON-DAG: %[[P:.*]] = permute
// CANON-DAG: store %[[P]], %arg3[
// CANON-DAG: arith.cmpi sge, %[[P]]
// CANON-DAG: extract {{.*}}[%c0, %c0]
// CANON-DAG: extract {{.*}}[%c1, %c0]
// CANON-DAG: where
// CANON-DAG: convert {{.*}} -> tensor<32x32xbf16>
// CANON-DAG: convert {{.*}} -> tensor<32x32xtf32>
// CANON-DAG: mma {{.*}} : tensor<32x32xbf16>
// CANON-DAG: mma {{.*}} : tensor<32x32xtf32>
// CANON-DAG: store {{.*}}, %arg1[
// CANON-DAG: store {{.*}}, %arg0[{{.*}}] order = [1, 0]

// LLVM: llvm.mlir.global external @tile_smem()
// LLVM-LABEL: llvm.func @all_ops(
// LLVM-SAME: tile.num_warps = 4 : i32
// LLVM-SAME: tile.shared_bytes = [[BYTES:[0-9]+]] : i64
// LLVM-NOT: tile.
// LLVM-NOT: scf.
// LLVM-NOT: arith.

// x is params 0-4 (pointer, two extents, two strides), y 5-9, rows 10-12,
// q 13-17, s 18.
// PTX: .extern .shared .align 1024 .b8 tile_smem[];
// PTX: .entry all_ops(
// PTX: .maxntid 128, 1, 1
// block_id, num_blocks, dim (x's extent 1), the scalar of full, arange:
// PTX-DAG: %ctaid.x
// PTX-DAG: %nctaid.y
// PTX-DAG: ld.param.b64 {{.*}}[all_ops_param_2]
// PTX-DAG: ld.param.b32 {{.*}}[all_ops_param_18]
// PTX-DAG: %tid.x
// The loads and stores of f32, i32 and bf16; permute, the transposed load,
// cumsum and reduce through shared memory:
// PTX-DAG: ld.global.b32
// PTX-DAG: st.global.b32
// PTX-DAG: st.global.b16
// PTX-DAG: st.shared.b32
// PTX-DAG: ld.shared.b32
// PTX-DAG: bar.sync 0
// cmpi sge, where, exp2, the conversions and both mma kinds:
// PTX-DAG: setp.ge.s32
// PTX-DAG: selp.f32
// PTX-DAG: ex2.approx.ftz.f32
// PTX-DAG: cvt.rn.bf16x2.f32
// PTX-DAG: cvt.rna.tf32.f32
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-DAG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
!T = tensor<?x32xf32, #tile.dims<[BM, 32]>>
tile.kernel @all_ops(%x: !tile.view<2, f32>, %y: !tile.view<2, bf16>, %rows: !tile.view<1, f32>, %q: !tile.view<2, i32>, %s: f32) attributes {num_warps = 4 : i32, params = {BM = 64 : i64}} {
  %bx = tile.block_id x
  %n = tile.num_blocks y
  %bm = tile.param "BM"
  %d = tile.dim %x[1] : !tile.view<2, f32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k0 = arith.addi %bx, %n : index
  %k1 = arith.addi %bm, %d : index
  %k = arith.addi %k0, %k1 : index
  %t = tile.load %x[%bx, %c0] padding = neg_inf latency = 2 : !tile.view<2, f32> -> !T
  %tt = tile.load %x[%c0, %bx] order = [1, 0] : !tile.view<2, f32> -> !T
  %f = tile.full %s : !T
  %a0 = arith.addf %t, %tt : !T
  %a = arith.addf %a0, %f : !T
  %cs = tile.cumsum %a axis = 0 : !T
  %r = tile.reduce sum %cs axis = 1 : !T -> tensor<?xf32, #tile.dims<[BM]>>
  tile.store %r, %rows[%k] : tensor<?xf32, #tile.dims<[BM]>>, !tile.view<1, f32>
  %e = tile.exp2 %cs : !T
  %i = tile.arange : tensor<32xi32>
  %i2 = tile.reshape %i : tensor<32xi32> -> tensor<1x32xi32>
  %ib = tile.broadcast %i2 : tensor<1x32xi32> -> tensor<32x32xi32>
  %p = tile.permute %ib [1, 0] : tensor<32x32xi32> -> tensor<32x32xi32>
  tile.store %p, %q[%bx, %c0] : tensor<32x32xi32>, !tile.view<2, i32>
  %m = arith.cmpi sge, %p, %ib : tensor<32x32xi32>
  %top = tile.extract %e[%c0, %c0] : !T -> tensor<32x32xf32>
  %bottom = tile.extract %e[%c1, %c0] : !T -> tensor<32x32xf32>
  %w = tile.where %m, %top, %bottom : tensor<32x32xi1>, tensor<32x32xf32>
  %bf = tile.convert %w : tensor<32x32xf32> -> tensor<32x32xbf16>
  %tf = tile.convert %w : tensor<32x32xf32> -> tensor<32x32xtf32>
  %acc = tile.mma %bf, %bf, %w : tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<32x32xf32>
  %acc2 = tile.mma %tf, %tf, %acc : tensor<32x32xtf32>, tensor<32x32xtf32>, tensor<32x32xf32>
  %o = tile.convert %acc2 : tensor<32x32xf32> -> tensor<32x32xbf16>
  tile.store %o, %y[%bx, %c0] : tensor<32x32xbf16>, !tile.view<2, bf16>
  tile.store %e, %x[%bx, %c0] order = [1, 0] : !T, !tile.view<2, f32>
  tile.return
}
