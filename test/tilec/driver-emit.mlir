// Each --emit kind on kernels/examples/scale.mlir, through the lowering.

// RUN: tilec %tilec_src/kernels/examples/scale.mlir -D BLOCK=256 | FileCheck %s --check-prefix=TILE
// TILE: tile.kernel @scale
// TILE-SAME: BLOCK = 256

// RUN: tilec %tilec_src/kernels/examples/scale.mlir --emit=llvm-dialect | FileCheck %s --check-prefix=DIALECT
// DIALECT: llvm.func @scale(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: f32)
// DIALECT-SAME: tile.num_warps = 4 : i32

// RUN: tilec %tilec_src/kernels/examples/scale.mlir --emit=llvm-ir | FileCheck %s --check-prefix=IR
// IR: target triple = "nvptx64-nvidia-cuda"
// IR: define ptx_kernel void @scale(ptr addrspace(1)

// RUN: tilec %tilec_src/kernels/examples/scale.mlir --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: tilec %tilec_src/kernels/examples/scale.mlir --emit=ptx --target=sm_90a | FileCheck %s --check-prefix=PTX90A
// PTX: .target sm_80
// PTX: .visible .entry scale(
// PTX90A: .target sm_90a
// PTX90A: .visible .entry scale(

// RUN: tilec %tilec_src/kernels/examples/scale.mlir --emit=ptx --kernel-suffix=_v2 | FileCheck %s --check-prefix=SUFFIX
// SUFFIX: .visible .entry scale_v2(
