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

// precision = tf32 of two bf16 operands (and of two f16 ones): both convert
// to tf32 exactly and the products are exact either way, so the plain
// 16-bit product, with no conversion and no precision left.
// CHECK-LABEL: tile.kernel @mma_tf32_of_two_16_bit_operands
// CHECK-NOT: convert
// CHECK: mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x8xbf16>, tensor<8x16xbf16>, tensor<16x16xf32>
// CHECK-NOT: convert
// CHECK: mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x8xf16>, tensor<8x16xf16>, tensor<16x16xf32>
// CHECK-NOT: convert
// CHECK: return
tile.kernel @mma_tf32_of_two_16_bit_operands(%s: bf16, %h: f16) {
  %a = tile.full %s : !tile.tile<16 x 8 x bf16>
  %b = tile.full %s : !tile.tile<8 x 16 x bf16>
  %ah = tile.full %h : !tile.tile<16 x 8 x f16>
  %bh = tile.full %h : !tile.tile<8 x 16 x f16>
  %c = tile.full 0.0 : !tile.tile<16 x 16 x f32>
  %d = tile.mma %a, %b, %c precision = tf32
      : !tile.tile<16 x 8 x bf16>, !tile.tile<8 x 16 x bf16>, !tile.tile<16 x 16 x f32>
  %e = tile.mma %ah, %bh, %d precision = tf32
      : !tile.tile<16 x 8 x f16>, !tile.tile<8 x 16 x f16>, !tile.tile<16 x 16 x f32>
  tile.return
}

// precision = split_bf16 with one bf16 operand: b = hi + lo in bf16, then
// acc + a b_lo + a b_hi, the small product first; no precision left.
// CHECK-LABEL: tile.kernel @mma_split_bf16_one_operand
// CHECK: %[[A:.*]] = full %{{.*}} : tensor<16x8xbf16>
// CHECK: %[[B:.*]] = full %{{.*}} : tensor<8x16xf32>
// CHECK: %[[C:.*]] = full %{{.*}} : tensor<16x16xf32>
// CHECK: %[[BH:.*]] = convert %[[B]] : tensor<8x16xf32> -> tensor<8x16xbf16>
// CHECK: %[[BHW:.*]] = convert %[[BH]] : tensor<8x16xbf16> -> tensor<8x16xf32>
// CHECK: %[[BR:.*]] = arith.subf %[[B]], %[[BHW]] : tensor<8x16xf32>
// CHECK: %[[BL:.*]] = convert %[[BR]] : tensor<8x16xf32> -> tensor<8x16xbf16>
// CHECK: %[[S1:.*]] = mma %[[A]], %[[BL]], %[[C]] : tensor<16x8xbf16>, tensor<8x16xbf16>, tensor<16x16xf32>
// CHECK: %[[S2:.*]] = mma %[[A]], %[[BH]], %[[S1]] : tensor<16x8xbf16>, tensor<8x16xbf16>, tensor<16x16xf32>
// CHECK-NOT: mma
// CHECK-NOT: precision
// CHECK: return
tile.kernel @mma_split_bf16_one_operand(%s: bf16, %t: f32) {
  %a = tile.full %s : !tile.tile<16 x 8 x bf16>
  %b = tile.full %t : !tile.tile<8 x 16 x f32>
  %c = tile.full %t : !tile.tile<16 x 16 x f32>
  %d = tile.mma %a, %b, %c precision = split_bf16
      : !tile.tile<16 x 8 x bf16>, !tile.tile<8 x 16 x f32>, !tile.tile<16 x 16 x f32>
  tile.return
}

