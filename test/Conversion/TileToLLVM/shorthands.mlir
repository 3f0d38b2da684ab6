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

// A load that converts (bf16 to f32), tile.clamp, tile.pad, tile.delinearize
// and a store that converts (f32 to f16, rounded), unconditional and under
// `if %flag`, in a kernel whose tile.return is left out.
// CHECK-LABEL: llvm.func @step_forms
// CHECK: arith.divui %{{.*}}, %[[TILES:.*]] : index
// CHECK: arith.remui %{{.*}}, %[[TILES]] : index
// CHECK: llvm.load {{.*}} -> bf16
// CHECK: llvm.fpext {{.*}} : vector<1xbf16> to vector<1xf32>
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.cmpi slt
// CHECK: llvm.select
// CHECK: llvm.fptrunc {{.*}} : vector<1xf32> to vector<1xf16>
// CHECK: llvm.store {{.*}} : f16
// CHECK: %[[ON:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : i32
// CHECK: scf.if %[[ON]] {
// CHECK: llvm.fptrunc
// CHECK: llvm.store {{.*}} : f16
// CHECK-NOT: tile.
tile.kernel @step_forms(%x: !tile.view<2, bf16>, %y: !tile.view<2, f16>,
                        %lo: f32, %hi: f32, %n: index, %tiles: index,
                        %flag: i32) {
  %id = tile.block_id x
  %i, %j = tile.delinearize %id by %tiles
  %t = tile.load %x[%i, %j] : !tile.view<2, bf16> -> !tile.tile<16 x 8 x f32>
  %c = tile.clamp %t, %lo, %hi : !tile.tile<16 x 8 x f32>, f32, f32
  %p = tile.pad %c dim 0 past %n at %i : !tile.tile<16 x 8 x f32>
  tile.store %p, %y[%i, %j] : !tile.tile<16 x 8 x f32>, !tile.view<2, f16>
  tile.store %t, %y[%j, %i] if %flag : !tile.tile<16 x 8 x f32>, !tile.view<2, f16>, i32
}

// The loop and mask forms, lowered as written out: tile.for over the tiles
// of an extent (an scf.for to the ceildiv), the block id split and
// recombined by tile counts, the triangular mask (a compare of positions),
// a where of an i1 flag (an scf.if) and a store unless the flag.
// CHECK-LABEL: llvm.func @loop_forms
// CHECK: arith.ceildivui
// CHECK: scf.for
// CHECK: llvm.load {{.*}} -> f32
// CHECK: arith.cmpi sge
// CHECK: scf.if %{{.*}} -> (
// CHECK: %[[OFF:.*]] = arith.xori %{{.*}}, %{{.*}} : i1
// CHECK: scf.if %[[OFF]] {
// CHECK: llvm.store {{.*}} : f32
// CHECK-NOT: tile.
tile.kernel @loop_forms(%x: !tile.view<2, f32>, %n: index, %s: index,
                        %flag: i1) {
  %id = tile.block_id x
  %r, %c = tile.delinearize %id by tiles(%n, %s)
  %l = tile.linearize %r, %c by tiles(%n, %s)
  %zero = tile.full 0.0 : !tile.tile<16 x 8 x f32>
  %sum = tile.for %k in tiles(%n, %s) iter_args(%acc = %zero)
      -> (!tile.tile<16 x 8 x f32>) {
    %t = tile.load %x[%l, %k] : !tile.view<2, f32> -> !tile.tile<16 x 8 x f32>
    %next = arith.addf %acc, %t : !tile.tile<16 x 8 x f32>
    tile.yield %next : !tile.tile<16 x 8 x f32>
  }
  %mask = tile.tri at %r, %c : !tile.tile<16 x 8 x i1>
  %masked = tile.where %mask, %sum, %zero : !tile.tile<16 x 8 x i1>, !tile.tile<16 x 8 x f32>
  %e = math.exp %masked : !tile.tile<16 x 8 x f32>
  %chosen = tile.where %flag, %e, %masked : i1, !tile.tile<16 x 8 x f32>
  tile.store %chosen, %x[%r, %c] unless %flag : !tile.tile<16 x 8 x f32>, !tile.view<2, f32>, i1
}
