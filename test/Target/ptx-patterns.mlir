// REQUIRES: ptxas
// The instructions each lowering pattern must reach in LLVM IR and PTX, on
// the GPU test kernels (test/gpu/kernels), which run on the H200 against the
// interpreter.

// mma: bf16 and f16 through m16n8k16, tf32 through m16n8k8 (tf32 operands
// rounded with cvt.rna), operands staged in shared memory behind barriers;
// 64-bit bounds checks on the global accesses.
// RUN: tilec %tilec_src/test/gpu/kernels/matmul.mlir --emit=ptx --target=sm_80 -o - | FileCheck %s --check-prefix=MMA
// MMA: .target sm_80
// MMA-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// MMA-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// MMA-DAG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// MMA-DAG: cvt.rna.tf32.f32
// MMA-DAG: cvt.rn.bf16x2.f32
// MMA-DAG: bar.sync
// MMA-DAG: ld.shared
// MMA-DAG: setp.{{[gl][te]}}.u64
// MMA-DAG: ld.global
// MMA-DAG: st.global

// exp2 as ex2.approx, where as a select, float-to-int conversion truncating,
// bf16 rounding to nearest even.
// RUN: tilec %tilec_src/test/gpu/kernels/causal_decay.mlir --emit=ptx --target=sm_90 -o - | FileCheck %s --check-prefix=DECAY
// DECAY: .target sm_90
// DECAY-DAG: ex2.approx.ftz.f32
// DECAY-DAG: selp.f32
// DECAY-DAG: cvt.rzi.s32.f32
// DECAY-DAG: cvt.rn.bf16.f32

// The same kernel as LLVM IR: program ids, thread ids and CTA barriers come
// from NVVM intrinsics.
// RUN: tilec %tilec_src/test/gpu/kernels/causal_decay.mlir --emit=llvm-ir --target=sm_90 -o - | FileCheck %s --check-prefix=LLIR
// LLIR-DAG: call {{.*}} @llvm.nvvm.read.ptx.sreg.ctaid.x()
// LLIR-DAG: call {{.*}} @llvm.nvvm.read.ptx.sreg.tid.x()
// LLIR-DAG: call void @llvm.nvvm.barrier.cta.sync.aligned.all(

// Scans and reductions exchange through shared memory behind barriers; max
// and min propagate NaN, as the dialect says.
// RUN: tilec %tilec_src/test/gpu/kernels/scan_reduce.mlir --emit=ptx --target=sm_80 -o - | FileCheck %s --check-prefix=SCAN
// SCAN-DAG: st.shared
// SCAN-DAG: bar.sync
// SCAN-DAG: ld.shared
// SCAN-DAG: max.NaN.f32
// SCAN-DAG: min.NaN.f32
