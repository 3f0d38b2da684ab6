// Mamba-2 forward, four-kernel structure, kernel 2 of 4 (docs/mamba2.md):
// the state each chunk builds from its own inputs, as if it started from a
// zero state. For chunk c, with x, B, dt and G restricted to it,
//
//   local[b, c, h] = x^T (B * dt * exp2(G[CHUNK-1] - G)).
//
// No chunk depends on another, so every chunk is a program of its own (the
// chunks' states are combined by state_passing): the grid covers all chunks
// at once, where fwd_pass_state walks them one after another. Each chunk is
// taken BLOCK_K steps at a time (BLOCK_K divides CHUNK), so the operand
// tiles do not grow with the chunk.
//
// Grid: (nchunks * ceil(headdim / BLOCK_P) * ceil(dstate / BLOCK_N), heads,
// batch); program x covers chunk x / (numP * numN), head-dimension tile
// (x mod numP * numN) / numN and state tile x mod numN, so the programs of
// one chunk are neighbours and share its x and B in L2.
//   x:     (batch, seqlen, heads, headdim) XT (bf16, f16 or f32: a type
//          parameter, one instance per dtype)
//   B:     (batch, seqlen, groups, dstate) XT; head h uses group
//          h / (heads / groups)
//   dt:    (batch, heads, nchunks, CHUNK) f32: chunk_cumsum's dt_chunks
//          (bias, softplus and limits applied; 0 past seqlen)
//   G:     (batch, heads, nchunks, CHUNK) f32, from chunk_cumsum
//   seq_idx: (batch, seqlen) i32, the sequence of each step of a packed row
//          (non-decreasing); an empty view reads as zeros: one sequence
//   local: (batch, nchunks, heads, headdim, dstate) f32, written in full
//
// Packed sequences (mamba_ssm's rule): the state leaving a chunk belongs to
// the sequence of the chunk's last real step, so only the steps of that
// sequence are gathered; a step of an earlier sequence gets weight 0 (that
// sequence ends inside the chunk: no later chunk reads its state, and
// compute_out forms its outputs there from the chunk's own steps and the
// entering state).
//
// A ragged last chunk needs no case of its own: past seqlen x and B read
// zeros and dt_chunks holds zeros (no contribution), and G stays at its last
// real value.
//
// WARPS (warps per CTA) and OCC (CTAs per multiprocessor that ptxas must
// leave registers for) are parameters: each instance's are in the table of
// kernels/mamba2/CMakeLists.txt with the ptxas -v numbers they were chosen
// by. The defaults, 8 and 1, are what the kernel ran with before.
//
// Precision: as fwd_pass_state. B * dt * exp2(...) is an f32 product of XT
// and f32 values; the product with x^T splits it into two bf16 halves
// (`precision = split_bf16`: x^T B_lo + x^T B_hi, within 2^-16 of the f32
// product, where tf32 would round B to 2^-11) and takes a bf16 x as it is,
// so on sm_90a x^T is read by wgmma straight from its cp.async buffer (the
// descriptor's transpose: x^T is M-major) and only the two halves of B are
// stored to shared memory, 16 bytes per st.shared. An f16 or f32 x is split
// too (exactly for f16): three products.
//
// Which operand is scaled (SCALED): the weights are per time step, the
// product's K, so they may scale either operand. 1 (the default) scales B
// as above. 2 scales x, the smaller tile (BLOCK_K x BLOCK_P against
// BLOCK_K x BLOCK_N: at 64 x 128 x 128 half the elements to convert, scale
// and split): x is read in rows along the head dimension, one weight per
// thread's run of it, (x w)^T is split and its halves stored, and a bf16 B
// is read by wgmma from its cp.async buffer (N-major) as it is. On sm_90a
// at 64 x 128 x 128 that is 979 PTX instructions per thread against 1258,
// 108 registers against 127 at occupancy 2, and no spills at occupancy 4
// (64 registers, 48 KB of shared memory); the two halves of x are two
// products that each store their A (two barriers more per step).
//
// OCC_SYNC is OCC for the targets whose products are mma.sync (sm_80's
// cubin and PTX), where the operand fragments take registers that wgmma
// leaves in shared memory: at 64 x 128 x 128 with SCALED = 2, occupancy 4
// spills 928 bytes on sm_80 and 2 none (128 registers).

