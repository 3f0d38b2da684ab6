// RUN: tile-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// One case per verifier rule of the tilegpu dialect (TileGPUDialect.cpp,
// TileGPUOps.cpp), in the order of the sources.

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#mma = #tilegpu.dist<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>

//===----------------------------------------------------------------------===//
// #tilegpu.dist
//===----------------------------------------------------------------------===//

// expected-error @+1 {{every image has one coordinate per tile dimension: 1 given where 2 were}}
#bad = #tilegpu.dist<register = [[0, 1], [2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>

// -----

// expected-error @+1 {{a layout needs the images of its 5 lane bits}}
#bad = #tilegpu.dist<register = [], lane = [], warp = []>

// -----

// expected-error @+1 {{a register layout gives the images of the 5 lane bits of a warp, not 4}}
#bad = #tilegpu.dist<register = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0]], warp = []>

// -----

// expected-error @+1 {{a CTA has at most 32 warps, not 2^6}}
#bad = #tilegpu.dist<register = [], lane = [[1], [2], [4], [8], [16]], warp = [[0], [0], [0], [0], [0], [0]]>

// -----

#one = #tilegpu.dist<register = [[1]], lane = [[2], [4], [8], [16], [32]], warp = []>
// expected-error @+1 {{the register layout has images with 1 coordinates, but the tile has rank 2}}
%v = "test.source"() : () -> tensor<64x1xf32, #one>

// -----

#far = #tilegpu.dist<register = [[0, 1], [16, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
// expected-error @+1 {{the register layout maps a bit to coordinate 16 of dimension 0, outside the tile's extent 12 (padded to 16)}}
%v = "test.source"() : () -> tensor<12x8xf32, #far>

// -----

#holes = #tilegpu.dist<register = [[0, 1], [0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
// expected-error @+1 {{the register layout does not reach every element of the 16x8 tile}}
%v = "test.source"() : () -> tensor<16x8xf32, #holes>

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
// expected-error @+1 {{a tile with a register layout has a static shape}}
%v = "test.source"() : () -> tensor<?x8xf32, #blocked>

// -----

//===----------------------------------------------------------------------===//
// #tilegpu.shared and !tilegpu.smem
//===----------------------------------------------------------------------===//

// expected-error @+1 {{the shared layout has 8 offset bits for a tile of 2^7 elements (a buffer holds each element once)}}
%v = "test.source"() : () -> !tilegpu.smem<16x8xf32, #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0], [0, 0]]>>

// -----

// expected-error @+1 {{the shared layout does not reach every element of the 16x8 tile}}
%v = "test.source"() : () -> !tilegpu.smem<16x8xf32, #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]>>

// -----

#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
// expected-error @+1 {{a shared layout of rank 2 describes a buffer of rank 2, or 3 with a leading stage dimension; not 4}}
%v = "test.source"() : () -> !tilegpu.smem<2x2x16x8xf32, #rowmajor>

// -----

#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
// expected-error @+1 {{a shared buffer holds integers or floats, not 'index'}}
%v = "test.source"() : () -> !tilegpu.smem<16x8xindex, #rowmajor>

// -----

#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
// expected-error @+1 {{shared buffer extents must be positive}}
%v = "test.source"() : () -> !tilegpu.smem<0x16x8xf32, #rowmajor>

// -----