// Two split operands (an f16 one widened to f32 first, exactly): three
// products, a_hi b_lo, a_lo b_hi, a_hi b_hi.
// CHECK-LABEL: tile.kernel @mma_split_bf16_two_operands
// CHECK: %[[A:.*]] = full %{{.*}} : tensor<16x8xf16>
// CHECK: %[[B:.*]] = full %{{.*}} : tensor<8x16xf32>
// CHECK: %[[C:.*]] = full %{{.*}} : tensor<16x16xf32>
// CHECK: %[[AW:.*]] = convert %[[A]] : tensor<16x8xf16> -> tensor<16x8xf32>
// CHECK: %[[AH:.*]] = convert %[[AW]] : tensor<16x8xf32> -> tensor<16x8xbf16>
// CHECK: %[[AHW:.*]] = convert %[[AH]] : tensor<16x8xbf16> -> tensor<16x8xf32>
// CHECK: %[[AR:.*]] = arith.subf %[[AW]], %[[AHW]] : tensor<16x8xf32>
// CHECK: %[[AL:.*]] = convert %[[AR]] : tensor<16x8xf32> -> tensor<16x8xbf16>
// CHECK: %[[BH:.*]] = convert %[[B]] : tensor<8x16xf32> -> tensor<8x16xbf16>
// CHECK: %[[BHW:.*]] = convert %[[BH]] : tensor<8x16xbf16> -> tensor<8x16xf32>
// CHECK: %[[BR:.*]] = arith.subf %[[B]], %[[BHW]] : tensor<8x16xf32>
// CHECK: %[[BL:.*]] = convert %[[BR]] : tensor<8x16xf32> -> tensor<8x16xbf16>
// CHECK: %[[S1:.*]] = mma %[[AH]], %[[BL]], %[[C]] :
// CHECK: %[[S2:.*]] = mma %[[AL]], %[[BH]], %[[S1]] :
// CHECK: mma %[[AH]], %[[BH]], %[[S2]] :
// CHECK-NOT: mma
tile.kernel @mma_split_bf16_two_operands(%s: f16, %t: f32) {
  %a = tile.full %s : !tile.tile<16 x 8 x f16>
  %b = tile.full %t : !tile.tile<8 x 16 x f32>
  %c = tile.full %t : !tile.tile<16 x 16 x f32>
  %d = tile.mma %a, %b, %c precision = split_bf16
      : !tile.tile<16 x 8 x f16>, !tile.tile<8 x 16 x f32>, !tile.tile<16 x 16 x f32>
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

// Along a dimension: the 1-D arange of its extent, broadcast along the others.
// CHECK-LABEL: tile.kernel @arange_dim
// CHECK: %[[S:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[F:.*]] = full %[[S]] : tensor<16xi32>
// CHECK: %[[I:.*]] = arange : tensor<16xi32>
// CHECK: %[[SUM:.*]] = arith.addi %[[I]], %[[F]] : tensor<16xi32>
// CHECK: %[[R:.*]] = reshape %[[SUM]] : tensor<16xi32> -> tensor<16x1xi32>
// CHECK: broadcast %[[R]] : tensor<16x1xi32> -> tensor<16x8xi32>
// CHECK: %[[J:.*]] = arange : tensor<8xi64>
// CHECK: %[[RJ:.*]] = reshape %[[J]] : tensor<8xi64> -> tensor<1x8xi64>
// CHECK: broadcast %[[RJ]] : tensor<1x8xi64> -> tensor<16x8xi64>
// CHECK-NOT: dim
tile.kernel @arange_dim(%n: index) {
  %rows = tile.arange %n dim 0 : !tile.tile<16 x 8 x i32>
  %cols = tile.arange dim 1 : !tile.tile<16 x 8 x i64>
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

// A conditional load is scf.if of the load (its other shorthands expanded
// too) and tile.full of the padding; an integer condition is compared with
// zero, an i1 one used as it is.
// CHECK-LABEL: tile.kernel @conditional_load
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[NE:.*]] = arith.cmpi ne, %{{.*}}, %[[ZERO]] : i32
// CHECK: %[[A:.*]] = scf.if %[[NE]] -> (tensor<8x4xf32>) {
// CHECK: %[[FULL:.*]] = tile.load %{{.*}} order = [1, 0] : <2, f32> -> tensor<8x4xf32>
// CHECK: %[[R:.*]] = tile.reshape %[[FULL]] : tensor<8x4xf32> -> tensor<8x4xf32>
// CHECK: scf.yield %[[R]] : tensor<8x4xf32>
// CHECK: } else {
// CHECK: %[[CST:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[Z:.*]] = tile.full %[[CST]] : tensor<8x4xf32>
// CHECK: scf.yield %[[Z]] : tensor<8x4xf32>
// CHECK: scf.if %{{.*}} -> (tensor<8xbf16>) {
// CHECK: tile.load %{{.*}} padding = neg_inf : <1, bf16> -> tensor<8xbf16>
// CHECK: } else {
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF80 : bf16
// CHECK: tile.full %[[NEGINF]] : tensor<8xbf16>
// CHECK: %[[IDX0:.*]] = arith.constant 0 : index
// CHECK: arith.cmpi ne, %{{.*}}, %[[IDX0]] : index
// CHECK: scf.if
// CHECK: arith.constant 0 : i32
// CHECK: tile.full %{{.*}} : tensor<8xi32>
tile.kernel @conditional_load(%x: !tile.view<2, f32>, %y: !tile.view<1, bf16>,
                              %z: !tile.view<1, i32>, %flag: i32, %on: i1) {
  %i = tile.block_id x
  %a = tile.load %x[%i, 0] if %flag dims = [1, 0]
      : !tile.view<2, f32>, i32 -> !tile.tile<8 x 4 x f32>
  %b = tile.load %y[%i] if %on padding = neg_inf
      : !tile.view<1, bf16>, i1 -> !tile.tile<8 x bf16>
  %c = tile.load %z[%i] if %i : !tile.view<1, i32>, index -> !tile.tile<8 x i32>
  tile.return
}

// The broadcasting comparison broadcasts each operand in its own element
// type to the result's shape; the integer ops and clamps as tile.addf does.
// CHECK-LABEL: tile.kernel @broadcasting_compare
// CHECK: %[[R:.*]] = reshape %{{.*}} : tensor<8xi32> -> tensor<1x8xi32>
// CHECK: %[[ROW:.*]] = broadcast %[[R]] : tensor<1x8xi32> -> tensor<4x8xi32>
// CHECK: %[[COL:.*]] = broadcast %{{.*}} : tensor<4x1xi32> -> tensor<4x8xi32>
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[COL]], %[[ROW]] : tensor<4x8xi32>
// CHECK: %[[S:.*]] = full %{{.*}} : tensor<4x8xf32>
// CHECK: arith.cmpf ole, %{{.*}}, %[[S]] : tensor<4x8xf32>
// CHECK: %[[B:.*]] = full %{{.*}} : tensor<4x8xi1>
// CHECK: arith.andi %[[LT]], %[[B]] : tensor<4x8xi1>
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : tensor<4x8xf32>
// CHECK: arith.muli %{{.*}}, %{{.*}} : tensor<4x8xi32>
tile.kernel @broadcasting_compare(%i: i32, %f: f32, %b: i1) {
  %row = tile.full %i : !tile.tile<8 x i32>
  %col = tile.full %i : !tile.tile<4 x 1 x i32>
  %x = tile.full %f : !tile.tile<4 x 8 x f32>
  %lt = tile.cmpi slt, %col, %row : !tile.tile<4 x 1 x i32>, !tile.tile<8 x i32> -> !tile.tile<4 x 8 x i1>
  %le = tile.cmpf ole, %x, %f : !tile.tile<4 x 8 x f32>, f32 -> !tile.tile<4 x 8 x i1>
  %and = tile.andi %lt, %b : !tile.tile<4 x 8 x i1>, i1 -> !tile.tile<4 x 8 x i1>
  %max = tile.maximumf %x, %f : !tile.tile<4 x 8 x f32>, f32 -> !tile.tile<4 x 8 x f32>
  %mul = tile.muli %row, %col : !tile.tile<8 x i32>, !tile.tile<4 x 1 x i32> -> !tile.tile<4 x 8 x i32>
  tile.return
}

