// REQUIRES: ptxas
// The Mamba-2 kernels' products on sm_90a (layouts path, vec variant, chunk
// 128): every one is wgmma (the 64 x 64 tiles on 8 warps: two warpgroups
// side by side along N, m64n32), none mma.sync, and within a product the
// wgmmas follow one another with no barrier; ptxas accepts the PTX.
// RUN: tilec %tilec_src/kernels/mamba2/compute_out.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_90a -o %t.out.ptx
// RUN: FileCheck %s --check-prefix=OUT < %t.out.ptx
// RUN: FileCheck %s --check-prefix=NOSYNC < %t.out.ptx
// RUN: ptxas -arch=sm_90a %t.out.ptx -o %t.out.cubin
// RUN: tilec %tilec_src/kernels/mamba2/compute_out.mlir -D CHUNK=128 -D ST=bf16 --codegen=layouts --variants=vec --emit=ptx --target=sm_90a -o %t.outbf16.ptx
// RUN: FileCheck %s --check-prefix=OUTBF16 --implicit-check-not=tf32 < %t.outbf16.ptx
// RUN: ptxas -arch=sm_90a %t.outbf16.ptx -o %t.outbf16.cubin
// RUN: tilec %tilec_src/kernels/mamba2/bmm_chunk.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_90a -o %t.bmm.ptx
// RUN: FileCheck %s --check-prefix=BMM < %t.bmm.ptx
// RUN: FileCheck %s --check-prefix=NOSYNC < %t.bmm.ptx
// RUN: ptxas -arch=sm_90a %t.bmm.ptx -o %t.bmm.cubin
// RUN: tilec %tilec_src/kernels/mamba2/fwd_pass_state.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_90a -o %t.state.ptx
// RUN: FileCheck %s --check-prefix=STATE --implicit-check-not=st.shared.b32 < %t.state.ptx
// RUN: FileCheck %s --check-prefix=NOSYNC < %t.state.ptx
// RUN: ptxas -arch=sm_90a %t.state.ptx -o %t.state.cubin
// RUN: tilec %tilec_src/kernels/mamba2/chunk_state.mlir --codegen=layouts --variants=vec --emit=ptx --target=sm_90a -o %t.chunk.ptx
// RUN: FileCheck %s --check-prefix=STATE --implicit-check-not=st.shared.b32 < %t.chunk.ptx
// RUN: FileCheck %s --check-prefix=NOSYNC < %t.chunk.ptx
// RUN: tilec %tilec_src/kernels/mamba2/chunk_state.mlir -D CHUNK=128 -D BLOCK_N=128 -D BLOCK_K=128 -D SCALED=2 --codegen=layouts --variants=vec --emit=ptx --target=sm_90a -o %t.scaled.ptx
// RUN: FileCheck %s --check-prefix=XSCALED --implicit-check-not=st.shared.b32 < %t.scaled.ptx
// RUN: FileCheck %s --check-prefix=NOSYNC < %t.scaled.ptx
// RUN: ptxas -arch=sm_90a %t.scaled.ptx -o %t.scaled.cubin

// compute_out: the state term in split bf16 (K = 64): C (bf16) arrives by
// cp.async, the f32 state's two bf16 halves are stored from registers, and
// C h_lo^T then C h_hi^T follow, four m64n32k16 each, both reading C's
// buffer (the same descriptors); then the
// column loop with one split bf16 product per step: the weights' low and
// high halves from registers (A: four 32-bit registers), x (P contiguous:
// N-major, imm-trans-b 1) from its cp.async ring, eight m64n32k16 with no
// barrier and no st.shared among them, one commit and wait for both
// halves. C B^T is bmm_chunk's, read as a tile, so no loop is nested in
// the column loop. No tf32 product is left.
// OUT-LABEL: .entry compute_out_vec(
// OUT: fence.proxy.async.shared::cta
// OUT-NEXT: bar.sync 0
// OUT-NEXT: wgmma.fence.sync.aligned
// OUT: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {{{.*}}}, [[C0:%rd[0-9]+]], %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// OUT-COUNT-3: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// OUT-NOT: wgmma.mma_async
// OUT: wgmma.commit_group.sync.aligned
// OUT-NEXT: wgmma.fence.sync.aligned
// OUT: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {{{.*}}}, [[C0]], %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// OUT-COUNT-3: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// OUT-NOT: wgmma.mma_async
// OUT: wgmma.commit_group.sync.aligned
// OUT: wgmma.fence.sync.aligned
// OUT-NOT: bar.sync
// OUT-NOT: st.shared
// OUT: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// OUT-COUNT-3: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16
// OUT-NOT: bar.sync
// OUT-NOT: st.shared
// OUT-NOT: wgmma.commit_group
// OUT: wgmma.fence.sync.aligned
// OUT-COUNT-4: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16
// OUT-NOT: bar.sync
// OUT-NOT: st.shared
// OUT: wgmma.commit_group.sync.aligned
// OUT-NEXT: wgmma.wait_group.sync.aligned 0
// OUT-NOT: wgmma.mma_async.sync.aligned.{{.*}}tf32

// compute_out with bf16 states (ST = bf16): the state arrives by 16-byte
// cp.async like C, and the state term is one bf16 product read from shared
// memory (four m64n32k16, h^T K-major: imm-trans-b 0) where the f32 state
// takes two; no tf32 product either.
// OUTBF16-LABEL: .entry compute_out_vec(
// OUTBF16: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16,
// OUTBF16: wgmma.fence.sync.aligned
// OUTBF16-COUNT-4: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// OUTBF16-NOT: wgmma.mma_async
// OUTBF16: wgmma.commit_group.sync.aligned

