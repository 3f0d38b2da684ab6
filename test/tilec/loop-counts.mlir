// REQUIRES: ptxas
// scripts/loop-counts: the instructions of each kernel's hot loop in PTX or
// SASS. Here the k-step of kernels/examples/gemm.mlir's mma.sync path
// (sm_90, vec variant): the default 128 x 128 x 32 tile with 4 warps, two
// CTAs per SM (kernels/examples/CMakeLists.txt) issues 64 mma.sync and 16
// ldmatrix.x4 per warp and k-step (64 x 64 per warp, 32 wide) behind one
// barrier; the 256 x 128 x 64 candidate with 8 warps and the 128 x 128 x 64
// one with 4 warps 128 mma.sync and 32 ldmatrix.x4 (64 wide), the 4-warp
// CTA's threads copying 16 runs of 16 bytes each instead of 12.
// DEFINE: %{gemm} = %tilec_src/kernels/examples/gemm.mlir
// DEFINE: %{count} = python3 %tilec_src/scripts/loop-counts

// RUN: tilec %{gemm} -D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=32 -D OCC=2 -D WARPS=4 --codegen=layouts --variants=vec --emit=ptx --target=sm_90 -o %t.default.ptx
// RUN: %{count} %t.default.ptx | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-LABEL: gemm_vec: loop of
// DEFAULT-SAME: mma=64 ldmatrix=16 cp.async=8 barrier=1
// DEFAULT-LABEL: gemm_bf16_vec: loop of
// DEFAULT-SAME: mma=64 ldmatrix=16 cp.async=8 barrier=1

// RUN: tilec %{gemm} -D BLOCK_M=256 -D BLOCK_N=128 -D BLOCK_K=64 --codegen=layouts --variants=vec --emit=ptx --target=sm_90 -o %t.w8.ptx
// RUN: %{count} %t.w8.ptx | FileCheck %s --check-prefix=W8
// W8-LABEL: gemm_vec: loop of
// W8-SAME: mma=128 ldmatrix=32 cp.async=12 barrier=1
// W8-LABEL: gemm_bf16_vec: loop of
// W8-SAME: mma=128 ldmatrix=32 cp.async=12 barrier=1

// RUN: sed 's/latency = 3/latency = 2/' %{gemm} > %t.w4.mlir
// RUN: tilec %t.w4.mlir -D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=64 -D OCC=2 -D WARPS=4 --codegen=layouts --variants=vec --emit=ptx --target=sm_90 -o %t.w4.ptx
// RUN: FileCheck %s --check-prefix=W4-PTX < %t.w4.ptx
// RUN: %{count} %t.w4.ptx | FileCheck %s --check-prefix=W4
// W4-PTX-LABEL: .entry gemm_vec(
// W4-PTX: .maxntid 128, 1, 1
// W4-PTX-NEXT: .minnctapersm 2
// W4-LABEL: gemm_vec: loop of
// W4-SAME: mma=128 ldmatrix=32 cp.async=16 barrier=1

// A cuobjdump -sass listing: predicated instructions count, the loop is the
// stretch from .L_x_1 back to the branch to it.
// RUN: %{count} %S/Inputs/loop-counts.sass | FileCheck %s --check-prefix=SASS
// SASS-LABEL: gemm_vec: loop of 8 instructions:
// SASS-SAME: mma=1 ldmatrix=1 ld.shared=1 cp.async=1 barrier=1 compare=1
// SASS-LABEL: gemm_bf16_vec: no loop

// A file with no kernel is an error.
// RUN: not %{count} %s 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: no kernel found
