// REQUIRES: ptxas
// A kernel using every op, through the whole pipeline to PTX and ptxas.
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

// LLVM: llvm.mlir.global external @tile_smem()
// LLVM-LABEL: llvm.func @all_ops(
// LLVM-SAME: tile.num_warps = 4 : i32
// LLVM-SAME: tile.shared_bytes = [[BYTES:[0-9]+]] : i64
// LLVM-NOT: tile.
// LLVM-NOT: scf.
// LLVM-NOT: arith.

// PTX: .extern .shared .align 16 .b8 tile_smem[];
// PTX: .entry all_ops(
// PTX: .maxntid 128, 1, 1
// PTX-DAG: ex2.approx.f32
// PTX-DAG: cvt.rna.tf32.f32
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-DAG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// PTX-DAG: bar.sync 0
!T = tensor<?x32xf32, #tile.dims<[BM, 32]>>
tile.kernel @all_ops(%x: !tile.view<2, f32>, %y: !tile.view<2, bf16>, %s: f32) attributes {num_warps = 4 : i32, params = {BM = 64 : i64}} {
  %bx = tile.block_id x
  %n = tile.num_blocks y
  %bm = tile.param "BM"
  %d = tile.dim %x[1] : !tile.view<2, f32>
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%bx, %c0] padding = neg_inf latency = 2 : !tile.view<2, f32> -> !T
  %tt = tile.load %x[%c0, %bx] order = [1, 0] : !tile.view<2, f32> -> !T
  %f = tile.full %s : !T
  %a = arith.addf %t, %f : !T
  %cs = tile.cumsum %a axis = 0 : !T
  %r = tile.reduce sum %cs axis = 1 : !T -> tensor<?xf32, #tile.dims<[BM]>>
  %e = tile.exp2 %cs : !T
  %i = tile.arange : tensor<32xi32>
  %i2 = tile.reshape %i : tensor<32xi32> -> tensor<1x32xi32>
  %ib = tile.broadcast %i2 : tensor<1x32xi32> -> tensor<32x32xi32>
  %p = tile.permute %ib [1, 0] : tensor<32x32xi32> -> tensor<32x32xi32>
  %m = arith.cmpi sge, %p, %ib : tensor<32x32xi32>
  %sub = tile.extract %e[%c0, %c0] : !T -> tensor<32x32xf32>
  %w = tile.where %m, %sub, %sub : tensor<32x32xi1>, tensor<32x32xf32>
  %bf = tile.convert %w : tensor<32x32xf32> -> tensor<32x32xbf16>
  %tf = tile.convert %w : tensor<32x32xf32> -> tensor<32x32xtf32>
  %acc = tile.mma %bf, %bf, %w : tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<32x32xf32>
  %acc2 = tile.mma %tf, %tf, %acc : tensor<32x32xtf32>, tensor<32x32xtf32>, tensor<32x32xf32>
  %o = tile.convert %acc2 : tensor<32x32xf32> -> tensor<32x32xbf16>
  tile.store %o, %y[%bx, %c0] : tensor<32x32xbf16>, !tile.view<2, bf16>
  tile.store %e, %x[%bx, %c0] order = [1, 0] : !T, !tile.view<2, f32>
  tile.return
}
