// REQUIRES: ptxas, zstd
// kernels/examples/gemm.mlir (the GEMM of bench/gemm_bench and the gemm_*
// GPU cases): ptxas accepts both kernels, generic and vec, for sm_80, sm_90
// and sm_90a with either code generator, and their products are bf16
// mma.sync with f32 accumulators.
// DEFINE: %{gemm} = %tilec_src/kernels/examples/gemm.mlir
// DEFINE: %{list} = python3 %tilec_src/test/Target/Inputs/list-fatbin.py

// RUN: tilec %{gemm} --codegen=layouts --emit=fatbin -o %t.fatbin
// RUN: %{list} %t.fatbin | FileCheck %s --check-prefix=IMAGES
// IMAGES: elf sm_80 kernels: gemm gemm_bf16 gemm_bf16_vec gemm_vec
// IMAGES-NEXT: elf sm_90 kernels: gemm gemm_bf16 gemm_bf16_vec gemm_vec
// IMAGES-NEXT: elf sm_90a kernels: gemm gemm_bf16 gemm_bf16_vec gemm_vec
// IMAGES-NEXT: ptx sm_80 entries: gemm gemm_bf16 gemm_vec gemm_bf16_vec

// RUN: tilec %{gemm} --emit=ptx --target=sm_80 | FileCheck %s
// RUN: tilec %{gemm} --emit=ptx --target=sm_90a --variants=vec | FileCheck %s --check-prefix=VEC
// RUN: tilec %{gemm} --codegen=layouts --emit=ptx --target=sm_80 --variants=vec | FileCheck %s --check-prefix=LAYOUTS
// RUN: tilec %{gemm} --codegen=layouts --emit=ptx --target=sm_90a --variants=vec -o %t.ptx
// RUN: FileCheck %s --check-prefix=WGMMA < %t.ptx
// RUN: FileCheck %s --check-prefix=NOSYNC < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS
// CHECK-LABEL: .entry gemm(
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-LABEL: .entry gemm_bf16(
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: cvt.rn.bf16{{(x2)?}}.f32
// VEC: .target sm_90a
// VEC-LABEL: .entry gemm_vec(
// VEC: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// VEC-LABEL: .entry gemm_bf16_vec(
// The layouts path's vec variant: the operands by 16-byte cp.async into
// shared memory (tilegpu-pipeline), mma.sync on registers.
// LAYOUTS-LABEL: .entry gemm_vec(
// LAYOUTS-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// LAYOUTS-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// The fragments are read from the swizzled ring by ldmatrix (A plain, B
// .trans), with no scalar ld.shared.
// LAYOUTS-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// LAYOUTS-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// LAYOUTS-NOT: ld.shared.b16
// LAYOUTS-LABEL: .entry gemm_bf16_vec(
// On sm_90a, wgmma: per k-step of the 128 x 128 x 32 tile one m64n128k16
// per warpgroup (two k-steps) with no barrier between them, B N-major
// (imm-trans-b 1), both operands read by their descriptors straight from
// the stages of the cp.async ring (latency 3: four stages, and a fifth so
// that a product may stay in flight), no st.shared of an operand. In
// block order the loop's head waits for this step's copies, fences them
// for the async proxy and passes the one barrier of the step; the next
// copies are issued; the group is committed and one left pending
// (wait_group 1), all waited for in the last iteration, which runs after
// the loop as a copy of its body that waits for every product. ptxas
// neither injects waits of its own (C7517) nor serializes the products
// (C7514, C7515). No mma.sync anywhere.
// WGMMA-LABEL: .entry gemm_vec(
// WGMMA: cp.async.wait_group 2
// WGMMA-NEXT: fence.proxy.async.shared::cta
// WGMMA-NEXT: bar.sync 0
// WGMMA-NOT: bar.sync
// WGMMA-NOT: st.shared
// WGMMA: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// WGMMA-NOT: bar.sync
// WGMMA-NOT: st.shared
// WGMMA: wgmma.fence.sync.aligned
// WGMMA-NOT: bar.sync
// WGMMA: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 1;
// WGMMA-NOT: bar.sync
// WGMMA: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// WGMMA-NOT: bar.sync
// WGMMA: wgmma.commit_group.sync.aligned
// WGMMA-NEXT: wgmma.wait_group.sync.aligned 1
// WGMMA-NEXT: setp
// WGMMA-NEXT: @%p{{[0-9]+}} bra
// WGMMA-NEXT: wgmma.wait_group.sync.aligned 0
// The last iteration: no copies left to issue.
// WGMMA: cp.async.wait_group 2
// WGMMA-NEXT: fence.proxy.async.shared::cta
// WGMMA-NEXT: bar.sync 0
// WGMMA-NOT: cp.async.cg
// WGMMA: wgmma.mma_async.sync.aligned.m64n128k16
// WGMMA: wgmma.mma_async.sync.aligned.m64n128k16
// WGMMA: wgmma.commit_group.sync.aligned
// WGMMA-NEXT: wgmma.wait_group.sync.aligned 0
// After it the accumulator is stored from its registers, pairs of
// columns per thread, with no trip through shared memory.
// WGMMA-NOT: st.shared
// WGMMA-NOT: bar.sync
// WGMMA: st.global.v2.b32
// WGMMA-NOT: st.shared
// WGMMA-LABEL: .entry gemm_bf16_vec(
// WGMMA: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// NOSYNC-NOT: mma.sync
// PTXAS-NOT: C75{{[0-9]+}}
// PTXAS: Used {{[0-9]+}} registers
