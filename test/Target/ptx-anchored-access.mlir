// The layouts path's global accesses, vec variant: every register of a
// 64 x 64 f32 tile on 4 warps lies a constant offset from the thread's
// first (ViewAccess.h, RegisterAddresses), so one multiply by the row stride
// places the anchor and each 16-byte access adds a constant to it; the
// innermost stride is the vec facts' 1, multiplied by nothing. The generic
// variant (one element per access, both strides from the view) addresses
// its 32 registers from the anchor too: two multiplies per tile access, not
// two per element.
// RUN: tilec %s --codegen=layouts --variants=vec --emit=ptx --target=sm_90 -o - | FileCheck %s --check-prefix=VEC
// RUN: tilec %s --codegen=layouts --variants=generic --emit=ptx --target=sm_90 -o - | FileCheck %s --check-prefix=GENERIC

// VEC-LABEL: .entry copy_vec(
// VEC: mul.lo.s64
// VEC-NOT: mul.lo.s64
// VEC-COUNT-8: ld.global.v4.b32
// VEC: mul.lo.s64
// VEC-NOT: mul.lo.s64
// VEC-COUNT-8: st.global.v4.b32
// VEC-NOT: mul.lo.s64
// VEC: ret;

// GENERIC-LABEL: .entry copy(
// GENERIC-COUNT-2: mul.lo.s64
// GENERIC-NOT: mul.lo.s64
// GENERIC-COUNT-32: ld.global.b32
// GENERIC-NOT: ld.global
// GENERIC-COUNT-2: mul.lo.s64
// GENERIC-NOT: mul.lo.s64
// GENERIC-COUNT-32: st.global.b32
// GENERIC-NOT: mul.lo.s64
// GENERIC: ret;
tile.kernel @copy(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>)
    attributes {num_warps = 4 : i32} {
  %i, %j = tile.block_id x, y
  %t = tile.load %x[%i, %j] : !tile.view<2, f32> -> tensor<64x64xf32>
  tile.store %t, %y[%i, %j] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}
