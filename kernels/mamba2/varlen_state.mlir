// Mamba-2 forward, packed sequences (docs/mamba2.md, "Per-sequence final
// states"): the state at the end of one sequence of a packed row, mamba_ssm's
// chunk_state_varlen. With e the sequence's last step, c = e / CHUNK its
// chunk and G, dt chunk c's,
//
//   varlen = exp2(G_e) * h_c                  (when the sequence entered c)
//          + sum over steps j of chunk c in the sequence, j <= e, of
//            dt_j * exp2(G_e - G_j) * x_j B_j^T
//
// h_c is the state entering chunk c (state_passing's), which is the
// sequence's own when the sequence started before c; a sequence that starts
// inside c has no such term, except sequence 0 in chunk 0, whose h_0 is the
// initial state (zero without one).
//
// The host resolves each sequence from cu_seqlens in host memory (this
// kernel does not read them on the device with tile.load_scalar yet:
// docs/mamba2.md) and launches it once per sequence, with views based where
// the sequence's chunk starts:
//   x:        (1, last + 1, heads, headdim) XT (bf16, f16 or f32: a type
//             parameter, one instance per dtype): chunk c's steps up to e
//             (loads past e read zeros)
//   B:        (1, last + 1, groups, dstate) XT, the same steps
//   dt:       (1, heads, 1, CHUNK') f32: chunk c of chunk_cumsum's dt_chunks
//   G:        (1, heads, 1, CHUNK') f32: chunk c of G
//   entering: (1, heads, headdim, dstate) f32: h_c, read only when
//             has_entering != 0
//   first, last: the sequence's first and last step within chunk c
//             (first = 0 when it started before c)
//   varlen:   (1, heads, headdim, dstate) f32: the sequence's row, written
// CHUNK' is the views' own extent, so one instantiation serves every chunk
// size (BLOCK_K divides each).
//
// Grid: (ceil(headdim / BLOCK_P) * ceil(dstate / BLOCK_N), heads, 1);
// program x covers head-dimension tile x / numN and state tile x mod numN.
// It walks only the BLOCK_K tiles of steps from first to last.
//
// Precision: as chunk_state (the f32 weights times x in tf32; a bf16 or f16
// x converts exactly, an f32 one rounds). Steps outside [first, last] are masked on the exponent, so exp2
// never sees the positive G_e - G_j of a step after e.

!State = !tile.tile<BLOCK_P x BLOCK_N x f32>
!Steps = !tile.tile<BLOCK_K x f32>
!StepIndices = !tile.tile<BLOCK_K x i32>
!One = !tile.tile<1 x f32>

tile.kernel @varlen_state<BLOCK_P = 32, BLOCK_N = 64, BLOCK_K = 32,
                          XT : type = bf16>(
    %x: !tile.view<4, XT>, %B: !tile.view<4, XT>, %dt: !tile.view<4, f32>,
    %G: !tile.view<4, f32>, %entering: !tile.view<4, f32>, %has_entering: i32,
    %first: i32, %last: i32, %varlen: !tile.view<4, f32>) warps 8 {
  %c1 = arith.constant 1 : index
  %negInf = arith.constant 0xFF800000 : f32
  %zero_i32 = arith.constant 0 : i32
  %pn, %h = tile.block_id x, y

  %heads, %headdim = tile.dim %x[2, 3] : !tile.view<4, XT>
  %groups, %dstate = tile.dim %B[2, 3] : !tile.view<4, XT>
  %blockN, %blockK = tile.param "BLOCK_N", "BLOCK_K"
  %numN = arith.ceildivui %dstate, %blockN : index
  %pt = arith.divui %pn, %numN : index
  %nt = arith.remui %pn, %numN : index
  %headsPerGroup = arith.divui %heads, %groups : index
  %g = arith.divui %h, %headsPerGroup : index
  %firstStep = arith.index_cast %first : i32 to index
  %lastStep = arith.index_cast %last : i32 to index

  %gLast = tile.load %G[0, %h, 0, %lastStep] dims = [3]
      : !tile.view<4, f32> -> !One
  %gLastSteps = tile.broadcast %gLast : !One -> !Steps

  // The state the sequence brought into the chunk, decayed to step e.
  %hasEntering = arith.cmpi ne, %has_entering, %zero_i32 : i32
  %fromEntering = scf.if %hasEntering -> !State {
    %hc = tile.load %entering[0, %h, %pt, %nt] dims = [2, 3]
        : !tile.view<4, f32> -> !State
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
  %kFirst = arith.divui %firstStep, %blockK : index
  %kLast = arith.divui %lastStep, %blockK : index
  %kEnd = arith.addi %kLast, %c1 : index
  %sum = scf.for %k = %kFirst to %kEnd step %c1
      iter_args(%acc = %fromEntering) -> !State {
    %kStart = arith.muli %k, %blockK : index
    %steps = tile.arange %kStart : !StepIndices
    %afterFirst = arith.cmpi sge, %steps, %firstTiles : !StepIndices
    %beforeLast = arith.cmpi sle, %steps, %lastTiles : !StepIndices
    %inSequence = arith.andi %afterFirst, %beforeLast
        : !tile.tile<BLOCK_K x i1>
    %gK = tile.load %G[0, %h, 0, %k] dims = [3]
        : !tile.view<4, f32> -> !Steps
    %toEnd = arith.subf %gLastSteps, %gK : !Steps
    %exponent = tile.where %inSequence, %toEnd, %negInfSteps
        : !tile.tile<BLOCK_K x i1>, !Steps
    %decayToEnd = tile.exp2 %exponent : !Steps
    %dtK = tile.load %dt[0, %h, 0, %k] dims = [3]
        : !tile.view<4, f32> -> !Steps
    %weight = arith.mulf %dtK, %decayToEnd : !Steps
    %weightB = tile.broadcast %weight new_dims = [1]
        : !Steps -> !tile.tile<BLOCK_K x BLOCK_N x f32>

    %bK = tile.load %B[0, %k, %g, %nt] dims = [1, 3]
        : !tile.view<4, XT> -> !tile.tile<BLOCK_K x BLOCK_N x XT>
    %bF32 = tile.convert %bK : !tile.tile<BLOCK_K x BLOCK_N x XT>
        -> !tile.tile<BLOCK_K x BLOCK_N x f32>
    %bScaled = arith.mulf %bF32, %weightB : !tile.tile<BLOCK_K x BLOCK_N x f32>

    // x^T: (head dim, time), read transposed.
    %xT = tile.load %x[0, %k, %h, %pt] dims = [3, 1]
        : !tile.view<4, XT> -> !tile.tile<BLOCK_P x BLOCK_K x XT>
    %next = tile.mma %xT, %bScaled, %acc precision = tf32
        : !tile.tile<BLOCK_P x BLOCK_K x XT>,
          !tile.tile<BLOCK_K x BLOCK_N x f32>, !State
    scf.yield %next : !State
  }

  tile.store %sum, %varlen[0, %h, %pt, %nt] dims = [2, 3]
      : !State, !tile.view<4, f32>
  tile.return
}