// A broadcasting tile.where becomes the plain one of its operands broadcast
// to the result: the column mask in i1, the scalar by tile.full; the plain
// form stays as it is.
// CHECK-LABEL: tile.kernel @broadcasting_where
// CHECK: %[[MASK:.*]] = broadcast %{{.*}} : tensor<4x1xi1> -> tensor<4x8xi1>
// CHECK: %[[ROWS:.*]] = broadcast %{{.*}} : tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK: %[[S:.*]] = full %{{.*}} : tensor<4x8xf32>
// CHECK: %[[W:.*]] = where %[[MASK]], %[[ROWS]], %[[S]] : tensor<4x8xi1>, tensor<4x8xf32>
// CHECK: where %{{.*}}, %[[W]], %[[W]] : tensor<4x8xi1>, tensor<4x8xf32>
tile.kernel @broadcasting_where(%b: i1, %f: f32) {
  %col = tile.full %b : !tile.tile<4 x 1 x i1>
  %mask = tile.full %b : !tile.tile<4 x 8 x i1>
  %row = tile.full %f : !tile.tile<8 x f32>
  %w = tile.where %col, %row, %f : !tile.tile<4 x 1 x i1>, !tile.tile<8 x f32>, f32 -> !tile.tile<4 x 8 x f32>
  %p = tile.where %mask, %w, %w : !tile.tile<4 x 8 x i1>, !tile.tile<4 x 8 x f32>
  tile.return
}

