// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt.
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cubin --target=sm_90 -o %t.sm90.cubin
// RUN: tilec %s --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry copy_padded(
// CHECK-DAG: %ctaid.x
// CHECK-DAG: %ctaid.y
// CHECK-DAG: ld.global.b32
// CHECK-DAG: add.rn.f32
// CHECK-DAG: st.global.b32

// out = in + 1 tile by tile over a 2-D view whose sizes are not multiples of
// the tile: padded reads (padding = nan shows where they land) and masked
// writes at the ragged edges; grid (ceil(M/BM), ceil(N/BN)).
!T = tensor<?x?xf32, #tile.dims<[BM, BN]>>
tile.kernel @copy_padded(%in: !tile.view<2, f32>, %out: !tile.view<2, f32>)
    attributes {params = {BM = 32 : i64, BN = 64 : i64}} {
  %i = tile.block_id x
  %j = tile.block_id y
  %one = arith.constant 1.0 : f32
  %t = tile.load %in[%i, %j] padding = nan : !tile.view<2, f32> -> !T
  %o = tile.full %one : !T
  %r = arith.addf %t, %o : !T
  tile.store %r, %out[%i, %j] : !T, !tile.view<2, f32>
  tile.return
}
