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
// depend on h, so they are loaded ahead: the loop takes four chunks per
// iteration, and each chunk's update is followed by the load of the chunk
// four ahead into what the update just used, so that four chunks' reads are
// on their way while the program updates and stores. The bytes in flight
// are the chunks ahead times one chunk's states (all programs are resident
// at once whatever the block), so the depth, not the block, sets how close
// the kernel gets to the memory bandwidth: two chunks ahead left the H200's
// DRAM 63% busy. Four sets of inputs that rotate, rather than one queue
// shifted by a step, leave nothing to copy between loop iterations: a copy
// of a register whose load is still on its way would wait for it, which is
// the wait the early load avoids.
//
// A ragged end needs no case of its own: loads past the last chunk read
// zeros and touch no memory, and where the number of chunks is not a
// multiple of four the last iteration's chunks past the end store nowhere
// (the store is outside the view) and leave h as it is (their exponent and
// input read 0: exp2(0) h + 0), so the final state is h after the last real
// chunk.
//
// Grid: (ceil(headdim / BLOCK_P) * ceil(dstate / BLOCK_N), heads, batch);
// program x covers head-dimension block x / numN and state block x mod numN.
//   local:  (batch, nchunks, heads, headdim, dstate) f32, from chunk_state
//   G:      (batch, heads, nchunks, CHUNK) f32, from chunk_cumsum
//   seq_idx: (batch, seqlen) i32, the sequence of each step of a packed row
//           (non-decreasing); an empty view reads as zeros: one sequence
//   init:   (batch, heads, headdim, dstate) f32, read only when
//           has_init != 0 (otherwise any view: it is not touched)
//   states: (batch, nchunks, heads, headdim, dstate) ST: f32 (the default)
//           or bf16 (mamba_ssm's state_dtype), a type parameter
//   final:  (batch, heads, headdim, dstate) f32
//
// Packed sequences (mamba_ssm's rule): h_c belongs to the sequence of the
// last real step before chunk c (sequence 0 before the first chunk, so an
// initial state is sequence 0's). Where chunk c ends in another sequence
// than that one, the chunk starts a sequence and h_{c+1} = local[c] (the
// decay is replaced by 0): chunk_state gathered only that sequence's steps.
// Where both are the same sequence, the whole chunk is in it (seq_idx does
// not decrease). A chunk past the last one reads the sequence of
// the last real step, the one h is in, so it still changes nothing.
//
// Precision: f32 throughout; exp2(G_last) is the decay of the whole chunk
// (G of a ragged last chunk stays at its last real value). With a bf16 ST
// each stored state is h rounded once to nearest even (2^-8 relative): h
// itself, and so the final state and every later state, stays f32.

!State = !tile.tile<BLOCK_P x BLOCK_N x f32>
!One = !tile.tile<1 x f32>
!SeqOne = !tile.tile<1 x i32>

