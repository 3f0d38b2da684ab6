// The compute_out kernel parses, verifies and binds for each chunk size: the
// state product over dstate (split bf16), then one loop over the column
// tiles with one split product per step; no tf32 product.
// RUN: tile-opt %tilec_src/kernels/mamba2/compute_out.mlir | tile-opt | FileCheck %s --check-prefix=PARSE
// RUN: tile-opt --tile-bind-params="params=CHUNK=64" --tile-expand-forms %tilec_src/kernels/mamba2/compute_out.mlir | FileCheck %s --implicit-check-not="param \"" --implicit-check-not=tf32 -DBM=64 -DBK=64 -DBP=64 -DBN=64
// RUN: tile-opt --tile-bind-params="params=CHUNK=128,BLOCK_M=32,BLOCK_K=16,BLOCK_P=32,BLOCK_N=128" --tile-expand-forms %tilec_src/kernels/mamba2/compute_out.mlir | FileCheck %s --implicit-check-not="param \"" --implicit-check-not=tf32 -DBM=32 -DBK=16 -DBP=32 -DBN=128
// RUN: tile-opt --tile-bind-params="params=CHUNK=256,BLOCK_M=128,BLOCK_K=64" --tile-expand-forms %tilec_src/kernels/mamba2/compute_out.mlir | FileCheck %s --implicit-check-not="param \"" --implicit-check-not=tf32 -DBM=128 -DBK=64 -DBP=64 -DBN=64

// PARSE: kernel @compute_out
// PARSE: where

// CHECK-LABEL: kernel @compute_out
// CHECK: scf.for {{.*}} -> (tensor<[[BM]]x[[BP]]xf32>)
// The state (f32) multiplies C in split bf16: the low half's product,
// then the high half's, both reading the same bf16 C.
// CHECK: %[[SHI:[0-9]+]] = {{(tile\.)?}}convert %{{.*}} : tensor<[[BN]]x[[BP]]xf32> -> tensor<[[BN]]x[[BP]]xbf16>
// CHECK: %[[SLO:[0-9]+]] = {{(tile\.)?}}convert %{{.*}} : tensor<[[BN]]x[[BP]]xf32> -> tensor<[[BN]]x[[BP]]xbf16>
// CHECK: %[[SSUM:[0-9]+]] = {{(tile\.)?}}mma %[[C:[0-9]+]], %[[SLO]], %{{.*}} : tensor<[[BM]]x[[BN]]xbf16>, tensor<[[BN]]x[[BP]]xbf16>, tensor<[[BM]]x[[BP]]xf32>
// CHECK-NEXT: {{(tile\.)?}}mma %[[C]], %[[SHI]], %[[SSUM]] : tensor<[[BM]]x[[BN]]xbf16>, tensor<[[BN]]x[[BP]]xbf16>, tensor<[[BM]]x[[BP]]xf32>
// The column loop reads bmm_chunk's C B^T tile: no product nested in it.
// CHECK: scf.for {{.*}} -> (tensor<[[BM]]x[[BP]]xf32>)
// CHECK-NOT: scf.for
// CHECK: load %{{.*}} latency = 2 : {{.*}}<5, f32> -> tensor<1x1x1x[[BM]]x[[BK]]xf32>
// CHECK-NOT: scf.for
// CHECK: arith.cmpi sge, %{{.*}} : tensor<[[BM]]x[[BK]]xi32>
// Without a seq_idx (an empty one: its extent is the flag) a column step
// reads and compares no sequence: both happen in the flag's branches.
// CHECK: scf.if %[[PACKED:[0-9]+]] -> (tensor<[[BK]]xi32>) {
// CHECK-NEXT: load %{{.*}} : <2, i32>
// CHECK: scf.if %[[PACKED]] -> (tensor<[[BM]]x[[BK]]xi1>) {
// CHECK: arith.cmpi eq
// CHECK-NEXT: arith.andi
// CHECK: } else {
// CHECK-NEXT: scf.yield %{{.*}} : tensor<[[BM]]x[[BK]]xi1>
// The causal mask applies to the exponent, before exp2.
// CHECK: %[[MASKED:[0-9]+]] = {{(tile\.)?}}where %{{.*}} : tensor<[[BM]]x[[BK]]xi1>, tensor<[[BM]]x[[BK]]xf32>
// CHECK-NEXT: exp2 %[[MASKED]] : tensor<[[BM]]x[[BK]]xf32>
// The weights (f32) multiply x in split bf16: the low half's product,
// then the high half's, both reading the same bf16 x.
// CHECK: %[[HI:[0-9]+]] = {{(tile\.)?}}convert %[[W:[0-9]+]] : tensor<[[BM]]x[[BK]]xf32> -> tensor<[[BM]]x[[BK]]xbf16>
// CHECK: %[[LO:[0-9]+]] = {{(tile\.)?}}convert %{{.*}} : tensor<[[BM]]x[[BK]]xf32> -> tensor<[[BM]]x[[BK]]xbf16>
// CHECK: %[[SUM:[0-9]+]] = {{(tile\.)?}}mma %[[LO]], %[[X:[0-9]+]], %{{.*}} : tensor<[[BM]]x[[BK]]xbf16>, tensor<[[BK]]x[[BP]]xbf16>, tensor<[[BM]]x[[BP]]xf32>
// CHECK-NEXT: {{(tile\.)?}}mma %[[HI]], %[[X]], %[[SUM]] : tensor<[[BM]]x[[BK]]xbf16>, tensor<[[BK]]x[[BP]]xbf16>, tensor<[[BM]]x[[BP]]xf32>
// CHECK-NOT: mma
// CHECK: store %{{.*}} : tensor<1x[[BM]]x1x[[BP]]xf32>, {{.*}}<4, f32>
