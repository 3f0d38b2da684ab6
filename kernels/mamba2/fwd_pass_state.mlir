// Mamba-2 forward, kernel 2 of 3 (docs/mamba2.md): the state passed from
// chunk to chunk. For each chunk c, with x, B, dt and G restricted to it,
//
//   states[b, c, h] = h                                  (the state entering c)
//   h <- exp2(G[CHUNK-1]) * h + x^T (B * dt * exp2(G[CHUNK-1] - G))
//
// and the state after the last chunk is the final state. The recurrence is
// sequential in c, so one program walks all chunks; programs are parallel
// over (state tile, head, batch). h is a BLOCK_P x BLOCK_N f32 tile that stays
// on chip for the whole walk; each chunk is taken BLOCK_K steps at a time
// (BLOCK_K divides CHUNK).
//
// Grid: (ceil(headdim / BLOCK_P) * ceil(dstate / BLOCK_N), heads, batch);
// program x covers head-dimension tile x / numN and state tile x % numN.
//   x:       (batch, seqlen, heads, headdim) XT (bf16, f16 or f32: a type
//            parameter, one instance per dtype)
//   B:       (batch, seqlen, groups, dstate) XT; head h uses group
//            h / (heads / groups)
//   dt:      (batch, heads, nchunks, CHUNK) f32: chunk_cumsum's dt_chunks
//            (bias, softplus and limits applied; 0 past seqlen)
//   G:       (batch, heads, nchunks, CHUNK) f32, from chunk_cumsum
//   init:    (batch, heads, headdim, dstate) f32, read only when
//            has_init != 0 (otherwise any view: it is not touched)
//   states:  (batch, nchunks, heads, headdim, dstate) ST: f32 (the default)
//            or bf16 (mamba_ssm's state_dtype), a type parameter: h rounded
//            once to nearest even when stored; h itself stays f32
//   final:   (batch, heads, headdim, dstate) f32
//
// WARPS (warps per CTA) and OCC (CTAs per multiprocessor that ptxas must
// leave registers for) are parameters: each instance's are in the table of
// kernels/mamba2/CMakeLists.txt with the ptxas -v numbers they were chosen
// by. The defaults, 8 and 1, are what the kernel ran with before.
//
// Precision: B * dt * exp2(...) is an f32 product of XT and f32 values, and
// the state is summed over every chunk and carries the product's rounding
// to every later output, so the update does not round it to bf16 (7-bit
// mantissa) but splits it into two bf16 halves (`precision = split_bf16`:
// x^T B_lo + x^T B_hi, within 2^-16 of the f32 product; tf32 rounded B to
// 2^-11). A bf16 x is used as it is and read by wgmma from its cp.async
// buffer on sm_90a; an f16 or f32 x is split too (exactly for f16): three
// products.

!State = !tile.tile<BLOCK_P x BLOCK_N x f32>
!Steps = !tile.tile<BLOCK_K x f32>
!One = !tile.tile<1 x f32>

tile.kernel @fwd_pass_state<CHUNK = 64, BLOCK_P = 64, BLOCK_N = 64,
                            BLOCK_K = 64, XT : type = bf16,
                            ST : type = f32, WARPS = 8, OCC = 1>(
    %x: !tile.view<4, XT>, %B: !tile.view<4, XT>, %dt: !tile.view<4, f32>,
    %G: !tile.view<4, f32>, %init: !tile.view<4, f32>, %has_init: i32,
    %states: !tile.view<5, ST>, %final: !tile.view<4, f32>) warps WARPS occupancy OCC {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pn, %h, %b = tile.block_id x, y, z

  %groups, %dstate = tile.dim %B[2, 3] : !tile.view<4, XT>
  %chunkSize, %blockN, %blockK = tile.param "CHUNK", "BLOCK_N", "BLOCK_K"
  %numN = arith.ceildivui %dstate, %blockN : index
  %pt = arith.divui %pn, %numN : index
  %nt = arith.remui %pn, %numN : index
  %heads = tile.dim %x[2] : !tile.view<4, XT>
  %headsPerGroup = arith.divui %heads, %groups : index
  %g = arith.divui %h, %headsPerGroup : index
  %nchunks = tile.dim %G[2] : !tile.view<4, f32>
  %lastStep = arith.subi %chunkSize, %c1 : index

  // The initial state when there is one, else zeros (the load's padding).
  %h0 = tile.load %init[%b, %h, %pt, %nt] if %has_init dims = [2, 3]
      : !tile.view<4, f32>, i32 -> !State

  %kTilesPerChunk = arith.divui %chunkSize, %blockK : index
  %hLast = scf.for %c = %c0 to %nchunks step %c1 iter_args(%hc = %h0) -> !State {
    tile.store %hc, %states[%b, %c, %h, %pt, %nt] dims = [3, 4]
        : !State, !tile.view<5, ST>

    %gLast = tile.load %G[%b, %h, %c, %lastStep] dims = [3]
        : !tile.view<4, f32> -> !One
    %chunkDecay = tile.exp2 %gLast : !One
    %decayed = tile.mulf %hc, %chunkDecay : !State, !One -> !State

    // The chunk's contribution, BLOCK_K steps at a time so that the operand
    // tiles do not grow with the chunk.
    %kBase = arith.muli %c, %kTilesPerChunk : index
    %next = scf.for %k = %c0 to %kTilesPerChunk step %c1 iter_args(%acc = %decayed) -> !State {
      %kSeq = arith.addi %kBase, %k : index
      // Weight of step t: dt_t * exp2(G_last - G_t), never above dt_t since
      // G falls along the chunk.
      %gK = tile.load %G[%b, %h, %c, %k] dims = [3] latency = 2
          : !tile.view<4, f32> -> !Steps
      %toEnd = tile.subf %gLast, %gK : !One, !Steps -> !Steps
      %decayToEnd = tile.exp2 %toEnd : !Steps
      %dtK = tile.load %dt[%b, %h, %c, %k] dims = [3] latency = 2
          : !tile.view<4, f32> -> !Steps
      %weight = arith.mulf %dtK, %decayToEnd : !Steps
      %weightB = tile.broadcast %weight new_dims = [1]
          : !Steps -> !tile.tile<BLOCK_K x BLOCK_N x f32>

      %bK = tile.load %B[%b, %kSeq, %g, %nt] dims = [1, 3] latency = 2
          : !tile.view<4, XT> -> !tile.tile<BLOCK_K x BLOCK_N x XT>
      %bF32 = tile.convert %bK : !tile.tile<BLOCK_K x BLOCK_N x XT>
          -> !tile.tile<BLOCK_K x BLOCK_N x f32>
      %bScaled = arith.mulf %bF32, %weightB : !tile.tile<BLOCK_K x BLOCK_N x f32>

      // x^T: (head dim, time), read transposed.
      %xT = tile.load %x[%b, %kSeq, %h, %pt] dims = [3, 1] latency = 2
          : !tile.view<4, XT> -> !tile.tile<BLOCK_P x BLOCK_K x XT>
      %sum = tile.mma %xT, %bScaled, %acc precision = split_bf16
          : !tile.tile<BLOCK_P x BLOCK_K x XT>,
            !tile.tile<BLOCK_K x BLOCK_N x f32>, !State
      scf.yield %sum : !State
    }
    scf.yield %next : !State
  }

  tile.store %hLast, %final[%b, %h, %pt, %nt] dims = [2, 3]
      : !State, !tile.view<4, f32>
  tile.return
}
