// Mamba-2 forward, kernel 3 of 3 (docs/mamba2.md): the outputs of one chunk.
// For rows i and columns j of the chunk (time steps), with h the state
// entering the chunk:
//
//   Y = exp2(G_i) * (C h^T)                                  (earlier chunks)
//     + (C B^T * exp2(where(i >= j, G_i - G_j, -inf)) * dt_j) X  (this chunk)
//     + D * X
//
// Grid: ((nchunks * CHUNK / BLOCK_M) * ceil(headdim / BLOCK_P), heads, batch);
// program x covers row tile m = x / numP of the sequence (BLOCK_M time steps,
// chunk m / (CHUNK / BLOCK_M)) and head-dimension tile x % numP. A program
// walks the column tiles of its chunk up to the diagonal only (the rest are
// masked off), BLOCK_K steps at a time; C B^T is formed tile by tile on chip.
// dstate is walked in BLOCK_N tiles: with BLOCK_N >= dstate each walk is one
// step. BLOCK_M and BLOCK_K divide CHUNK.
//   x:      (batch, seqlen, heads, headdim) bf16
//   B, C:   (batch, seqlen, groups, dstate) bf16; head h uses group
//           h / (heads / groups)
//   dt:     (batch, seqlen, heads) f32
//   G:      (batch, heads, nchunks, CHUNK) f32, from chunk_cumsum
//   D:      (heads) f32
//   states: (batch, nchunks, heads, headdim, dstate) f32, from fwd_pass_state
//   y:      (batch, seqlen, heads, headdim) f32; rows past seqlen not written
//
// Eight warps: with four, the current lowering (tiles in registers) spills
// at 64 x 64 tiles; with eight it does not, for every chunk size.
//
// Precision: C B^T multiplies bf16 inputs exactly (f32 sums). The f32 state
// and the f32 weights of X multiply in tf32: bf16 operands would round them to
// 8 bits. Masking happens on the exponent, before exp2, so exp2 never sees a
// positive argument (G falls along a chunk) and no inf can be formed and then
// multiplied by zero.

!GRowsTile = tensor<1x1x1x?xf32, #tile.dims<[1, 1, 1, BLOCK_M]>>
!GColsTile = tensor<1x1x1x?xf32, #tile.dims<[1, 1, 1, BLOCK_K]>>
!RowVec = tensor<?x1xf32, #tile.dims<[BLOCK_M, 1]>>
!ColVec = tensor<1x?xf32, #tile.dims<[1, BLOCK_K]>>
!DtTile = tensor<1x?x1xf32, #tile.dims<[1, BLOCK_K, 1]>>
!CTile = tensor<1x?x1x?xbf16, #tile.dims<[1, BLOCK_M, 1, BLOCK_N]>>
!CBf16 = tensor<?x?xbf16, #tile.dims<[BLOCK_M, BLOCK_N]>>
!CF32 = tensor<?x?xf32, #tile.dims<[BLOCK_M, BLOCK_N]>>
!CTf32 = tensor<?x?xtf32, #tile.dims<[BLOCK_M, BLOCK_N]>>
!BTTile = tensor<1x1x?x?xbf16, #tile.dims<[1, 1, BLOCK_N, BLOCK_K]>>
!BTBf16 = tensor<?x?xbf16, #tile.dims<[BLOCK_N, BLOCK_K]>>
!HTTile = tensor<1x1x1x?x?xf32, #tile.dims<[1, 1, 1, BLOCK_N, BLOCK_P]>>
!HTF32 = tensor<?x?xf32, #tile.dims<[BLOCK_N, BLOCK_P]>>
!HTTf32 = tensor<?x?xtf32, #tile.dims<[BLOCK_N, BLOCK_P]>>
!Scores = tensor<?x?xf32, #tile.dims<[BLOCK_M, BLOCK_K]>>
!ScoresTf32 = tensor<?x?xtf32, #tile.dims<[BLOCK_M, BLOCK_K]>>
!Mask = tensor<?x?xi1, #tile.dims<[BLOCK_M, BLOCK_K]>>
!RowIdx = tensor<?xi32, #tile.dims<[BLOCK_M]>>
!RowIdxCol = tensor<?x1xi32, #tile.dims<[BLOCK_M, 1]>>
!ColIdx = tensor<?xi32, #tile.dims<[BLOCK_K]>>
!ColIdxRow = tensor<1x?xi32, #tile.dims<[1, BLOCK_K]>>
!ScoresIdx = tensor<?x?xi32, #tile.dims<[BLOCK_M, BLOCK_K]>>
!XKTile = tensor<1x?x1x?xbf16, #tile.dims<[1, BLOCK_K, 1, BLOCK_P]>>
!XKBf16 = tensor<?x?xbf16, #tile.dims<[BLOCK_K, BLOCK_P]>>
!XKF32 = tensor<?x?xf32, #tile.dims<[BLOCK_K, BLOCK_P]>>
!XKTf32 = tensor<?x?xtf32, #tile.dims<[BLOCK_K, BLOCK_P]>>
!XMTile = tensor<1x?x1x?xbf16, #tile.dims<[1, BLOCK_M, 1, BLOCK_P]>>
!XMBf16 = tensor<?x?xbf16, #tile.dims<[BLOCK_M, BLOCK_P]>>
!Out = tensor<?x?xf32, #tile.dims<[BLOCK_M, BLOCK_P]>>
!OutTile = tensor<1x?x1x?xf32, #tile.dims<[1, BLOCK_M, 1, BLOCK_P]>>
!HeadTile = tensor<1xf32>
!One = tensor<1x1xf32>