//===----------------------------------------------------------------------===//
// tilegpu.convert_layout
//===----------------------------------------------------------------------===//

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
tile.kernel @plain(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32>
  // expected-error @+1 {{the source (16x8 f32 tile) needs a #tilegpu.dist register layout}}
  %b = tilegpu.convert_layout %t : tensor<16x8xf32> -> tensor<16x8xf32, #blocked>
  tile.return
}

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#wide = #tilegpu.dist<register = [[0, 1], [0, 2], [0, 8]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
tile.kernel @reshaping(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #blocked>
  // expected-error @+1 {{moves a tile without reshaping it: the source is 16x8 but the result is 16x16}}
  %b = tilegpu.convert_layout %t : tensor<16x8xf32, #blocked> -> tensor<16x16xf32, #wide>
  tile.return
}

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#mma = #tilegpu.dist<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
tile.kernel @retyping(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #blocked>
  // expected-error @+1 {{moves a tile without converting its elements: 'f32' in, 'f16' out (use tile.convert)}}
  %b = tilegpu.convert_layout %t : tensor<16x8xf32, #blocked> -> tensor<16x8xf16, #mma>
  tile.return
}

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#twoWarps = #tilegpu.dist<register = [[0, 1]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = [[0, 2]]>
tile.kernel @warps(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #blocked>
  // expected-error @+1 {{the result's layout spreads it over 2 warps, but the kernel has 1}}
  %b = tilegpu.convert_layout %t : tensor<16x8xf32, #blocked> -> tensor<16x8xf32, #twoWarps>
  tile.return
}

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#twoWarps = #tilegpu.dist<register = [[0, 1]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = [[0, 2]]>
"test.region"() ({
^bb0(%t: tensor<16x8xf32, #blocked>):
  // expected-error @+1 {{both layouts describe the same CTA: the source's has 1 warps, the result's 2}}
  %b = tilegpu.convert_layout %t : tensor<16x8xf32, #blocked> -> tensor<16x8xf32, #twoWarps>
}) : () -> ()

// -----

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0():
  // expected-error @+1 {{allocates a buffer with no value that nothing may write: give it a value or make it mutable}}
  %b = tilegpu.local_alloc : () -> !tilegpu.smem<16x8xf32, #rowmajor>
}) : () -> ()

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0(%t: tensor<16x8xf32, #blocked>):
  // expected-error @+1 {{a value fills one tile, but the buffer has 2 stages}}
  %b = tilegpu.local_alloc %t : (tensor<16x8xf32, #blocked>) -> !tilegpu.smem<2x16x8xf32, #rowmajor>
}) : () -> ()

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0(%t: tensor<16x8xf32, #blocked>):
  // expected-error @+1 {{the value holds 'f32' but the buffer holds 'bf16'}}
  %b = tilegpu.local_alloc %t : (tensor<16x8xf32, #blocked>) -> !tilegpu.smem<16x8xbf16, #rowmajor>
}) : () -> ()

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#transposed = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 0]]>
"test.region"() ({
^bb0(%t: tensor<16x8xf32, #blocked>):
  // expected-error @+1 {{the value is a 16x8 tile but the buffer holds 8x16 tiles}}
  %b = tilegpu.local_alloc %t : (tensor<16x8xf32, #blocked>) -> !tilegpu.smem<8x16xf32, #transposed>
}) : () -> ()

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0(%b: !tilegpu.smem<3x16x8xf32, #rowmajor, mutable>):
  // expected-error @+1 {{the buffer has a leading stage dimension of 3: name the stage with [%stage]}}
  %t = tilegpu.local_load %b : !tilegpu.smem<3x16x8xf32, #rowmajor, mutable> -> tensor<16x8xf32, #blocked>
}) : () -> ()

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0(%b: !tilegpu.smem<16x8xf32, #rowmajor, mutable>, %s: index):
  // expected-error @+1 {{the buffer has no stage dimension, so it takes no stage index}}
  %t = tilegpu.local_load %b[%s] : !tilegpu.smem<16x8xf32, #rowmajor, mutable> -> tensor<16x8xf32, #blocked>
}) : () -> ()

// -----

#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0(%b: !tilegpu.smem<16x8xf32, #rowmajor, mutable>):
  // expected-error @+1 {{the result (16x8 f32 tile) needs a #tilegpu.dist register layout}}
  %t = tilegpu.local_load %b : !tilegpu.smem<16x8xf32, #rowmajor, mutable> -> tensor<16x8xf32>
}) : () -> ()

// -----

#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0(%t: tensor<16x8xf32, #blocked>, %b: !tilegpu.smem<16x8xf32, #rowmajor>):
  // expected-error @+1 {{writes a buffer that is not mutable (allocate it without a value, as `mutable`)}}
  tilegpu.local_store %t, %b : tensor<16x8xf32, #blocked>, !tilegpu.smem<16x8xf32, #rowmajor>
}) : () -> ()

