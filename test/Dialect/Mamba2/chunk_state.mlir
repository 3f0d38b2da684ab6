// The chunk_state kernel parses, verifies and binds for each chunk size: one
// walk along its own chunk from a zero state, an mma per step (split into
// two bf16 products), one store.
// RUN: tile-opt %tilec_src/kernels/mamba2/chunk_state.mlir | tile-opt | FileCheck %s --check-prefix=PARSE
// The canonicalizer (which tilec runs after binding) leaves the one form
// SCALED picks, no scf.if; BLOCK_K below CHUNK keeps the walk a loop.
// RUN: tile-opt --tile-bind-params="params=CHUNK=64,BLOCK_K=32" --tile-expand-forms --canonicalize %tilec_src/kernels/mamba2/chunk_state.mlir | FileCheck %s --implicit-check-not="param \"" --implicit-check-not="scf.if" -DBK=32 -DBP=64 -DBN=64
// RUN: tile-opt --tile-bind-params="params=CHUNK=128,BLOCK_P=32,BLOCK_N=16,BLOCK_K=32" --tile-expand-forms --canonicalize %tilec_src/kernels/mamba2/chunk_state.mlir | FileCheck %s --implicit-check-not="param \"" --implicit-check-not="scf.if" -DBK=32 -DBP=32 -DBN=16
// RUN: tile-opt --tile-bind-params="params=CHUNK=256,BLOCK_P=64,BLOCK_N=128,BLOCK_K=64" --tile-expand-forms --canonicalize %tilec_src/kernels/mamba2/chunk_state.mlir | FileCheck %s --implicit-check-not="param \"" --implicit-check-not="scf.if" -DBK=64 -DBP=64 -DBN=128
// RUN: tile-opt --tile-bind-params="params=CHUNK=128,BLOCK_N=128,BLOCK_K=64,SCALED=2" --tile-expand-forms --canonicalize %tilec_src/kernels/mamba2/chunk_state.mlir | FileCheck %s --check-prefix=XS --implicit-check-not="param \"" --implicit-check-not="scf.if" -DBK=64 -DBP=64 -DBN=128

// PARSE: kernel @chunk_state
// PARSE: scf.for

// CHECK-LABEL: kernel @chunk_state
// Every load of a step (B, G, dt, seq_idx, the chunk's last G and its
// sequence, x^T) comes before the first use of one.
// CHECK: scf.for {{.*}} -> (tensor<[[BP]]x[[BN]]xf32>)
// CHECK-NOT: tile.exp2
// CHECK: tile.load %{{.*}} latency = 2 : {{.*}}<4, bf16> -> tensor<1x[[BK]]x1x[[BN]]xbf16>
// CHECK-NOT: tile.exp2
// CHECK: tile.load %{{.*}} : {{.*}}<4, f32> -> tensor<1x1x1x1xf32>
// CHECK-NOT: tile.exp2
// CHECK: load %{{.*}} order = [0, 2, 3, 1] latency = 2 : {{.*}}<4, bf16> -> tensor<1x1x[[BP]]x[[BK]]xbf16>
// CHECK: tile.exp2 %{{.*}} : tensor<[[BK]]xf32>
// CHECK: %[[HI:[0-9]+]] = tile.convert %{{.*}} : tensor<[[BK]]x[[BN]]xf32> -> tensor<[[BK]]x[[BN]]xbf16>
// CHECK: arith.subf
// CHECK: %[[LO:[0-9]+]] = tile.convert %{{.*}} : tensor<[[BK]]x[[BN]]xf32> -> tensor<[[BK]]x[[BN]]xbf16>
// CHECK: %[[SUM:[0-9]+]] = tile.mma %[[X:[0-9]+]], %[[LO]], %{{.*}} : tensor<[[BP]]x[[BK]]xbf16>, tensor<[[BK]]x[[BN]]xbf16>, tensor<[[BP]]x[[BN]]xf32>
// CHECK: tile.mma %[[X]], %[[HI]], %[[SUM]] : tensor<[[BP]]x[[BK]]xbf16>, tensor<[[BK]]x[[BN]]xbf16>, tensor<[[BP]]x[[BN]]xf32>
// CHECK: scf.yield
// CHECK-NOT: scf.for
// CHECK: store %{{.*}} : tensor<1x1x1x[[BP]]x[[BN]]xf32>, {{.*}}<5, f32>

// SCALED=2: the weights scale x. x is read in rows (time x head dim), B
// last and as it is; (x w)^T is split, and both products take B unchanged.
// XS-LABEL: kernel @chunk_state
// XS: scf.for {{.*}} -> (tensor<[[BP]]x[[BN]]xf32>)
// XS-NOT: tile.exp2
// XS: tile.load %{{.*}} latency = 2 : {{.*}}<4, bf16> -> tensor<1x[[BK]]x1x[[BP]]xbf16>
// XS-NOT: tile.exp2
// XS: tile.load %{{.*}} latency = 2 : {{.*}}<4, bf16> -> tensor<1x[[BK]]x1x[[BN]]xbf16>
// XS-NEXT: %[[B:[0-9]+]] = tile.reshape
// XS: tile.exp2 %{{.*}} : tensor<[[BK]]xf32>
// XS: tile.broadcast %{{.*}} : tensor<[[BK]]x1xf32> -> tensor<[[BK]]x[[BP]]xf32>
// XS: tile.permute %{{.*}} [1, 0] : tensor<[[BK]]x[[BP]]xf32> -> tensor<[[BP]]x[[BK]]xf32>
// XS: %[[HI:[0-9]+]] = tile.convert %{{.*}} : tensor<[[BP]]x[[BK]]xf32> -> tensor<[[BP]]x[[BK]]xbf16>
// XS: arith.subf
// XS: %[[LO:[0-9]+]] = tile.convert %{{.*}} : tensor<[[BP]]x[[BK]]xf32> -> tensor<[[BP]]x[[BK]]xbf16>
// XS: %[[SUM:[0-9]+]] = tile.mma %[[LO]], %[[B]], %{{.*}} : tensor<[[BP]]x[[BK]]xbf16>, tensor<[[BK]]x[[BN]]xbf16>, tensor<[[BP]]x[[BN]]xf32>
// XS: tile.mma %[[HI]], %[[B]], %[[SUM]]
// XS: scf.yield
// XS: store %{{.*}} : tensor<1x1x1x[[BP]]x[[BN]]xf32>, {{.*}}<5, f32>
