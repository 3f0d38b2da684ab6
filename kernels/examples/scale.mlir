// y = s * x over a 1-D view, one BLOCK-element tile per program.
// tilec scale.mlir -D BLOCK=256 binds the tile size.

!Block = tensor<?xf32, #tile.dims<[BLOCK]>>

tile.kernel @scale(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>, %s: f32)
    attributes {num_warps = 4 : i32, params = {BLOCK = 128 : i64}} {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> !Block
  %f = tile.full %s : !Block
  %r = arith.mulf %t, %f : !Block
  tile.store %r, %y[%i] : !Block, !tile.view<1, f32>
  tile.return
}
