// REQUIRES: ptxas
// The Mamba-2 kernels (the library's chunk-128 instance of the three-kernel
// forward, the others with their defaults) through the layout-driven code
// generator, vec variant: ptxas accepts each for sm_80, sm_90 and sm_90a, and
// the PTX has what docs/codegen-layouts.md promises.
// RUN: for k in chunk_cumsum fwd_pass_state compute_out; do \
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
// RUN: tilec %tilec_src/kernels/mamba2/compute_out.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_80 | FileCheck %s --check-prefix=OUT
// RUN: tilec %tilec_src/kernels/mamba2/compute_out.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_90 | FileCheck %s --check-prefix=OUT
// RUN: tilec %tilec_src/kernels/mamba2/compute_out.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_90 | FileCheck %s --check-prefix=ASYNC
// RUN: tilec %tilec_src/kernels/mamba2/fwd_pass_state.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_80 | FileCheck %s --check-prefix=STATE
// RUN: tilec %tilec_src/kernels/mamba2/fwd_pass_state.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_90 | FileCheck %s --check-prefix=STATE
// RUN: tilec %tilec_src/kernels/mamba2/chunk_cumsum.mlir -D CHUNK=128 --codegen=layouts --variants=vec --emit=ptx --target=sm_80 | FileCheck %s --check-prefix=CUMSUM

// compute_out: 16-byte loads; the state term and the output product are
// tf32 m16n8k8 (32 per warp each), the C B^T product of the inner loop bf16
// m16n8k16: its 16 mma.sync per warp follow one another with no barrier.
// Their operands come out of the staging buffer by ldmatrix.x4.
// OUT-LABEL: .entry compute_out_vec(
// OUT: ld.global.v4.b32
// OUT: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// OUT: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: bar.sync
// OUT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// OUT-NOT: mma.sync.aligned.m16n8k16

// compute_out's mma operands come global -> shared by 16-byte cp.async
// (tilegpu-pipeline); the C B^T loop's operands through a ring (B has
// latency 2: the body waits with one group pending), then into the
// fragments from the buffer.
// ASYNC-LABEL: .entry compute_out_vec(
// ASYNC: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// ASYNC: cp.async.commit_group;
// ASYNC: cp.async.wait_group 1;
// ASYNC-NEXT: bar.sync 0;
// ASYNC: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// fwd_pass_state: 16-byte loads and the state product on mma.sync.
// STATE-LABEL: .entry fwd_pass_state_vec(
// STATE-DAG: ld.global.v4.b32
// STATE-DAG: mma.sync.aligned.m16n8k

// chunk_cumsum: the scan along the chunk.
// CUMSUM-LABEL: .entry chunk_cumsum_vec(
// CUMSUM: shfl.sync.up
