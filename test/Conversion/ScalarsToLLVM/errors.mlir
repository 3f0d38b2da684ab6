// RUN: tile-opt %s --convert-scalars-to-llvm --split-input-file --verify-diagnostics

// An op the patterns have no lowering for is an error at the op, not a
// crash: math.erf has no LLVM intrinsic (tilec calls libdevice for it
// before this pass).
llvm.func @erf(%x: f32) -> f32 {
  // expected-error @below {{failed to legalize operation 'math.erf'}}
  %r = math.erf %x : f32
  llvm.return %r : f32
}

// -----

// Arith on a tensor (a tile that convert-tile-to-llvm did not lower) has no
// LLVM form either: the first such op is the error.
llvm.func @tensor() {
  // expected-error @below {{failed to legalize operation 'arith.constant'}}
  %c = arith.constant dense<1.0> : tensor<4xf32>
  %r = arith.addf %c, %c : tensor<4xf32>
  llvm.return
}
