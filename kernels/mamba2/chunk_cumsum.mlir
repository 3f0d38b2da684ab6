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

!Heads = !tile.tile<BLOCK_H x f32>
!Steps = !tile.tile<CHUNK x BLOCK_H x f32>

tile.kernel @chunk_cumsum<CHUNK = 64, BLOCK_H = 8>(
    %dt: !tile.view<3, f32>, %A: !tile.view<1, f32>, %G: !tile.view<4, f32>)
    warps 4 {
  %chunk, %b, %hb = tile.block_id x, y, z
  %a = tile.load %A[%hb] : !tile.view<1, f32> -> !Heads
  %log2e = tile.full 1.44269504088896340736 : !Heads
  %aLog2 = arith.mulf %a, %log2e : !Heads
  %aSteps = tile.broadcast %aLog2 new_dims = [0] : !Heads -> !Steps
  %dtSteps = tile.load %dt[%b, %chunk, %hb] dims = [1, 2]
      : !tile.view<3, f32> -> !Steps
  %adt = arith.mulf %dtSteps, %aSteps : !Steps
  %g = tile.cumsum %adt axis = 0 : !Steps
  // Time runs along the last axis of G: store the (time, head) tile through
  // dims rather than transposing it in registers.
  tile.store %g, %G[%b, %hb, %chunk, 0] dims = [3, 1] : !Steps, !tile.view<4, f32>
  tile.return
}
