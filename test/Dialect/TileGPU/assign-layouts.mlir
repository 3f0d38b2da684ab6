// tilegpu-assign-layouts: anchors, derived layouts and the conversions
// between them, one case per rule. Layouts print inline (local scope) so that
// each CHECK states the bases it expects.
// RUN: tile-opt %s --tilegpu-assign-layouts --mlir-print-local-scope | FileCheck %s
// RUN: tile-opt %s --tilegpu-assign-layouts=vectorize=false --mlir-print-local-scope | FileCheck %s --check-prefix=SCALAR

// 16 bytes per thread along the view's innermost dim: 8 bf16 in registers,
// 8 lanes across the 64 columns, 4 lanes and then registers down the rows.
// The store of the same tile needs the same layout: no conversion.
// CHECK-LABEL: kernel @load_vectorised
// CHECK: load {{.*}} -> tensor<16x64xbf16, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2], [0, 4], [4, 0], [8, 0]], lane = {{\[}}[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = []>>
// CHECK-NOT: convert_layout
// CHECK: store
// Without the contiguity facts one element per thread: lanes walk the columns.
// SCALAR-LABEL: kernel @load_vectorised
// SCALAR: load {{.*}} -> tensor<16x64xbf16, #tilegpu.dist<register = {{\[}}[0, 32], [1, 0], [2, 0], [4, 0], [8, 0]], lane = {{\[}}[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
tile.kernel @load_vectorised(%x: !tile.view<2, bf16>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x64xbf16>
  tile.store %t, %x[%c0, %c0] : tensor<16x64xbf16>, !tile.view<2, bf16>
  tile.return
}

// A view marked tile.any_strides (a broadcast with stride 0) has no
// vectorize facts in any variant: its load takes the one-element layout of
// SCALAR, while the store to the other view keeps the 16-byte one.
// CHECK-LABEL: kernel @load_any_strides
// CHECK: load {{.*}} -> tensor<16x64xbf16, #tilegpu.dist<register = {{\[}}[0, 32], [1, 0], [2, 0], [4, 0], [8, 0]], lane = {{\[}}[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
// CHECK: convert_layout {{.*}} -> tensor<16x64xbf16, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2], [0, 4], [4, 0], [8, 0]], lane = {{\[}}[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = []>>
// CHECK: store
tile.kernel @load_any_strides(%x: !tile.view<2, bf16> {tile.any_strides}, %y: !tile.view<2, bf16>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x64xbf16>
  tile.store %t, %y[%c0, %c0] : tensor<16x64xbf16>, !tile.view<2, bf16>
  tile.return
}

// order = [1, 0]: tile dim 0 walks the view's innermost dim, so it is the
// vector dim (4 f32); the second warp takes columns 4..7 of each 8.
// CHECK-LABEL: kernel @load_transposed
// CHECK: load {{.*}} order = [1, 0] {{.*}} -> tensor<32x16xf32, #tilegpu.dist<register = {{\[}}[1, 0], [2, 0], [0, 8]], lane = {{\[}}[4, 0], [8, 0], [16, 0], [0, 1], [0, 2]], warp = {{\[}}[0, 4]]>>
// CHECK-NOT: convert_layout
// CHECK: store
tile.kernel @load_transposed(%x: !tile.view<2, f32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] order = [1, 0] : !tile.view<2, f32> -> tensor<32x16xf32>
  tile.store %t, %x[%c0, %c0] order = [1, 0] : tensor<32x16xf32>, !tile.view<2, f32>
  tile.return
}

// An inner extent of 12 bf16 is not a multiple of 8: vectors of 4 (8 bytes),
// over the tile padded to 32x16.
// CHECK-LABEL: kernel @load_narrow
// CHECK: load {{.*}} -> tensor<32x12xbf16, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2], [8, 0], [16, 0]], lane = {{\[}}[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = []>>
tile.kernel @load_narrow(%x: !tile.view<2, bf16>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x12xbf16>
  tile.store %t, %x[%c0, %c0] : tensor<32x12xbf16>, !tile.view<2, bf16>
  tile.return
}

// tile.full takes the default layout (one element per thread, lanes along
// the last dim); the store converts it to the vectorised access layout.
// CHECK-LABEL: kernel @store_from_default
// CHECK: %[[F:.*]] = full %{{.*}} : tensor<16x32xf32, #tilegpu.dist<register = {{\[}}[1, 0], [2, 0], [4, 0], [8, 0]], lane = {{\[}}[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
// CHECK: %[[V:.*]] = tilegpu.convert_layout %[[F]] : {{.*}} -> tensor<16x32xf32, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2], [4, 0], [8, 0]], lane = {{\[}}[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = []>>
// CHECK: store %[[V]]
tile.kernel @store_from_default(%x: !tile.view<2, f32>, %s: f32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.full %s : tensor<16x32xf32>
  tile.store %t, %x[%c0, %c0] : tensor<16x32xf32>, !tile.view<2, f32>
  tile.return
}

