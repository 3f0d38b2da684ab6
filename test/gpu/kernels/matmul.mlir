// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt.
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cubin --target=sm_90 -o %t.sm90.cubin
// RUN: tilec %s --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry matmul(
// CHECK-DAG: cvt.rn.bf16x2.f32
// CHECK-DAG: cvt.rn.f16x2.f32
// CHECK-DAG: cvt.rna.tf32.f32
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-DAG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-DAG: st.global.b32

// C = A B over K in BK steps, operands converted to ELEM (bf16, f16, tf32 or
// f32 through the kernel variants below), f32 accumulation. A is M x K, B is
// K x N, both f32 in memory; grid (ceil(M/BM), ceil(N/BN)). Ragged M, N and K
// are zero-padded.
!A = tensor<?x?xf32, #tile.dims<[BM, BK]>>
!B = tensor<?x?xf32, #tile.dims<[BK, BN]>>
!Ab = tensor<?x?xbf16, #tile.dims<[BM, BK]>>
!Bb = tensor<?x?xbf16, #tile.dims<[BK, BN]>>
!At = tensor<?x?xtf32, #tile.dims<[BM, BK]>>
!Bt = tensor<?x?xtf32, #tile.dims<[BK, BN]>>
!Ah = tensor<?x?xf16, #tile.dims<[BM, BK]>>
!Bh = tensor<?x?xf16, #tile.dims<[BK, BN]>>
!C = tensor<?x?xf32, #tile.dims<[BM, BN]>>
tile.kernel @matmul(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>,
                    %cb: !tile.view<2, f32>, %ct: !tile.view<2, f32>,
                    %ch: !tile.view<2, f32>, %cf: !tile.view<2, f32>)
    attributes {num_warps = 4 : i32, params = {BM = 64 : i64, BN = 32 : i64, BK = 32 : i64}} {
  %i = tile.block_id x
  %j = tile.block_id y
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %k = tile.dim %a[1] : !tile.view<2, f32>
  %bk = tile.param "BK"
  %nk = arith.ceildivui %k, %bk : index
  %init = tile.full %zero : !C
  %r:4 = scf.for %kk = %c0 to %nk step %c1
      iter_args(%accb = %init, %acct = %init, %acch = %init, %accf = %init) -> (!C, !C, !C, !C) {
    %ta = tile.load %a[%i, %kk] latency = 2 : !tile.view<2, f32> -> !A
    %tb = tile.load %b[%kk, %j] latency = 2 : !tile.view<2, f32> -> !B
    %ab = tile.convert %ta : !A -> !Ab
    %bb = tile.convert %tb : !B -> !Bb
    %at = tile.convert %ta : !A -> !At
    %bt = tile.convert %tb : !B -> !Bt
    %ah = tile.convert %ta : !A -> !Ah
    %bh = tile.convert %tb : !B -> !Bh
    %nb = tile.mma %ab, %bb, %accb : !Ab, !Bb, !C
    %nt = tile.mma %at, %bt, %acct : !At, !Bt, !C
    %nh = tile.mma %ah, %bh, %acch : !Ah, !Bh, !C
    %nf = tile.mma %ta, %tb, %accf : !A, !B, !C
    scf.yield %nb, %nt, %nh, %nf : !C, !C, !C, !C
  }
  tile.store %r#0, %cb[%i, %j] : !C, !tile.view<2, f32>
  tile.store %r#1, %ct[%i, %j] : !C, !tile.view<2, f32>
  tile.store %r#2, %ch[%i, %j] : !C, !tile.view<2, f32>
  tile.store %r#3, %cf[%i, %j] : !C, !tile.view<2, f32>
  tile.return
}
