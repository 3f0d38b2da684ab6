// REQUIRES: ptxas
// tile.load_scalar on the GPU against the interpreter: program b reads
// row = idx[b] from a device-resident index table (negative entries, entries
// past x's rows, and programs past the table's end, which read the padding
// 0), then uses it as an element index of a float scalar load (padding NaN
// outside), as the row of a rank-reducing tile load and as a loop bound.
// RUN: tilec %s --emit=ptx --target=sm_80 -o /dev/null
// RUN: tilec %s --codegen=layouts --emit=ptx --target=sm_90a -o /dev/null
tile.kernel @scalar_gather(%idx: !tile.view<1, i32>, %x: !tile.view<2, f32>,
                           %rows: !tile.view<2, f32>,
                           %counts: !tile.view<1, f32>) warps 2 {
  %b = tile.block_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tile.load_scalar %idx[%b] : !tile.view<1, i32> -> i32
  %row = arith.index_cast %r : i32 to index
  // x[row, b], NaN where row is outside x.
  %s = tile.load_scalar %x[%row, %b] padding = nan : !tile.view<2, f32> -> f32
  // x[row, 0:64] (zero past its 48 columns) plus the scalar.
  %t = tile.load %x[%row, 0] dims = [1] : !tile.view<2, f32> -> tensor<64xf32>
  %splat = tile.full %s : tensor<64xf32>
  %sum = arith.addf %t, %splat : tensor<64xf32>
  tile.store %sum, %rows[%b, 0] dims = [1] : tensor<64xf32>, !tile.view<2, f32>
  // The number of iterations of [0, row): 0 for a negative row.
  %one = tile.full 1.0 : tensor<1xf32>
  %zero = tile.full 0.0 : tensor<1xf32>
  %n = scf.for %k = %c0 to %row step %c1 iter_args(%acc = %zero)
      -> tensor<1xf32> {
    %next = arith.addf %acc, %one : tensor<1xf32>
    scf.yield %next : tensor<1xf32>
  }
  tile.store %n, %counts[%b] : tensor<1xf32>, !tile.view<1, f32>
  tile.return
}
