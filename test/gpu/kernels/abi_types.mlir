// REQUIRES: ptxas
// Every argument type of a generated launcher but those other kernels use
// (f32 and bf16 views, f32 and i32 scalars): f16, i8, i16 and i64 views
// (the dialect has no i1 views) and f16, bf16, i1, i8 and i16 scalars.
// unittests/Runtime/AbiGpuTest.cpp launches it through its launcher.
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cpp --target=sm_80 -o %t && FileCheck %s --check-prefix=CPP < %t.h
// CPP: tilec_status tile_abi_types(const tilec_view_f16_1d &h, const tilec_view_i8_1d &b8, const tilec_view_i16_1d &b16, const tilec_view_i64_1d &b64, const tilec_view_f32_1d &out, tilec_f16 sh, tilec_bf16 sb, bool s1, int8_t s8, int16_t s16, tilec_grid grid, CUstream stream);

// Each view gets a scalar added in place (b64: s16 widened), one tile of 64
// per program; out[0..4] = the five scalars as f32.
tile.kernel @abi_types(%h: !tile.view<1, f16>,
                       %b8: !tile.view<1, i8>, %b16: !tile.view<1, i16>,
                       %b64: !tile.view<1, i64>, %out: !tile.view<1, f32>,
                       %sh: f16, %sb: bf16, %s1: i1, %s8: i8, %s16: i16) {
  %i = tile.block_id x
  %c0 = arith.constant 0 : index
  %th = tile.load %h[%i] : !tile.view<1, f16> -> tensor<64xf16>
  %fh = tile.full %sh : tensor<64xf16>
  %rh = arith.addf %th, %fh : tensor<64xf16>
  tile.store %rh, %h[%i] : tensor<64xf16>, !tile.view<1, f16>
  %t8 = tile.load %b8[%i] : !tile.view<1, i8> -> tensor<64xi8>
  %f8 = tile.full %s8 : tensor<64xi8>
  %r8 = arith.addi %t8, %f8 : tensor<64xi8>
  tile.store %r8, %b8[%i] : tensor<64xi8>, !tile.view<1, i8>
  %t16 = tile.load %b16[%i] : !tile.view<1, i16> -> tensor<64xi16>
  %f16 = tile.full %s16 : tensor<64xi16>
  %r16 = arith.addi %t16, %f16 : tensor<64xi16>
  tile.store %r16, %b16[%i] : tensor<64xi16>, !tile.view<1, i16>
  %t64 = tile.load %b64[%i] : !tile.view<1, i64> -> tensor<64xi64>
  %w16 = arith.extsi %s16 : i16 to i64
  %f64 = tile.full %w16 : tensor<64xi64>
  %r64 = arith.addi %t64, %f64 : tensor<64xi64>
  tile.store %r64, %b64[%i] : tensor<64xi64>, !tile.view<1, i64>
  %vh = arith.extf %sh : f16 to f32
  %vb = arith.extf %sb : bf16 to f32
  %v1 = arith.uitofp %s1 : i1 to f32
  %v8 = arith.sitofp %s8 : i8 to f32
  %v16 = arith.sitofp %s16 : i16 to f32
  %fo = tile.full %vh : tensor<8xf32>
  %iota = tile.arange : tensor<8xi32>
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %k1 = tile.full %c1 : tensor<8xi32>
  %k2 = tile.full %c2 : tensor<8xi32>
  %k3 = tile.full %c3 : tensor<8xi32>
  %k4 = tile.full %c4 : tensor<8xi32>
  %fb = tile.full %vb : tensor<8xf32>
  %f1 = tile.full %v1 : tensor<8xf32>
  %f8f = tile.full %v8 : tensor<8xf32>
  %f16f = tile.full %v16 : tensor<8xf32>
  %m1 = arith.cmpi eq, %iota, %k1 : tensor<8xi32>
  %m2 = arith.cmpi eq, %iota, %k2 : tensor<8xi32>
  %m3 = arith.cmpi eq, %iota, %k3 : tensor<8xi32>
  %m4 = arith.cmpi eq, %iota, %k4 : tensor<8xi32>
  %o1 = tile.where %m1, %fb, %fo : tensor<8xi1>, tensor<8xf32>
  %o2 = tile.where %m2, %f1, %o1 : tensor<8xi1>, tensor<8xf32>
  %o3 = tile.where %m3, %f8f, %o2 : tensor<8xi1>, tensor<8xf32>
  %o4 = tile.where %m4, %f16f, %o3 : tensor<8xi1>, tensor<8xf32>
  tile.store %o4, %out[%c0] : tensor<8xf32>, !tile.view<1, f32>
  tile.return
}