// addf takes the loaded tile's layout, not the first operand's default one;
// exp2 and the store follow without conversions.
// CHECK-LABEL: kernel @elementwise_prefers_anchor
// CHECK: %[[T:.*]] = load {{.*}} -> tensor<16x32xf32, [[LOAD:#tilegpu.dist<.*>]]>
// CHECK: %[[F:.*]] = tilegpu.convert_layout %{{.*}} -> tensor<16x32xf32, [[LOAD]]>
// CHECK: %[[S:.*]] = arith.addf %[[F]], %[[T]] : tensor<16x32xf32, [[LOAD]]>
// CHECK: %[[E:.*]] = exp2 %[[S]] : tensor<16x32xf32, [[LOAD]]>
// CHECK-NOT: convert_layout
// CHECK: store %[[E]]
tile.kernel @elementwise_prefers_anchor(%x: !tile.view<2, f32>, %s: f32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %f = tile.full %s : tensor<16x32xf32>
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x32xf32>
  %sum = arith.addf %f, %t : tensor<16x32xf32>
  %e = tile.exp2 %sum : tensor<16x32xf32>
  tile.store %e, %x[%c0, %c0] : tensor<16x32xf32>, !tile.view<2, f32>
  tile.return
}

// Four warps on a 64x64 accumulator: 2 along M, 2 along N. A (m16n8k16) is
// the same in the warps that share rows (warp bit 1 replicates), B in those
// that share columns (warp bit 0); the accumulator comes from tile.full by a
// conversion and goes to the store by another.
// CHECK-LABEL: kernel @mma_bf16
// CHECK: %[[A:.*]] = tilegpu.convert_layout {{.*}} -> tensor<64x32xbf16, #tilegpu.dist<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [32, 0]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[16, 0], [0, 0]]>>
// CHECK: %[[B:.*]] = tilegpu.convert_layout {{.*}} -> tensor<32x64xbf16, #tilegpu.dist<register = {{\[}}[1, 0], [8, 0], [16, 0], [0, 16], [0, 32]], lane = {{\[}}[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = {{\[}}[0, 0], [0, 8]]>>
// CHECK: %[[C:.*]] = tilegpu.convert_layout {{.*}} -> tensor<64x64xf32, [[ACC:#tilegpu.dist<register = \[\[0, 1\], \[8, 0\], \[0, 16\], \[0, 32\], \[32, 0\]\], lane = \[\[0, 2\], \[0, 4\], \[1, 0\], \[2, 0\], \[4, 0\]\], warp = \[\[16, 0\], \[0, 8\]\]>]]>
// CHECK: %[[D:.*]] = mma %[[A]], %[[B]], %[[C]] : {{.*}}, tensor<64x64xf32, [[ACC]]>
// CHECK: %[[Y:.*]] = tilegpu.convert_layout %[[D]]
// CHECK: store %[[Y]]
tile.kernel @mma_bf16(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<64x32xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x64xbf16>
  %acc = tile.full %zero : tensor<64x64xf32>
  %d = tile.mma %ta, %tb, %acc : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// f32 products are FMAs: no tensor-core layouts, no conversions.
// CHECK-LABEL: kernel @mma_f32
// CHECK-NOT: convert_layout
// CHECK: return
tile.kernel @mma_f32(%a: !tile.view<2, f32>, %c: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<16x16xf32>
  %acc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<16x16xf32>
  %d = tile.mma %ta, %ta, %acc : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
  tile.store %d, %c[%c0, %c0] : tensor<16x16xf32>, !tile.view<2, f32>
  tile.return
}

// The ops that move elements derive their result's layout: reduce drops the
// axis (its lanes replicate), reshape keeps the bases, broadcast converts its
// source to the projection of its (default) result layout, permute swaps the
// coordinates, extract keeps the bits inside the sub-tile (the register bit
// that chose the half is gone), cumsum keeps the source's.
// CHECK-LABEL: kernel @moves
// CHECK: %[[T:.*]] = load {{.*}} -> tensor<32x16xf32, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2], [8, 0], [16, 0]], lane = {{\[}}[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = []>>
// CHECK: %[[R:.*]] = reduce sum %[[T]] {{.*}} -> tensor<32xf32, #tilegpu.dist<register = {{\[}}[8], [16]], lane = {{\[}}[0], [0], [1], [2], [4]], warp = []>>
// CHECK: %[[COL:.*]] = reshape %[[R]] : {{.*}} -> tensor<32x1xf32, #tilegpu.dist<register = {{\[}}[8, 0], [16, 0]], lane = {{\[}}[0, 0], [0, 0], [1, 0], [2, 0], [4, 0]], warp = []>>
// CHECK: %[[SRC:.*]] = tilegpu.convert_layout %[[COL]] : {{.*}} -> tensor<32x1xf32, #tilegpu.dist<register = {{\[}}[2, 0], [4, 0], [8, 0], [16, 0]], lane = {{\[}}[0, 0], [0, 0], [0, 0], [0, 0], [1, 0]], warp = []>>
// CHECK: broadcast %[[SRC]] : {{.*}} -> tensor<32x16xf32, #tilegpu.dist<register = {{\[}}[2, 0], [4, 0], [8, 0], [16, 0]], lane = {{\[}}[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], warp = []>>
// CHECK: permute %[[T]] [1, 0] : {{.*}} -> tensor<16x32xf32, #tilegpu.dist<register = {{\[}}[1, 0], [2, 0], [0, 8], [0, 16]], lane = {{\[}}[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], warp = []>>
// CHECK: extract %[[T]][{{.*}}] : {{.*}} -> tensor<16x16xf32, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2], [8, 0]], lane = {{\[}}[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = []>>
// CHECK: cumsum %[[T]] axis = 0 : tensor<32x16xf32, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2], [8, 0], [16, 0]],
tile.kernel @moves(%x: !tile.view<2, f32>, %y: !tile.view<1, f32>, %i: index) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<32x16xf32>
  %r = tile.reduce sum %t axis = 1 : tensor<32x16xf32> -> tensor<32xf32>
  %col = tile.reshape %r : tensor<32xf32> -> tensor<32x1xf32>
  %wide = tile.broadcast %col : tensor<32x1xf32> -> tensor<32x16xf32>
  %p = tile.permute %t [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
  %half = tile.extract %t[%i, %c0] : tensor<32x16xf32> -> tensor<16x16xf32>
  %cs = tile.cumsum %t axis = 0 : tensor<32x16xf32>
  tile.store %wide, %x[%c0, %c0] : tensor<32x16xf32>, !tile.view<2, f32>
  tile.store %p, %x[%c0, %c0] : tensor<16x32xf32>, !tile.view<2, f32>
  tile.store %half, %x[%c0, %c0] : tensor<16x16xf32>, !tile.view<2, f32>
  tile.store %cs, %x[%c0, %c0] : tensor<32x16xf32>, !tile.view<2, f32>
  tile.store %r, %y[%c0] : tensor<32xf32>, !tile.view<1, f32>
  tile.return
}

// An iteration argument starts in its initial value's layout (a constant's
// default); the body converts it to the loaded tile's and back at the yield
// (tilegpu-remove-layout-conversions carries the loaded layout instead).
// scf.if takes the then-branch's layout; the else-branch converts.
// CHECK-LABEL: kernel @loop_and_branch
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<16x32xf32, [[DEFAULT:#tilegpu.dist<.*>]]>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<16x32xf32, [[DEFAULT]]>)
// CHECK: %[[T:.*]] = tile.load {{.*}} -> tensor<16x32xf32, [[LOAD:#tilegpu.dist<.*>]]>
// CHECK: %[[IN:.*]] = tilegpu.convert_layout %[[ACC]] : tensor<16x32xf32, [[DEFAULT]]> -> tensor<16x32xf32, [[LOAD]]>
// CHECK: %[[N:.*]] = arith.addf %[[IN]], %[[T]]
// CHECK: %[[OUT:.*]] = tilegpu.convert_layout %[[N]] : tensor<16x32xf32, [[LOAD]]> -> tensor<16x32xf32, [[DEFAULT]]>
// CHECK: scf.yield %[[OUT]]
// CHECK: scf.if {{.*}} -> (tensor<16x32xf32, [[LOAD]]>)
// CHECK: } else {
// CHECK: %[[E:.*]] = tilegpu.convert_layout {{.*}} -> tensor<16x32xf32, [[LOAD]]>
// CHECK: scf.yield %[[E]]
tile.kernel @loop_and_branch(%x: !tile.view<2, f32>, %n: index, %flag: i1) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<16x32xf32>
  %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> tensor<16x32xf32> {
    %t = tile.load %x[%k, %c0] : !tile.view<2, f32> -> tensor<16x32xf32>
    %next = arith.addf %acc, %t : tensor<16x32xf32>
    scf.yield %next : tensor<16x32xf32>
  }
  %chosen = scf.if %flag -> tensor<16x32xf32> {
    %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x32xf32>
    scf.yield %t : tensor<16x32xf32>
  } else {
    scf.yield %sum : tensor<16x32xf32>
  }
  tile.store %chosen, %x[%c0, %c0] : tensor<16x32xf32>, !tile.view<2, f32>
  tile.return
}
