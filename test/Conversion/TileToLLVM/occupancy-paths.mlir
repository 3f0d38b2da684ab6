// RUN: tile-opt %s --split-input-file --tile-to-llvm="codegen=layouts vectorize=true sm=90" | FileCheck %s --check-prefix=WGMMA
// RUN: tile-opt %s --split-input-file --tile-to-llvm="codegen=layouts vectorize=true sm=80" | FileCheck %s --check-prefix=SYNC
// RUN: tile-opt %s --split-input-file --tile-to-llvm="codegen=layouts vectorize=false sm=90" | FileCheck %s --check-prefix=GENERIC
// RUN: tile-opt %s --split-input-file --tile-to-llvm="codegen=layouts vectorize=false sm=80" | FileCheck %s --check-prefix=GENERIC
// RUN: tile-opt %s --split-input-file --tile-to-llvm="codegen=simple sm=80" | FileCheck %s --check-prefix=SIMPLE
// RUN: tilec %s --codegen=layouts --variants=vec --emit=ptx --target=sm_80 -o - | FileCheck %s --check-prefix=PTX-SYNC

// The CTAs per multiprocessor asked of ptxas (nvvm.minctasm, PTX
// .minnctapersm) per lowering path: `occupancy` on the vec variant's wgmma
// path (sm_90a) and on the simple generator, none at 1; on the vec
// variant's mma.sync path `mma_sync_occupancy`, by default `occupancy`, and
// given at 1 too (ptxas for sm_80 otherwise holds 256 threads to 128
// registers); on the generic variant 1, whatever the kernel asks.

// WGMMA-LABEL: llvm.func @both_given(
// WGMMA-SAME: nvvm.minctasm = 2 : i32
// SYNC-LABEL: llvm.func @both_given(
// SYNC-SAME: nvvm.minctasm = 1 : i32
// GENERIC-LABEL: llvm.func @both_given(
// GENERIC-SAME: nvvm.minctasm = 1 : i32
// SIMPLE-LABEL: llvm.func @both_given(
// SIMPLE-SAME: nvvm.minctasm = 2 : i32
// PTX-SYNC-LABEL: .entry both_given_vec(
// PTX-SYNC: .maxntid 256, 1, 1
// PTX-SYNC-NEXT: .minnctapersm 1
tile.kernel @both_given(%x: !tile.view<1, f32>)
    warps 8 occupancy 2 mma_sync_occupancy 1 {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> !tile.tile<256 x f32>
  tile.store %t, %x[%i] : !tile.tile<256 x f32>, !tile.view<1, f32>
  tile.return
}

// -----

// Without mma_sync_occupancy the mma.sync path takes `occupancy`.
// WGMMA-LABEL: llvm.func @occupancy_only(
// WGMMA-SAME: nvvm.minctasm = 3 : i32
// SYNC-LABEL: llvm.func @occupancy_only(
// SYNC-SAME: nvvm.minctasm = 3 : i32
// GENERIC-LABEL: llvm.func @occupancy_only(
// GENERIC-SAME: nvvm.minctasm = 1 : i32
// SIMPLE-LABEL: llvm.func @occupancy_only(
// SIMPLE-SAME: nvvm.minctasm = 3 : i32
tile.kernel @occupancy_only(%x: !tile.view<1, f32>) warps 4 occupancy 3 {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> !tile.tile<128 x f32>
  tile.store %t, %x[%i] : !tile.tile<128 x f32>, !tile.view<1, f32>
  tile.return
}

// -----

// The default, occupancy 1: no minimum on the wgmma path and the simple
// generator, 1 on the others.
// WGMMA-LABEL: llvm.func @default_occupancy(
// WGMMA-NOT: nvvm.minctasm
// WGMMA: llvm.return
// SYNC-LABEL: llvm.func @default_occupancy(
// SYNC-SAME: nvvm.minctasm = 1 : i32
// GENERIC-LABEL: llvm.func @default_occupancy(
// GENERIC-SAME: nvvm.minctasm = 1 : i32
// SIMPLE-LABEL: llvm.func @default_occupancy(
// SIMPLE-NOT: nvvm.minctasm
// SIMPLE: llvm.return
tile.kernel @default_occupancy(%x: !tile.view<1, f32>) {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> !tile.tile<128 x f32>
  tile.store %t, %x[%i] : !tile.tile<128 x f32>, !tile.view<1, f32>
  tile.return
}
