// The bmm_chunk kernel parses, verifies and binds for each chunk size: the
// tiles up to the diagonal only (an scf.if around the walk along dstate),
// exact bf16 products summed in f32, one store of the tile.
// RUN: tile-opt %tilec_src/kernels/mamba2/bmm_chunk.mlir | tile-opt | FileCheck %s --check-prefix=PARSE
// RUN: tile-opt --tile-bind-params="params=CHUNK=64" --tile-expand-forms %tilec_src/kernels/mamba2/bmm_chunk.mlir | FileCheck %s --implicit-check-not="param \"" -DBM=64 -DBK=64 -DBN=64
// RUN: tile-opt --tile-bind-params="params=CHUNK=128,BLOCK_M=32,BLOCK_K=16,BLOCK_N=128" --tile-expand-forms %tilec_src/kernels/mamba2/bmm_chunk.mlir | FileCheck %s --implicit-check-not="param \"" -DBM=32 -DBK=16 -DBN=128
// RUN: tile-opt --tile-bind-params="params=CHUNK=256,BLOCK_M=64,BLOCK_K=32,XT=f32" --tile-expand-forms %tilec_src/kernels/mamba2/bmm_chunk.mlir | FileCheck %s --check-prefix=F32 --implicit-check-not="param \""

// PARSE: kernel @bmm_chunk
// PARSE: scf.if

// CHECK-LABEL: kernel @bmm_chunk
// CHECK: %[[READ:[0-9]+]] = arith.cmpi ult
// CHECK: scf.if %[[READ]] {
// CHECK: scf.for {{.*}} -> (tensor<[[BM]]x[[BK]]xf32>)
// CHECK: load %{{.*}} latency = 2 : {{.*}}<4, bf16> -> tensor<1x[[BM]]x1x[[BN]]xbf16>
// CHECK: load %{{.*}} order = [0, 2, 3, 1] latency = 2 : {{.*}}<4, bf16> -> tensor<1x1x[[BN]]x[[BK]]xbf16>
// CHECK: mma %{{.*}} : tensor<[[BM]]x[[BN]]xbf16>, tensor<[[BN]]x[[BK]]xbf16>, tensor<[[BM]]x[[BK]]xf32>
// CHECK: scf.yield
// CHECK: store %{{.*}} : tensor<1x1x1x[[BM]]x[[BK]]xf32>, {{.*}}<5, f32>
// CHECK-NEXT: }
// CHECK-NEXT: return

// F32-LABEL: kernel @bmm_chunk
// F32: mma %{{.*}} : tensor<64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>
