// REQUIRES: ptxas
// The Mamba-2 kernels with their default parameters, through the whole
// pipeline to ptxas for sm_80 and sm_90. chunk_cumsum calls libdevice
// (log1pf of its softplus), which tilec links and llc alone does not: it goes
// through tilec --emit=ptx.
// RUN: tile-opt %tilec_src/kernels/mamba2/fwd_pass_state.mlir --tile-bind-params --tile-to-llvm="sm=80" | mlir-translate --mlir-to-llvmir -o %t.state.ll
// RUN: tile-opt %tilec_src/kernels/mamba2/compute_out.mlir --tile-bind-params --tile-to-llvm="sm=80" | mlir-translate --mlir-to-llvmir -o %t.out.ll
// RUN: tile-opt %tilec_src/kernels/mamba2/chunk_state.mlir --tile-bind-params --tile-to-llvm="sm=80" | mlir-translate --mlir-to-llvmir -o %t.local.ll
// RUN: tile-opt %tilec_src/kernels/mamba2/state_passing.mlir --tile-bind-params --tile-to-llvm="sm=80" | mlir-translate --mlir-to-llvmir -o %t.pass.ll
// RUN: tile-opt %tilec_src/kernels/mamba2/bmm_chunk.mlir --tile-bind-params --tile-to-llvm="sm=80" | mlir-translate --mlir-to-llvmir -o %t.bmm.ll
// RUN: for sm in 80 90; do \
// RUN:   tilec %tilec_src/kernels/mamba2/chunk_cumsum.mlir --emit=ptx --target=sm_$sm -o %t.cumsum.$sm.ptx && \
// RUN:   %ptxas -arch=sm_$sm %t.cumsum.$sm.ptx -o %t.cumsum.$sm.cubin || exit 1; \
// RUN: done
// RUN: for k in state out local pass bmm; do \
// RUN:   for sm in 80 90; do \
// RUN:     llc -march=nvptx64 -mcpu=sm_$sm -mattr=+ptx80 %t.$k.ll -o %t.$k.$sm.ptx && \
// RUN:     %ptxas -arch=sm_$sm %t.$k.$sm.ptx -o %t.$k.$sm.cubin || exit 1; \
// RUN:   done; \
// RUN: done
// RUN: FileCheck %s --check-prefix=CUMSUM < %t.cumsum.80.ptx
// RUN: FileCheck %s --check-prefix=STATE < %t.state.80.ptx
// RUN: FileCheck %s --check-prefix=OUT < %t.out.80.ptx
// RUN: FileCheck %s --check-prefix=LOCAL < %t.local.80.ptx
// RUN: FileCheck %s --check-prefix=PASS < %t.pass.80.ptx
// RUN: FileCheck %s --check-prefix=BMM < %t.bmm.80.ptx

// CUMSUM: .entry chunk_cumsum(
// CUMSUM: bar.sync 0

// STATE: .entry fwd_pass_state(
// STATE-DAG: mma.sync.aligned.m16n8k
// STATE-DAG: ex2.approx.ftz.f32

// OUT: .entry compute_out(
// OUT-DAG: mma.sync.aligned.m16n8k
// OUT-DAG: ex2.approx.ftz.f32

// LOCAL: .entry chunk_state(
// LOCAL-DAG: mma.sync.aligned.m16n8k
// LOCAL-DAG: ex2.approx.ftz.f32

// PASS: .entry state_passing(
// PASS-NOT: mma.sync
// PASS: ex2.approx.ftz.f32

// BMM: .entry bmm_chunk(
// BMM: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BMM-NOT: ex2.approx
