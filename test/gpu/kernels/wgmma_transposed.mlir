// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt (case wgmma_transposed: the vec variant's sm_90a image
// is where wgmma reads the cp.async buffers).
// RUN: tilec %s --codegen=layouts --variants=vec --emit=ptx --target=sm_90a -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: tilec %s --codegen=layouts --variants=vec --emit=cubin --target=sm_80 -o %t.sm80.cubin

// Both operands transposed in memory: A is read from a K x M view (M
// contiguous: wgmma reads it M-major, imm-trans-a 1) and B from an N x K
// view (K contiguous: K-major, imm-trans-b 0), both by cp.async into a
// three-stage ring plus the spare stage a product in flight needs, no
// st.shared of either; one group left pending per iteration.
// CHECK-LABEL: .entry wgmma_transposed_vec(
// CHECK: cp.async.wait_group 1
// CHECK-NEXT: fence.proxy.async.shared::cta
// CHECK-NEXT: bar.sync 0
// CHECK-NOT: st.shared
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1, 0;
// CHECK-NOT: st.shared
// CHECK: wgmma.commit_group.sync.aligned
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1

// C = A^T B^T for A (K x M) and B (N x K) in bf16, C (M x N) f32, over K in
// BK steps; grid (ceil(M/BM), ceil(N/BN)); ragged M, N and K read zeros.
!A = tensor<?x?xbf16, #tile.dims<[BM, BK]>>
!B = tensor<?x?xbf16, #tile.dims<[BK, BN]>>
!C = tensor<?x?xf32, #tile.dims<[BM, BN]>>
tile.kernel @wgmma_transposed(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                              %c: !tile.view<2, f32>)
    attributes {num_warps = 8 : i32, params = {BM = 128 : i64, BN = 64 : i64, BK = 32 : i64}} {
  %i = tile.block_id x
  %j = tile.block_id y
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %k = tile.dim %a[0] : !tile.view<2, bf16>
  %bk = tile.param "BK"
  %nk = arith.ceildivui %k, %bk : index
  %init = tile.full %zero : !C
  %r = scf.for %kk = %c0 to %nk step %c1 iter_args(%acc = %init) -> !C {
    %ta = tile.load %a[%kk, %i] order = [1, 0] latency = 2 : !tile.view<2, bf16> -> !A
    %tb = tile.load %b[%j, %kk] order = [1, 0] latency = 2 : !tile.view<2, bf16> -> !B
    %next = tile.mma %ta, %tb, %acc : !A, !B, !C
    scf.yield %next : !C
  }
  tile.store %r, %c[%i, %j] : !C, !tile.view<2, f32>
  tile.return
}
