// Mamba-2 forward, packed sequences (docs/mamba2.md, "Per-sequence final
// states"): the state at the end of each sequence of a packed row,
// mamba_ssm's chunk_state_varlen. With e the last step of sequence s, c =
// e / CHUNK its chunk and G, dt chunk c's,
//
//   varlen_s = exp2(G_e) * h_c                  (when s entered chunk c)
//            + sum over steps j of chunk c in s, j <= e, of
//              dt_j * exp2(G_e - G_j) * x_j B_j^T
//
// h_c is the state entering chunk c (state_passing's), which is the
// sequence's own when it started before c; a sequence that starts inside c
// has no such term, except sequence 0 in chunk 0, whose h_0 is the initial
// state (zero without one).
//
// One launch serves every sequence: each program reads its sequence's
// offsets from cu_seqlens on the device (tile.load_scalar), so the host
// neither copies nor waits for them and the launch can be captured in a
// CUDA graph.
//   x:          (1, seqlen, heads, headdim) XT (bf16, f16 or f32: a type
//               parameter, one instance per dtype)
//   B:          (1, seqlen, groups, dstate) XT
//   dt:         (1, heads, nchunks, CHUNK) f32: chunk_cumsum's dt_chunks
//   G:          (1, heads, nchunks, CHUNK) f32
//   states:     (1, nchunks, heads, headdim, dstate) ST: h_c, the state
//               entering each chunk, as state_passing stored it (f32, the
//               default, or bf16: a type parameter), widened to f32 here
//   seq_idx:    (1, seqlen) i32
//   cu_seqlens: (nseq + 1) i32
//   varlen:     (nseq, heads, headdim, dstate) f32, written
// CHUNK is dt's own extent, so one instantiation serves every chunk size
// (BLOCK_K divides each).
//
// Offsets that break the rules (0 = cu[0] < cu[1] < ... < cu[nseq] =
// seqlen, seq_idx = s at the first and last step of sequence s) cannot be
// refused by the host without reading device memory: the program of a
// sequence whose offsets break them writes NaN for its whole state and reads
// nothing else, so bad offsets give a visible result and never a fault or
// an unbounded walk. With seq_idx non-decreasing (the caller's contract),
// the rules checked over all sequences are exactly cu_seqlens being valid
// and consistent with seq_idx.
//
// Grid: (nseq * ceil(headdim / BLOCK_P) * ceil(dstate / BLOCK_N), heads, 1);
// program x covers sequence x / (numP * numN) and, within it, head-dimension
// tile (x mod (numP * numN)) / numN and state tile x mod numN. It walks only
// the BLOCK_K tiles of chunk c from the sequence's first step there to e.
//
// Precision: as chunk_state (the f32 weights times x in tf32; a bf16 or f16
// x converts exactly, an f32 one rounds). Steps of chunk c outside the
// sequence are masked on the exponent, so exp2 never sees the positive
// G_e - G_j of a step after e, and their weights are 0 (x of a neighbouring
// sequence is multiplied by 0).

!State = !tile.tile<BLOCK_P x BLOCK_N x f32>
!Steps = !tile.tile<BLOCK_K x f32>
!StepIndices = !tile.tile<BLOCK_K x i32>
!One = !tile.tile<1 x f32>

