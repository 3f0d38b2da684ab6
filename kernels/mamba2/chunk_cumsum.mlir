// Mamba-2 forward, kernel 1 of 3 (docs/mamba2.md): the chunk-local decay
// exponents
//
//   G[b, h, c, t] = log2(e) * sum_{s <= t} A[h] * dt[b, c * CHUNK + s, h],
//
// the inclusive cumsum of A * dt inside each chunk, kept in base 2 so that the
// other kernels decay with exp2. Time steps past the end of the sequence read
// dt = 0 (zero padding), so G of a ragged last chunk stays at its last real
// value and fwd_pass_state can decay by G[CHUNK - 1] whatever the length.
//
// Grid: (nchunks, batch, ceil(heads / BLOCK_H)); one program scans the CHUNK
// time steps of BLOCK_H heads.
//   dt: (batch, seqlen, heads) f32, after softplus
//   A:  (heads) f32
//   G:  (batch, heads, nchunks, CHUNK) f32, written in full

!DtTile = tensor<1x?x?xf32, #tile.dims<[1, CHUNK, BLOCK_H]>>
!HeadTile = tensor<?xf32, #tile.dims<[BLOCK_H]>>
!HeadRow = tensor<1x?xf32, #tile.dims<[1, BLOCK_H]>>
!Steps = tensor<?x?xf32, #tile.dims<[CHUNK, BLOCK_H]>>
!GTile = tensor<1x?x?x1xf32, #tile.dims<[1, CHUNK, BLOCK_H, 1]>>

tile.kernel @chunk_cumsum(%dt: !tile.view<3, f32>, %A: !tile.view<1, f32>,
                          %G: !tile.view<4, f32>)
    attributes {num_warps = 4 : i32,
                params = {CHUNK = 64 : i64, BLOCK_H = 8 : i64}} {
  %c0 = arith.constant 0 : index
  %log2e = arith.constant 1.44269504088896340736 : f32
  %chunk = tile.block_id x
  %b = tile.block_id y
  %hb = tile.block_id z

  %a = tile.load %A[%hb] : !tile.view<1, f32> -> !HeadTile
  %aRow = tile.reshape %a : !HeadTile -> !HeadRow
  %scale = tile.full %log2e : !HeadRow
  %aLog2 = arith.mulf %aRow, %scale : !HeadRow
  %aSteps = tile.broadcast %aLog2 : !HeadRow -> !Steps

  %dtTile = tile.load %dt[%b, %chunk, %hb] : !tile.view<3, f32> -> !DtTile
  %dtSteps = tile.reshape %dtTile : !DtTile -> !Steps
  %adt = arith.mulf %dtSteps, %aSteps : !Steps
  %g = tile.cumsum %adt axis = 0 : !Steps

  // Time runs along the last axis of G: store the (time, head) tile through
  // the permuted order rather than transposing it in registers.
  %gTile = tile.reshape %g : !Steps -> !GTile
  tile.store %gTile, %G[%b, %hb, %chunk, %c0] order = [0, 3, 1, 2]
      : !GTile, !tile.view<4, f32>
  tile.return
}