!State = !tile.tile<BLOCK_P x BLOCK_N x f32>
!Steps = !tile.tile<BLOCK_K x f32>
!One = !tile.tile<1 x f32>
!BTile = !tile.tile<BLOCK_K x BLOCK_N x XT>
!XTile = !tile.tile<BLOCK_P x BLOCK_K x XT>
!XRows = !tile.tile<BLOCK_K x BLOCK_P x XT>

tile.kernel @chunk_state<CHUNK = 64, BLOCK_P = 64, BLOCK_N = 64,
                         BLOCK_K = 64, XT : type = bf16,
                         WARPS = 8, OCC = 1, OCC_SYNC = 1, SCALED = 1>(
    %x: !tile.view<4, XT>, %B: !tile.view<4, XT>, %dt: !tile.view<4, f32>,
    %G: !tile.view<4, f32>, %seq_idx: !tile.view<2, i32>,
    %local: !tile.view<5, f32>)
    warps WARPS occupancy OCC mma_sync_occupancy OCC_SYNC {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cpn, %h, %b = tile.block_id x, y, z

  %seqlen, %heads, %headdim = tile.dim %x[1, 2, 3] : !tile.view<4, XT>
  %groups, %dstate = tile.dim %B[2, 3] : !tile.view<4, XT>
  %chunkSize, %blockP, %blockN, %blockK =
      tile.param "CHUNK", "BLOCK_P", "BLOCK_N", "BLOCK_K"
  %numP = arith.ceildivui %headdim, %blockP : index
  %numN = arith.ceildivui %dstate, %blockN : index
  %tilesPerChunk = arith.muli %numP, %numN : index
  %c = arith.divui %cpn, %tilesPerChunk : index
  %pn = arith.remui %cpn, %tilesPerChunk : index
  %pt = arith.divui %pn, %numN : index
  %nt = arith.remui %pn, %numN : index
  %headsPerGroup = arith.divui %heads, %groups : index
  %g = arith.divui %h, %headsPerGroup : index
  %lastStep = arith.subi %chunkSize, %c1 : index

  // The position of the chunk's last real step (seqlen >= 1, so the chunk
  // has one).
  %cNext = arith.addi %c, %c1 : index
  %chunkEnd = arith.muli %cNext, %chunkSize : index
  %realEnd = arith.minui %chunkEnd, %seqlen : index
  %lastPos = arith.subi %realEnd, %c1 : index
  %zeroSteps = tile.full 0.0 : !Steps

  %kTilesPerChunk = arith.divui %chunkSize, %blockK : index
  %kBase = arith.muli %c, %kTilesPerChunk : index
  %zero = tile.full 0.0 : !State
  // SCALED picks the operand that takes the weights (1: B, 2: x; the
  // header's "Which operand is scaled"); the form not taken reads a
  // placeholder, and after binding only the chosen form is left.
  %scaled = tile.param "SCALED"
  %c2 = arith.constant 2 : index
  %scalesX = arith.cmpi eq, %scaled, %c2 : index
  %noBF32 = tile.full 0.0 : !tile.tile<BLOCK_K x BLOCK_N x f32>
  %noB = tile.convert %noBF32 : !tile.tile<BLOCK_K x BLOCK_N x f32> -> !BTile
  %noXF32 = tile.full 0.0 : !tile.tile<BLOCK_K x BLOCK_P x f32>
  %noX = tile.convert %noXF32 : !tile.tile<BLOCK_K x BLOCK_P x f32> -> !XRows
  %noXT = tile.permute %noX [1, 0] : !XRows -> !XTile
  %sum = scf.for %k = %c0 to %kTilesPerChunk step %c1 iter_args(%acc = %zero) -> !State {
    %kSeq = arith.addi %kBase, %k : index
    // Every load of the step comes before anything that uses one, so that
    // all are in flight together: the weights' exchange between threads
    // has barriers that a later load cannot pass, and without a loop to
    // pipeline (BLOCK_K = CHUNK, one step) the copy of the operand that
    // wgmma reads from shared memory as it is (x^T, or B when x is
    // scaled) is waited for where the load stands, so it comes last. The
    // chunk's last G and its sequence are loaded with them (two values,
    // read again per step) rather than before the loop, where their
    // exchange would wait for them alone.
    %bScaledIn = scf.if %scalesX -> !BTile {
      scf.yield %noB : !BTile
    } else {
      %bK = tile.load %B[%b, %kSeq, %g, %nt] dims = [1, 3] latency = 2
          : !tile.view<4, XT> -> !BTile
      scf.yield %bK : !BTile
    }
    %gK = tile.load %G[%b, %h, %c, %k] dims = [3] latency = 2
        : !tile.view<4, f32> -> !Steps
    %dtK = tile.load %dt[%b, %h, %c, %k] dims = [3] latency = 2
        : !tile.view<4, f32> -> !Steps
    %seqK = tile.load %seq_idx[%b, %kSeq] dims = [1] latency = 2
        : !tile.view<2, i32> -> !tile.tile<BLOCK_K x i32>
    %gLast = tile.load %G[%b, %h, %c, %lastStep] dims = [3]
        : !tile.view<4, f32> -> !One
    %seqLast = tile.load %seq_idx[%b, %lastPos] dims = [1]
        : !tile.view<2, i32> -> !tile.tile<1 x i32>
    %xT, %xScaledIn, %bAsIs = scf.if %scalesX -> (!XTile, !XRows, !BTile) {
      %xK = tile.load %x[%b, %kSeq, %h, %pt] dims = [1, 3] latency = 2
          : !tile.view<4, XT> -> !XRows
      %bK = tile.load %B[%b, %kSeq, %g, %nt] dims = [1, 3] latency = 2
          : !tile.view<4, XT> -> !BTile
      scf.yield %noXT, %xK, %bK : !XTile, !XRows, !BTile
    } else {
      // x^T: (head dim, time), read transposed.
      %xTK = tile.load %x[%b, %kSeq, %h, %pt] dims = [3, 1] latency = 2
          : !tile.view<4, XT> -> !XTile
      scf.yield %xTK, %noX, %noB : !XTile, !XRows, !BTile
    }

    // Weight of step t: dt_t * exp2(G_last - G_t), never above dt_t since G
    // falls along the chunk; 0 for a step of an earlier sequence.
    %toEnd = tile.subf %gLast, %gK : !One, !Steps -> !Steps
    %decayToEnd = tile.exp2 %toEnd : !Steps
    %weightAll = arith.mulf %dtK, %decayToEnd : !Steps
    %lastSequence = tile.cmpi eq, %seqK, %seqLast
        : !tile.tile<BLOCK_K x i32>, !tile.tile<1 x i32> -> !tile.tile<BLOCK_K x i1>
    %weight = tile.where %lastSequence, %weightAll, %zeroSteps
        : !tile.tile<BLOCK_K x i1>, !Steps

    %next = scf.if %scalesX -> !State {
      // Each thread's run of x along the head dimension is one time step:
      // one weight per run.
      %weightX = tile.broadcast %weight new_dims = [1]
          : !Steps -> !tile.tile<BLOCK_K x BLOCK_P x f32>
      %xF32 = tile.convert %xScaledIn : !XRows
          -> !tile.tile<BLOCK_K x BLOCK_P x f32>
      %xScaled = arith.mulf %xF32, %weightX
          : !tile.tile<BLOCK_K x BLOCK_P x f32>
      %xScaledT = tile.permute %xScaled [1, 0]
          : !tile.tile<BLOCK_K x BLOCK_P x f32>
          -> !tile.tile<BLOCK_P x BLOCK_K x f32>
      %sumX = tile.mma %xScaledT, %bAsIs, %acc precision = split_bf16
          : !tile.tile<BLOCK_P x BLOCK_K x f32>, !BTile, !State
      scf.yield %sumX : !State
    } else {
      %weightB = tile.broadcast %weight new_dims = [1]
          : !Steps -> !tile.tile<BLOCK_K x BLOCK_N x f32>
      %bF32 = tile.convert %bScaledIn : !BTile
          -> !tile.tile<BLOCK_K x BLOCK_N x f32>
      %bScaled = arith.mulf %bF32, %weightB
          : !tile.tile<BLOCK_K x BLOCK_N x f32>
      %sumB = tile.mma %xT, %bScaled, %acc precision = split_bf16
          : !XTile, !tile.tile<BLOCK_K x BLOCK_N x f32>, !State
      scf.yield %sumB : !State
    }
    scf.yield %next : !State
  }

  tile.store %sum, %local[%b, %c, %h, %pt, %nt] dims = [3, 4]
      : !State, !tile.view<5, f32>
  tile.return
}
