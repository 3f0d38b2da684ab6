// Mamba-2 forward, the C B^T product of each chunk (docs/mamba2.md): for
// chunk c of group g, rows i and columns j of the chunk (time steps),
//
//   CB[b, c, g, i, j] = sum_n C[b, c*CHUNK+i, g, n] * B[b, c*CHUNK+j, g, n].
//
// It depends on the group only, not on the head: compute_out's programs of
// the heads of one group read the same tiles (mamba_ssm's _bmm_chunk_fwd)
// instead of forming them once per head.
//
// Grid: (nchunks * (CHUNK / BLOCK_M) * (CHUNK / BLOCK_K), groups, batch);
// program x covers chunk x / tilesPerChunk, and in it the BLOCK_M x BLOCK_K
// tile at row tile r = (x % tilesPerChunk) / (CHUNK / BLOCK_K) and column
// tile k = x % (CHUNK / BLOCK_K). It forms the tile only when it holds
// columns that compute_out (bound to the same CHUNK and BLOCK_M) reads: those
// below the end of row tile r, k < ceil((r + 1) * BLOCK_M / BLOCK_K). The
// other programs return at once and their tiles of CB are not written. The
// library binds BLOCK_K = BLOCK_M (square tiles: computeLaunchGrids), so
// that the tiles written hold exactly the columns read. dstate is walked in
// BLOCK_N tiles (one step with BLOCK_N >= dstate).
//   B, C:  (batch, seqlen, groups, dstate) XT (bf16, f16 or f32: a type
//          parameter, one instance per dtype)
//   CB:    (batch, nchunks, groups, CHUNK, CHUNK) f32: the tiles on and below
//          the diagonal written as above. Rows and columns past seqlen (in a
//          ragged last chunk) are written too, as 0: C and B read as zeros
//          there. CB holds every pair of the chunk, whatever the sequences
//          of a packed row: compute_out masks by causality and seq_idx.
//
// WARPS (warps per CTA) and OCC (CTAs per multiprocessor that ptxas must
// leave registers for) are parameters, as in the other kernels (the
// instance table of kernels/mamba2/CMakeLists.txt).
//
// Precision: as compute_out's C B^T before this kernel existed: bf16 and f16
// inputs multiply exactly (a product of two 8- or 11-bit mantissas fits in
// f32's 24) and sum in f32, f32 inputs in f32 (fused multiply-adds).

!Scores = !tile.tile<BLOCK_M x BLOCK_K x f32>

tile.kernel @bmm_chunk<CHUNK = 64, BLOCK_M = 64, BLOCK_K = 64, BLOCK_N = 64,
                       XT : type = bf16, WARPS = 8, OCC = 1>(
    %B: !tile.view<4, XT>, %C: !tile.view<4, XT>, %CB: !tile.view<5, f32>)
    warps WARPS occupancy OCC {
  %crk, %g, %b = tile.block_id x, y, z

  %dstate = tile.dim %B[3] : !tile.view<4, XT>
  %chunkSize, %blockM, %blockK, %blockN =
      tile.param "CHUNK", "BLOCK_M", "BLOCK_K", "BLOCK_N"
  // Chunk c, and in it row tile r and column tile k; m and kSeq count the
  // same tiles from the start of the sequence.
  %c, %r, %k = tile.delinearize %crk
      by tiles(%chunkSize, %blockM), tiles(%chunkSize, %blockK)
  %m = tile.linearize %c, %r by tiles(%chunkSize, %blockM)
  %kSeq = tile.linearize %c, %k by tiles(%chunkSize, %blockK)

  // compute_out's column tiles of row tile r: those below its rows' end.
  %rowStart = arith.muli %r, %blockM : index
  %rowEnd = arith.addi %rowStart, %blockM : index
  %numK = arith.ceildivui %rowEnd, %blockK : index
  %read = arith.cmpi ult, %k, %numK : index
  scf.if %read {
    %zero = tile.full 0.0 : !Scores
    %cb = tile.for %n in tiles(%dstate, %blockN) iter_args(%acc = %zero)
        -> (!Scores) {
      %cM = tile.load %C[%b, %m, %g, %n] dims = [1, 3] latency = 2
          : !tile.view<4, XT> -> !tile.tile<BLOCK_M x BLOCK_N x XT>
      %bT = tile.load %B[%b, %kSeq, %g, %n] dims = [3, 1] latency = 2
          : !tile.view<4, XT> -> !tile.tile<BLOCK_N x BLOCK_K x XT>
      %next = tile.mma %cM, %bT, %acc
          : !tile.tile<BLOCK_M x BLOCK_N x XT>,
            !tile.tile<BLOCK_N x BLOCK_K x XT>, !Scores
      tile.yield %next : !Scores
    }
    tile.store %cb, %CB[%b, %c, %g, %r, %k] dims = [3, 4]
        : !Scores, !tile.view<5, f32>
  }
}
