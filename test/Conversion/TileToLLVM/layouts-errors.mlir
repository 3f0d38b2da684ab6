// RUN: tile-opt %s --convert-tile-to-llvm --split-input-file --verify-diagnostics

// The layouts path needs every tile of a kernel to carry a layout.
tile.kernel @mixed(%s: f32) attributes {num_warps = 1 : i32} {
  %a = tile.full %s : tensor<32xf32, #tilegpu.dist<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>>
  // expected-error @+1 {{mixes tiles with and without #tilegpu.dist layouts: run tilegpu-assign-layouts on the whole kernel, or neither}}
  %b = tile.full %s : tensor<32xf32>
  tile.return
}
