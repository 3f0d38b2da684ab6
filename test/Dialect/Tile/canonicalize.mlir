// RUN: tile-opt %s --canonicalize --split-input-file | FileCheck %s

// The folds of the tile dialect. Each kernel stores what it computes so that
// the canonicalizer does not erase it as dead (an unused load is erased too).

// CHECK-LABEL: tile.kernel @extract_whole
// CHECK: %[[T:.*]] = load
// CHECK-NOT: extract
// CHECK: store %[[T]]
tile.kernel @extract_whole(%v: !tile.view<2, f32>, %i: index) {
  %t = tile.load %v[%i, %i] : !tile.view<2, f32> -> tensor<64x32xf32>
  %e = tile.extract %t[%i, %i] : tensor<64x32xf32> -> tensor<64x32xf32>
  tile.store %e, %v[%i, %i] : tensor<64x32xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @extract_part
// CHECK: extract
tile.kernel @extract_part(%v: !tile.view<2, f32>, %i: index) {
  %t = tile.load %v[%i, %i] : !tile.view<2, f32> -> tensor<64x32xf32>
  %e = tile.extract %t[%i, %i] : tensor<64x32xf32> -> tensor<1x32xf32>
  tile.store %e, %v[%i, %i] : tensor<1x32xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @broadcast_identity
// CHECK: %[[T:.*]] = load
// CHECK-NOT: broadcast
// CHECK: store %[[T]]
tile.kernel @broadcast_identity(%v: !tile.view<2, f32>, %i: index) {
  %t = tile.load %v[%i, %i] : !tile.view<2, f32> -> tensor<64x32xf32>
  %b = tile.broadcast %t : tensor<64x32xf32> -> tensor<64x32xf32>
  tile.store %b, %v[%i, %i] : tensor<64x32xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @broadcast_of_broadcast
// CHECK: %[[T:.*]] = load
// CHECK-NEXT: %[[B:.*]] = broadcast %[[T]] : tensor<1x1xf32> -> tensor<64x32xf32>
// CHECK-NEXT: store %[[B]]
tile.kernel @broadcast_of_broadcast(%v: !tile.view<2, f32>, %i: index) {
  %t = tile.load %v[%i, %i] : !tile.view<2, f32> -> tensor<1x1xf32>
  %b = tile.broadcast %t : tensor<1x1xf32> -> tensor<1x32xf32>
  %c = tile.broadcast %b : tensor<1x32xf32> -> tensor<64x32xf32>
  tile.store %c, %v[%i, %i] : tensor<64x32xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// CHUNK -> 64 -> BLOCK verifies in two steps but CHUNK -> BLOCK does not:
// two parameters are different extents.
// CHECK-LABEL: tile.kernel @broadcast_chain_kept
// CHECK: broadcast %{{.*}} : tensor<?xf32, #tile.dims<[CHUNK]>> -> tensor<64xf32>
// CHECK: broadcast %{{.*}} : tensor<64xf32> -> tensor<?xf32, #tile.dims<[BLOCK]>>
tile.kernel @broadcast_chain_kept(%v: !tile.view<1, f32>, %i: index)
    attributes {params = {BLOCK = 64 : i64, CHUNK = 64 : i64}} {
  %t = tile.load %v[%i] : !tile.view<1, f32> -> tensor<?xf32, #tile.dims<[CHUNK]>>
  %b = tile.broadcast %t : tensor<?xf32, #tile.dims<[CHUNK]>> -> tensor<64xf32>
  %c = tile.broadcast %b : tensor<64xf32> -> tensor<?xf32, #tile.dims<[BLOCK]>>
  tile.store %c, %v[%i] : tensor<?xf32, #tile.dims<[BLOCK]>>, !tile.view<1, f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @reshape_identity
// CHECK: %[[T:.*]] = load
// CHECK-NOT: reshape
// CHECK: store %[[T]]
tile.kernel @reshape_identity(%v: !tile.view<2, f32>, %i: index) {
  %t = tile.load %v[%i, %i] : !tile.view<2, f32> -> tensor<64x32xf32>
  %r = tile.reshape %t : tensor<64x32xf32> -> tensor<64x32xf32>
  tile.store %r, %v[%i, %i] : tensor<64x32xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @reshape_of_reshape
// CHECK: %[[T:.*]] = load
// CHECK-NEXT: %[[R:.*]] = reshape %[[T]] : tensor<64x32xf32> -> tensor<32x64xf32>
// CHECK-NEXT: store %[[R]]
tile.kernel @reshape_of_reshape(%v: !tile.view<2, f32>, %i: index) {
  %t = tile.load %v[%i, %i] : !tile.view<2, f32> -> tensor<64x32xf32>
  %r = tile.reshape %t : tensor<64x32xf32> -> tensor<2048xf32>
  %s = tile.reshape %r : tensor<2048xf32> -> tensor<32x64xf32>
  tile.store %s, %v[%i, %i] : tensor<32x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @reshape_round_trip
// CHECK: %[[T:.*]] = load
// CHECK-NOT: reshape
// CHECK: store %[[T]]
tile.kernel @reshape_round_trip(%v: !tile.view<2, f32>, %i: index)
    attributes {params = {CHUNK = 64 : i64}} {
  %t = tile.load %v[%i, %i] : !tile.view<2, f32> -> tensor<?x32xf32, #tile.dims<[CHUNK, 32]>>
  %r = tile.reshape %t : tensor<?x32xf32, #tile.dims<[CHUNK, 32]>> -> tensor<1x?x32xf32, #tile.dims<[1, CHUNK, 32]>>
  %s = tile.reshape %r : tensor<1x?x32xf32, #tile.dims<[1, CHUNK, 32]>> -> tensor<?x32xf32, #tile.dims<[CHUNK, 32]>>
  tile.store %s, %v[%i, %i] : tensor<?x32xf32, #tile.dims<[CHUNK, 32]>>, !tile.view<2, f32>
  tile.return
}

// -----

// CHUNKx32 -> 2048 -> CHUNKx16 verifies step by step (the numbers divide) but
// not in one step: the canonicalizer must not make an op that fails to verify.
// CHECK-LABEL: tile.kernel @reshape_chain_kept
// CHECK: reshape %{{.*}} : tensor<?x32xf32, #tile.dims<[CHUNK, 32]>> -> tensor<2048xf32>
// CHECK: reshape %{{.*}} : tensor<2048xf32> -> tensor<?x16xf32, #tile.dims<[CHUNK, 16]>>
tile.kernel @reshape_chain_kept(%v: !tile.view<2, f32>, %i: index)
    attributes {params = {CHUNK = 64 : i64}} {
  %t = tile.load %v[%i, %i] : !tile.view<2, f32> -> tensor<?x32xf32, #tile.dims<[CHUNK, 32]>>
  %r = tile.reshape %t : tensor<?x32xf32, #tile.dims<[CHUNK, 32]>> -> tensor<2048xf32>
  %s = tile.reshape %r : tensor<2048xf32> -> tensor<?x16xf32, #tile.dims<[CHUNK, 16]>>
  tile.store %s, %v[%i, %i] : tensor<?x16xf32, #tile.dims<[CHUNK, 16]>>, !tile.view<2, f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @permute_identity
// CHECK: %[[T:.*]] = load
// CHECK-NOT: permute
// CHECK: store %[[T]]
tile.kernel @permute_identity(%v: !tile.view<2, f32>, %i: index) {
  %t = tile.load %v[%i, %i] : !tile.view<2, f32> -> tensor<64x32xf32>
  %p = tile.permute %t [0, 1] : tensor<64x32xf32> -> tensor<64x32xf32>
  tile.store %p, %v[%i, %i] : tensor<64x32xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// An identity permutation that makes a symbolic extent static changes the
// type: it is not a no-op.
// CHECK-LABEL: tile.kernel @permute_identity_typed
// CHECK: %[[P:.*]] = permute %{{.*}} [0, 1] : tensor<64x?xf32, #tile.dims<[64, B]>> -> tensor<64x64xf32>
// CHECK: store %[[P]]
tile.kernel @permute_identity_typed(%v: !tile.view<2, f32>, %i: index)
    attributes {params = {B = 64 : i64}} {
  %t = tile.load %v[%i, %i] : !tile.view<2, f32> -> tensor<64x?xf32, #tile.dims<[64, B]>>
  %p = tile.permute %t [0, 1] : tensor<64x?xf32, #tile.dims<[64, B]>> -> tensor<64x64xf32>
  tile.store %p, %v[%i, %i] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @permute_inverse
// CHECK: %[[T:.*]] = load
// CHECK-NOT: permute
// CHECK: store %[[T]]
tile.kernel @permute_inverse(%v: !tile.view<3, f32>, %i: index) {
  %t = tile.load %v[%i, %i, %i] : !tile.view<3, f32> -> tensor<2x4x8xf32>
  %p = tile.permute %t [2, 0, 1] : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
  %q = tile.permute %p [1, 2, 0] : tensor<8x2x4xf32> -> tensor<2x4x8xf32>
  tile.store %q, %v[%i, %i, %i] : tensor<2x4x8xf32>, !tile.view<3, f32>
  tile.return
}

// -----

// [2, 0, 1] then [0, 2, 1]: result dimension k is source dimension
// [2, 0, 1][[0, 2, 1][k]] = [2, 1, 0][k].
// CHECK-LABEL: tile.kernel @permute_of_permute
// CHECK: %[[T:.*]] = load
// CHECK-NEXT: %[[P:.*]] = permute %[[T]] [2, 1, 0] : tensor<2x4x8xf32> -> tensor<8x4x2xf32>
// CHECK-NEXT: store %[[P]]
tile.kernel @permute_of_permute(%v: !tile.view<3, f32>, %i: index) {
  %t = tile.load %v[%i, %i, %i] : !tile.view<3, f32> -> tensor<2x4x8xf32>
  %p = tile.permute %t [2, 0, 1] : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
  %q = tile.permute %p [0, 2, 1] : tensor<8x2x4xf32> -> tensor<8x4x2xf32>
  tile.store %q, %v[%i, %i, %i] : tensor<8x4x2xf32>, !tile.view<3, f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @convert_identity
// CHECK: %[[T:.*]] = load
// CHECK-NOT: convert
// CHECK: store %[[T]]
tile.kernel @convert_identity(%v: !tile.view<1, f32>, %i: index) {
  %t = tile.load %v[%i] : !tile.view<1, f32> -> tensor<64xf32>
  %c = tile.convert %t : tensor<64xf32> -> tensor<64xf32>
  tile.store %c, %v[%i] : tensor<64xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// bf16 -> f32 is exact, so converting back gives the source.
// CHECK-LABEL: tile.kernel @convert_widen_and_back
// CHECK: %[[T:.*]] = load
// CHECK-NOT: convert
// CHECK: store %[[T]]
tile.kernel @convert_widen_and_back(%v: !tile.view<1, bf16>, %i: index) {
  %t = tile.load %v[%i] : !tile.view<1, bf16> -> tensor<64xbf16>
  %w = tile.convert %t : tensor<64xbf16> -> tensor<64xf32>
  %n = tile.convert %w : tensor<64xf32> -> tensor<64xbf16>
  tile.store %n, %v[%i] : tensor<64xbf16>, !tile.view<1, bf16>
  tile.return
}

// -----

// f32 -> bf16 rounds: the round trip is not the identity.
// CHECK-LABEL: tile.kernel @convert_narrow_and_back
// CHECK: convert %{{.*}} : tensor<64xf32> -> tensor<64xbf16>
// CHECK: convert %{{.*}} : tensor<64xbf16> -> tensor<64xf32>
tile.kernel @convert_narrow_and_back(%v: !tile.view<1, f32>, %i: index) {
  %t = tile.load %v[%i] : !tile.view<1, f32> -> tensor<64xf32>
  %n = tile.convert %t : tensor<64xf32> -> tensor<64xbf16>
  %w = tile.convert %n : tensor<64xbf16> -> tensor<64xf32>
  tile.store %w, %v[%i] : tensor<64xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// f32 -> tf32 rounds too.
// CHECK-LABEL: tile.kernel @convert_tf32_and_back
// CHECK: convert %{{.*}} : tensor<64xf32> -> tensor<64xtf32>
// CHECK: convert %{{.*}} : tensor<64xtf32> -> tensor<64xf32>
tile.kernel @convert_tf32_and_back(%v: !tile.view<1, f32>, %i: index) {
  %t = tile.load %v[%i] : !tile.view<1, f32> -> tensor<64xf32>
  %n = tile.convert %t : tensor<64xf32> -> tensor<64xtf32>
  %w = tile.convert %n : tensor<64xtf32> -> tensor<64xf32>
  tile.store %w, %v[%i] : tensor<64xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// bf16 -> f32 -> f16 is bf16 -> f16: the first step is exact.
// CHECK-LABEL: tile.kernel @convert_exact_then_round
// CHECK: %[[T:.*]] = load
// CHECK-NEXT: %[[C:.*]] = convert %[[T]] : tensor<64xbf16> -> tensor<64xf16>
// CHECK-NEXT: store %[[C]]
tile.kernel @convert_exact_then_round(%v: !tile.view<1, bf16>, %w: !tile.view<1, f16>, %i: index) {
  %t = tile.load %v[%i] : !tile.view<1, bf16> -> tensor<64xbf16>
  %a = tile.convert %t : tensor<64xbf16> -> tensor<64xf32>
  %b = tile.convert %a : tensor<64xf32> -> tensor<64xf16>
  tile.store %b, %w[%i] : tensor<64xf16>, !tile.view<1, f16>
  tile.return
}

// -----

// i8 -> i32 -> f32 is i8 -> f32, and f16 -> f32 -> i32 is f16 -> i32.
// CHECK-LABEL: tile.kernel @convert_exact_integers
// CHECK: convert %{{.*}} : tensor<64xi8> -> tensor<64xf32>
// CHECK: convert %{{.*}} : tensor<64xf16> -> tensor<64xi32>
// CHECK-NOT: convert
tile.kernel @convert_exact_integers(%a: !tile.view<1, i8>, %b: !tile.view<1, f16>,
                                    %f: !tile.view<1, f32>, %k: !tile.view<1, i32>, %i: index) {
  %t = tile.load %a[%i] : !tile.view<1, i8> -> tensor<64xi8>
  %t32 = tile.convert %t : tensor<64xi8> -> tensor<64xi32>
  %tf = tile.convert %t32 : tensor<64xi32> -> tensor<64xf32>
  tile.store %tf, %f[%i] : tensor<64xf32>, !tile.view<1, f32>
  %u = tile.load %b[%i] : !tile.view<1, f16> -> tensor<64xf16>
  %u32 = tile.convert %u : tensor<64xf16> -> tensor<64xf32>
  %ui = tile.convert %u32 : tensor<64xf32> -> tensor<64xi32>
  tile.store %ui, %k[%i] : tensor<64xi32>, !tile.view<1, i32>
  tile.return
}

// -----

// i32 -> f32 rounds above 2^24, i32 -> i16 wraps, and bf16 -> f32 -> tf32
// stays two conversions (the one tile-expand-forms writes a bf16 -> tf32
// as; the lowering rounds to tf32 from f32 only): all kept.
// CHECK-LABEL: tile.kernel @convert_inexact_kept
// CHECK: convert %{{.*}} : tensor<64xi32> -> tensor<64xf32>
// CHECK: convert %{{.*}} : tensor<64xf32> -> tensor<64xi32>
// CHECK: convert %{{.*}} : tensor<64xi32> -> tensor<64xi16>
// CHECK: convert %{{.*}} : tensor<64xi16> -> tensor<64xi32>
// CHECK: convert %{{.*}} : tensor<16x16xbf16> -> tensor<16x16xf32>
// CHECK: convert %{{.*}} : tensor<16x16xf32> -> tensor<16x16xtf32>
tile.kernel @convert_inexact_kept(%k: !tile.view<1, i32>, %h: !tile.view<2, bf16>,
                                  %i: index) {
  %t = tile.load %k[%i] : !tile.view<1, i32> -> tensor<64xi32>
  %f = tile.convert %t : tensor<64xi32> -> tensor<64xf32>
  %back = tile.convert %f : tensor<64xf32> -> tensor<64xi32>
  tile.store %back, %k[%i] : tensor<64xi32>, !tile.view<1, i32>
  %n = tile.convert %t : tensor<64xi32> -> tensor<64xi16>
  %w = tile.convert %n : tensor<64xi16> -> tensor<64xi32>
  tile.store %w, %k[%i] : tensor<64xi32>, !tile.view<1, i32>
  %b = tile.load %h[%i, %i] : !tile.view<2, bf16> -> tensor<16x16xbf16>
  %b32 = tile.convert %b : tensor<16x16xbf16> -> tensor<16x16xf32>
  %bt = tile.convert %b32 : tensor<16x16xf32> -> tensor<16x16xtf32>
  %z = arith.constant 0.0 : f32
  %acc = tile.full %z : tensor<16x16xf32>
  %d = tile.mma %bt, %bt, %acc : tensor<16x16xtf32>, tensor<16x16xtf32>, tensor<16x16xf32>
  %dk = tile.convert %d : tensor<16x16xf32> -> tensor<16x16xbf16>
  tile.store %dk, %h[%i, %i] : tensor<16x16xbf16>, !tile.view<2, bf16>
  tile.return
}

// -----

// i1 converts as 0 or 1, not as a sign-extended integer: not folded.
// CHECK-LABEL: tile.kernel @convert_i1_kept
// CHECK: convert %{{.*}} : tensor<64xi1> -> tensor<64xi32>
// CHECK: convert %{{.*}} : tensor<64xi32> -> tensor<64xf32>
tile.kernel @convert_i1_kept(%f: !tile.view<1, f32>, %i: index) {
  %r = tile.arange : tensor<64xi32>
  %z = arith.constant 0 : i32
  %zs = tile.full %z : tensor<64xi32>
  %m = arith.cmpi sgt, %r, %zs : tensor<64xi32>
  %a = tile.convert %m : tensor<64xi1> -> tensor<64xi32>
  %b = tile.convert %a : tensor<64xi32> -> tensor<64xf32>
  tile.store %b, %f[%i] : tensor<64xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @where_same_values
// CHECK: %[[T:.*]] = load
// CHECK-NOT: where
// CHECK: store %[[T]]
tile.kernel @where_same_values(%v: !tile.view<1, f32>, %m: !tile.view<1, i32>, %i: index) {
  %t = tile.load %v[%i] : !tile.view<1, f32> -> tensor<64xf32>
  %k = tile.load %m[%i] : !tile.view<1, i32> -> tensor<64xi32>
  %z = arith.constant 0 : i32
  %zs = tile.full %z : tensor<64xi32>
  %c = arith.cmpi sgt, %k, %zs : tensor<64xi32>
  %w = tile.where %c, %t, %t : tensor<64xi1>, tensor<64xf32>
  tile.store %w, %v[%i] : tensor<64xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @where_splat_true
// CHECK: %[[T:.*]] = load %arg0
// CHECK-NOT: where
// CHECK: store %[[T]]
tile.kernel @where_splat_true(%v: !tile.view<1, f32>, %u: !tile.view<1, f32>, %i: index) {
  %t = tile.load %v[%i] : !tile.view<1, f32> -> tensor<64xf32>
  %f = tile.load %u[%i] : !tile.view<1, f32> -> tensor<64xf32>
  %c = arith.constant dense<true> : tensor<64xi1>
  %w = tile.where %c, %t, %f : tensor<64xi1>, tensor<64xf32>
  tile.store %w, %v[%i] : tensor<64xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @where_splat_false
// CHECK: %[[F:.*]] = load %arg1
// CHECK-NOT: where
// CHECK: store %[[F]]
tile.kernel @where_splat_false(%v: !tile.view<1, f32>, %u: !tile.view<1, f32>, %i: index) {
  %t = tile.load %v[%i] : !tile.view<1, f32> -> tensor<64xf32>
  %f = tile.load %u[%i] : !tile.view<1, f32> -> tensor<64xf32>
  %c = arith.constant dense<false> : tensor<64xi1>
  %w = tile.where %c, %t, %f : tensor<64xi1>, tensor<64xf32>
  tile.store %w, %v[%i] : tensor<64xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @where_mixed_constant
// CHECK: where
tile.kernel @where_mixed_constant(%v: !tile.view<1, f32>, %u: !tile.view<1, f32>, %i: index) {
  %t = tile.load %v[%i] : !tile.view<1, f32> -> tensor<2xf32>
  %f = tile.load %u[%i] : !tile.view<1, f32> -> tensor<2xf32>
  %c = arith.constant dense<[true, false]> : tensor<2xi1>
  %w = tile.where %c, %t, %f : tensor<2xi1>, tensor<2xf32>
  tile.store %w, %v[%i] : tensor<2xf32>, !tile.view<1, f32>
  tile.return
}