tile.kernel @compute_out(%x: !tile.view<4, bf16>, %B: !tile.view<4, bf16>,
                         %C: !tile.view<4, bf16>, %dt: !tile.view<3, f32>,
                         %G: !tile.view<4, f32>, %D: !tile.view<1, f32>,
                         %states: !tile.view<5, f32>, %y: !tile.view<4, f32>)
    attributes {num_warps = 8 : i32,
                params = {CHUNK = 64 : i64, BLOCK_M = 64 : i64,
                          BLOCK_K = 64 : i64, BLOCK_P = 64 : i64,
                          BLOCK_N = 64 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %negInf = arith.constant 0xFF800000 : f32
  %mp = tile.block_id x
  %h = tile.block_id y
  %b = tile.block_id z

  %headdim = tile.dim %x[3] : !tile.view<4, bf16>
  %blockP = tile.param "BLOCK_P"
  %numP = arith.ceildivui %headdim, %blockP : index
  %m = arith.divui %mp, %numP : index
  %pt = arith.remui %mp, %numP : index
  %chunkSize = tile.param "CHUNK"
  %blockM = tile.param "BLOCK_M"
  %blockK = tile.param "BLOCK_K"
  %rowTilesPerChunk = arith.divui %chunkSize, %blockM : index
  %colTilesPerChunk = arith.divui %chunkSize, %blockK : index
  %c = arith.divui %m, %rowTilesPerChunk : index
  %mInChunk = arith.remui %m, %rowTilesPerChunk : index
  %heads = tile.dim %x[2] : !tile.view<4, bf16>
  %groups = tile.dim %B[2] : !tile.view<4, bf16>
  %headsPerGroup = arith.divui %heads, %groups : index
  %g = arith.divui %h, %headsPerGroup : index
  %dstate = tile.dim %B[3] : !tile.view<4, bf16>
  %blockN = tile.param "BLOCK_N"
  %numN = arith.ceildivui %dstate, %blockN : index

  %gRowsTile = tile.load %G[%b, %h, %c, %mInChunk] : !tile.view<4, f32> -> !GRowsTile
  %gRows = tile.reshape %gRowsTile : !GRowsTile -> !RowVec

  // Earlier chunks: exp2(G_i) * (C h^T), h the state entering chunk c.
  %outZero = tile.full %zero : !Out
  %fromState = scf.for %n = %c0 to %numN step %c1 iter_args(%acc = %outZero) -> !Out {
    %cTile = tile.load %C[%b, %m, %g, %n] : !tile.view<4, bf16> -> !CTile
    %cBf16 = tile.reshape %cTile : !CTile -> !CBf16
    %cF32 = tile.convert %cBf16 : !CBf16 -> !CF32
    %cTf32 = tile.convert %cF32 : !CF32 -> !CTf32
    %hTile = tile.load %states[%b, %c, %h, %pt, %n] order = [0, 1, 2, 4, 3]
        : !tile.view<5, f32> -> !HTTile
    %hT = tile.reshape %hTile : !HTTile -> !HTF32
    %hTTf32 = tile.convert %hT : !HTF32 -> !HTTf32
    %next = tile.mma %cTf32, %hTTf32, %acc : !CTf32, !HTTf32, !Out
    scf.yield %next : !Out
  }
  %gRowsExp = tile.exp2 %gRows : !RowVec
  %gRowsOut = tile.broadcast %gRowsExp : !RowVec -> !Out
  %outState = arith.mulf %fromState, %gRowsOut : !Out

  // Time step of each row, and the mask and exponents along the rows.
  %rowStart = arith.muli %mInChunk, %blockM : index
  %rowStartI32 = arith.index_cast %rowStart : index to i32
  %rowStartTile = tile.full %rowStartI32 : !RowIdx
  %rowIota = tile.arange : !RowIdx
  %rowIdx = arith.addi %rowIota, %rowStartTile : !RowIdx
  %rowIdxCol = tile.reshape %rowIdx : !RowIdx -> !RowIdxCol
  %rowIdxScores = tile.broadcast %rowIdxCol : !RowIdxCol -> !ScoresIdx
  %gRowsScores = tile.broadcast %gRows : !RowVec -> !Scores
  %negInfScores = tile.full %negInf : !Scores
  %colIota = tile.arange : !ColIdx

  // This chunk: columns up to the diagonal, i.e. below rowStart + BLOCK_M.
  %rowEnd = arith.addi %rowStart, %blockM : index
  %numK = arith.ceildivui %rowEnd, %blockK : index
  %chunkColBase = arith.muli %c, %colTilesPerChunk : index
  %out = scf.for %k = %c0 to %numK step %c1 iter_args(%acc = %outState) -> !Out {
    %kSeq = arith.addi %chunkColBase, %k : index
    %scoresZero = tile.full %zero : !Scores
    %cb = scf.for %n = %c0 to %numN step %c1 iter_args(%cbAcc = %scoresZero) -> !Scores {
      %cTile = tile.load %C[%b, %m, %g, %n] : !tile.view<4, bf16> -> !CTile
      %cBf16 = tile.reshape %cTile : !CTile -> !CBf16
      %bTile = tile.load %B[%b, %kSeq, %g, %n] order = [0, 2, 3, 1] latency = 2
          : !tile.view<4, bf16> -> !BTTile
      %bT = tile.reshape %bTile : !BTTile -> !BTBf16
      %next = tile.mma %cBf16, %bT, %cbAcc : !CBf16, !BTBf16, !Scores
      scf.yield %next : !Scores
    }

    %colStart = arith.muli %k, %blockK : index
    %colStartI32 = arith.index_cast %colStart : index to i32
    %colStartTile = tile.full %colStartI32 : !ColIdx
    %colIdx = arith.addi %colIota, %colStartTile : !ColIdx
    %colIdxRow = tile.reshape %colIdx : !ColIdx -> !ColIdxRow
    %colIdxScores = tile.broadcast %colIdxRow : !ColIdxRow -> !ScoresIdx
    %causal = arith.cmpi sge, %rowIdxScores, %colIdxScores : !ScoresIdx

    %gColsTile = tile.load %G[%b, %h, %c, %k] latency = 2
        : !tile.view<4, f32> -> !GColsTile
    %gCols = tile.reshape %gColsTile : !GColsTile -> !ColVec
    %gColsScores = tile.broadcast %gCols : !ColVec -> !Scores
    %segment = arith.subf %gRowsScores, %gColsScores : !Scores
    %masked = tile.where %causal, %segment, %negInfScores : !Mask, !Scores
    %decay = tile.exp2 %masked : !Scores

    %dtTile = tile.load %dt[%b, %kSeq, %h] latency = 2
        : !tile.view<3, f32> -> !DtTile
    %dtCols = tile.reshape %dtTile : !DtTile -> !ColVec
    %dtScores = tile.broadcast %dtCols : !ColVec -> !Scores
    %cbDecay = arith.mulf %cb, %decay : !Scores
    %weights = arith.mulf %cbDecay, %dtScores : !Scores
    %weightsTf32 = tile.convert %weights : !Scores -> !ScoresTf32

    %xTile = tile.load %x[%b, %kSeq, %h, %pt] latency = 2
        : !tile.view<4, bf16> -> !XKTile
    %xBf16 = tile.reshape %xTile : !XKTile -> !XKBf16
    %xF32 = tile.convert %xBf16 : !XKBf16 -> !XKF32
    %xTf32 = tile.convert %xF32 : !XKF32 -> !XKTf32
    %next = tile.mma %weightsTf32, %xTf32, %acc : !ScoresTf32, !XKTf32, !Out
    scf.yield %next : !Out
  }

  // The skip connection D * x on this program's own rows.
  %dTile = tile.load %D[%h] : !tile.view<1, f32> -> !HeadTile
  %dOne = tile.reshape %dTile : !HeadTile -> !One
  %dOut = tile.broadcast %dOne : !One -> !Out
  %xRowsTile = tile.load %x[%b, %m, %h, %pt] : !tile.view<4, bf16> -> !XMTile
  %xRowsBf16 = tile.reshape %xRowsTile : !XMTile -> !XMBf16
  %xRows = tile.convert %xRowsBf16 : !XMBf16 -> !Out
  %skip = arith.mulf %dOut, %xRows : !Out
  %y1 = arith.addf %out, %skip : !Out

  %yTile = tile.reshape %y1 : !Out -> !OutTile
  tile.store %yTile, %y[%b, %m, %h, %pt] : !OutTile, !tile.view<4, f32>
  tile.return
}