// tile.softplus is where(x <= 20, log1p(exp(x)), x), in an scf.if on
// `%c != 0` with the identity in the else branch when it has a condition;
// tile.silu is x / (1 + exp(-x)).
// CHECK-LABEL: tile.kernel @activations
// CHECK: %[[X:.*]] = full %{{.*}} : tensor<4x8xf32>
// CHECK: %[[E:.*]] = math.exp %[[X]] : tensor<4x8xf32>
// CHECK: %[[L:.*]] = math.log1p %[[E]] : tensor<4x8xf32>
// CHECK: %[[TWENTY:.*]] = arith.constant 2.000000e+01 : f32
// CHECK: %[[T:.*]] = full %[[TWENTY]] : tensor<4x8xf32>
// CHECK: %[[SMALL:.*]] = arith.cmpf ole, %[[X]], %[[T]] : tensor<4x8xf32>
// CHECK: %[[SOFT:.*]] = where %[[SMALL]], %[[L]], %[[X]] : tensor<4x8xi1>, tensor<4x8xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[ON:.*]] = arith.cmpi ne, %{{.*}}, %[[ZERO]] : i32
// CHECK: %[[IF:.*]] = scf.if %[[ON]] -> (tensor<4x8xf32>) {
// CHECK: math.exp %[[SOFT]]
// CHECK: scf.yield %{{.*}} : tensor<4x8xf32>
// CHECK: } else {
// CHECK: scf.yield %[[SOFT]] : tensor<4x8xf32>
// CHECK: %[[NEG:.*]] = arith.negf %[[IF]] : tensor<4x8xf32>
// CHECK: %[[EN:.*]] = math.exp %[[NEG]] : tensor<4x8xf32>
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[ONES:.*]] = full %[[ONE]] : tensor<4x8xf32>
// CHECK: %[[DEN:.*]] = arith.addf %[[ONES]], %[[EN]] : tensor<4x8xf32>
// CHECK: arith.divf %[[IF]], %[[DEN]] : tensor<4x8xf32>
// CHECK-NOT: softplus
// CHECK-NOT: silu
tile.kernel @activations(%f: f32, %flag: i32) {
  %x = tile.full %f : !tile.tile<4 x 8 x f32>
  %s = tile.softplus %x : !tile.tile<4 x 8 x f32>
  %t = tile.softplus %s if %flag : !tile.tile<4 x 8 x f32>, i32
  %g = tile.silu %t : !tile.tile<4 x 8 x f32>
  tile.return
}

// bf16 and f16 to tf32 go through f32 (exact); f32 to tf32 stays one op.
// CHECK-LABEL: tile.kernel @convert_to_tf32
// CHECK: %[[W:.*]] = convert %{{.*}} : tensor<16xbf16> -> tensor<16xf32>
// CHECK: convert %[[W]] : tensor<16xf32> -> tensor<16xtf32>
// CHECK: %[[V:.*]] = convert %{{.*}} : tensor<16xf16> -> tensor<16xf32>
// CHECK: convert %[[V]] : tensor<16xf32> -> tensor<16xtf32>
// CHECK: convert %{{.*}} : tensor<16xf32> -> tensor<16xtf32>
// CHECK-NOT: convert
tile.kernel @convert_to_tf32(%h: bf16, %g: f16, %f: f32) {
  %a = tile.full %h : tensor<16xbf16>
  %b = tile.full %g : tensor<16xf16>
  %c = tile.full %f : tensor<16xf32>
  %at = tile.convert %a : tensor<16xbf16> -> tensor<16xtf32>
  %bt = tile.convert %b : tensor<16xf16> -> tensor<16xtf32>
  %ct = tile.convert %c : tensor<16xf32> -> tensor<16xtf32>
  tile.return
}

