// z = a * x + y over 1-D views, one BLOCK-element tile per program: the
// consumer project's own kernel, compiled by the installed tilec.

!Block = tensor<?xf32, #tile.dims<[BLOCK]>>

tile.kernel @axpy(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>,
                  %z: !tile.view<1, f32>, %a: f32)
    attributes {num_warps = 4 : i32, params = {BLOCK = 256 : i64}} {
  %i = tile.block_id x
  %tx = tile.load %x[%i] : !tile.view<1, f32> -> !Block
  %ty = tile.load %y[%i] : !tile.view<1, f32> -> !Block
  %ta = tile.full %a : !Block
  %ax = arith.mulf %ta, %tx : !Block
  %r = arith.addf %ax, %ty : !Block
  tile.store %r, %z[%i] : !Block, !tile.view<1, f32>
  tile.return
}
