// Mamba-2 decode step (docs/mamba2.md, "The decode step"): one token of each
// sequence of a batch, with the state updated in place. For batch entry b
// and head h (group g = h / (heads / groups)), with state h the
// headdim x dstate matrix of that sequence:
//
//   dt'  = dt[b, h] (+ dt_bias[h]); softplus(dt') when dt_softplus != 0
//          (log1p(exp(dt')) for dt' <= 20, dt' above, as mamba_ssm)
//   h   <- exp(A[h] dt') h + dt' x[b, h] B[b, g]^T
//   y    = h C[b, g] (+ D[h, :] * x[b, h]) (* z silu: z * sigmoid(z))
//
// mamba_ssm's selective_state_update. The state is read once and written
// once; everything else is a vector per (entry, head). Grid:
// (ceil(headdim / BLOCK_P), heads, batch); a program owns BLOCK_P rows of
// one state and walks dstate BLOCK_N columns at a time, summing y's rows as
// it goes, so no state element is touched twice.
//   state:  (stateRows, heads, headdim, dstate) ST (f32, bf16 or f16: a type
//           parameter, one instance per dtype), read and written:
//           entry b updates row state_indices[b] when has_indices != 0
//           (read on the device with tile.load_scalar), else row b. A row
//           equal to pad_slot_id or outside [0, stateRows) makes the entry a
//           padding one: it starts from a zero state and writes no state
//   state_indices: (batch) i64, read when has_indices != 0
//   x:      (batch, heads, headdim) XT (bf16 or f16: a type parameter, one
//           instance per dtype)
//   dt:     (batch, heads) f32
//   dt_bias:(heads) f32, read when has_dt_bias != 0
//   A:      (heads) f32
//   B, C:   (batch, groups, dstate) XT
//   D:      (heads, headdim) f32 (stride 0 along headdim for a D per head),
//           read when has_D != 0
//   z:      (batch, heads, headdim) XT, read when has_z != 0
//   y:      (batch, heads, headdim) XT, written (mamba_ssm: x's dtype)
// The flags are scalars rather than compile-time parameters: one compiled
// kernel serves every combination, and a branch on a uniform scalar costs
// nothing next to the state's traffic.
//
// Precision: f32 throughout (a bf16 or f16 state converts to f32 exactly when
// it is loaded, and every product rounds to f32); the new state is rounded to
// ST once when it is stored (nothing for f32), y to XT at the end.

!State = !tile.tile<BLOCK_P x BLOCK_N x f32>
!Rows = !tile.tile<BLOCK_P x f32>
!Cols = !tile.tile<BLOCK_N x f32>
!One = !tile.tile<1 x f32>

