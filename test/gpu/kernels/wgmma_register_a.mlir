// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt (case wgmma_register_a: the sm_90a images, vec and
// generic, read A from registers).
// RUN: tilec %s --codegen=layouts --variants=vec --emit=ptx --target=sm_90a -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: tilec %s --codegen=layouts --variants=generic --emit=ptx --target=sm_90a -o %t.generic.ptx
// RUN: FileCheck %s --check-prefix=GENERIC < %t.generic.ptx
// RUN: ptxas -arch=sm_90a %t.generic.ptx -o %t.generic.cubin
// RUN: tilec %s --codegen=layouts --variants=vec --emit=cubin --target=sm_80 -o %t.sm80.cubin

// A is computed in registers (w scaled per column by s, rounded to bf16),
// in the layout wgmma reads A from registers in: the product takes it from
// there (four 32-bit registers per instruction), B from the cp.async ring.
// Nothing is stored to shared memory; the barriers are the ring's (one
// before it, one per iteration).
// CHECK-LABEL: .entry wgmma_register_a_vec(
// CHECK-NOT: st.shared
// CHECK: wgmma.fence.sync.aligned
// CHECK-NOT: st.shared
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// CHECK-NOT: st.shared
// CHECK: wgmma.commit_group.sync.aligned
// CHECK-NOT: st.shared
// CHECK: ret;
// The generic variant stores B (no ring) but still reads A from registers.
// GENERIC-LABEL: .entry wgmma_register_a(
// GENERIC: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;

// C = bf16(W * s) X for W (M x K) and s (1 x K) in f32, X (K x N) bf16, C
// (M x N) f32, over K in BK steps; grid (ceil(M/BM), ceil(N/BN)); ragged
// M, N and K read zeros.
!W = tensor<?x?xf32, #tile.dims<[BM, BK]>>
!S = tensor<1x?xf32, #tile.dims<[1, BK]>>
!A = tensor<?x?xbf16, #tile.dims<[BM, BK]>>
!X = tensor<?x?xbf16, #tile.dims<[BK, BN]>>
!C = tensor<?x?xf32, #tile.dims<[BM, BN]>>
tile.kernel @wgmma_register_a(%w: !tile.view<2, f32>, %s: !tile.view<2, f32>,
                              %x: !tile.view<2, bf16>, %c: !tile.view<2, f32>)
    attributes {num_warps = 8 : i32, params = {BM = 128 : i64, BN = 64 : i64, BK = 32 : i64}} {
  %i = tile.block_id x
  %j = tile.block_id y
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %k = tile.dim %w[1] : !tile.view<2, f32>
  %bk = tile.param "BK"
  %nk = arith.ceildivui %k, %bk : index
  %init = tile.full %zero : !C
  %r = scf.for %kk = %c0 to %nk step %c1 iter_args(%acc = %init) -> !C {
    %tw = tile.load %w[%i, %kk] latency = 2 : !tile.view<2, f32> -> !W
    %ts = tile.load %s[%c0, %kk] latency = 2 : !tile.view<2, f32> -> !S
    %sb = tile.broadcast %ts : !S -> !W
    %ws = arith.mulf %tw, %sb : !W
    %ta = tile.convert %ws : !W -> !A
    %tx = tile.load %x[%kk, %j] latency = 2 : !tile.view<2, bf16> -> !X
    %next = tile.mma %ta, %tx, %acc : !A, !X, !C
    scf.yield %next : !C
  }
  tile.store %r, %c[%i, %j] : !C, !tile.view<2, f32>
  tile.return
}
