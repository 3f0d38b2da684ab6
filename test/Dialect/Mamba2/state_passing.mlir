// The state_passing kernel parses, verifies and binds for each chunk size;
// its loop takes two chunks a step and carries the state and the next two
// chunks' inputs, each loaded after the update of the chunk two before it,
// and the sequence (seq_idx) at the end of the chunk before and of the two
// chunks: a chunk that ends in another sequence drops the decayed state.
// RUN: tile-opt %tilec_src/kernels/mamba2/state_passing.mlir | tile-opt | FileCheck %s --check-prefix=PARSE
// RUN: tile-opt --tile-bind-params="params=CHUNK=64" --tile-expand-forms %tilec_src/kernels/mamba2/state_passing.mlir | FileCheck %s --implicit-check-not="param \"" -DBP=16 -DBN=32
// RUN: tile-opt --tile-bind-params="params=CHUNK=128,BLOCK_P=8,BLOCK_N=64" --tile-expand-forms %tilec_src/kernels/mamba2/state_passing.mlir | FileCheck %s --implicit-check-not="param \"" -DBP=8 -DBN=64
// RUN: tile-opt --tile-bind-params="params=CHUNK=256,BLOCK_P=64,BLOCK_N=128" --tile-expand-forms %tilec_src/kernels/mamba2/state_passing.mlir | FileCheck %s --implicit-check-not="param \"" -DBP=64 -DBN=128

// PARSE: kernel @state_passing
// PARSE: scf.for

// CHECK-LABEL: kernel @state_passing
// CHECK-SAME: %{{.*}}: i32
// CHECK: scf.if %{{.*}} -> (tensor<[[BP]]x[[BN]]xf32>)
// CHECK: load %{{.*}}<5, f32> -> tensor<1x1x1x[[BP]]x[[BN]]xf32>
// CHECK: load %{{.*}}<4, f32> -> tensor<1x1x1x1xf32>
// CHECK: load %{{.*}}<5, f32> -> tensor<1x1x1x[[BP]]x[[BN]]xf32>
// CHECK: load %{{.*}}<4, f32> -> tensor<1x1x1x1xf32>
// CHECK: scf.for %[[C:[a-z0-9_]+]] = %{{.*}} step %c2 iter_args(%[[H:[a-z0-9_]+]] = %{{.*}}, %[[LE:[a-z0-9_]+]] = %{{.*}}, %[[GE:[a-z0-9_]+]] = %{{.*}}, %[[LO:[a-z0-9_]+]] = %{{.*}}, %[[GO:[a-z0-9_]+]] = %{{.*}}, %[[SP:[a-z0-9_]+]] = %{{.*}}, %[[SE:[a-z0-9_]+]] = %{{.*}}, %[[SO:[a-z0-9_]+]] = %{{.*}}) -> (tensor<[[BP]]x[[BN]]xf32>, tensor<[[BP]]x[[BN]]xf32>, tensor<1xf32>, tensor<[[BP]]x[[BN]]xf32>, tensor<1xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>)
// The even chunk: store, update with its inputs, then load the chunk two
// ahead...
// CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %[[C]], {{.*}} : tensor<1x1x1x[[BP]]x[[BN]]xf32>, <5, f32>
// CHECK: tile.exp2 %[[GE]] : tensor<1xf32>
// CHECK: arith.cmpi eq, %[[SE]], %[[SP]] : tensor<1xi32>
// CHECK: tile.where
// CHECK: arith.mulf %[[H]], %{{.*}} : tensor<[[BP]]x[[BN]]xf32>
// CHECK: %[[HO:[0-9]+]] = arith.addf %{{.*}}, %[[LE]] : tensor<[[BP]]x[[BN]]xf32>
// CHECK: tile.load %{{.*}}<5, f32> -> tensor<1x1x1x[[BP]]x[[BN]]xf32>
// CHECK: tile.load %{{.*}}<4, f32> -> tensor<1x1x1x1xf32>
// ... then the odd chunk the same way.
// CHECK: tile.store %{{.*}} : tensor<1x1x1x[[BP]]x[[BN]]xf32>, <5, f32>
// CHECK: tile.exp2 %[[GO]] : tensor<1xf32>
// CHECK: arith.cmpi eq, %[[SO]], %[[SE]] : tensor<1xi32>
// CHECK: tile.where
// CHECK: arith.mulf %[[HO]], %{{.*}} : tensor<[[BP]]x[[BN]]xf32>
// CHECK: %[[HN:[0-9]+]] = arith.addf %{{.*}}, %[[LO]] : tensor<[[BP]]x[[BN]]xf32>
// CHECK: tile.load %{{.*}}<5, f32> -> tensor<1x1x1x[[BP]]x[[BN]]xf32>
// CHECK: tile.load %{{.*}}<4, f32> -> tensor<1x1x1x1xf32>
// CHECK: tile.load %{{.*}}<2, i32> -> tensor<1x1xi32>
// CHECK: scf.yield %[[HN]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SO]], %{{.*}}, %{{.*}} :
// CHECK: store %{{.*}} : tensor<1x1x[[BP]]x[[BN]]xf32>, {{.*}}<4, f32>
