// Mamba-2 forward, kernel 2 of 3 (docs/mamba2.md): the state passed from
// chunk to chunk. For each chunk c, with x, B, dt and G restricted to it,
//
//   states[b, c, h] = h                                  (the state entering c)
//   h <- exp2(G[CHUNK-1]) * h + x^T (B * dt * exp2(G[CHUNK-1] - G))
//
// and the state after the last chunk is the final state. The recurrence is
// sequential in c, so one program walks all chunks; programs are parallel
// over (state tile, head, batch). h is a BLOCK_P x BLOCK_N f32 tile that stays
// on chip for the whole walk.
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
// Precision: B * dt * exp2(...) is an f32 product of bf16 and f32 values, so
// the update multiplies in tf32 (10-bit mantissa) rather than bf16 (7-bit):
// the state is summed over every chunk and carries that rounding to every
// later output. x converts to tf32 exactly.

!State = tensor<?x?xf32, #tile.dims<[BLOCK_P, BLOCK_N]>>
!StateTf32 = tensor<?x?xtf32, #tile.dims<[BLOCK_P, BLOCK_N]>>
!StateTile4 = tensor<1x1x?x?xf32, #tile.dims<[1, 1, BLOCK_P, BLOCK_N]>>
!StateTile5 = tensor<1x1x1x?x?xf32, #tile.dims<[1, 1, 1, BLOCK_P, BLOCK_N]>>
!GTile = tensor<1x1x1x?xf32, #tile.dims<[1, 1, 1, CHUNK]>>
!DtTile = tensor<1x?x1xf32, #tile.dims<[1, CHUNK, 1]>>
!Col = tensor<?x1xf32, #tile.dims<[CHUNK, 1]>>
!One = tensor<1x1xf32>
!BTile = tensor<1x?x1x?xbf16, #tile.dims<[1, CHUNK, 1, BLOCK_N]>>
!BBf16 = tensor<?x?xbf16, #tile.dims<[CHUNK, BLOCK_N]>>
!BF32 = tensor<?x?xf32, #tile.dims<[CHUNK, BLOCK_N]>>
!BTf32 = tensor<?x?xtf32, #tile.dims<[CHUNK, BLOCK_N]>>
!XTTile = tensor<1x1x?x?xbf16, #tile.dims<[1, 1, BLOCK_P, CHUNK]>>
!XTBf16 = tensor<?x?xbf16, #tile.dims<[BLOCK_P, CHUNK]>>
!XTF32 = tensor<?x?xf32, #tile.dims<[BLOCK_P, CHUNK]>>
!XTTf32 = tensor<?x?xtf32, #tile.dims<[BLOCK_P, CHUNK]>>

tile.kernel @fwd_pass_state(%x: !tile.view<4, bf16>, %B: !tile.view<4, bf16>,
                            %dt: !tile.view<3, f32>, %G: !tile.view<4, f32>,
                            %init: !tile.view<4, f32>, %has_init: i32,
                            %states: !tile.view<5, f32>,
                            %final: !tile.view<4, f32>)
    attributes {num_warps = 4 : i32,
                params = {CHUNK = 64 : i64, BLOCK_P = 64 : i64,
                          BLOCK_N = 64 : i64}} {
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

  %hLast = scf.for %c = %c0 to %nchunks step %c1 iter_args(%hc = %h0) -> !State {
    %entering = tile.reshape %hc : !State -> !StateTile5
    tile.store %entering, %states[%b, %c, %h, %pt, %nt]
        : !StateTile5, !tile.view<5, f32>

    // Weight of step t in the chunk's contribution: dt_t * exp2(G_last - G_t),
    // never above dt_t since G falls along the chunk.
    %gTile = tile.load %G[%b, %h, %c, %c0] latency = 2
        : !tile.view<4, f32> -> !GTile
    %gCol = tile.reshape %gTile : !GTile -> !Col
    %gLast = tile.extract %gCol[%lastStep, %c0] : !Col -> !One
    %gLastCol = tile.broadcast %gLast : !One -> !Col
    %toEnd = arith.subf %gLastCol, %gCol : !Col
    %decayToEnd = tile.exp2 %toEnd : !Col
    %dtTile = tile.load %dt[%b, %c, %h] latency = 2
        : !tile.view<3, f32> -> !DtTile
    %dtCol = tile.reshape %dtTile : !DtTile -> !Col
    %weight = arith.mulf %dtCol, %decayToEnd : !Col
    %weightB = tile.broadcast %weight : !Col -> !BF32

    %bTile = tile.load %B[%b, %c, %g, %nt] latency = 2
        : !tile.view<4, bf16> -> !BTile
    %bBf16 = tile.reshape %bTile : !BTile -> !BBf16
    %bF32 = tile.convert %bBf16 : !BBf16 -> !BF32
    %bScaled = arith.mulf %bF32, %weightB : !BF32
    %bTf32 = tile.convert %bScaled : !BF32 -> !BTf32

    // x^T: (head dim, time), read transposed.
    %xTile = tile.load %x[%b, %c, %h, %pt] order = [0, 2, 3, 1] latency = 2
        : !tile.view<4, bf16> -> !XTTile
    %xBf16 = tile.reshape %xTile : !XTTile -> !XTBf16
    %xF32 = tile.convert %xBf16 : !XTBf16 -> !XTF32
    %xTf32 = tile.convert %xF32 : !XTF32 -> !XTTf32

    %chunkDecay = tile.exp2 %gLast : !One
    %chunkDecayState = tile.broadcast %chunkDecay : !One -> !State
    %decayed = arith.mulf %hc, %chunkDecayState : !State
    %next = tile.mma %xTf32, %bTf32, %decayed
        : !XTTf32, !BTf32, !State
    scf.yield %next : !State
  }

  %finalTile = tile.reshape %hLast : !State -> !StateTile4
  tile.store %finalTile, %final[%b, %h, %pt, %nt]
      : !StateTile4, !tile.view<4, f32>
  tile.return
}
