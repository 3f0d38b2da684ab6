// RUN: tile-opt %s --convert-tile-to-llvm --split-input-file --verify-diagnostics

tile.kernel @unbound(%v: !tile.view<1, f32>) attributes {params = {B = 64 : i64}} {
  // expected-error @+1 {{parameter 'B' is not bound: run tile-bind-params first}}
  %b = tile.param "B"
  tile.return
}

// -----

tile.kernel @symbolic(%v: !tile.view<1, f32>) attributes {params = {B = 64 : i64}} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{has a tile whose shape names a parameter (B): run tile-bind-params first}}
  %t = tile.load %v[%c0] : !tile.view<1, f32> -> tensor<?xf32, #tile.dims<[B]>>
  tile.return
}

// -----

tile.kernel @constant() attributes {num_warps = 1 : i32} {
  // expected-error @+2 {{a tile constant must be a splat}}
  // expected-error @+1 {{failed to legalize}}
  %c = arith.constant dense<[0.0, 1.0]> : tensor<2xf32>
  tile.return
}

// -----

tile.kernel @math_bf16(%s: bf16) attributes {num_warps = 1 : i32} {
  %t = tile.full %s : tensor<32xbf16>
  // expected-error @+2 {{is lowered for f32 only}}
  // expected-error @+1 {{failed to legalize}}
  %e = math.exp %t : tensor<32xbf16>
  tile.return
}
