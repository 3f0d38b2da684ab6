// RUN: tilec %s | FileCheck %s --check-prefix=DEFAULT
// RUN: tilec %s -D BLOCK=256 | FileCheck %s --check-prefix=BLOCK256
// RUN: tilec %s -DBLOCK=32 -D WARPS_UNUSED_BY_SHAPES=2 | FileCheck %s --check-prefix=BLOCK32
// RUN: tilec %s -D BLOCK=256 -o %t.mlir && FileCheck %s --check-prefix=BLOCK256 < %t.mlir
// RUN: not tilec %s -D WIDTH=64 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tilec %s -D BLOCK=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not tilec %s -D BLOCK 2>&1 | FileCheck %s --check-prefix=MALFORMED

// -D binds a kernel parameter; the output is the bound, canonicalized kernel.

// DEFAULT: params = {BLOCK = 128 : i64, WARPS_UNUSED_BY_SHAPES = 1 : i64}
// DEFAULT: load %{{.*}} : <1, f32> -> tensor<128xf32>
// DEFAULT: store %{{.*}} : tensor<128xf32>, <1, f32>
// BLOCK256: params = {BLOCK = 256 : i64, WARPS_UNUSED_BY_SHAPES = 1 : i64}
// BLOCK256: load %{{.*}} : <1, f32> -> tensor<256xf32>
// BLOCK32: params = {BLOCK = 32 : i64, WARPS_UNUSED_BY_SHAPES = 2 : i64}
// BLOCK32: load %{{.*}} : <1, f32> -> tensor<32xf32>
// UNKNOWN: error: no kernel declares parameter 'WIDTH'
// ZERO: error: parameter binding 'BLOCK=0' is not NAME=VALUE with a positive VALUE
// MALFORMED: error: parameter binding 'BLOCK' is not NAME=VALUE with a positive VALUE

tile.kernel @scale(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>, %s: f32)
    attributes {params = {BLOCK = 128 : i64, WARPS_UNUSED_BY_SHAPES = 1 : i64}} {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> tensor<?xf32, #tile.dims<[BLOCK]>>
  %f = tile.full %s : tensor<?xf32, #tile.dims<[BLOCK]>>
  %r = arith.mulf %t, %f : tensor<?xf32, #tile.dims<[BLOCK]>>
  tile.store %r, %y[%i] : tensor<?xf32, #tile.dims<[BLOCK]>>, !tile.view<1, f32>
  tile.return
}
