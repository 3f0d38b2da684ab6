// RUN: tile-opt %s --tile-bind-params --tile-expand-forms | FileCheck %s

// Each shorthand becomes the ops it is defined as; the interpreter and the
// lowering run this before anything else.

// CHECK-LABEL: tile.kernel @load_dims
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[FULL:.*]] = load %{{.*}}[%{{.*}}, %[[C0]], %{{.*}}, %{{.*}}] order = [0, 2, 3, 1] : <4, bf16> -> tensor<1x1x32x64xbf16>
// CHECK: reshape %[[FULL]] : tensor<1x1x32x64xbf16> -> tensor<32x64xbf16>
// CHECK: %[[PLAIN:.*]] = load %{{.*}} : <4, bf16> -> tensor<1x64x1x32xbf16>
// CHECK: reshape %[[PLAIN]] : tensor<1x64x1x32xbf16> -> tensor<64x32xbf16>
tile.kernel @load_dims(%x: !tile.view<4, bf16>) {
  %i, %j = tile.block_id x, y
  %t = tile.load %x[%i, 0, %j, %i] dims = [3, 1]
      : !tile.view<4, bf16> -> !tile.tile<32 x 64 x bf16>
  %u = tile.load %x[%i, %j, %i, %j] dims = [1, 3]
      : !tile.view<4, bf16> -> !tile.tile<64 x 32 x bf16>
  tile.return
}

// CHECK-LABEL: tile.kernel @store_dims
// CHECK: %[[R:.*]] = reshape %{{.*}} : tensor<8x16xf32> -> tensor<1x1x8x16xf32>
// CHECK: store %[[R]], %{{.*}} order = [0, 2, 3, 1] : tensor<1x1x8x16xf32>, <4, f32>
tile.kernel @store_dims(%g: !tile.view<4, f32>, %s: f32) {
  %i = tile.block_id x
  %t = tile.full %s : !tile.tile<8 x 16 x f32>
  tile.store %t, %g[%i, %i, %i, 0] dims = [3, 1] : !tile.tile<8 x 16 x f32>, !tile.view<4, f32>
  tile.return
}

// CHECK-LABEL: tile.kernel @broadcast_full_mma
// CHECK: %[[CST:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: %[[ROW:.*]] = full %[[CST]] : tensor<16xf32>
// CHECK: %[[R:.*]] = reshape %[[ROW]] : tensor<16xf32> -> tensor<1x16xf32>
// CHECK: broadcast %[[R]] : tensor<1x16xf32> -> tensor<8x16xf32>
// CHECK: %[[A32:.*]] = convert %{{.*}} : tensor<16x8xbf16> -> tensor<16x8xf32>
// CHECK: %[[A:.*]] = convert %[[A32]] : tensor<16x8xf32> -> tensor<16x8xtf32>
// CHECK: %[[B:.*]] = convert %{{.*}} : tensor<8x16xf32> -> tensor<8x16xtf32>
// CHECK: mma %[[A]], %[[B]], %{{.*}} : tensor<16x8xtf32>, tensor<8x16xtf32>, tensor<16x16xf32>
tile.kernel @broadcast_full_mma<K = 8>(%s: bf16) {
  %row = tile.full 1.5 : !tile.tile<16 x f32>
  %b = tile.broadcast %row new_dims = [0] : !tile.tile<16 x f32> -> !tile.tile<K x 16 x f32>
  %a = tile.full %s : !tile.tile<16 x K x bf16>
  %c = tile.full 0.0 : !tile.tile<16 x 16 x f32>
  %d = tile.mma %a, %b, %c precision = tf32
      : !tile.tile<16 x K x bf16>, !tile.tile<K x 16 x f32>, !tile.tile<16 x 16 x f32>
  tile.return
}

// CHECK-LABEL: tile.kernel @arange_start
// CHECK: %[[S:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[F:.*]] = full %[[S]] : tensor<16xi32>
// CHECK: %[[I:.*]] = arange : tensor<16xi32>
// CHECK: arith.addi %[[I]], %[[F]] : tensor<16xi32>
tile.kernel @arange_start(%n: index) {
  %t = tile.arange %n : !tile.tile<16 x i32>
  tile.return
}

// Each operand of a broadcasting float op that is not of the result's type is
// broadcast (its missing leading dimensions first) or splat; then the arith op.
// CHECK-LABEL: tile.kernel @broadcasting
// CHECK: %[[T:.*]] = load %{{.*}} : <2, f32> -> tensor<64x32xf32>
// CHECK: %[[ROW:.*]] = load %{{.*}} : <1, f32> -> tensor<32xf32>
// CHECK: %[[R1:.*]] = reshape %[[ROW]] : tensor<32xf32> -> tensor<1x32xf32>
// CHECK: %[[RB:.*]] = broadcast %[[R1]] : tensor<1x32xf32> -> tensor<64x32xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[T]], %[[RB]] : tensor<64x32xf32>
// CHECK: %[[COL:.*]] = load %{{.*}} : <2, f32> -> tensor<64x1xf32>
// CHECK: %[[CB:.*]] = broadcast %[[COL]] : tensor<64x1xf32> -> tensor<64x32xf32>
// CHECK: %[[DIFF:.*]] = arith.subf %[[CB]], %[[SUM]] : tensor<64x32xf32>
// CHECK: %[[S:.*]] = full %{{.*}} : tensor<64x32xf32>
// CHECK: %[[PROD:.*]] = arith.mulf %[[DIFF]], %[[S]] : tensor<64x32xf32>
// CHECK: arith.divf %[[PROD]], %[[T]] : tensor<64x32xf32>
// CHECK-NOT: tile.addf
tile.kernel @broadcasting(%x: !tile.view<2, f32>, %r: !tile.view<1, f32>, %s: f32) {
  %i = tile.block_id x
  %t = tile.load %x[%i, %i] : !tile.view<2, f32> -> !tile.tile<64 x 32 x f32>
  %row = tile.load %r[%i] : !tile.view<1, f32> -> !tile.tile<32 x f32>
  %sum = tile.addf %t, %row : !tile.tile<64 x 32 x f32>, !tile.tile<32 x f32> -> !tile.tile<64 x 32 x f32>
  %col = tile.load %x[%i, %i] : !tile.view<2, f32> -> !tile.tile<64 x 1 x f32>
  %diff = tile.subf %col, %sum : !tile.tile<64 x 1 x f32>, !tile.tile<64 x 32 x f32> -> !tile.tile<64 x 32 x f32>
  %prod = tile.mulf %diff, %s : !tile.tile<64 x 32 x f32>, f32 -> !tile.tile<64 x 32 x f32>
  %q = tile.divf %prod, %t : !tile.tile<64 x 32 x f32>, !tile.tile<64 x 32 x f32> -> !tile.tile<64 x 32 x f32>
  tile.store %q, %x[%i, %i] : !tile.tile<64 x 32 x f32>, !tile.view<2, f32>
  tile.return
}
