// Mamba-2 forward, four-kernel structure, kernel 3 of 4 (docs/mamba2.md):
// the state entering each chunk, from the chunks' own states (chunk_state).
// With h_0 the initial state (or zero),
//
//   states[b, c, h] = h_c                          (the state entering c)
//   h_{c+1}         = exp2(G[b, h, c, CHUNK-1]) * h_c + local[b, c, h]
//
// and final = h_nchunks. The recurrence is sequential in c but elementwise in
// the state, so programs are parallel over (state block, head, batch) and
// each walks all chunks with its BLOCK_P x BLOCK_N block of h in registers.
// It moves little more than the states' bytes twice (local read, states
// written once each; one G value per chunk), so it is bandwidth-bound: the
// matrix products are all in chunk_state.
//
// Each chunk's inputs (its local block and its decay exponent) do not
// depend on h, so they are loaded two chunks ahead and carried in the loop:
// while one chunk's reads are on their way, the program updates and stores
// with the two before it, which keeps more memory requests in flight than
// the program has state elements. Loads past the last chunk read zeros and
// touch no memory.
//
// Grid: (ceil(headdim / BLOCK_P) * ceil(dstate / BLOCK_N), heads, batch);
// program x covers head-dimension block x / numN and state block x mod numN.
//   local:  (batch, nchunks, heads, headdim, dstate) f32, from chunk_state
//   G:      (batch, heads, nchunks, CHUNK) f32, from chunk_cumsum
//   init:   (batch, heads, headdim, dstate) f32, read only when
//           has_init != 0 (otherwise any view: it is not touched)
//   states: (batch, nchunks, heads, headdim, dstate) f32
//   final:  (batch, heads, headdim, dstate) f32
//
// Precision: f32 throughout; exp2(G_last) is the decay of the whole chunk
// (G of a ragged last chunk stays at its last real value).

!State = !tile.tile<BLOCK_P x BLOCK_N x f32>
!One = !tile.tile<1 x f32>

tile.kernel @state_passing<CHUNK = 64, BLOCK_P = 16, BLOCK_N = 32>(
    %local: !tile.view<5, f32>, %G: !tile.view<4, f32>,
    %init: !tile.view<4, f32>, %has_init: i32, %states: !tile.view<5, f32>,
    %final: !tile.view<4, f32>) warps 4 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero_i32 = arith.constant 0 : i32
  %pn, %h, %b = tile.block_id x, y, z

  %dstate = tile.dim %local[4] : !tile.view<5, f32>
  %chunkSize, %blockN = tile.param "CHUNK", "BLOCK_N"
  %numN = arith.ceildivui %dstate, %blockN : index
  %pt = arith.divui %pn, %numN : index
  %nt = arith.remui %pn, %numN : index
  %nchunks = tile.dim %G[2] : !tile.view<4, f32>
  %lastStep = arith.subi %chunkSize, %c1 : index

  %hasInit = arith.cmpi ne, %has_init, %zero_i32 : i32
  %h0 = scf.if %hasInit -> !State {
    %s = tile.load %init[%b, %h, %pt, %nt] dims = [2, 3]
        : !tile.view<4, f32> -> !State
    scf.yield %s : !State
  } else {
    %s = tile.full 0.0 : !State
    scf.yield %s : !State
  }

  %local0 = tile.load %local[%b, %c0, %h, %pt, %nt] dims = [3, 4]
      : !tile.view<5, f32> -> !State
  %gLast0 = tile.load %G[%b, %h, %c0, %lastStep] dims = [3]
      : !tile.view<4, f32> -> !One
  %local1 = tile.load %local[%b, %c1, %h, %pt, %nt] dims = [3, 4]
      : !tile.view<5, f32> -> !State
  %gLast1 = tile.load %G[%b, %h, %c1, %lastStep] dims = [3]
      : !tile.view<4, f32> -> !One
  %hLast:5 = scf.for %c = %c0 to %nchunks step %c1
      iter_args(%hc = %h0, %localC = %local0, %gLastC = %gLast0,
                %localNext = %local1, %gLastNext = %gLast1)
      -> (!State, !State, !One, !State, !One) {
    %cAhead = arith.addi %c, %c2 : index
    %localAhead = tile.load %local[%b, %cAhead, %h, %pt, %nt] dims = [3, 4]
        : !tile.view<5, f32> -> !State
    %gLastAhead = tile.load %G[%b, %h, %cAhead, %lastStep] dims = [3]
        : !tile.view<4, f32> -> !One

    tile.store %hc, %states[%b, %c, %h, %pt, %nt] dims = [3, 4]
        : !State, !tile.view<5, f32>
    %chunkDecay = tile.exp2 %gLastC : !One
    %chunkDecayState = tile.broadcast %chunkDecay new_dims = [0]
        : !One -> !State
    %decayed = arith.mulf %hc, %chunkDecayState : !State
    %hNext = arith.addf %decayed, %localC : !State
    scf.yield %hNext, %localNext, %gLastNext, %localAhead, %gLastAhead
        : !State, !State, !One, !State, !One
  }

  tile.store %hLast#0, %final[%b, %h, %pt, %nt] dims = [2, 3]
      : !State, !tile.view<4, f32>
  tile.return
}
