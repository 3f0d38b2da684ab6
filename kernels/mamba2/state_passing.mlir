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
//   seq_idx: (batch, seqlen) i32, the sequence of each step of a packed row
//           (non-decreasing); an empty view reads as zeros: one sequence
//   init:   (batch, heads, headdim, dstate) f32, read only when
//           has_init != 0 (otherwise any view: it is not touched)
//   states: (batch, nchunks, heads, headdim, dstate) f32
//   final:  (batch, heads, headdim, dstate) f32
//
// Packed sequences (mamba_ssm's rule): h_c belongs to the sequence of the
// last real step before chunk c (sequence 0 before the first chunk, so an
// initial state is sequence 0's). Where chunk c ends in another sequence
// than that one, the chunk starts a sequence and h_{c+1} = local[c] (the
// decay is replaced by 0): chunk_state gathered only that sequence's steps.
// Where both are the same sequence, the whole chunk is in it (seq_idx does
// not decrease). A second half past the last chunk reads the sequence of
// the last real step, the one h is in, so it still changes nothing.
//
// Precision: f32 throughout; exp2(G_last) is the decay of the whole chunk
// (G of a ragged last chunk stays at its last real value).

!State = !tile.tile<BLOCK_P x BLOCK_N x f32>
!One = !tile.tile<1 x f32>
!SeqOne = !tile.tile<1 x i32>

tile.kernel @state_passing<CHUNK = 64, BLOCK_P = 16, BLOCK_N = 32>(
    %local: !tile.view<5, f32>, %G: !tile.view<4, f32>,
    %seq_idx: !tile.view<2, i32>, %init: !tile.view<4, f32>, %has_init: i32,
    %states: !tile.view<5, f32>,
    %final: !tile.view<4, f32>) warps 4 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %pn, %h, %b = tile.block_id x, y, z

  %dstate = tile.dim %local[4] : !tile.view<5, f32>
  %chunkSize, %blockN = tile.param "CHUNK", "BLOCK_N"
  %numN = arith.ceildivui %dstate, %blockN : index
  %pt, %nt = tile.delinearize %pn by %numN
  %nchunks = tile.dim %G[2] : !tile.view<4, f32>
  %lastStep = arith.subi %chunkSize, %c1 : index
  // The view's own extent: an empty seq_idx has seqlen 0, and its loads
  // (at position 0) read zeros.
  %seqlen = tile.dim %seq_idx[1] : !tile.view<2, i32>
  %zeroOne = tile.full 0.0 : !One

  // The initial state when there is one, else zeros (the load's padding).
  %h0 = tile.load %init[%b, %h, %pt, %nt] if %has_init dims = [2, 3]
      : !tile.view<4, f32>, i32 -> !State

  %seqFirst0 = arith.minui %chunkSize, %seqlen : index
  %seqFirst1 = arith.maxui %seqFirst0, %c1 : index
  %seqPos0 = arith.subi %seqFirst1, %c1 : index
  %seq0 = tile.load %seq_idx[%b, %seqPos0] dims = [1]
      : !tile.view<2, i32> -> !SeqOne
  %twoChunks = arith.muli %c2, %chunkSize : index
  %seqSecond0 = arith.minui %twoChunks, %seqlen : index
  %seqSecond1 = arith.maxui %seqSecond0, %c1 : index
  %seqPos1 = arith.subi %seqSecond1, %c1 : index
  %seq1 = tile.load %seq_idx[%b, %seqPos1] dims = [1]
      : !tile.view<2, i32> -> !SeqOne
  %seqBefore = tile.full 0 : !SeqOne
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
  %hLast:8 = scf.for %c = %c0 to %nchunks step %c2
      iter_args(%hc = %h0, %localEven = %local0, %gLastEven = %gLast0,
                %localOdd = %local1, %gLastOdd = %gLast1, %seqPrev = %seqBefore,
                %seqEven = %seq0, %seqOdd = %seq1)
      -> (!State, !State, !One, !State, !One, !SeqOne, !SeqOne, !SeqOne) {
    tile.store %hc, %states[%b, %c, %h, %pt, %nt] dims = [3, 4]
        : !State, !tile.view<5, f32>
    %decayEvenSame = tile.exp2 %gLastEven : !One
    %continuesEven = arith.cmpi eq, %seqEven, %seqPrev : !SeqOne
    %decayEven = tile.where %continuesEven, %decayEvenSame, %zeroOne
        : !tile.tile<1 x i1>, !One
    %decayedEven = tile.mulf %hc, %decayEven : !State, !One -> !State
    %hOdd = arith.addf %decayedEven, %localEven : !State
    %cNextEven = arith.addi %c, %c2 : index
    %localNextEven = tile.load %local[%b, %cNextEven, %h, %pt, %nt]
        dims = [3, 4] : !tile.view<5, f32> -> !State
    %gLastNextEven = tile.load %G[%b, %h, %cNextEven, %lastStep] dims = [3]
        : !tile.view<4, f32> -> !One
    %cAfterNextEven = arith.addi %c, %c3 : index
    %seqNextEvenEnd = arith.muli %cAfterNextEven, %chunkSize : index
    %seqNextEvenReal = arith.minui %seqNextEvenEnd, %seqlen : index
    %seqNextEvenAtLeast1 = arith.maxui %seqNextEvenReal, %c1 : index
    %seqNextEvenPos = arith.subi %seqNextEvenAtLeast1, %c1 : index
    %seqNextEven = tile.load %seq_idx[%b, %seqNextEvenPos] dims = [1]
        : !tile.view<2, i32> -> !SeqOne

    %cOdd = arith.addi %c, %c1 : index
    tile.store %hOdd, %states[%b, %cOdd, %h, %pt, %nt] dims = [3, 4]
        : !State, !tile.view<5, f32>
    %decayOddSame = tile.exp2 %gLastOdd : !One
    %continuesOdd = arith.cmpi eq, %seqOdd, %seqEven : !SeqOne
    %decayOdd = tile.where %continuesOdd, %decayOddSame, %zeroOne
        : !tile.tile<1 x i1>, !One
    %decayedOdd = tile.mulf %hOdd, %decayOdd : !State, !One -> !State
    %hNext = arith.addf %decayedOdd, %localOdd : !State
    %cNextOdd = arith.addi %c, %c3 : index
    %localNextOdd = tile.load %local[%b, %cNextOdd, %h, %pt, %nt]
        dims = [3, 4] : !tile.view<5, f32> -> !State
    %gLastNextOdd = tile.load %G[%b, %h, %cNextOdd, %lastStep] dims = [3]
        : !tile.view<4, f32> -> !One
    %cAfterNextOdd = arith.addi %c, %c4 : index
    %seqNextOddEnd = arith.muli %cAfterNextOdd, %chunkSize : index
    %seqNextOddReal = arith.minui %seqNextOddEnd, %seqlen : index
    %seqNextOddAtLeast1 = arith.maxui %seqNextOddReal, %c1 : index
    %seqNextOddPos = arith.subi %seqNextOddAtLeast1, %c1 : index
    %seqNextOdd = tile.load %seq_idx[%b, %seqNextOddPos] dims = [1]
        : !tile.view<2, i32> -> !SeqOne
    scf.yield %hNext, %localNextEven, %gLastNextEven, %localNextOdd,
        %gLastNextOdd, %seqOdd, %seqNextEven, %seqNextOdd
        : !State, !State, !One, !State, !One, !SeqOne, !SeqOne, !SeqOne
  }

  tile.store %hLast#0, %final[%b, %h, %pt, %nt] dims = [2, 3]
      : !State, !tile.view<4, f32>
}
