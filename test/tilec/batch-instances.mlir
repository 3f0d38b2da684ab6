// --then starts another instance's command line: one tilec process compiles
// them one after another, each as if by a tilec of its own. No option
// carries over (the second instance without -D gets the default BLOCK), the
// outputs are those of separate runs, and the first failing instance stops
// the batch with its diagnostic and a non-zero exit status.

// RUN: tilec %s -D BLOCK=256 -o %t.a.mlir --then %s -o %t.b.mlir --then %s -D BLOCK=32 --kernel-suffix=_b32 -o %t.c.mlir
// RUN: FileCheck %s --check-prefix=BLOCK256 < %t.a.mlir
// RUN: FileCheck %s --check-prefix=DEFAULT < %t.b.mlir
// RUN: FileCheck %s --check-prefix=BLOCK32 < %t.c.mlir
// RUN: tilec %s -D BLOCK=256 -o %t.alone.mlir && cmp %t.a.mlir %t.alone.mlir
// RUN: tilec %s -D BLOCK=32 --kernel-suffix=_b32 -o %t.alone.mlir && cmp %t.c.mlir %t.alone.mlir

// RUN: rm -f %t.after.mlir
// RUN: not tilec %s -D WIDTH=64 -o %t.before.mlir --then %s -o %t.after.mlir 2>&1 | FileCheck %s --check-prefix=FAILS
// RUN: not test -e %t.after.mlir
// RUN: not tilec %s -o %t.a.mlir --then 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not tilec %s -o %t.a.mlir --then --then %s -o %t.b.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY2
// RUN: not tilec --then %s -o %t.a.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY1

// BLOCK256-LABEL: tile.kernel @scale(
// BLOCK256: load %{{.*}} : <1, f32> -> tensor<256xf32>
// DEFAULT-LABEL: tile.kernel @scale(
// DEFAULT: load %{{.*}} : <1, f32> -> tensor<128xf32>
// BLOCK32-LABEL: tile.kernel @scale_b32(
// BLOCK32: load %{{.*}} : <1, f32> -> tensor<32xf32>
// FAILS: error: no kernel declares parameter 'WIDTH'
// EMPTY: tilec: --then separates instances' command lines; instance 2 of 2 is empty
// EMPTY2: tilec: --then separates instances' command lines; instance 2 of 3 is empty
// EMPTY1: tilec: --then separates instances' command lines; instance 1 of 2 is empty

tile.kernel @scale(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>, %s: f32)
    attributes {params = {BLOCK = 128 : i64}} {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> tensor<?xf32, #tile.dims<[BLOCK]>>
  %f = tile.full %s : tensor<?xf32, #tile.dims<[BLOCK]>>
  %r = arith.mulf %t, %f : tensor<?xf32, #tile.dims<[BLOCK]>>
  tile.store %r, %y[%i] : tensor<?xf32, #tile.dims<[BLOCK]>>, !tile.view<1, f32>
  tile.return
}
