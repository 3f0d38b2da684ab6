// RUN: tile-opt %s | FileCheck %s --check-prefix=PARSED
// RUN: tile-opt %s | tile-opt --verify-roundtrip > /dev/null
// RUN: tile-opt %s --tile-bind-params | FileCheck %s --check-prefix=DEFAULT
// RUN: tile-opt %s --tile-bind-params="params=WARPS=4,OCC=3" | FileCheck %s --check-prefix=BOUND
// RUN: tilec %s -D WARPS=2 -D OCC=4 --emit=ptx --target=sm_90 -o - | FileCheck %s --check-prefix=PTX
// RUN: tile-opt %s --tile-bind-params="params=OCC_SYNC=3" | FileCheck %s --check-prefix=BOUND-SYNC
// RUN: tilec %s -D OCC_SYNC=3 --codegen=layouts --variants=vec --emit=ptx --target=sm_80 -o - | FileCheck %s --check-prefix=PTX-SYNC

// Bindings the verifier rejects name the parameter.
// RUN: not tile-opt %s --tile-bind-params="params=WARPS=3" 2>&1 | FileCheck %s --check-prefix=NOT-POW2
// RUN: not tile-opt %s --tile-bind-params="params=WARPS=64" 2>&1 | FileCheck %s --check-prefix=TOO-MANY
// RUN: not tile-opt %s --tile-bind-params="params=WARPS=8,OCC=16" 2>&1 | FileCheck %s --check-prefix=OVER-SM
// RUN: not tile-opt %s --tile-bind-params="params=WARPS=4294967296" 2>&1 | FileCheck %s --check-prefix=HUGE

// NOT-POW2: error: 'tile.kernel' op num_warps (parameter WARPS) must be a power of two from 1 to 32, not 3
// TOO-MANY: error: 'tile.kernel' op num_warps (parameter WARPS) must be a power of two from 1 to 32, not 64
// OVER-SM: error: 'tile.kernel' op occupancy (parameter OCC) 16 of programs of 8 warps (parameter WARPS) asks for more than the 64 warps a multiprocessor holds
// HUGE: error: parameter 'WARPS' sets num_warps of kernel @scale to 4294967296, which is too large

// `warps WARPS occupancy OCC`: the numbers are the parameters' values, the
// defaults until bound; binding sets both, and the block size and the
// minimum of CTAs per multiprocessor follow.
// PARSED-LABEL: tile.kernel @scale
// PARSED-SAME: mma_sync_occupancy = 1 : i32, mma_sync_occupancy_param = "OCC_SYNC", num_warps = 8 : i32, num_warps_param = "WARPS", occupancy = 2 : i32, occupancy_param = "OCC"
// DEFAULT-LABEL: tile.kernel @scale
// DEFAULT-SAME: num_warps = 8 : i32
// DEFAULT-SAME: occupancy = 2 : i32
// BOUND-LABEL: tile.kernel @scale
// BOUND-SAME: num_warps = 4 : i32
// BOUND-SAME: occupancy = 3 : i32
// BOUND: load {{.*}} -> tensor<256xf32>
// PTX-LABEL: .entry scale(
// PTX: .maxntid 64, 1, 1
// PTX-NEXT: .minnctapersm 4
// `mma_sync_occupancy OCC_SYNC` the same, for the mma.sync path.
// BOUND-SYNC-LABEL: tile.kernel @scale
// BOUND-SYNC-SAME: mma_sync_occupancy = 3 : i32
// PTX-SYNC-LABEL: .entry scale_vec(
// PTX-SYNC: .maxntid 256, 1, 1
// PTX-SYNC-NEXT: .minnctapersm 3
tile.kernel @scale<BLOCK = 256, WARPS = 8, OCC = 2, OCC_SYNC = 1>(
    %x: !tile.view<1, f32>)
    warps WARPS occupancy OCC mma_sync_occupancy OCC_SYNC {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> !tile.tile<BLOCK x f32>
  tile.store %t, %x[%i] : !tile.tile<BLOCK x f32>, !tile.view<1, f32>
  tile.return
}