tile.kernel @state_passing<CHUNK = 64, BLOCK_P = 16, BLOCK_N = 32,
                            ST : type = f32>(
    %local: !tile.view<5, f32>, %G: !tile.view<4, f32>,
    %seq_idx: !tile.view<2, i32>, %init: !tile.view<4, f32>, %has_init: i32,
    %states: !tile.view<5, ST>,
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

  %seqEnd0 = arith.muli %c1, %chunkSize : index
  %seqReal0 = arith.minui %seqEnd0, %seqlen : index
  %seqAtLeast10 = arith.maxui %seqReal0, %c1 : index
  %seqPos0 = arith.subi %seqAtLeast10, %c1 : index
  %seq0 = tile.load %seq_idx[%b, %seqPos0] dims = [1]
      : !tile.view<2, i32> -> !SeqOne
  %local0 = tile.load %local[%b, %c0, %h, %pt, %nt] dims = [3, 4]
      : !tile.view<5, f32> -> !State
  %gLast0 = tile.load %G[%b, %h, %c0, %lastStep] dims = [3]
      : !tile.view<4, f32> -> !One
  %seqEnd1 = arith.muli %c2, %chunkSize : index
  %seqReal1 = arith.minui %seqEnd1, %seqlen : index
  %seqAtLeast11 = arith.maxui %seqReal1, %c1 : index
  %seqPos1 = arith.subi %seqAtLeast11, %c1 : index
  %seq1 = tile.load %seq_idx[%b, %seqPos1] dims = [1]
      : !tile.view<2, i32> -> !SeqOne
  %local1 = tile.load %local[%b, %c1, %h, %pt, %nt] dims = [3, 4]
      : !tile.view<5, f32> -> !State
  %gLast1 = tile.load %G[%b, %h, %c1, %lastStep] dims = [3]
      : !tile.view<4, f32> -> !One
  %seqEnd2 = arith.muli %c3, %chunkSize : index
  %seqReal2 = arith.minui %seqEnd2, %seqlen : index
  %seqAtLeast12 = arith.maxui %seqReal2, %c1 : index
  %seqPos2 = arith.subi %seqAtLeast12, %c1 : index
  %seq2 = tile.load %seq_idx[%b, %seqPos2] dims = [1]
      : !tile.view<2, i32> -> !SeqOne
  %local2 = tile.load %local[%b, %c2, %h, %pt, %nt] dims = [3, 4]
      : !tile.view<5, f32> -> !State
  %gLast2 = tile.load %G[%b, %h, %c2, %lastStep] dims = [3]
      : !tile.view<4, f32> -> !One
  %seqEnd3 = arith.muli %c4, %chunkSize : index
  %seqReal3 = arith.minui %seqEnd3, %seqlen : index
  %seqAtLeast13 = arith.maxui %seqReal3, %c1 : index
  %seqPos3 = arith.subi %seqAtLeast13, %c1 : index
  %seq3 = tile.load %seq_idx[%b, %seqPos3] dims = [1]
      : !tile.view<2, i32> -> !SeqOne
  %local3 = tile.load %local[%b, %c3, %h, %pt, %nt] dims = [3, 4]
      : !tile.view<5, f32> -> !State
  %gLast3 = tile.load %G[%b, %h, %c3, %lastStep] dims = [3]
      : !tile.view<4, f32> -> !One
  %seqBefore = tile.full 0 : !SeqOne
  // Chunks c .. c + 3 per iteration, their inputs loaded by the iteration
  // before.
  %hLast:14 = scf.for %c = %c0 to %nchunks step %c4
      iter_args(%hA = %h0, %seqPrev = %seqBefore,
                %localA = %local0, %gLastA = %gLast0, %seqA = %seq0,
                %localB = %local1, %gLastB = %gLast1, %seqB = %seq1,
                %localC = %local2, %gLastC = %gLast2, %seqC = %seq2,
                %localD = %local3, %gLastD = %gLast3, %seqD = %seq3)
      -> (!State, !SeqOne, !State, !One, !SeqOne, !State, !One, !SeqOne,
          !State, !One, !SeqOne, !State, !One, !SeqOne) {
    tile.store %hA, %states[%b, %c, %h, %pt, %nt] dims = [3, 4]
        : !State, !tile.view<5, ST>
    %decayASame = tile.exp2 %gLastA : !One
    %continuesA = arith.cmpi eq, %seqA, %seqPrev : !SeqOne
    %decayA = tile.where %continuesA, %decayASame, %zeroOne
        : !tile.tile<1 x i1>, !One
    %decayedA = tile.mulf %hA, %decayA : !State, !One -> !State
    %hB = arith.addf %decayedA, %localA : !State
    %cNextA = arith.addi %c, %c4 : index
    %localNextA = tile.load %local[%b, %cNextA, %h, %pt, %nt]
        dims = [3, 4] : !tile.view<5, f32> -> !State
    %gLastNextA = tile.load %G[%b, %h, %cNextA, %lastStep] dims = [3]
        : !tile.view<4, f32> -> !One
    %cAfterNextA = arith.addi %cNextA, %c1 : index
    %seqNextAEnd = arith.muli %cAfterNextA, %chunkSize : index
    %seqNextAReal = arith.minui %seqNextAEnd, %seqlen : index
    %seqNextAAtLeast1 = arith.maxui %seqNextAReal, %c1 : index
    %seqNextAPos = arith.subi %seqNextAAtLeast1, %c1 : index
    %seqNextA = tile.load %seq_idx[%b, %seqNextAPos] dims = [1]
        : !tile.view<2, i32> -> !SeqOne

    %cB = arith.addi %c, %c1 : index
    tile.store %hB, %states[%b, %cB, %h, %pt, %nt] dims = [3, 4]
        : !State, !tile.view<5, ST>
    %decayBSame = tile.exp2 %gLastB : !One
    %continuesB = arith.cmpi eq, %seqB, %seqA : !SeqOne
    %decayB = tile.where %continuesB, %decayBSame, %zeroOne
        : !tile.tile<1 x i1>, !One
    %decayedB = tile.mulf %hB, %decayB : !State, !One -> !State
    %hC = arith.addf %decayedB, %localB : !State
    %cNextB = arith.addi %cB, %c4 : index
    %localNextB = tile.load %local[%b, %cNextB, %h, %pt, %nt]
        dims = [3, 4] : !tile.view<5, f32> -> !State
    %gLastNextB = tile.load %G[%b, %h, %cNextB, %lastStep] dims = [3]
        : !tile.view<4, f32> -> !One
    %cAfterNextB = arith.addi %cNextB, %c1 : index
    %seqNextBEnd = arith.muli %cAfterNextB, %chunkSize : index
    %seqNextBReal = arith.minui %seqNextBEnd, %seqlen : index
    %seqNextBAtLeast1 = arith.maxui %seqNextBReal, %c1 : index
    %seqNextBPos = arith.subi %seqNextBAtLeast1, %c1 : index
    %seqNextB = tile.load %seq_idx[%b, %seqNextBPos] dims = [1]
        : !tile.view<2, i32> -> !SeqOne

    %cC = arith.addi %c, %c2 : index
    tile.store %hC, %states[%b, %cC, %h, %pt, %nt] dims = [3, 4]
        : !State, !tile.view<5, ST>
    %decayCSame = tile.exp2 %gLastC : !One
    %continuesC = arith.cmpi eq, %seqC, %seqB : !SeqOne
    %decayC = tile.where %continuesC, %decayCSame, %zeroOne
        : !tile.tile<1 x i1>, !One
    %decayedC = tile.mulf %hC, %decayC : !State, !One -> !State
    %hD = arith.addf %decayedC, %localC : !State
    %cNextC = arith.addi %cC, %c4 : index
    %localNextC = tile.load %local[%b, %cNextC, %h, %pt, %nt]
        dims = [3, 4] : !tile.view<5, f32> -> !State
    %gLastNextC = tile.load %G[%b, %h, %cNextC, %lastStep] dims = [3]
        : !tile.view<4, f32> -> !One
    %cAfterNextC = arith.addi %cNextC, %c1 : index
    %seqNextCEnd = arith.muli %cAfterNextC, %chunkSize : index
    %seqNextCReal = arith.minui %seqNextCEnd, %seqlen : index
    %seqNextCAtLeast1 = arith.maxui %seqNextCReal, %c1 : index
    %seqNextCPos = arith.subi %seqNextCAtLeast1, %c1 : index
    %seqNextC = tile.load %seq_idx[%b, %seqNextCPos] dims = [1]
        : !tile.view<2, i32> -> !SeqOne

    %cD = arith.addi %c, %c3 : index
    tile.store %hD, %states[%b, %cD, %h, %pt, %nt] dims = [3, 4]
        : !State, !tile.view<5, ST>
    %decayDSame = tile.exp2 %gLastD : !One
    %continuesD = arith.cmpi eq, %seqD, %seqC : !SeqOne
    %decayD = tile.where %continuesD, %decayDSame, %zeroOne
        : !tile.tile<1 x i1>, !One
    %decayedD = tile.mulf %hD, %decayD : !State, !One -> !State
    %hNext = arith.addf %decayedD, %localD : !State
    %cNextD = arith.addi %cD, %c4 : index
    %localNextD = tile.load %local[%b, %cNextD, %h, %pt, %nt]
        dims = [3, 4] : !tile.view<5, f32> -> !State
    %gLastNextD = tile.load %G[%b, %h, %cNextD, %lastStep] dims = [3]
        : !tile.view<4, f32> -> !One
    %cAfterNextD = arith.addi %cNextD, %c1 : index
    %seqNextDEnd = arith.muli %cAfterNextD, %chunkSize : index
    %seqNextDReal = arith.minui %seqNextDEnd, %seqlen : index
    %seqNextDAtLeast1 = arith.maxui %seqNextDReal, %c1 : index
    %seqNextDPos = arith.subi %seqNextDAtLeast1, %c1 : index
    %seqNextD = tile.load %seq_idx[%b, %seqNextDPos] dims = [1]
        : !tile.view<2, i32> -> !SeqOne

    scf.yield %hNext, %seqD,
        %localNextA, %gLastNextA, %seqNextA, %localNextB, %gLastNextB, %seqNextB,
        %localNextC, %gLastNextC, %seqNextC, %localNextD, %gLastNextD, %seqNextD
        : !State, !SeqOne, !State, !One, !SeqOne, !State, !One, !SeqOne,
          !State, !One, !SeqOne, !State, !One, !SeqOne
  }

  tile.store %hLast#0, %final[%b, %h, %pt, %nt] dims = [2, 3]
      : !State, !tile.view<4, f32>
}
