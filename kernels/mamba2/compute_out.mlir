// Mamba-2 forward, the last kernel (docs/mamba2.md): the outputs of one
// chunk. For rows i and columns j of the chunk (time steps), with h the state
// entering the chunk and CB = C B^T from bmm_chunk:
//
//   Y = exp2(G_i) * (C h^T)                                  (earlier chunks)
//     + (CB * exp2(where(i >= j, seq_i == seq_j: G_i - G_j; -inf)) * dt_j) X
//     + D * X
//   y = Y * silu(z)                                   (when has_z)
//
// Grid: (ceil(seqlen / BLOCK_M) * ceil(headdim / BLOCK_P), heads, batch);
// program x covers row tile m = x / numP of the sequence (BLOCK_M time steps,
// chunk m / (CHUNK / BLOCK_M)) and head-dimension tile x % numP. A program
// first forms the state term, walking dstate in BLOCK_N tiles (one step with
// BLOCK_N >= dstate), then walks the column tiles of its chunk up to the
// diagonal only (the rest are masked off), BLOCK_K steps at a time, reading
// each BLOCK_M x BLOCK_K tile of CB: one loop, no product nested in it.
// BLOCK_M and BLOCK_K divide CHUNK.
//   x:      (batch, seqlen, heads, headdim) XT
//   C:      (batch, seqlen, groups, dstate) XT; head h uses group
//           h / (heads / groups)
//   CB:     (batch, nchunks, groups, CHUNK, CHUNK) f32, from bmm_chunk bound
//           to the same CHUNK and BLOCK_M: its square tiles on and below the
//           diagonal hold exactly the columns read here
//   dt:     (batch, heads, nchunks, CHUNK) f32: chunk_cumsum's dt_chunks
//   G:      (batch, heads, nchunks, CHUNK) f32, from chunk_cumsum
//   D:      (heads, headdim) f32, per channel; a D per head is this view
//           with stride 0 along headdim (tile.any_strides: the vec variant
//           reads this small tile an element at a time and the launcher
//           does not ask it for the vectorize facts, so a D per head takes
//           the vec variant too)
//   z:      (batch, seqlen, heads, headdim) XT, read only when has_z
//           (otherwise any view: it is not touched)
//   seq_idx: (batch, seqlen) i32, the sequence of each step of a packed row
//           (non-decreasing); an empty view reads as zeros: one sequence
//   states: (batch, nchunks, heads, headdim, dstate) ST (f32, the default,
//           or bf16: mamba_ssm's state_dtype, a type parameter), from
//           state_passing or fwd_pass_state
//   y:      (batch, seqlen, heads, headdim) f32, written unless y_is_xt
//   y_xt:   (batch, seqlen, heads, headdim) XT (x's dtype, as mamba_ssm
//           returns y), written (rounded to nearest even from the f32
//           result) when y_is_xt
//   Rows past seqlen are not written; the unused output is not touched.
//
// Packed sequences (mamba_ssm's rule): CB keeps the pairs (i, j) of one
// sequence only, and the state term applies to the rows of the sequence the
// entering state belongs to: that of the step before the chunk (sequence 0
// before the first chunk, so an initial state is sequence 0's).
//
// XT, the inputs' element type (bf16, f16 or f32), is a type parameter: one
// instance per dtype. y's dtype is a flag and a view per choice instead: one
// launch-uniform branch costs nothing next to a second instance per dtype.
//
// WARPS (warps per CTA) and OCC (CTAs per multiprocessor that ptxas must
// leave registers for) are parameters: each instance's are in the table of
// kernels/mamba2/CMakeLists.txt with the ptxas -v numbers they were chosen
// by. The defaults, 8 and 1, are what the kernel ran with before. OCC_SYNC
// is OCC for the targets whose products are mma.sync (sm_80's cubin and
// PTX): there the operand fragments take registers that wgmma leaves in
// shared memory, and at OCC the chunk 128 and 256 instances spilled.
//
// Precision: CB is bmm_chunk's (bf16 or f16 inputs multiplied exactly, f32
// sums; f32 ones in f32). The f32 state multiplies C in split bf16 (h =
// h_hi + h_lo, two bf16 products, 16 bits of h; a bf16 C is its own high
// half, so on sm_90a both products read C from its cp.async buffer; f16
// and f32 C are split too, three products); a bf16 state times a bf16 C is
// one bf16 product (exact products, f32 sums), the state's own rounding
// (2^-8, state_passing's) its only error. The f32
// weights of X multiply in split bf16 (W = W_hi + W_lo, two bf16 products,
// 16 bits of W: better than tf32's 11); bf16 x is its own high half and exact, so on
// sm_90a both products read x from its cp.async ring and the weights from
// registers (wgmma's A from registers, docs/codegen-layouts.md); f16 and f32
// x are split too (three products). Masking happens on the
// exponent, before exp2, so exp2 never sees a positive argument (G falls
// along a chunk) and no inf can be formed and then multiplied by zero.

