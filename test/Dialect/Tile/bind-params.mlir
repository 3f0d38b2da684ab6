// RUN: tile-opt %s --tile-bind-params | FileCheck %s --check-prefixes=CHECK,DEFAULT
// RUN: tile-opt %s --tile-bind-params="params=CHUNK=128" | FileCheck %s --check-prefixes=CHECK,CHUNK128
// RUN: tile-opt %s --tile-bind-params="params=CHUNK=32,BLOCK=16" | FileCheck %s --check-prefixes=CHECK,BOTH
// The result verifies and prints in a form that parses again.
// RUN: tile-opt %s --tile-bind-params | tile-opt --verify-roundtrip > /dev/null

// Errors in the bindings.
// RUN: not tile-opt %s --tile-bind-params="params=WIDTH=64" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tile-opt %s --tile-bind-params="params=CHUNK" 2>&1 | FileCheck %s --check-prefix=NO-VALUE
// RUN: not tile-opt %s --tile-bind-params="params==64" 2>&1 | FileCheck %s --check-prefix=NO-NAME
// RUN: not tile-opt %s --tile-bind-params="params=CHUNK=64k" 2>&1 | FileCheck %s --check-prefix=NOT-A-NUMBER
// RUN: not tile-opt %s --tile-bind-params="params=CHUNK=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not tile-opt %s --tile-bind-params="params=CHUNK=-64" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not tile-opt %s --tile-bind-params="params=CHUNK=64,CHUNK=128" 2>&1 | FileCheck %s --check-prefix=TWICE
// A binding the kernel's shapes do not allow fails verification after the
// pass (extract needs CHUNK to be a multiple of 16).
// RUN: not tile-opt %s --tile-bind-params="params=CHUNK=24" 2>&1 | FileCheck %s --check-prefix=BAD-SHAPE

// UNKNOWN: error: no kernel declares parameter 'WIDTH'
// NO-VALUE: error: parameter binding 'CHUNK' is not NAME=VALUE with a positive VALUE
// NO-NAME: error: parameter binding '=64' is not NAME=VALUE with a positive VALUE
// NOT-A-NUMBER: error: parameter binding 'CHUNK=64k' is not NAME=VALUE with a positive VALUE
// ZERO: error: parameter binding 'CHUNK=0' is not NAME=VALUE with a positive VALUE
// NEGATIVE: error: parameter binding 'CHUNK=-64' is not NAME=VALUE with a positive VALUE
// TWICE: error: parameter 'CHUNK' is bound twice
// BAD-SHAPE: error: 'tile.extract' op the source's extents must be multiples of the sub-tile's: 24x16 is not tiled by 16x16

!Tile = tensor<?x16xf32, #tile.dims<[CHUNK, 16]>>

// CHECK-LABEL: tile.kernel @first
// DEFAULT-SAME: params = {CHUNK = 64 : i64}
// CHUNK128-SAME: params = {CHUNK = 128 : i64}
// BOTH-SAME: params = {CHUNK = 32 : i64}
tile.kernel @first(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>)
    attributes {params = {CHUNK = 64 : i64}} {
  %c0 = arith.constant 0 : index
  // tile.param becomes a constant.
  // CHECK-NOT: param
  // DEFAULT: %[[CHUNK:.*]] = arith.constant 64 : index
  // CHUNK128: %[[CHUNK:.*]] = arith.constant 128 : index
  // BOTH: %[[CHUNK:.*]] = arith.constant 32 : index
  %chunk = tile.param "CHUNK"
  %n = tile.dim %x[0] : !tile.view<2, f32>
  // Symbolic tiles become static, the encoding dropped.
  // DEFAULT: %[[INIT:.*]] = full %{{.*}} : tensor<64x16xf32>
  // CHUNK128: %[[INIT:.*]] = full %{{.*}} : tensor<128x16xf32>
  // BOTH: %[[INIT:.*]] = full %{{.*}} : tensor<32x16xf32>
  %zero = arith.constant 0.0 : f32
  %init = tile.full %zero : !Tile
  // So do loop-carried tiles: results, iter_args and what the body yields.
  // DEFAULT: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %[[CHUNK]] iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<64x16xf32>)
  // DEFAULT: tile.load %{{.*}}[%[[K]], %{{.*}}] : <2, f32> -> tensor<64x16xf32>
  // DEFAULT: arith.addf %[[ACC]], %{{.*}} : tensor<64x16xf32>
  // DEFAULT: scf.yield %{{.*}} : tensor<64x16xf32>
  // CHUNK128: scf.for {{.*}} step %[[CHUNK]] iter_args({{.*}}) -> (tensor<128x16xf32>)
  // BOTH: scf.for {{.*}} step %[[CHUNK]] iter_args({{.*}}) -> (tensor<32x16xf32>)
  %sum = scf.for %k = %c0 to %n step %chunk iter_args(%acc = %init) -> (!Tile) {
    %t = tile.load %x[%k, %c0] : !tile.view<2, f32> -> !Tile
    %s = arith.addf %acc, %t : !Tile
    scf.yield %s : !Tile
  }
  // DEFAULT: extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<64x16xf32> -> tensor<16x16xf32>
  %e = tile.extract %sum[%c0, %c0] : !Tile -> tensor<16x16xf32>
  // Numbers in #tile.dims stay numbers.
  // DEFAULT: reshape %{{.*}} : tensor<64x16xf32> -> tensor<1x64x16xf32>
  %r = tile.reshape %sum : !Tile -> tensor<1x?x16xf32, #tile.dims<[1, CHUNK, 16]>>
  tile.store %sum, %y[%c0, %c0] : !Tile, !tile.view<2, f32>
  tile.store %e, %y[%c0, %c0] : tensor<16x16xf32>, !tile.view<2, f32>
  tile.return
}

