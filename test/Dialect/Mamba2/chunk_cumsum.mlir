// The chunk_cumsum kernel parses, verifies and binds for each chunk size.
// RUN: tile-opt %tilec_src/kernels/mamba2/chunk_cumsum.mlir | tile-opt | FileCheck %s --check-prefix=PARSE
// RUN: tile-opt --tile-bind-params="params=CHUNK=64" --tile-expand-forms %tilec_src/kernels/mamba2/chunk_cumsum.mlir | FileCheck %s --implicit-check-not="param \"" -DCHUNK=64 -DBH=8
// RUN: tile-opt --tile-bind-params="params=CHUNK=128,BLOCK_H=4" --tile-expand-forms %tilec_src/kernels/mamba2/chunk_cumsum.mlir | FileCheck %s --implicit-check-not="param \"" -DCHUNK=128 -DBH=4
// RUN: tile-opt --tile-bind-params="params=CHUNK=256,BLOCK_H=16" --tile-expand-forms %tilec_src/kernels/mamba2/chunk_cumsum.mlir | FileCheck %s --implicit-check-not="param \"" -DCHUNK=256 -DBH=16

// PARSE: kernel @chunk_cumsum
// PARSE: cumsum {{.*}} axis = 0 : tensor<?x?xf32, #tile.dims<[CHUNK, BLOCK_H]>>

// CHECK-LABEL: kernel @chunk_cumsum
// CHECK-SAME: params = {BLOCK_H = [[BH]] : i64, CHUNK = [[CHUNK]] : i64, DT = f32}
// CHECK: load %{{.*}}<3, f32> -> tensor<1x[[CHUNK]]x[[BH]]xf32>
// CHECK: cumsum %{{.*}} axis = 0 : tensor<[[CHUNK]]x[[BH]]xf32>
// CHECK: store %{{.*}} order = [0, 2, 3, 1] : tensor<1x1x[[CHUNK]]x[[BH]]xf32>, {{.*}}<4, f32>
