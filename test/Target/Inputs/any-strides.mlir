// y = d * x with d a view that may have any strides (a per-row value
// broadcast with stride 0): test/Target/emit-cpp.mlir's launcher case.
tile.kernel @scale_rows(%d: !tile.view<2, f32> {tile.any_strides},
                        %x: !tile.view<2, f32>, %y: !tile.view<2, f32>)
    warps 1 {
  %i = tile.block_id x
  %c0 = arith.constant 0 : index
  %dt = tile.load %d[%i, %c0] : !tile.view<2, f32> -> !tile.tile<4 x 32 x f32>
  %xt = tile.load %x[%i, %c0] : !tile.view<2, f32> -> !tile.tile<4 x 32 x f32>
  %r = arith.mulf %dt, %xt : !tile.tile<4 x 32 x f32>
  tile.store %r, %y[%i, %c0] : !tile.tile<4 x 32 x f32>, !tile.view<2, f32>
  tile.return
}
