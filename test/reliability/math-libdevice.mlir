// RUN: tile-opt %s --convert-tile-to-llvm --split-input-file | FileCheck %s
// c01, c01b: math.sin, cos, tanh, powf (on tiles or scalars) reached the
// NVPTX backend unlowered ("Cannot select"). The math functions without an
// instruction become calls to libdevice's f32 functions, element by element.

// CHECK-LABEL: llvm.func @sin_tile(
// CHECK-COUNT-4: llvm.call @__nv_sinf(%{{.*}}) : (f32) -> f32
// CHECK-NOT: math.sin
// CHECK: llvm.return
tile.kernel @sin_tile(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>) {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> tensor<512xf32>
  %r = math.sin %t : tensor<512xf32>
  tile.store %r, %y[%i] : tensor<512xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// A scalar powf, as in the reproducer, is a single call.
// CHECK-DAG: llvm.func @__nv_powf(f32, f32) -> f32
// CHECK-LABEL: llvm.func @powf_scalar(
// CHECK-SAME: %[[S:arg[0-9]+]]: f32)
// CHECK: %[[P:.*]] = llvm.call @__nv_powf(%[[S]], %[[S]]) : (f32, f32) -> f32
// CHECK: llvm.insertelement %[[P]]
tile.kernel @powf_scalar(%y: !tile.view<1, f32>, %s: f32) {
  %i = tile.block_id x
  %p = math.powf %s, %s : f32
  %t = tile.full %p : tensor<128xf32>
  tile.store %t, %y[%i] : tensor<128xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// Every function docs/semantics.md lists without a PTX instruction.
// CHECK-LABEL: llvm.func @all_functions(
// CHECK: llvm.call @__nv_cosf
// CHECK: llvm.call @__nv_tanhf
// CHECK: llvm.call @__nv_erff
// CHECK: llvm.call @__nv_atanf
// CHECK: llvm.call @__nv_atan2f
// CHECK: llvm.call @__nv_expm1f
// CHECK: llvm.call @__nv_log1pf
// CHECK: llvm.call @__nv_log10f
tile.kernel @all_functions(%s: f32, %y: !tile.view<1, f32>) {
  %i = tile.block_id x
  %a = math.cos %s : f32
  %b = math.tanh %a : f32
  %c = math.erf %b : f32
  %d = math.atan %c : f32
  %e = math.atan2 %d, %c : f32
  %f = math.expm1 %e : f32
  %g = math.log1p %f : f32
  %h = math.log10 %g : f32
  %t = tile.full %h : tensor<128xf32>
  tile.store %t, %y[%i] : tensor<128xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// bf16 is computed in f32 and rounded once to bf16.
// CHECK-LABEL: llvm.func @erf_bf16(
// CHECK: %[[W:.*]] = llvm.fpext %{{.*}} : bf16 to f32
// CHECK: %[[E:.*]] = llvm.call @__nv_erff(%[[W]]) : (f32) -> f32
// CHECK: llvm.fptrunc %[[E]] : f32 to bf16
tile.kernel @erf_bf16(%x: !tile.view<1, bf16>, %y: !tile.view<1, bf16>)
    attributes {num_warps = 1 : i32} {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, bf16> -> tensor<32xbf16>
  %r = math.erf %t : tensor<32xbf16>
  tile.store %r, %y[%i] : tensor<32xbf16>, !tile.view<1, bf16>
  tile.return
}