// A second kernel with its own default for CHUNK: a binding applies to every
// kernel that declares the parameter, and the defaults are per kernel.
// CHECK-LABEL: tile.kernel @second
// DEFAULT-SAME: params = {BLOCK = 64 : i64, CHUNK = 256 : i64}
// CHUNK128-SAME: params = {BLOCK = 64 : i64, CHUNK = 128 : i64}
// BOTH-SAME: params = {BLOCK = 16 : i64, CHUNK = 32 : i64}
tile.kernel @second(%x: !tile.view<2, bf16>)
    attributes {params = {BLOCK = 64 : i64, CHUNK = 256 : i64}} {
  %c0 = arith.constant 0 : index
  // DEFAULT: load %{{.*}} : <2, bf16> -> tensor<256x64xbf16>
  // CHUNK128: load %{{.*}} : <2, bf16> -> tensor<128x64xbf16>
  // BOTH: load %{{.*}} : <2, bf16> -> tensor<32x16xbf16>
  %t = tile.load %x[%c0, %c0] : !tile.view<2, bf16> -> tensor<?x?xbf16, #tile.dims<[CHUNK, BLOCK]>>
  // DEFAULT: permute %{{.*}} [1, 0] : tensor<256x64xbf16> -> tensor<64x256xbf16>
  %p = tile.permute %t [1, 0] : tensor<?x?xbf16, #tile.dims<[CHUNK, BLOCK]>> -> tensor<?x?xbf16, #tile.dims<[BLOCK, CHUNK]>>
  tile.store %p, %x[%c0, %c0] order = [1, 0] : tensor<?x?xbf16, #tile.dims<[BLOCK, CHUNK]>>, !tile.view<2, bf16>
  tile.return
}

// A kernel without parameters is left as it is.
// CHECK-LABEL: tile.kernel @plain
// CHECK-NOT: params
// CHECK: load %{{.*}} : <1, f32> -> tensor<32xf32>
tile.kernel @plain(%x: !tile.view<1, f32>) {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0] : !tile.view<1, f32> -> tensor<32xf32>
  tile.store %t, %x[%c0] : tensor<32xf32>, !tile.view<1, f32>
  tile.return
}

// Kernels in nested modules are bound as well.
// CHECK-LABEL: module @nested
// CHECK-LABEL: tile.kernel @inner
// DEFAULT: full %{{.*}} : tensor<8xf32>
// CHUNK128: full %{{.*}} : tensor<128xf32>
module @nested {
  tile.kernel @inner(%x: !tile.view<1, f32>, %s: f32)
      attributes {params = {CHUNK = 8 : i64}} {
    %c0 = arith.constant 0 : index
    %t = tile.full %s : tensor<?xf32, #tile.dims<[CHUNK]>>
    tile.store %t, %x[%c0] : tensor<?xf32, #tile.dims<[CHUNK]>>, !tile.view<1, f32>
    tile.return
  }
}
