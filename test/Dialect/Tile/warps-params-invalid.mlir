// RUN: tile-opt %s -split-input-file -verify-diagnostics

// `warps` and `occupancy` name extent parameters of the kernel, and the
// numbers stay the parameters' values.

// expected-error @+1 {{'warps WARPS' names no extent parameter of the kernel: declare it in the header, e.g. <WARPS = 4>, or write a number}}
tile.kernel @undeclared<BLOCK = 64>() warps WARPS {
  tile.return
}

// -----

// expected-error @+1 {{'occupancy XT' names no extent parameter of the kernel}}
tile.kernel @type_param<XT : type = f32>() occupancy XT {
  tile.return
}

// -----

// expected-error @+1 {{num_warps is 4 but its parameter 'WARPS' is 8}}
tile.kernel @disagrees() attributes {num_warps = 4 : i32, num_warps_param = "WARPS", params = {WARPS = 8 : i64}} {
  tile.return
}

// -----

// expected-error @+1 {{occupancy is parameter 'OCC', which the kernel does not declare as an extent}}
tile.kernel @occupancy_param_missing() attributes {occupancy_param = "OCC"} {
  tile.return
}

// -----

// expected-error @+1 {{occupancy 3 of programs of 32 warps asks for more than the 64 warps a multiprocessor holds}}
tile.kernel @over_the_multiprocessor() warps 32 occupancy 3 {
  tile.return
}

// -----

// expected-error @+1 {{mma_sync_occupancy must be at least 1}}
tile.kernel @mma_sync_occupancy_zero() warps 4 mma_sync_occupancy 0 {
  tile.return
}

// -----

// expected-error @+1 {{mma_sync_occupancy (parameter OCC_SYNC) 4 of programs of 32 warps asks for more than the 64 warps a multiprocessor holds}}
tile.kernel @mma_sync_over_the_multiprocessor<OCC_SYNC = 4>() warps 32 mma_sync_occupancy OCC_SYNC {
  tile.return
}

// -----

// expected-error @+1 {{mma_sync_occupancy is 2 but its parameter 'OCC_SYNC' is 1}}
tile.kernel @mma_sync_disagrees() attributes {mma_sync_occupancy = 2 : i32, mma_sync_occupancy_param = "OCC_SYNC", params = {OCC_SYNC = 1 : i64}} {
  tile.return
}

// -----

// expected-error @+1 {{mma_sync_occupancy_param needs a mma_sync_occupancy}}
tile.kernel @mma_sync_param_alone() attributes {mma_sync_occupancy_param = "OCC_SYNC", params = {OCC_SYNC = 1 : i64}} {
  tile.return
}