// A load into another float type is the load of the view's type and
// tile.convert; a store from another float type converts first (after the
// dims reshape of a load, before the one of a store).
// CHECK-LABEL: tile.kernel @converting_access
// CHECK: %[[L:.*]] = load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] order = [0, 2, 1] : <3, bf16> -> tensor<1x8x4xbf16>
// CHECK: %[[R:.*]] = reshape %[[L]] : tensor<1x8x4xbf16> -> tensor<8x4xbf16>
// CHECK: %[[F:.*]] = convert %[[R]] : tensor<8x4xbf16> -> tensor<8x4xf32>
// CHECK: %[[H:.*]] = convert %[[F]] : tensor<8x4xf32> -> tensor<8x4xf16>
// CHECK: %[[S:.*]] = reshape %[[H]] : tensor<8x4xf16> -> tensor<1x8x4xf16>
// CHECK: store %[[S]], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] order = [0, 2, 1] : tensor<1x8x4xf16>, <3, f16>
// CHECK-NOT: convert
tile.kernel @converting_access(%x: !tile.view<3, bf16>, %y: !tile.view<3, f16>) {
  %t = tile.load %x[0, 0, 0] dims = [2, 1] : !tile.view<3, bf16> -> !tile.tile<8 x 4 x f32>
  tile.store %t, %y[0, 0, 0] dims = [2, 1] : !tile.tile<8 x 4 x f32>, !tile.view<3, f16>
}

// tile.clamp is minimumf(maximumf(x, low), high), each limit broadcast.
// CHECK-LABEL: tile.kernel @clamp
// CHECK: %[[X:.*]] = full %{{.*}} : tensor<4x8xf32>
// CHECK: full %{{.*}} : tensor<8xf32>
// CHECK: %[[LO:.*]] = full %{{.*}} : tensor<4x8xf32>
// CHECK: %[[MAX:.*]] = arith.maximumf %[[X]], %[[LO]] : tensor<4x8xf32>
// CHECK: %[[HI:.*]] = broadcast %{{.*}} : tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK: arith.minimumf %[[MAX]], %[[HI]] : tensor<4x8xf32>
// CHECK-NOT: clamp
tile.kernel @clamp(%f: f32) {
  %x = tile.full %f : !tile.tile<4 x 8 x f32>
  %hi = tile.full %f : !tile.tile<8 x f32>
  %c = tile.clamp %x, %f, %hi : !tile.tile<4 x 8 x f32>, f32, !tile.tile<8 x f32>
}

// tile.pad: the elements left in tile %i along dim 0, min(max(n - i * 4, 0),
// 4) in index, narrowed to i32 and compared with an arange along the dim;
// the padding fills the rest.
// CHECK-LABEL: tile.kernel @pad
// CHECK: %[[E:.*]] = arith.constant 4 : index
// CHECK: %[[START:.*]] = arith.muli %[[I:.*]], %[[E]] : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[N:.*]], %[[START]] : index
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[POS:.*]] = arith.maxsi %[[LEFT]], %[[ZERO]] : index
// CHECK: %[[IN:.*]] = arith.minui %[[POS]], %[[E]] : index
// CHECK: %[[IN32:.*]] = arith.index_cast %[[IN]] : index to i32
// CHECK: %[[A:.*]] = arange : tensor<4xi32>
// CHECK: %[[AC:.*]] = reshape %[[A]] : tensor<4xi32> -> tensor<4x1xi32>
// CHECK: %[[LEFTS:.*]] = full %[[IN32]] : tensor<4x8xi32>
// CHECK: %[[AB:.*]] = broadcast %{{.*}} : tensor<4x1xi32> -> tensor<4x8xi32>
// CHECK: %[[KEEP:.*]] = arith.cmpi slt, %[[AB]], %[[LEFTS]] : tensor<4x8xi32>
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PADS:.*]] = full %[[NEGINF]] : tensor<4x8xf32>
// CHECK: where %[[KEEP]], %{{.*}}, %[[PADS]] : tensor<4x8xi1>, tensor<4x8xf32>
// CHECK-NOT: pad
tile.kernel @pad(%f: f32, %n: index) {
  %i = tile.block_id x
  %x = tile.full %f : !tile.tile<4 x 8 x f32>
  %p = tile.pad %x dim 0 past %n at %i padding = neg_inf : !tile.tile<4 x 8 x f32>
}

