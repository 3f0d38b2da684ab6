// RUN: tile-opt %s --tile-bind-params --convert-tile-to-llvm | FileCheck %s
// RUN: tile-opt %s --tile-bind-params --tile-expand-forms --convert-tile-to-llvm | FileCheck %s

// convert-tile-to-llvm takes the shorthands directly (it writes them out
// first, as tile-expand-forms does): a rank-changing transposed load with a
// literal index, a broadcast with new_dims, tile.full of a literal and a
// tf32 product of a bf16 and an f32 operand.

// CHECK-LABEL: llvm.func @shorthands
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: nvvm.read.ptx.sreg.ctaid.y
// CHECK: nvvm.convert.float.to.tf32
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>
// CHECK: llvm.store
tile.kernel @shorthands<K = 8>(%x: !tile.view<3, bf16>, %w: !tile.view<2, f32>,
                               %y: !tile.view<3, f32>) {
  %i, %j = tile.block_id x, y
  %a = tile.load %x[%i, 0, %j] dims = [2, 0]
      : !tile.view<3, bf16> -> !tile.tile<16 x K x bf16>
  %row = tile.load %w[%j, 0] dims = [1] : !tile.view<2, f32> -> !tile.tile<16 x f32>
  %b = tile.broadcast %row new_dims = [0] : !tile.tile<16 x f32> -> !tile.tile<K x 16 x f32>
  %c = tile.full 0.0 : !tile.tile<16 x 16 x f32>
  %d = tile.mma %a, %b, %c precision = tf32
      : !tile.tile<16 x K x bf16>, !tile.tile<K x 16 x f32>, !tile.tile<16 x 16 x f32>
  tile.store %d, %y[%i, %j, 0] dims = [0, 2] : !tile.tile<16 x 16 x f32>, !tile.view<3, f32>
  tile.return
}