// bmm_chunk: C and B^T arrive by cp.async in the ring and wgmma reads them
// there (bf16, two warpgroups side by side: four m64n32k16 per step): per
// step one wait for the copies, their fence for the async proxy and one
// barrier, no st.shared of an operand, B K-major (imm-trans-b 0: B^T is
// stored with dstate contiguous), the product left pending across the next
// step's copies (wait_group 1; 0 in the last iteration), then the tile
// stored from the accumulator registers (8-byte pairs of columns).
// BMM-LABEL: .entry bmm_chunk_vec(
// BMM: cp.async.wait_group 1
// BMM-NEXT: fence.proxy.async.shared::cta
// BMM-NEXT: bar.sync 0
// BMM-NOT: st.shared
// BMM: wgmma.fence.sync.aligned
// BMM-NOT: bar.sync
// BMM: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// BMM-NOT: bar.sync
// BMM-COUNT-3: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16
// BMM-NOT: bar.sync
// BMM: wgmma.commit_group.sync.aligned
// BMM-NEXT: wgmma.wait_group.sync.aligned 1
// BMM: wgmma.wait_group.sync.aligned 0
// BMM: st.global.v2.b32

// fwd_pass_state and chunk_state (`precision = split_bf16`): per step two
// bf16 products of K = 64, x^T B_lo then x^T B_hi, four m64n32k16 each.
// x^T is M-major and B N-major (imm-trans-a and imm-trans-b 1); x^T comes
// from its cp.async buffer (both products read it through the same
// descriptors, no st.shared), each half of B is stored 16 bytes per
// st.shared (no scalar st.shared anywhere: --implicit-check-not). The two
// products are one wgmma pair: both halves stored (at offsets 8 KB apart),
// one fence and barrier, both products' wgmmas with no wait or barrier
// between them, then one wait and the barrier after.
// STATE: st.shared.v4.b32 [[[BASE:%rd[0-9]+]]+4096],
// STATE-NEXT: st.shared.v4.b32 [[[BASE]]+8192],
// STATE-NEXT: st.shared.v4.b32 [[[BASE]]+12288],
// STATE-NEXT: fence.proxy.async.shared::cta
// STATE-NEXT: bar.sync 0
// STATE-NOT: bar.sync
// STATE: wgmma.fence.sync.aligned
// STATE-NOT: bar.sync
// STATE: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {{.*}}, [[A0:%rd[0-9]+]], %rd{{[0-9]+}}, p, 1, 1, 1, 1;
// STATE-COUNT-3: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16
// STATE-NOT: wgmma.mma_async
// STATE: wgmma.commit_group.sync.aligned
// STATE-NEXT: wgmma.fence.sync.aligned
// STATE-NOT: bar.sync
// STATE: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {{.*}}, [[A0]], %rd{{[0-9]+}}, p, 1, 1, 1, 1;
// STATE-COUNT-3: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16
// STATE-NOT: wgmma.mma_async
// STATE: wgmma.commit_group.sync.aligned
// STATE-NEXT: wgmma.wait_group.sync.aligned 0
// STATE-NEXT: bar.sync 0

// NOSYNC-NOT: mma.sync

// chunk_state with the weights on x (SCALED=2, 64 x 128 x 128): B (bf16,
// N-major: imm-trans-b 1) is copied by cp.async, 16 bytes a copy, and read
// by wgmma from that buffer (no st.shared of it); (x w)^T is split and each
// half stored M-major (imm-trans-a 1) 16 bytes per st.shared at the same
// offset, so the two products (x_lo B, then x_hi B; m64n64k16, one
// warpgroup on each half of N) each have their fence and barrier before
// and their wait and barrier after, and both read through the same
// descriptors.
// XSCALED-LABEL: .entry chunk_state_vec(
// XSCALED-COUNT-8: cp.async.cg.shared.global [{{%rd[0-9]+}}+{{[0-9]+}}], [{{%rd[0-9]+}}], 16,
// XSCALED-NEXT: cp.async.commit_group
// XSCALED-NEXT: cp.async.wait_group 0
// XSCALED: ex2.approx.ftz.f32
// XSCALED: ld.shared.b32
// XSCALED: st.shared.v4.b32 [[[X:%rd[0-9]+]]],
// XSCALED-NEXT: st.shared.v4.b32 [[[X]]+4096],
// XSCALED-NEXT: st.shared.v4.b32 [[[X]]+8192],
// XSCALED-NEXT: st.shared.v4.b32 [[[X]]+12288],
// XSCALED-NEXT: fence.proxy.async.shared::cta
// XSCALED-NEXT: bar.sync 0
// XSCALED-NOT: bar.sync
// XSCALED: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, [[ADESC:%rd[0-9]+]], [[BDESC:%rd[0-9]+]], p, 1, 1, 1, 1;
// XSCALED-COUNT-7: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// XSCALED-NOT: bar.sync
// XSCALED: wgmma.commit_group.sync.aligned
// XSCALED-NEXT: wgmma.wait_group.sync.aligned 0
// XSCALED-NEXT: bar.sync 0
// XSCALED-NEXT: st.shared.v4.b32 [[[X]]],
// XSCALED-COUNT-3: st.shared.v4.b32
// XSCALED-NEXT: fence.proxy.async.shared::cta
// XSCALED-NEXT: bar.sync 0
// XSCALED-NOT: bar.sync
// XSCALED: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, [[ADESC]], [[BDESC]], p, 1, 1, 1, 1;
// XSCALED-COUNT-7: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// XSCALED-NOT: bar.sync
// XSCALED: wgmma.commit_group.sync.aligned
// XSCALED-NEXT: wgmma.wait_group.sync.aligned 0
// XSCALED-NEXT: bar.sync 0
