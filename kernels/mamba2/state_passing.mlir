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
// depend on h, so they are loaded ahead: the loop takes two chunks per
// iteration, and each chunk's update is followed by the load of the chunk two
// ahead into what the update just used, so that two chunks' reads are on
// their way while the program updates and stores. Two sets of inputs that
// alternate, rather than one queue shifted by a step, leave nothing to copy
// between loop iterations: a copy of a register whose load is still on its
// way would wait for it, which is the wait the early load avoids.
//
// A ragged end needs no case of its own: loads past the last chunk read
// zeros and touch no memory, and with an odd number of chunks the last
// iteration's second half stores nowhere (the store is outside the view)
// and leaves h as it is (its exponent and input read 0: exp2(0) h + 0), so
// the final state is h after the last real chunk.
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
  %c3 = arith.constant 3 : index
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
  // Chunks c (the even one) and c + 1 per iteration, their inputs loaded by
  // the iteration before.
  %hLast:5 = scf.for %c = %c0 to %nchunks step %c2
      iter_args(%hc = %h0, %localEven = %local0, %gLastEven = %gLast0,
                %localOdd = %local1, %gLastOdd = %gLast1)
      -> (!State, !State, !One, !State, !One) {
    tile.store %hc, %states[%b, %c, %h, %pt, %nt] dims = [3, 4]
        : !State, !tile.view<5, f32>
    %decayEven = tile.exp2 %gLastEven : !One
    %decayEvenState = tile.broadcast %decayEven new_dims = [0]
        : !One -> !State
    %decayedEven = arith.mulf %hc, %decayEvenState : !State
    %hOdd = arith.addf %decayedEven, %localEven : !State
    %cNextEven = arith.addi %c, %c2 : index
    %localNextEven = tile.load %local[%b, %cNextEven, %h, %pt, %nt]
        dims = [3, 4] : !tile.view<5, f32> -> !State
    %gLastNextEven = tile.load %G[%b, %h, %cNextEven, %lastStep] dims = [3]
        : !tile.view<4, f32> -> !One

    %cOdd = arith.addi %c, %c1 : index
    tile.store %hOdd, %states[%b, %cOdd, %h, %pt, %nt] dims = [3, 4]
        : !State, !tile.view<5, f32>
    %decayOdd = tile.exp2 %gLastOdd : !One
    %decayOddState = tile.broadcast %decayOdd new_dims = [0]
        : !One -> !State
    %decayedOdd = arith.mulf %hOdd, %decayOddState : !State
    %hNext = arith.addf %decayedOdd, %localOdd : !State
    %cNextOdd = arith.addi %c, %c3 : index
    %localNextOdd = tile.load %local[%b, %cNextOdd, %h, %pt, %nt]
        dims = [3, 4] : !tile.view<5, f32> -> !State
    %gLastNextOdd = tile.load %G[%b, %h, %cNextOdd, %lastStep] dims = [3]
        : !tile.view<4, f32> -> !One
    scf.yield %hNext, %localNextEven, %gLastNextEven, %localNextOdd,
        %gLastNextOdd : !State, !State, !One, !State, !One
  }

  tile.store %hLast#0, %final[%b, %h, %pt, %nt] dims = [2, 3]
      : !State, !tile.view<4, f32>
  tile.return
}
