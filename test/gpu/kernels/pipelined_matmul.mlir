// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt (the vec variant is where tilegpu-pipeline acts).
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cubin --target=sm_90 -o %t.sm90.cubin
// RUN: for t in sm_80 sm_90 sm_90a; do tilec %s --codegen=layouts --variants=vec --emit=cubin --target=$t -o %t.$t.vec.cubin || exit 1; done
// RUN: tilec %s --codegen=layouts --variants=vec --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry pipelined_matmul_vec(
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// CHECK: cp.async.commit_group
// CHECK-DAG: cp.async.wait_group 1
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// C = A B^T over K in BK steps: A is M x K, B is N x K (read transposed),
// both bf16, C f32; grid (ceil(M/BM), ceil(N/BN)). Both operands are
// prefetched two iterations ahead (a 3-stage cp.async ring in the vec
// variant); ragged M, N and K read zeros.
!A = tensor<?x?xbf16, #tile.dims<[BM, BK]>>
!Bt = tensor<?x?xbf16, #tile.dims<[BK, BN]>>
!C = tensor<?x?xf32, #tile.dims<[BM, BN]>>
tile.kernel @pipelined_matmul(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                              %c: !tile.view<2, f32>)
    attributes {num_warps = 4 : i32, params = {BM = 64 : i64, BN = 32 : i64, BK = 32 : i64}} {
  %i = tile.block_id x
  %j = tile.block_id y
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %k = tile.dim %a[1] : !tile.view<2, bf16>
  %bk = tile.param "BK"
  %nk = arith.ceildivui %k, %bk : index
  %init = tile.full %zero : !C
  %r = scf.for %kk = %c0 to %nk step %c1 iter_args(%acc = %init) -> !C {
    %ta = tile.load %a[%i, %kk] latency = 2 : !tile.view<2, bf16> -> !A
    %tb = tile.load %b[%j, %kk] order = [1, 0] latency = 2 : !tile.view<2, bf16> -> !Bt
    %next = tile.mma %ta, %tb, %acc : !A, !Bt, !C
    scf.yield %next : !C
  }
  tile.store %r, %c[%i, %j] : !C, !tile.view<2, f32>
  tile.return
}