// tile.delinearize: the quotient and remainder by each extent from the last.
// CHECK-LABEL: tile.kernel @delinearize
// CHECK: %[[Q1:.*]] = arith.divui %[[X:.*]], %[[C:.*]] : index
// CHECK: %[[R1:.*]] = arith.remui %[[X]], %[[C]] : index
// CHECK: %[[Q2:.*]] = arith.divui %[[Q1]], %[[B:.*]] : index
// CHECK: %[[R2:.*]] = arith.remui %[[Q1]], %[[B]] : index
// CHECK: store %{{.*}}, %{{.*}}[%[[Q2]], %[[R2]], %[[R1]]]
// CHECK-NOT: delinearize
tile.kernel @delinearize(%y: !tile.view<3, f32>, %b: index, %c: index) {
  %x = tile.block_id x
  %i, %j, %k = tile.delinearize %x by %b, %c
  %t = tile.full 0.0 : !tile.tile<1 x 1 x 1 x f32>
  tile.store %t, %y[%i, %j, %k] : !tile.tile<1 x 1 x 1 x f32>, !tile.view<3, f32>
}

// tile.store ... if %c is scf.if (%c != 0) around the store, whose own
// forms (dims, conversion) are then written out inside it.
// CHECK-LABEL: tile.kernel @conditional_store
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[ON:.*]] = arith.cmpi ne, %{{.*}}, %[[ZERO]] : i32
// CHECK: scf.if %[[ON]] {
// CHECK: %[[H:.*]] = tile.convert %{{.*}} : tensor<8xf32> -> tensor<8xbf16>
// CHECK: %[[R:.*]] = tile.reshape %[[H]] : tensor<8xbf16> -> tensor<1x8xbf16>
// CHECK: store %[[R]], %{{.*}}[%{{.*}}, %{{.*}}] : tensor<1x8xbf16>, <2, bf16>
// CHECK: }
// CHECK-NOT: if %
tile.kernel @conditional_store(%y: !tile.view<2, bf16>, %f: f32, %flag: i32) {
  %t = tile.full %f : !tile.tile<8 x f32>
  tile.store %t, %y[0, 0] if %flag dims = [1] : !tile.tile<8 x f32>, !tile.view<2, bf16>, i32
}

// tile.for over the tiles of an extent: scf.for from 0 to the ceildiv by 1
// with the same body; over range(n): to n.
// CHECK-LABEL: tile.kernel @for_tiles
// CHECK: %[[COUNT:.*]] = arith.ceildivui %[[N:.*]], %[[S:.*]] : index
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %[[C0]] to %[[COUNT]] step %[[C1]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<4xf32>) {
// CHECK: %[[T:.*]] = {{(tile\.)?}}load %{{.*}}[%[[K]]] : <1, f32> -> tensor<4xf32>
// CHECK: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[T]] : tensor<4xf32>
// CHECK: scf.yield %[[NEXT]] : tensor<4xf32>
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK: store %[[SUM]], %{{.*}}[%[[J]]]
// CHECK-NOT: tile.for
// CHECK-NOT: tile.yield
tile.kernel @for_tiles(%x: !tile.view<1, f32>, %n: index, %s: index) {
  %zero = tile.full 0.0 : !tile.tile<4 x f32>
  %sum = tile.for %k in tiles(%n, %s) iter_args(%acc = %zero) -> (!tile.tile<4 x f32>) {
    %t = tile.load %x[%k] : !tile.view<1, f32> -> !tile.tile<4 x f32>
    %next = arith.addf %acc, %t : !tile.tile<4 x f32>
    tile.yield %next : !tile.tile<4 x f32>
  }
  tile.for %j in range(%n) {
    tile.store %sum, %x[%j] : !tile.tile<4 x f32>, !tile.view<1, f32>
  }
}

// Extents given as tiles(%e, %s) are their ceildiv; tile.linearize is the
// muli/addi chain from the outer coordinate.
// CHECK-LABEL: tile.kernel @linearize_tiles
// CHECK: %[[T1:.*]] = arith.ceildivui %[[E:.*]], %[[S:.*]] : index
// CHECK: %[[Q:.*]] = arith.divui %[[X:.*]], %[[T1]] : index
// CHECK: %[[R:.*]] = arith.remui %[[X]], %[[T1]] : index
// CHECK: %[[T2:.*]] = arith.ceildivui %[[E]], %[[S]] : index
// CHECK: %[[M:.*]] = arith.muli %[[Q]], %[[T2]] : index
// CHECK: %[[L:.*]] = arith.addi %[[M]], %[[R]] : index
// CHECK: store %{{.*}}, %{{.*}}[%[[L]]]
// CHECK-NOT: linearize
tile.kernel @linearize_tiles(%y: !tile.view<1, f32>, %e: index, %s: index) {
  %x = tile.block_id x
  %q, %r = tile.delinearize %x by tiles(%e, %s)
  %l = tile.linearize %q, %r by tiles(%e, %s)
  %t = tile.full 0.0 : !tile.tile<4 x f32>
  tile.store %t, %y[%l] : !tile.tile<4 x f32>, !tile.view<1, f32>
}

// tile.tri: the row and column positions of tile (r, c), compared sge.
// CHECK-LABEL: tile.kernel @tri
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[ROW0:.*]] = arith.muli %[[R:.*]], %[[C4]] : index
// CHECK: arith.index_cast %[[ROW0]] : index to i32
// CHECK: arange : tensor<4xi32>
// CHECK: %[[ROWS:.*]] = broadcast %{{.*}} : tensor<4x1xi32> -> tensor<4x8xi32>
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[COL0:.*]] = arith.muli %[[C:.*]], %[[C8]] : index
// CHECK: arith.index_cast %[[COL0]] : index to i32
// CHECK: arange : tensor<8xi32>
// CHECK: %[[COLS:.*]] = broadcast %{{.*}} : tensor<1x8xi32> -> tensor<4x8xi32>
// CHECK: arith.cmpi sge, %[[ROWS]], %[[COLS]] : tensor<4x8xi32>
// CHECK-NOT: tri
tile.kernel @tri(%r: index, %c: index) {
  %m = tile.tri at %r, %c : !tile.tile<4 x 8 x i1>
}

