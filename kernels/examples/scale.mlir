// y = s * x over a 1-D view, one BLOCK-element tile per program.
// tilec scale.mlir -D BLOCK=256 binds the tile size.

tile.kernel @scale<BLOCK = 128>(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>,
                                %s: f32) warps 4 {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> !tile.tile<BLOCK x f32>
  %f = tile.full %s : !tile.tile<BLOCK x f32>
  %r = arith.mulf %t, %f : !tile.tile<BLOCK x f32>
  tile.store %r, %y[%i] : !tile.tile<BLOCK x f32>, !tile.view<1, f32>
  tile.return
}
