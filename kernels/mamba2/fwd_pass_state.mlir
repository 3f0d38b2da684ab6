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
//   x:       (batch, seqlen, heads, headdim) bf16
//   B:       (batch, seqlen, groups, dstate) bf16; head h uses group
//            h / (heads / groups)
//   dt:      (batch, seqlen, heads) f32
//   G:       (batch, heads, nchunks, CHUNK) f32, from chunk_cumsum
//   init:    (batch, heads, headdim, dstate) f32, read only when
//            has_init != 0 (otherwise any view: it is not touched)
//   states:  (batch, nchunks, heads, headdim, dstate) f32
//   final:   (batch, heads, headdim, dstate) f32
//
// Eight warps: with four, the current lowering (tiles in registers) spills
// at 64 x 64 state tiles; with eight it does not, for every chunk size.
//
// Precision: B * dt * exp2(...) is an f32 product of bf16 and f32 values, so
// the update multiplies in tf32 (10-bit mantissa) rather than bf16 (7-bit):
// the state is summed over every chunk and carries that rounding to every
// later output. x converts to tf32 exactly.

!State = tensor<?x?xf32, #tile.dims<[BLOCK_P, BLOCK_N]>>
!StateTf32 = tensor<?x?xtf32, #tile.dims<[BLOCK_P, BLOCK_N]>>
!StateTile4 = tensor<1x1x?x?xf32, #tile.dims<[1, 1, BLOCK_P, BLOCK_N]>>
!StateTile5 = tensor<1x1x1x?x?xf32, #tile.dims<[1, 1, 1, BLOCK_P, BLOCK_N]>>
!GTile = tensor<1x1x1x?xf32, #tile.dims<[1, 1, 1, BLOCK_K]>>
!GLastTile = tensor<1x1x1x1xf32>
!DtTile = tensor<1x?x1xf32, #tile.dims<[1, BLOCK_K, 1]>>
!Col = tensor<?x1xf32, #tile.dims<[BLOCK_K, 1]>>
!One = tensor<1x1xf32>
!BTile = tensor<1x?x1x?xbf16, #tile.dims<[1, BLOCK_K, 1, BLOCK_N]>>
!BBf16 = tensor<?x?xbf16, #tile.dims<[BLOCK_K, BLOCK_N]>>
!BF32 = tensor<?x?xf32, #tile.dims<[BLOCK_K, BLOCK_N]>>
!BTf32 = tensor<?x?xtf32, #tile.dims<[BLOCK_K, BLOCK_N]>>
!XTTile = tensor<1x1x?x?xbf16, #tile.dims<[1, 1, BLOCK_P, BLOCK_K]>>
!XTBf16 = tensor<?x?xbf16, #tile.dims<[BLOCK_P, BLOCK_K]>>
!XTF32 = tensor<?x?xf32, #tile.dims<[BLOCK_P, BLOCK_K]>>
!XTTf32 = tensor<?x?xtf32, #tile.dims<[BLOCK_P, BLOCK_K]>>