// tile.where of a scalar flag: scf.if yielding either value, with what only
// one side uses computed in that side (here the exp of the true value).
// CHECK-LABEL: tile.kernel @where_flag
// CHECK: %[[Y:.*]] = load
// CHECK-NEXT: %[[R:.*]] = scf.if %{{.*}} -> (tensor<4xf32>) {
// CHECK-NEXT: %[[E:.*]] = math.exp %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[Y]], %[[E]] : tensor<4xf32>
// CHECK-NEXT: scf.yield %[[P]] : tensor<4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[Y]] : tensor<4xf32>
// CHECK: store %[[R]]
tile.kernel @where_flag(%x: !tile.view<1, f32>, %flag: i1) {
  %y = tile.load %x[0] : !tile.view<1, f32> -> !tile.tile<4 x f32>
  %e = math.exp %y : !tile.tile<4 x f32>
  %p = arith.mulf %y, %e : !tile.tile<4 x f32>
  %r = tile.where %flag, %p, %y : i1, !tile.tile<4 x f32>
  tile.store %r, %x[1] : !tile.tile<4 x f32>, !tile.view<1, f32>
}

// `unless %c`: the access in scf.if (%c == 0), an i1 negated.
// CHECK-LABEL: tile.kernel @unless
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[OFF:.*]] = arith.xori %[[FLAG:.*]], %[[TRUE]] : i1
// CHECK: scf.if %[[OFF]] -> (tensor<4xf32>) {
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[OFF32:.*]] = arith.cmpi eq, %{{.*}}, %[[ZERO]] : i32
// CHECK: scf.if %[[OFF32]] {
// CHECK: store
tile.kernel @unless(%x: !tile.view<1, f32>, %flag: i1, %n: i32) {
  %t = tile.load %x[0] unless %flag : !tile.view<1, f32>, i1 -> !tile.tile<4 x f32>
  tile.store %t, %x[1] unless %n : !tile.tile<4 x f32>, !tile.view<1, f32>, i32
}

// A column (`BLOCK_M x 1`) of view dimension 1 is read in the view's order
// and reshaped, as the row is: only extents above 1 need an order.
// CHECK-LABEL: tile.kernel @load_column
// CHECK: %[[COL:.*]] = load %{{.*}} : <3, f32> -> tensor<1x1x4xf32>
// CHECK-NEXT: reshape %[[COL]] : tensor<1x1x4xf32> -> tensor<4x1xf32>
// CHECK: %[[T:.*]] = load %{{.*}} order = [0, 2, 1] : <3, f32> -> tensor<1x4x8xf32>
tile.kernel @load_column(%x: !tile.view<3, f32>, %i: index) {
  %c = tile.load %x[%i, %i, %i] dims = [2, 1]
      : !tile.view<3, f32> -> !tile.tile<4 x 1 x f32>
  %t = tile.load %x[%i, %i, %i] dims = [2, 1]
      : !tile.view<3, f32> -> !tile.tile<4 x 8 x f32>
}
