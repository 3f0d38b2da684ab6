// REQUIRES: ptxas
// The launchers a batch (--then) writes are those of separate tilec runs,
// byte for byte: fatbins, cubins and launchers alike.

// RUN: rm -rf %t && mkdir -p %t/batch %t/alone
// RUN: tilec %s --codegen=layouts --emit=cpp --target=sm_80,sm_90a -D BLOCK=64 --kernel-suffix=_b64 -o %t/batch/b64 --then %s --codegen=layouts --emit=cpp --target=sm_80,sm_90a --generic-targets=compute_80 -o %t/batch/b128
// RUN: tilec %s --codegen=layouts --emit=cpp --target=sm_80,sm_90a -D BLOCK=64 --kernel-suffix=_b64 -o %t/alone/b64
// RUN: tilec %s --codegen=layouts --emit=cpp --target=sm_80,sm_90a --generic-targets=compute_80 -o %t/alone/b128
// RUN: cmp %t/batch/b64.cpp %t/alone/b64.cpp && cmp %t/batch/b64.h %t/alone/b64.h
// RUN: cmp %t/batch/b128.cpp %t/alone/b128.cpp && cmp %t/batch/b128.h %t/alone/b128.h
// RUN: FileCheck %s --check-prefix=B64 < %t/batch/b64.h
// RUN: FileCheck %s --check-prefix=B128 < %t/batch/b128.h
// B64: from batch-launchers.mlir -D BLOCK=64 --kernel-suffix=_b64 for sm_80 sm_90a. Do not edit.
// B64: tile_scale_b64(
// B128: from batch-launchers.mlir for sm_80 sm_90a (--generic-targets=compute_80). Do not edit.
// B128: tile_scale(

tile.kernel @scale(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>, %s: f32)
    attributes {params = {BLOCK = 128 : i64}} {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> tensor<?xf32, #tile.dims<[BLOCK]>>
  %f = tile.full %s : tensor<?xf32, #tile.dims<[BLOCK]>>
  %r = arith.mulf %t, %f : tensor<?xf32, #tile.dims<[BLOCK]>>
  tile.store %r, %y[%i] : tensor<?xf32, #tile.dims<[BLOCK]>>, !tile.view<1, f32>
  tile.return
}
