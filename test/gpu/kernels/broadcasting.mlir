// Lowered here; run on a GPU against the interpreter through
// test/gpu/cases.txt.
// RUN: tilec %s --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry broadcasting(
// CHECK-DAG: add.rn.f32
// CHECK-DAG: sub.rn.f32
// CHECK-DAG: mul.rn.f32
// CHECK-DAG: div.rn.f32

// The broadcasting float ops on ragged 16-row tiles: a row, a column
// (16 x 1) and a scalar broadcast to 16 x 32; o[k] holds the k-th result.
!T = !tile.tile<16 x 32 x f32>
!Col = !tile.tile<16 x 1 x f32>
tile.kernel @broadcasting(%a: !tile.view<2, f32>, %row: !tile.view<1, f32>,
                          %col: !tile.view<2, f32>, %s: f32,
                          %o: !tile.view<3, f32>) {
  %i = tile.block_id x
  %t = tile.load %a[%i, 0] : !tile.view<2, f32> -> !T
  %r = tile.load %row[0] : !tile.view<1, f32> -> !tile.tile<32 x f32>
  %c = tile.load %col[%i, 0] : !tile.view<2, f32> -> !Col
  %add = tile.addf %t, %r : !T, !tile.tile<32 x f32> -> !T
  %sub = tile.subf %c, %add : !Col, !T -> !T
  %mul = tile.mulf %sub, %s : !T, f32 -> !T
  %div = tile.divf %mul, %c : !T, !Col -> !T
  tile.store %add, %o[0, %i, 0] dims = [1, 2] : !T, !tile.view<3, f32>
  tile.store %sub, %o[1, %i, 0] dims = [1, 2] : !T, !tile.view<3, f32>
  tile.store %mul, %o[2, %i, 0] dims = [1, 2] : !T, !tile.view<3, f32>
  tile.store %div, %o[3, %i, 0] dims = [1, 2] : !T, !tile.view<3, f32>
  tile.return
}
