// tilegpu-assign-layouts refuses what it cannot give layouts, saying why.
// RUN: tile-opt %s -split-input-file -verify-diagnostics --tilegpu-assign-layouts

tile.kernel @unbound(%x: !tile.view<1, f32>) attributes {num_warps = 1 : i32, params = {BLOCK = 64 : i64}} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{has a tile of unbound shape: run tile-bind-params before layouts are assigned}}
  %t = tile.load %x[%c0] : !tile.view<1, f32> -> tensor<?xf32, #tile.dims<[BLOCK]>>
  tile.return
}

// -----

tile.kernel @shorthand(%x: !tile.view<1, f32>) attributes {num_warps = 1 : i32} {
  // expected-error @+1 {{is a shorthand of the kernel language: run tile-expand-forms before tilegpu-assign-layouts}}
  %t = tile.full 1.0 : tensor<16xf32>
  tile.return
}

// -----

tile.kernel @while_loop(%x: !tile.view<1, f32>, %go: i1) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0] : !tile.view<1, f32> -> tensor<16xf32>
  // expected-error @+1 {{has regions that tilegpu-assign-layouts cannot see into}}
  %r = scf.while (%a = %t) : (tensor<16xf32>) -> tensor<16xf32> {
    scf.condition(%go) %a : tensor<16xf32>
  } do {
  ^bb0(%b: tensor<16xf32>):
    scf.yield %b : tensor<16xf32>
  }
  tile.return
}

// -----

#blocked = #tilegpu.dist<register = [[1], [2], [4], [8]], lane = [[16], [32], [64], [128], [256]], warp = []>
tile.kernel @twice(%x: !tile.view<1, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{already has register layouts: tilegpu-assign-layouts runs once, on bound tile IR}}
  %t = tile.load %x[%c0] : !tile.view<1, f32> -> tensor<512xf32, #blocked>
  tile.store %t, %x[%c0] : tensor<512xf32, #blocked>, !tile.view<1, f32>
  tile.return
}