tile.kernel @fwd_pass_state(%x: !tile.view<4, bf16>, %B: !tile.view<4, bf16>,
                            %dt: !tile.view<3, f32>, %G: !tile.view<4, f32>,
                            %init: !tile.view<4, f32>, %has_init: i32,
                            %states: !tile.view<5, f32>,
                            %final: !tile.view<4, f32>)
    attributes {num_warps = 8 : i32,
                params = {CHUNK = 64 : i64, BLOCK_P = 64 : i64,
                          BLOCK_N = 64 : i64, BLOCK_K = 64 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero_i32 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %pn = tile.block_id x
  %h = tile.block_id y
  %b = tile.block_id z

  %dstate = tile.dim %B[3] : !tile.view<4, bf16>
  %blockN = tile.param "BLOCK_N"
  %numN = arith.ceildivui %dstate, %blockN : index
  %pt = arith.divui %pn, %numN : index
  %nt = arith.remui %pn, %numN : index
  %heads = tile.dim %x[2] : !tile.view<4, bf16>
  %groups = tile.dim %B[2] : !tile.view<4, bf16>
  %headsPerGroup = arith.divui %heads, %groups : index
  %g = arith.divui %h, %headsPerGroup : index
  %nchunks = tile.dim %G[2] : !tile.view<4, f32>
  %chunkSize = tile.param "CHUNK"
  %lastStep = arith.subi %chunkSize, %c1 : index

  %hasInit = arith.cmpi ne, %has_init, %zero_i32 : i32
  %h0 = scf.if %hasInit -> !State {
    %t = tile.load %init[%b, %h, %pt, %nt] : !tile.view<4, f32> -> !StateTile4
    %s = tile.reshape %t : !StateTile4 -> !State
    scf.yield %s : !State
  } else {
    %s = tile.full %zero : !State
    scf.yield %s : !State
  }

  %blockK = tile.param "BLOCK_K"
  %kTilesPerChunk = arith.divui %chunkSize, %blockK : index
  %hLast = scf.for %c = %c0 to %nchunks step %c1 iter_args(%hc = %h0) -> !State {
    %entering = tile.reshape %hc : !State -> !StateTile5
    tile.store %entering, %states[%b, %c, %h, %pt, %nt]
        : !StateTile5, !tile.view<5, f32>

    %gLastTile = tile.load %G[%b, %h, %c, %lastStep]
        : !tile.view<4, f32> -> !GLastTile
    %gLast = tile.reshape %gLastTile : !GLastTile -> !One
    %gLastCol = tile.broadcast %gLast : !One -> !Col
    %chunkDecay = tile.exp2 %gLast : !One
    %chunkDecayState = tile.broadcast %chunkDecay : !One -> !State
    %decayed = arith.mulf %hc, %chunkDecayState : !State

    // The chunk's contribution, BLOCK_K steps at a time so that the operand
    // tiles do not grow with the chunk.
    %kBase = arith.muli %c, %kTilesPerChunk : index
    %next = scf.for %k = %c0 to %kTilesPerChunk step %c1 iter_args(%acc = %decayed) -> !State {
      %kSeq = arith.addi %kBase, %k : index
      // Weight of step t: dt_t * exp2(G_last - G_t), never above dt_t since
      // G falls along the chunk.
      %gTile = tile.load %G[%b, %h, %c, %k] latency = 2
          : !tile.view<4, f32> -> !GTile
      %gCol = tile.reshape %gTile : !GTile -> !Col
      %toEnd = arith.subf %gLastCol, %gCol : !Col
      %decayToEnd = tile.exp2 %toEnd : !Col
      %dtTile = tile.load %dt[%b, %kSeq, %h] latency = 2
          : !tile.view<3, f32> -> !DtTile
      %dtCol = tile.reshape %dtTile : !DtTile -> !Col
      %weight = arith.mulf %dtCol, %decayToEnd : !Col
      %weightB = tile.broadcast %weight : !Col -> !BF32

      %bTile = tile.load %B[%b, %kSeq, %g, %nt] latency = 2
          : !tile.view<4, bf16> -> !BTile
      %bBf16 = tile.reshape %bTile : !BTile -> !BBf16
      %bF32 = tile.convert %bBf16 : !BBf16 -> !BF32
      %bScaled = arith.mulf %bF32, %weightB : !BF32
      %bTf32 = tile.convert %bScaled : !BF32 -> !BTf32

      // x^T: (head dim, time), read transposed.
      %xTile = tile.load %x[%b, %kSeq, %h, %pt] order = [0, 2, 3, 1] latency = 2
          : !tile.view<4, bf16> -> !XTTile
      %xBf16 = tile.reshape %xTile : !XTTile -> !XTBf16
      %xF32 = tile.convert %xBf16 : !XTBf16 -> !XTF32
      %xTf32 = tile.convert %xF32 : !XTF32 -> !XTTf32

      %sum = tile.mma %xTf32, %bTf32, %acc : !XTTf32, !BTf32, !State
      scf.yield %sum : !State
    }
    scf.yield %next : !State
  }

  %finalTile = tile.reshape %hLast : !State -> !StateTile4
  tile.store %finalTile, %final[%b, %h, %pt, %nt]
      : !StateTile4, !tile.view<4, f32>
  tile.return
}
