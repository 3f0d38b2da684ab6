// The state_passing kernel parses, verifies and binds for each chunk size;
// its loop takes four chunks a step and carries the state, the sequence
// (seq_idx) at the end of the chunk before, and the next four chunks'
// inputs (local block, decay exponent, sequence at the chunk's end), each
// loaded after the update of the chunk four before it: a chunk that ends in
// another sequence than the one before drops the decayed state.
// RUN: tile-opt %tilec_src/kernels/mamba2/state_passing.mlir | tile-opt | FileCheck %s --check-prefix=PARSE
// RUN: tile-opt --tile-bind-params="params=CHUNK=64" --tile-expand-forms %tilec_src/kernels/mamba2/state_passing.mlir | FileCheck %s --implicit-check-not="param \"" -DBP=16 -DBN=32
// RUN: tile-opt --tile-bind-params="params=CHUNK=128,BLOCK_P=8,BLOCK_N=64" --tile-expand-forms %tilec_src/kernels/mamba2/state_passing.mlir | FileCheck %s --implicit-check-not="param \"" -DBP=8 -DBN=64
// RUN: tile-opt --tile-bind-params="params=CHUNK=256,BLOCK_P=64,BLOCK_N=128" --tile-expand-forms %tilec_src/kernels/mamba2/state_passing.mlir | FileCheck %s --implicit-check-not="param \"" -DBP=64 -DBN=128

// PARSE: kernel @state_passing
// PARSE: scf.for

// CHECK-LABEL: kernel @state_passing
// CHECK-SAME: %{{.*}}: i32
// CHECK: scf.if %{{.*}} -> (tensor<[[BP]]x[[BN]]xf32>)
// CHECK-COUNT-4: load %{{.*}}<5, f32> -> tensor<1x1x1x[[BP]]x[[BN]]xf32>
// CHECK: scf.for %[[C:[a-z0-9_]+]] = %{{.*}} step %c4 iter_args(%[[H:[a-z0-9_]+]] = %{{.*}}, %[[SP:[a-z0-9_]+]] = %{{.*}}, %[[LA:[a-z0-9_]+]] = %{{.*}}, %[[GA:[a-z0-9_]+]] = %{{.*}}, %[[SA:[a-z0-9_]+]] = %{{.*}}, %[[LB:[a-z0-9_]+]] = %{{.*}}, %[[GB:[a-z0-9_]+]] = %{{.*}}, %[[SB:[a-z0-9_]+]] = %{{.*}}, %[[LC:[a-z0-9_]+]] = %{{.*}}, %[[GC:[a-z0-9_]+]] = %{{.*}}, %[[SC:[a-z0-9_]+]] = %{{.*}}, %[[LD:[a-z0-9_]+]] = %{{.*}}, %[[GD:[a-z0-9_]+]] = %{{.*}}, %[[SD:[a-z0-9_]+]] = %{{.*}}) -> (tensor<[[BP]]x[[BN]]xf32>, tensor<1xi32>, tensor<[[BP]]x[[BN]]xf32>, tensor<1xf32>, tensor<1xi32>, tensor<[[BP]]x[[BN]]xf32>, tensor<1xf32>, tensor<1xi32>, tensor<[[BP]]x[[BN]]xf32>, tensor<1xf32>, tensor<1xi32>, tensor<[[BP]]x[[BN]]xf32>, tensor<1xf32>, tensor<1xi32>)
// Chunk c: store, update with its inputs, then load the chunk four ahead...
// CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %[[C]], {{.*}} : tensor<1x1x1x[[BP]]x[[BN]]xf32>, <5, f32>
// CHECK: tile.exp2 %[[GA]] : tensor<1xf32>
// CHECK: arith.cmpi eq, %[[SA]], %[[SP]] : tensor<1xi32>
// CHECK: tile.where
// CHECK: arith.mulf %[[H]], %{{.*}} : tensor<[[BP]]x[[BN]]xf32>
// CHECK: %[[HB:[0-9]+]] = arith.addf %{{.*}}, %[[LA]] : tensor<[[BP]]x[[BN]]xf32>
// CHECK: tile.load %{{.*}}<5, f32> -> tensor<1x1x1x[[BP]]x[[BN]]xf32>
// CHECK: tile.load %{{.*}}<4, f32> -> tensor<1x1x1x1xf32>
// CHECK: tile.load %{{.*}}<2, i32> -> tensor<1x1xi32>
// ... then chunks c + 1, c + 2 and c + 3 the same way, each on the sequence
// of the chunk before.
// CHECK: tile.store %{{.*}} : tensor<1x1x1x[[BP]]x[[BN]]xf32>, <5, f32>
// CHECK: tile.exp2 %[[GB]] : tensor<1xf32>
// CHECK: arith.cmpi eq, %[[SB]], %[[SA]] : tensor<1xi32>
// CHECK: arith.mulf %[[HB]], %{{.*}} : tensor<[[BP]]x[[BN]]xf32>
// CHECK: %[[HC:[0-9]+]] = arith.addf %{{.*}}, %[[LB]] : tensor<[[BP]]x[[BN]]xf32>
// CHECK: tile.store %{{.*}} : tensor<1x1x1x[[BP]]x[[BN]]xf32>, <5, f32>
// CHECK: tile.exp2 %[[GC]] : tensor<1xf32>
// CHECK: arith.cmpi eq, %[[SC]], %[[SB]] : tensor<1xi32>
// CHECK: arith.mulf %[[HC]], %{{.*}} : tensor<[[BP]]x[[BN]]xf32>
// CHECK: %[[HD:[0-9]+]] = arith.addf %{{.*}}, %[[LC]] : tensor<[[BP]]x[[BN]]xf32>
// CHECK: tile.store %{{.*}} : tensor<1x1x1x[[BP]]x[[BN]]xf32>, <5, f32>
// CHECK: tile.exp2 %[[GD]] : tensor<1xf32>
// CHECK: arith.cmpi eq, %[[SD]], %[[SC]] : tensor<1xi32>
// CHECK: arith.mulf %[[HD]], %{{.*}} : tensor<[[BP]]x[[BN]]xf32>
// CHECK: %[[HN:[0-9]+]] = arith.addf %{{.*}}, %[[LD]] : tensor<[[BP]]x[[BN]]xf32>
// CHECK: tile.load %{{.*}}<5, f32> -> tensor<1x1x1x[[BP]]x[[BN]]xf32>
// CHECK: tile.load %{{.*}}<4, f32> -> tensor<1x1x1x1xf32>
// CHECK: tile.load %{{.*}}<2, i32> -> tensor<1x1xi32>
// CHECK: scf.yield %[[HN]], %[[SD]], %{{.*}} :
// CHECK: store %{{.*}} : tensor<1x1x[[BP]]x[[BN]]xf32>, {{.*}}<4, f32>