tile.kernel @varlen_state<BLOCK_P = 32, BLOCK_N = 64, BLOCK_K = 32,
                          XT : type = bf16, ST : type = f32>(
    %x: !tile.view<4, XT>, %B: !tile.view<4, XT>, %dt: !tile.view<4, f32>,
    %G: !tile.view<4, f32>, %states: !tile.view<5, ST>,
    %seq_idx: !tile.view<2, i32>, %cu_seqlens: !tile.view<1, i32>,
    %varlen: !tile.view<4, f32>) warps 8 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %negInf = arith.constant 0xFF800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %zero_i32 = arith.constant 0 : i32
  %spn, %h = tile.block_id x, y

  %seqlen, %heads, %headdim = tile.dim %x[1, 2, 3] : !tile.view<4, XT>
  %groups, %dstate = tile.dim %B[2, 3] : !tile.view<4, XT>
  %chunk = tile.dim %dt[3] : !tile.view<4, f32>
  %nseq = tile.dim %varlen[0] : !tile.view<4, f32>
  %blockP, %blockN, %blockK = tile.param "BLOCK_P", "BLOCK_N", "BLOCK_K"
  %numP = arith.ceildivui %headdim, %blockP : index
  %numN = arith.ceildivui %dstate, %blockN : index
  %s, %pt, %nt = tile.delinearize %spn by %numP, %numN
  %headsPerGroup = arith.divui %heads, %groups : index
  %g = arith.divui %h, %headsPerGroup : index

  // The sequence's offsets and whether they keep the rules.
  %sNext = arith.addi %s, %c1 : index
  %start = tile.load_scalar %cu_seqlens[%s] : !tile.view<1, i32> -> i32
  %end = tile.load_scalar %cu_seqlens[%sNext] : !tile.view<1, i32> -> i32
  %s32 = arith.index_cast %s : index to i32
  %seqlen32 = arith.index_cast %seqlen : index to i32
  %lastOffset = arith.subi %nseq, %c1 : index
  %startsAtZero = arith.cmpi eq, %start, %zero_i32 : i32
  %endsAtSeqlen = arith.cmpi eq, %end, %seqlen32 : i32
  %notFirst = arith.cmpi ne, %s, %c0 : index
  %notLast = arith.cmpi ne, %s, %lastOffset : index
  %firstOk = arith.ori %notFirst, %startsAtZero : i1
  %lastOk = arith.ori %notLast, %endsAtSeqlen : i1
  %startOk = arith.cmpi sge, %start, %zero_i32 : i32
  %nonEmpty = arith.cmpi slt, %start, %end : i32
  %endOk = arith.cmpi sle, %end, %seqlen32 : i32
  %startStep = arith.index_cast %start : i32 to index
  %endStep = arith.index_cast %end : i32 to index
  %lastStepRaw = arith.subi %endStep, %c1 : index
  %seqAtStart = tile.load_scalar %seq_idx[0, %startStep]
      : !tile.view<2, i32> -> i32
  %seqAtEnd = tile.load_scalar %seq_idx[0, %lastStepRaw]
      : !tile.view<2, i32> -> i32
  %startInSequence = arith.cmpi eq, %seqAtStart, %s32 : i32
  %endInSequence = arith.cmpi eq, %seqAtEnd, %s32 : i32
  %ends = arith.andi %firstOk, %lastOk : i1
  %inRange = arith.andi %startOk, %endOk : i1
  %shape = arith.andi %nonEmpty, %inRange : i1
  %matches = arith.andi %startInSequence, %endInSequence : i1
  %offsetsOk = arith.andi %ends, %shape : i1
  %valid = arith.andi %offsetsOk, %matches : i1

  // e, its chunk c, and the sequence's first and last step within c; for
  // bad offsets step 0 and an empty walk.
  %e = arith.select %valid, %lastStepRaw, %c0 : index
  %c = arith.divui %e, %chunk : index
  %chunkStart = arith.muli %c, %chunk : index
  %firstInChunk = arith.subi %startStep, %chunkStart : index
  %firstStep = arith.maxsi %firstInChunk, %c0 : index
  %lastStep = arith.subi %e, %chunkStart : index
  %first = arith.index_cast %firstStep : index to i32
  %last = arith.index_cast %lastStep : index to i32
  %startedBefore = arith.cmpi slt, %startStep, %chunkStart : index
  %entered = arith.ori %startedBefore, %startsAtZero : i1
  %hasEntering = arith.andi %entered, %valid : i1

  %gLast = tile.load %G[0, %h, %c, %lastStep] dims = [3]
      : !tile.view<4, f32> -> !One
  %gLastSteps = tile.broadcast %gLast : !One -> !Steps

  // The state the sequence brought into the chunk, decayed to step e.
  %fromEntering = scf.if %hasEntering -> !State {
    %hc = tile.load %states[0, %c, %h, %pt, %nt] dims = [3, 4]
        : !tile.view<5, ST> -> !State
    %decay = tile.exp2 %gLast : !One
    %decayed = tile.mulf %hc, %decay : !State, !One -> !State
    scf.yield %decayed : !State
  } else {
    %zero = tile.full 0.0 : !State
    scf.yield %zero : !State
  }

  %firstTiles = tile.full %first : !StepIndices
  %lastTiles = tile.full %last : !StepIndices
  %negInfSteps = tile.full %negInf : !Steps
  %tilesPerChunk = arith.divui %chunk, %blockK : index
  %chunkTile = arith.muli %c, %tilesPerChunk : index
  %kFirst = arith.divui %firstStep, %blockK : index
  %kLast = arith.divui %lastStep, %blockK : index
  %kAfterLast = arith.addi %kLast, %c1 : index
  %kEnd = arith.select %valid, %kAfterLast, %kFirst : index
  %sum = scf.for %k = %kFirst to %kEnd step %c1
      iter_args(%acc = %fromEntering) -> !State {
    %kStart = arith.muli %k, %blockK : index
    %steps = tile.arange %kStart : !StepIndices
    %afterFirst = arith.cmpi sge, %steps, %firstTiles : !StepIndices
    %beforeLast = arith.cmpi sle, %steps, %lastTiles : !StepIndices
    %inSequence = arith.andi %afterFirst, %beforeLast
        : !tile.tile<BLOCK_K x i1>
    %gK = tile.load %G[0, %h, %c, %k] dims = [3]
        : !tile.view<4, f32> -> !Steps
    %toEnd = arith.subf %gLastSteps, %gK : !Steps
    %exponent = tile.where %inSequence, %toEnd, %negInfSteps
        : !tile.tile<BLOCK_K x i1>, !Steps
    %decayToEnd = tile.exp2 %exponent : !Steps
    %dtK = tile.load %dt[0, %h, %c, %k] dims = [3]
        : !tile.view<4, f32> -> !Steps
    %weight = arith.mulf %dtK, %decayToEnd : !Steps
    %weightB = tile.broadcast %weight new_dims = [1]
        : !Steps -> !tile.tile<BLOCK_K x BLOCK_N x f32>

    // Tile k of chunk c along the row's steps.
    %kRow = arith.addi %chunkTile, %k : index
    %bF32 = tile.load %B[0, %kRow, %g, %nt] dims = [1, 3]
        : !tile.view<4, XT> -> !tile.tile<BLOCK_K x BLOCK_N x f32>
    %bScaled = arith.mulf %bF32, %weightB : !tile.tile<BLOCK_K x BLOCK_N x f32>

    // x^T: (head dim, time), read transposed.
    %xT = tile.load %x[0, %kRow, %h, %pt] dims = [3, 1]
        : !tile.view<4, XT> -> !tile.tile<BLOCK_P x BLOCK_K x XT>
    %next = tile.mma %xT, %bScaled, %acc precision = tf32
        : !tile.tile<BLOCK_P x BLOCK_K x XT>,
          !tile.tile<BLOCK_K x BLOCK_N x f32>, !State
    scf.yield %next : !State
  }

  %result = scf.if %valid -> !State {
    scf.yield %sum : !State
  } else {
    %nans = tile.full %nan : !State
    scf.yield %nans : !State
  }
  tile.store %result, %varlen[%s, %h, %pt, %nt] dims = [2, 3]
      : !State, !tile.view<4, f32>
}