// -----

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0(%x: !tile.view<2, f32>, %b: !tilegpu.smem<16x8xf32, #rowmajor>, %i: index):
  // expected-error @+1 {{writes a buffer that is not mutable}}
  %t = tilegpu.async_copy %x[%i, %i] -> %b kind = cp_async : !tile.view<2, f32>, !tilegpu.smem<16x8xf32, #rowmajor>
}) : () -> ()

// -----

#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0(%x: !tile.view<2, f32>, %b: !tilegpu.smem<16x8xf32, #rowmajor, mutable>, %i: index):
  // expected-error @+1 {{takes one tile index per view dimension: the view has 2, but 1 indices are given}}
  %t = tilegpu.async_copy %x[%i] -> %b kind = cp_async : !tile.view<2, f32>, !tilegpu.smem<16x8xf32, #rowmajor, mutable>
}) : () -> ()

// -----

#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0(%x: !tile.view<3, f32>, %b: !tilegpu.smem<16x8xf32, #rowmajor, mutable>, %i: index):
  // expected-error @+1 {{copies a box of the view's rank 3, but the buffer holds rank-2 tiles}}
  %t = tilegpu.async_copy %x[%i, %i, %i] -> %b kind = cp_async : !tile.view<3, f32>, !tilegpu.smem<16x8xf32, #rowmajor, mutable>
}) : () -> ()

// -----

#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0(%x: !tile.view<2, f32>, %b: !tilegpu.smem<2x16x8xf32, #rowmajor, mutable>, %i: index):
  // expected-error @+1 {{the buffer is staged: name the stage with [%stage]}}
  %t = tilegpu.async_copy %x[%i, %i] -> %b kind = cp_async : !tile.view<2, f32>, !tilegpu.smem<2x16x8xf32, #rowmajor, mutable>
}) : () -> ()

// -----

#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0(%x: !tile.view<2, bf16>, %b: !tilegpu.smem<16x8xf32, #rowmajor, mutable>, %i: index):
  // expected-error @+1 {{the view holds 'bf16' but the buffer holds 'f32'}}
  %t = tilegpu.async_copy %x[%i, %i] -> %b kind = cp_async : !tile.view<2, bf16>, !tilegpu.smem<16x8xf32, #rowmajor, mutable>
}) : () -> ()

// -----

#column = #tilegpu.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0(%x: !tile.view<2, bf16>, %b: !tilegpu.smem<16x1xbf16, #column, mutable>, %i: index):
  // expected-error @+1 {{cp.async moves 4, 8 or 16 bytes at a time, but a row of the box has 2 bytes}}
  %t = tilegpu.async_copy %x[%i, %i] -> %b kind = cp_async : !tile.view<2, bf16>, !tilegpu.smem<16x1xbf16, #column, mutable>
}) : () -> ()

// -----

#rowmajor = #tilegpu.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0(%x: !tile.view<2, f32>, %b: !tilegpu.smem<16x8xf32, #rowmajor, mutable>, %i: index):
  // expected-error @+1 {{a TMA copy fills out-of-bounds elements with zero or NaN, not neg_inf}}
  %t = tilegpu.async_copy %x[%i, %i] -> %b kind = tma padding = neg_inf : !tile.view<2, f32>, !tilegpu.smem<16x8xf32, #rowmajor, mutable>
}) : () -> ()

// -----

#narrow = #tilegpu.shared<offset = [[0, 1], [1, 0], [2, 0], [4, 0], [8, 0]]>
"test.region"() ({
^bb0(%x: !tile.view<2, f32>, %b: !tilegpu.smem<16x2xf32, #narrow, mutable>, %i: index):
  // expected-error @+1 {{a TMA box row is a multiple of 16 bytes, not 8}}
  %t = tilegpu.async_copy %x[%i, %i] -> %b kind = tma : !tile.view<2, f32>, !tilegpu.smem<16x2xf32, #narrow, mutable>
}) : () -> ()

// -----

"test.region"() ({
^bb0():
  // expected-error @+1 {{pending counts copy groups, so it is >= 0, not -1}}
  tilegpu.async_wait pending = -1
}) : () -> ()
