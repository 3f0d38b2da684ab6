// Mamba-2 forward, kernel 1 of 3 (docs/mamba2.md): the time steps as the
// other kernels use them, and the chunk-local decay exponents
//
//   dt_chunks[b, h, c, t] = clamp(f(dt[b, c * CHUNK + t, h] + dt_bias[h]),
//                                 dt_min, dt_max)
//   G[b, h, c, t]         = log2(e) * sum_{s <= t} A[h] * dt_chunks[b, h, c, s]
//
// with f mamba_ssm's softplus when softplus != 0 (log1p(exp(v)) for
// v <= 20, v above: there the two agree in f32) and the identity otherwise.
// G is the inclusive cumsum of A * dt inside each chunk, kept in base 2 so
// that the other kernels decay with exp2. Time steps past the end of the
// sequence get dt_chunks = 0 (whatever the bias, softplus and limits), so G
// of a ragged last chunk stays at its last real value and fwd_pass_state can
// decay by G[CHUNK - 1] whatever the length; padded steps add nothing.
//
// Grid: (nchunks, batch, ceil(heads / BLOCK_H)); one program transforms and
// scans the CHUNK time steps of BLOCK_H heads.
//   dt:        (batch, seqlen, heads) DT (f32, bf16 or f16: a type
//              parameter, one instance per dtype), raw (before bias and
//              softplus); converted to f32 on load
//   A:         (heads) f32
//   dt_bias:   (heads) f32; an empty view (extent 0) reads as zero bias
//   softplus:  i32, non-zero applies softplus after the bias
//   dt_min, dt_max: f32, the clamp (-inf, +inf: none)
//   dt_chunks: (batch, heads, nchunks, CHUNK) f32, written in full: what
//              fwd_pass_state and compute_out read as dt (time contiguous
//              per (batch, head), mamba_ssm's dt_out)
//   G:         (batch, heads, nchunks, CHUNK) f32, written in full

!Heads = !tile.tile<BLOCK_H x f32>
!Steps = !tile.tile<CHUNK x BLOCK_H x f32>
!Dt = !tile.view<3, DT>
!Out = !tile.view<4, f32>

tile.kernel @chunk_cumsum<CHUNK = 64, BLOCK_H = 8, DT : type = f32>(
    %dt: !Dt, %A: !tile.view<1, f32>,
    %dt_bias: !tile.view<1, f32>, %softplus: i32, %dt_min: f32,
    %dt_max: f32, %dt_chunks: !Out, %G: !Out) warps 4 {
  %chunk, %b, %hb = tile.block_id x, y, z
  %seqlen = tile.dim %dt[1] : !Dt
  %bias = tile.load %dt_bias[%hb] : !tile.view<1, f32> -> !Heads
  // dt converted to f32 as it is read, then biased, softplus and clamped.
  %dtRaw = tile.load %dt[%b, %chunk, %hb] dims = [1, 2] : !Dt -> !Steps
  %dtBiased = tile.addf %dtRaw, %bias : !Steps, !Heads -> !Steps
  %dtSoft = tile.softplus %dtBiased if %softplus : !Steps, i32
  %dtClamped = tile.clamp %dtSoft, %dt_min, %dt_max : !Steps, f32, f32
  // Steps past seqlen: dt = 0.
  %dtT = tile.pad %dtClamped dim 0 past %seqlen at %chunk : !Steps
  %a = tile.load %A[%hb] : !tile.view<1, f32> -> !Heads
  %log2e = arith.constant 1.44269504088896340736 : f32
  %aLog2 = tile.mulf %a, %log2e : !Heads, f32 -> !Heads
  %adt = tile.mulf %dtT, %aLog2 : !Steps, !Heads -> !Steps
  %g = tile.cumsum %adt axis = 0 : !Steps
  // Time runs along the last axis of G and dt_chunks: store the (time,
  // head) tiles through dims rather than transposing them in registers.
  tile.store %dtT, %dt_chunks[%b, %hb, %chunk, 0] dims = [3, 1] : !Steps, !Out
  tile.store %g, %G[%b, %hb, %chunk, 0] dims = [3, 1] : !Steps, !Out
}
