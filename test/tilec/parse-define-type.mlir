// RUN: tilec %s | FileCheck %s --check-prefix=DEFAULT
// RUN: tilec %s -D XT=f16 -D BLOCK=64 | FileCheck %s --check-prefix=F16
// RUN: tilec %s -D XT=bf16 --emit=cpp --target=sm_80 -o %t && FileCheck %s --check-prefix=LAUNCHER < %t.h
// RUN: not tilec %s -D XT=f64 2>&1 | FileCheck %s --check-prefix=NOT-ELEMENT
// RUN: not tilec %s -D XT=4 2>&1 | FileCheck %s --check-prefix=NOT-A-TYPE
// RUN: not tilec %s -D BLOCK=f16 2>&1 | FileCheck %s --check-prefix=TYPE-FOR-EXTENT

// -D binds an element-type parameter as it binds an extent: the kernel's
// signature, and so the generated launcher, take the bound type.

// DEFAULT: params = {BLOCK = 128 : i64, XT = f32}
// DEFAULT: load %{{.*}} : <1, f32> -> tensor<128xf32>
// F16: tile.kernel @scale(%{{.*}}: !tile.view<1, f16>, %{{.*}}: !tile.view<1, f32>, %{{.*}}: f32)
// F16-SAME: params = {BLOCK = 64 : i64, XT = f16}
// F16: load %{{.*}} : <1, f16> -> tensor<64xf16>
// F16: convert %{{.*}} : tensor<64xf16> -> tensor<64xf32>
// LAUNCHER: tilec_status tile_scale(const tilec_view_bf16_1d &x, const tilec_view_f32_1d &y, float s, tilec_grid grid, CUstream stream)
// NOT-ELEMENT: error: type parameter 'XT' of kernel @scale is bound to 'f64': bind it to an element type
// NOT-A-TYPE: error: type parameter 'XT' of kernel @scale is bound to '4'
// TYPE-FOR-EXTENT: error: parameter binding 'BLOCK=f16' is not NAME=VALUE with a positive VALUE

tile.kernel @scale<BLOCK = 128, XT : type = f32>(
    %x: !tile.view<1, XT>, %y: !tile.view<1, f32>, %s: f32) {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, XT> -> !tile.tile<BLOCK x XT>
  %f = tile.convert %t : !tile.tile<BLOCK x XT> -> !tile.tile<BLOCK x f32>
  %r = tile.mulf %f, %s : !tile.tile<BLOCK x f32>, f32 -> !tile.tile<BLOCK x f32>
  tile.store %r, %y[%i] : !tile.tile<BLOCK x f32>, !tile.view<1, f32>
  tile.return
}
