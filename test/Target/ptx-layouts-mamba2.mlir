// REQUIRES: ptxas
// The Mamba-2 kernels (the library's chunk-128 instance of the three-kernel
// forward, the others with their defaults) through the layout-driven code
// generator, vec variant: ptxas accepts each for sm_80, sm_90 and sm_90a, and
// the PTX has what docs/codegen-layouts.md promises.
// RUN: for k in chunk_cumsum fwd_pass_state bmm_chunk compute_out; do \
// RUN:   for t in sm_80 sm_90 sm_90a; do \
// RUN:     tilec %tilec_src/kernels/mamba2/$k.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=cubin --target=$t -o %t.$k.$t.cubin || exit 1; \
// RUN:   done; \
// RUN:   tilec %tilec_src/kernels/mamba2/$k.mlir -D CHUNK=128 --codegen=layouts --emit=cubin --target=sm_80 -o %t.$k.generic.cubin || exit 1; \
// RUN: done
// RUN: for k in chunk_state state_passing state_update; do \
// RUN:   for t in sm_80 sm_90 sm_90a; do \
// RUN:     tilec %tilec_src/kernels/mamba2/$k.mlir --codegen=layouts --variants=vec --emit=cubin --target=$t -o %t.$k.$t.cubin || exit 1; \
// RUN:   done; \
// RUN: done
// RUN: tilec %tilec_src/kernels/mamba2/compute_out.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_80 | FileCheck %s --check-prefix=OUT --implicit-check-not=tf32
// RUN: tilec %tilec_src/kernels/mamba2/compute_out.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_90 | FileCheck %s --check-prefix=OUT --implicit-check-not=tf32
// RUN: tilec %tilec_src/kernels/mamba2/compute_out.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_90 | FileCheck %s --check-prefix=ASYNC
// RUN: tilec %tilec_src/kernels/mamba2/bmm_chunk.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_80 | FileCheck %s --check-prefix=BMM
// RUN: tilec %tilec_src/kernels/mamba2/fwd_pass_state.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_80 | FileCheck %s --check-prefix=STATE
// RUN: tilec %tilec_src/kernels/mamba2/fwd_pass_state.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_90 | FileCheck %s --check-prefix=STATE
// RUN: tilec %tilec_src/kernels/mamba2/chunk_cumsum.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_80 | FileCheck %s --check-prefix=CUMSUM

// compute_out: the state term is split bf16: each half of the f32 state
// (16-byte loads) reaches its B fragments through shared memory (ldmatrix
// between two barriers), then 16 m16n8k16 per warp and half, with C's
// fragments (C by cp.async) shared by both; C B^T is bmm_chunk's, read as
// a tile. The output product is split bf16 too: x's fragments come from
// its ring by ldmatrix.trans, each half of the weights reaches its A
// fragment through shared memory, then its 16 m16n8k16 per warp follow
// one another with no barrier. No tf32 product is left.
// OUT-LABEL: .entry compute_out_vec(
// OUT-COUNT-8: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// OUT-NEXT: bar.sync
// OUT-NEXT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-COUNT-15: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-COUNT-8: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// OUT-NEXT: bar.sync
// OUT-NEXT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-COUNT-15: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT: cp.async.cg.shared.global
// OUT: ld.global.v4.b32
// OUT: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// OUT: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// OUT: bar.sync
// OUT-NEXT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT-COUNT-15: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// OUT: bar.sync
// OUT-NEXT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT-COUNT-15: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: mma.sync

// compute_out's column loop reads its operands global -> shared by 16-byte
// cp.async (tilegpu-pipeline) through a ring (latency 2: the body waits with
// one group pending).
// ASYNC-LABEL: .entry compute_out_vec(
// ASYNC: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// ASYNC: cp.async.commit_group;
// ASYNC: cp.async.wait_group 1;
// ASYNC-NEXT: bar.sync 0;

// bmm_chunk: C and B^T by 16-byte cp.async into the ring, the ring's wait
// and barrier, the bf16 product m16n8k16 (16 per warp, one after another
// with no barrier; the fragments come from the ring), then the next step's
// copies (after the products: both operands come from the ring), the f32
// tile stored from the accumulator registers (8-byte pairs of columns).
// BMM-LABEL: .entry bmm_chunk_vec(
// BMM: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// BMM: cp.async.wait_group 1;
// BMM-NEXT: bar.sync 0;
// BMM: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BMM-NOT: bar.sync
// BMM-COUNT-15: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BMM-NOT: mma.sync
// BMM: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// BMM: st.global.v2.b32
// BMM-NOT: mma.sync

// fwd_pass_state: 16-byte loads and the state product on mma.sync.
// STATE-LABEL: .entry fwd_pass_state_vec(
// STATE-DAG: ld.global.v4.b32
// STATE-DAG: mma.sync.aligned.m16n8k

// chunk_cumsum: the scan along the chunk.
// CUMSUM-LABEL: .entry chunk_cumsum_vec(
// CUMSUM: shfl.sync.up