tile.kernel @state_update<BLOCK_P = 16, BLOCK_N = 128, ST : type = f32,
                           XT : type = bf16>(
    %state: !tile.view<4, ST>, %x: !tile.view<3, XT>,
    %dt: !tile.view<2, f32>, %dt_bias: !tile.view<1, f32>,
    %A: !tile.view<1, f32>, %B: !tile.view<3, XT>, %C: !tile.view<3, XT>,
    %D: !tile.view<2, f32>, %z: !tile.view<3, XT>, %y: !tile.view<3, XT>,
    %state_indices: !tile.view<1, i64>, %has_indices: i32, %pad_slot_id: i64,
    %has_dt_bias: i32, %dt_softplus: i32, %has_D: i32, %has_z: i32) warps 4 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero_i32 = arith.constant 0 : i32
  %pt, %h, %b = tile.block_id x, y, z

  %heads = tile.dim %x[1] : !tile.view<3, XT>
  %groups, %dstate = tile.dim %B[1, 2] : !tile.view<3, XT>
  %blockN = tile.param "BLOCK_N"
  %numN = arith.ceildivui %dstate, %blockN : index
  %headsPerGroup = arith.divui %heads, %groups : index
  %g = arith.divui %h, %headsPerGroup : index

  // The state row of this entry, and whether it has one.
  %hasIndices = arith.cmpi ne, %has_indices, %zero_i32 : i32
  %rowI64 = scf.if %hasIndices -> i64 {
    %r = tile.load_scalar %state_indices[%b] : !tile.view<1, i64> -> i64
    scf.yield %r : i64
  } else {
    %r = arith.index_cast %b : index to i64
    scf.yield %r : i64
  }
  %row = arith.index_cast %rowI64 : i64 to index
  %stateRows = tile.dim %state[0] : !tile.view<4, ST>
  // Unsigned: a negative row is outside too.
  %inState = arith.cmpi ult, %row, %stateRows : index
  %notPadding = arith.cmpi ne, %rowI64, %pad_slot_id : i64
  %hasState = arith.andi %inState, %notPadding : i1

  // The time step of this (entry, head), with bias and softplus.
  %dtRaw = tile.load %dt[%b, %h] dims = [1] : !tile.view<2, f32> -> !One
  %hasBias = arith.cmpi ne, %has_dt_bias, %zero_i32 : i32
  %dtBiased = scf.if %hasBias -> !One {
    %bias = tile.load %dt_bias[%h] : !tile.view<1, f32> -> !One
    %sum = arith.addf %dtRaw, %bias : !One
    scf.yield %sum : !One
  } else {
    scf.yield %dtRaw : !One
  }
  %dtStep = tile.softplus %dtBiased if %dt_softplus : !One, i32
  %a = tile.load %A[%h] : !tile.view<1, f32> -> !One
  %adt = arith.mulf %a, %dtStep : !One
  %decay = math.exp %adt : !One

  // dt * x, one value per row of the state.
  %xRows = tile.load %x[%b, %h, %pt] dims = [2] : !tile.view<3, XT> -> !Rows
  %dtx = tile.mulf %xRows, %dtStep : !Rows, !One -> !Rows
  %dtxState = tile.broadcast %dtx new_dims = [1] : !Rows -> !State

  %yZero = tile.full 0.0 : !Rows
  %yState = scf.for %n = %c0 to %numN step %c1 iter_args(%acc = %yZero) -> !Rows {
    %stored = tile.load %state[%row, %h, %pt, %n] if %hasState dims = [2, 3]
        : !tile.view<4, ST>, i1 -> !tile.tile<BLOCK_P x BLOCK_N x ST>
    %h0 = tile.convert %stored : !tile.tile<BLOCK_P x BLOCK_N x ST> -> !State
    %bCols = tile.load %B[%b, %g, %n] dims = [2] : !tile.view<3, XT> -> !Cols
    %input = tile.mulf %dtxState, %bCols : !State, !Cols -> !State
    %kept = tile.mulf %h0, %decay : !State, !One -> !State
    %h1 = arith.addf %kept, %input : !State
    tile.store %h1, %state[%row, %h, %pt, %n] if %hasState dims = [2, 3]
        : !State, !tile.view<4, ST>, i1

    %cCols = tile.load %C[%b, %g, %n] dims = [2] : !tile.view<3, XT> -> !Cols
    %hc = tile.mulf %h1, %cCols : !State, !Cols -> !State
    %part = tile.reduce sum %hc axis = 1 : !State -> !Rows
    %next = arith.addf %acc, %part : !Rows
    scf.yield %next : !Rows
  }

  %hasD = arith.cmpi ne, %has_D, %zero_i32 : i32
  %ySkip = scf.if %hasD -> !Rows {
    %dRows = tile.load %D[%h, %pt] dims = [1] : !tile.view<2, f32> -> !Rows
    %skip = arith.mulf %dRows, %xRows : !Rows
    %sum = arith.addf %yState, %skip : !Rows
    scf.yield %sum : !Rows
  } else {
    scf.yield %yState : !Rows
  }
  %hasZ = arith.cmpi ne, %has_z, %zero_i32 : i32
  %yGated = scf.if %hasZ -> !Rows {
    %zRows = tile.load %z[%b, %h, %pt] dims = [2] : !tile.view<3, XT> -> !Rows
    %silu = tile.silu %zRows : !Rows
    %gated = arith.mulf %ySkip, %silu : !Rows
    scf.yield %gated : !Rows
  } else {
    scf.yield %ySkip : !Rows
  }
  tile.store %yGated, %y[%b, %h, %pt] dims = [2] : !Rows, !tile.view<3, XT>
}