!Out = !tile.tile<BLOCK_M x BLOCK_P x f32>
!Scores = !tile.tile<BLOCK_M x BLOCK_K x f32>
!Rows = !tile.tile<BLOCK_M x 1 x f32>
!Cols = !tile.tile<BLOCK_K x f32>

tile.kernel @compute_out<CHUNK = 64, BLOCK_M = 64, BLOCK_K = 64, BLOCK_P = 64,
                         BLOCK_N = 64, XT : type = bf16, ST : type = f32,
                         WARPS = 8, OCC = 1, OCC_SYNC = 1>(
    %x: !tile.view<4, XT>, %C: !tile.view<4, XT>, %CB: !tile.view<5, f32>,
    %dt: !tile.view<4, f32>, %G: !tile.view<4, f32>,
    %D: !tile.view<2, f32> {tile.any_strides},
    %z: !tile.view<4, XT>, %has_z: i1, %seq_idx: !tile.view<2, i32>,
    %states: !tile.view<5, ST>,
    %y: !tile.view<4, f32>, %y_xt: !tile.view<4, XT>, %y_is_xt: i1)
    warps WARPS occupancy OCC mma_sync_occupancy OCC_SYNC {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %negInf = arith.constant 0xFF800000 : f32
  %mp, %h, %b = tile.block_id x, y, z

  %heads, %headdim = tile.dim %x[2, 3] : !tile.view<4, XT>
  %groups, %dstate = tile.dim %C[2, 3] : !tile.view<4, XT>
  %chunkSize, %blockM, %blockK, %blockP, %blockN =
      tile.param "CHUNK", "BLOCK_M", "BLOCK_K", "BLOCK_P", "BLOCK_N"
  %m, %pt = tile.delinearize %mp by tiles(%headdim, %blockP)
  %c, %mInChunk = tile.delinearize %m by tiles(%chunkSize, %blockM)
  %headsPerGroup = arith.divui %heads, %groups : index
  %g = arith.divui %h, %headsPerGroup : index

  %gRows = tile.load %G[%b, %h, %c, %mInChunk] dims = [3, 2]
      : !tile.view<4, f32> -> !Rows

  // Earlier chunks: exp2(G_i) * (C h^T), h the state entering chunk c.
  %outZero = tile.full 0.0 : !Out
  %fromState = tile.for %n in tiles(%dstate, %blockN) iter_args(%acc = %outZero)
      -> (!Out) {
    %cM = tile.load %C[%b, %m, %g, %n] dims = [1, 3]
        : !tile.view<4, XT> -> !tile.tile<BLOCK_M x BLOCK_N x XT>
    %hT = tile.load %states[%b, %c, %h, %pt, %n] dims = [4, 3]
        : !tile.view<5, ST> -> !tile.tile<BLOCK_N x BLOCK_P x ST>
    %next = tile.mma %cM, %hT, %acc precision = split_bf16
        : !tile.tile<BLOCK_M x BLOCK_N x XT>,
          !tile.tile<BLOCK_N x BLOCK_P x ST>, !Out
    tile.yield %next : !Out
  }
  // Packed sequences: a seq_idx that is not empty. Without them every pair
  // of a chunk is one sequence's, and the column loop skips the seq_idx
  // reads and compares (one uniform branch per step).
  %seqSteps = tile.dim %seq_idx[1] : !tile.view<2, i32>
  %packed = arith.cmpi ne, %seqSteps, %c0 : index
  %seqRows = tile.load %seq_idx[%b, %m] dims = [1, 0]
      : !tile.view<2, i32> -> !tile.tile<BLOCK_M x 1 x i32>
  // The sequence of the step before the chunk; 0 (the padding) before the
  // first chunk, where the load does not happen.
  %chunkStart = arith.muli %c, %chunkSize : index
  %before = arith.subi %chunkStart, %c1 : index
  %seqBefore = tile.load %seq_idx[%b, %before] if %c dims = [1]
      : !tile.view<2, i32>, index -> !tile.tile<1 x i32>
  %continues = tile.cmpi eq, %seqRows, %seqBefore
      : !tile.tile<BLOCK_M x 1 x i32>, !tile.tile<1 x i32> -> !tile.tile<BLOCK_M x 1 x i1>
  %gRowsKept = tile.where %continues, %gRows, %negInf
      : !tile.tile<BLOCK_M x 1 x i1>, !Rows, f32 -> !Rows
  %gRowsExp = tile.exp2 %gRowsKept : !Rows
  %outState = tile.mulf %fromState, %gRowsExp : !Out, !Rows -> !Out

  // This chunk: columns up to the diagonal, i.e. below the end of the row
  // tile.
  %rowStart = arith.muli %mInChunk, %blockM : index
  %rowEnd = arith.addi %rowStart, %blockM : index
  %out = tile.for %k in tiles(%rowEnd, %blockK) iter_args(%acc = %outState)
      -> (!Out) {
    %kSeq = tile.linearize %c, %k by tiles(%chunkSize, %blockK)
    %cb = tile.load %CB[%b, %c, %g, %mInChunk, %k] dims = [3, 4] latency = 2
        : !tile.view<5, f32> -> !Scores

    %causal = tile.tri at %mInChunk, %k : !tile.tile<BLOCK_M x BLOCK_K x i1>
    %seqCols = tile.load %seq_idx[%b, %kSeq] if %packed dims = [1]
        : !tile.view<2, i32>, i1 -> !tile.tile<BLOCK_K x i32>
    %sameSeq = tile.cmpi eq, %seqRows, %seqCols
        : !tile.tile<BLOCK_M x 1 x i32>, !tile.tile<BLOCK_K x i32>
          -> !tile.tile<BLOCK_M x BLOCK_K x i1>
    %causalSameSeq = arith.andi %causal, %sameSeq
        : !tile.tile<BLOCK_M x BLOCK_K x i1>
    %kept = tile.where %packed, %causalSameSeq, %causal
        : i1, !tile.tile<BLOCK_M x BLOCK_K x i1>

    %gCols = tile.load %G[%b, %h, %c, %k] dims = [3] latency = 2
        : !tile.view<4, f32> -> !Cols
    %segment = tile.subf %gRows, %gCols : !Rows, !Cols -> !Scores
    %masked = tile.where %kept, %segment, %negInf
        : !tile.tile<BLOCK_M x BLOCK_K x i1>, !Scores, f32 -> !Scores
    %decay = tile.exp2 %masked : !Scores

    %dtCols = tile.load %dt[%b, %h, %c, %k] dims = [3] latency = 2
        : !tile.view<4, f32> -> !Cols
    %cbDecay = arith.mulf %cb, %decay : !Scores
    %weights = tile.mulf %cbDecay, %dtCols : !Scores, !Cols -> !Scores

    %xK = tile.load %x[%b, %kSeq, %h, %pt] dims = [1, 3] latency = 2
        : !tile.view<4, XT> -> !tile.tile<BLOCK_K x BLOCK_P x XT>
    %next = tile.mma %weights, %xK, %acc precision = split_bf16
        : !Scores, !tile.tile<BLOCK_K x BLOCK_P x XT>, !Out
    tile.yield %next : !Out
  }

  // The skip connection D * x on this program's own rows.
  %dChannels = tile.load %D[%h, %pt] dims = [1]
      : !tile.view<2, f32> -> !tile.tile<BLOCK_P x f32>
  %xRows = tile.load %x[%b, %m, %h, %pt] dims = [1, 3]
      : !tile.view<4, XT> -> !Out
  %skip = tile.mulf %dChannels, %xRows : !tile.tile<BLOCK_P x f32>, !Out -> !Out
  %y1 = arith.addf %out, %skip : !Out

  // The gate y * silu(z), as mamba_ssm's z * sigmoid(z), when there is a z
  // (computed only then: tile.where of a flag).
  %zRows = tile.load %z[%b, %m, %h, %pt] if %has_z dims = [1, 3]
      : !tile.view<4, XT>, i1 -> !Out
  %silu = tile.silu %zRows : !Out
  %yz = arith.mulf %y1, %silu : !Out
  %gated = tile.where %has_z, %yz, %y1 : i1, !Out

  // y in x's dtype (rounded) or in f32, as y_is_xt says.
  tile.store %gated, %y_xt[%b, %m, %h, %pt] if %y_is_xt dims = [1, 3]
      : !Out, !tile.view<4, XT>, i1
  tile.store %gated, %y[%b, %m, %h, %pt] unless %y_is_xt dims = [1, 3]
      : !Out, !tile.view<4, f32>, i1
}
