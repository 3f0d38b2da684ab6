// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// The kernel language's shorthands (docs/dialect.md) parse, verify and print
// back. Tile types print as the builtin tensors they are.

// Parameters, warps and occupancy in the header are the attributes.
// CHECK-LABEL: tile.kernel @header
// CHECK-SAME: attributes {num_warps = 8 : i32, occupancy = 2 : i32, params = {BLOCK = 16 : i64, CHUNK = 64 : i64}}
tile.kernel @header<CHUNK = 64, BLOCK = 16>(%v: !tile.view<2, f32>) warps 8 occupancy 2 {
  tile.return
}

// mma_sync_occupancy, the occupancy of the mma.sync lowering, after them.
// CHECK-LABEL: tile.kernel @header_mma_sync_occupancy
// CHECK-SAME: attributes {mma_sync_occupancy = 1 : i32, num_warps = 4 : i32, occupancy = 4 : i32}
tile.kernel @header_mma_sync_occupancy() warps 4 occupancy 4 mma_sync_occupancy 1 {
  tile.return
}

// CHECK-LABEL: tile.kernel @header_params_only
// CHECK-SAME: attributes {num_warps = 4 : i32, occupancy = 1 : i32, params = {N = 8 : i64}}
tile.kernel @header_params_only<N = 8>() {
  tile.return
}

// !tile.tile names each extent once; numbers give static tensors.
// CHECK-LABEL: tile.kernel @tile_types
// CHECK: full %{{.*}} : tensor<?x16xf32, #tile.dims<[CHUNK, 16]>>
// CHECK: full %{{.*}} : tensor<4x16xbf16>
// CHECK: full %{{.*}} : tensor<?x?xi32, #tile.dims<[CHUNK, BLOCK]>>
tile.kernel @tile_types<CHUNK = 64, BLOCK = 8>(%s: f32, %t: bf16, %i: i32) {
  %a = tile.full %s : !tile.tile<CHUNK x 16 x f32>
  %b = tile.full %t : !tile.tile<4 x 16 x bf16>
  %c = tile.full %i : !tile.tile<CHUNK x BLOCK x i32>
  tile.return
}

// CHECK-LABEL: tile.kernel @block_ids
// CHECK: %[[IDS:.*]]:3 = block_id x, y, z
// CHECK: %{{.*}}:2 = block_id z, x
// CHECK: block_id y
tile.kernel @block_ids() {
  %x, %y, %z = tile.block_id x, y, z
  %z2, %x2 = tile.block_id z, x
  %y2 = tile.block_id y
  tile.return
}

// CHECK-LABEL: tile.kernel @access
// CHECK: load %{{.*}}[%{{.*}}, 0, %{{.*}}, 3] dims = [3, 1] latency = 2 : <4, bf16> -> tensor<32x64xbf16>
// CHECK: load %{{.*}}[0, %{{.*}}] : <2, f32> -> tensor<16x16xf32>
// CHECK: load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, 0] padding = neg_inf dims = [1] : <4, f32> -> tensor<?xf32, #tile.dims<[CHUNK]>>
// CHECK: store %{{.*}}, %{{.*}}[%{{.*}}, 0, %{{.*}}, 0] dims = [3, 1] : tensor<32x64xbf16>, <4, bf16>
// CHECK: store %{{.*}}, %{{.*}}[1, 2] : tensor<16x16xf32>, <2, f32>
tile.kernel @access<CHUNK = 64>(%x: !tile.view<4, bf16>, %w: !tile.view<2, f32>,
                                %g: !tile.view<4, f32>) {
  %i, %j = tile.block_id x, y
  %t = tile.load %x[%i, 0, %j, 3] dims = [3, 1] latency = 2
      : !tile.view<4, bf16> -> !tile.tile<32 x 64 x bf16>
  %u = tile.load %w[0, %j] : !tile.view<2, f32> -> !tile.tile<16 x 16 x f32>
  %r = tile.load %g[%i, %j, %i, 0] padding = neg_inf dims = [1]
      : !tile.view<4, f32> -> !tile.tile<CHUNK x f32>
  tile.store %t, %x[%i, 0, %j, 0] dims = [3, 1]
      : !tile.tile<32 x 64 x bf16>, !tile.view<4, bf16>
  tile.store %u, %w[1, 2] : !tile.tile<16 x 16 x f32>, !tile.view<2, f32>
  tile.return
}

// CHECK-LABEL: tile.kernel @broadcast_new_dims
// CHECK: broadcast %{{.*}} new_dims = [0] : tensor<?xf32, #tile.dims<[BLOCK]>> -> tensor<?x?xf32, #tile.dims<[CHUNK, BLOCK]>>
// CHECK: broadcast %{{.*}} new_dims = [1] : tensor<16xf32> -> tensor<16x32xf32>
// CHECK: broadcast %{{.*}} new_dims = [0, 2] : tensor<1xf32> -> tensor<4x8x2xf32>
tile.kernel @broadcast_new_dims<CHUNK = 64, BLOCK = 8>(%s: f32) {
  %row = tile.full %s : !tile.tile<BLOCK x f32>
  %a = tile.broadcast %row new_dims = [0]
      : !tile.tile<BLOCK x f32> -> !tile.tile<CHUNK x BLOCK x f32>
  %col = tile.full %s : !tile.tile<16 x f32>
  %b = tile.broadcast %col new_dims = [1]
      : !tile.tile<16 x f32> -> !tile.tile<16 x 32 x f32>
  %one = tile.full %s : !tile.tile<1 x f32>
  %c = tile.broadcast %one new_dims = [0, 2]
      : !tile.tile<1 x f32> -> !tile.tile<4 x 8 x 2 x f32>
  tile.return
}

// CHECK-LABEL: tile.kernel @full_literals
// CHECK: full 1.44269502 : tensor<8xf32>
// CHECK: full 0.000000e+00 : tensor<8xbf16>
// CHECK: full 3 : tensor<8xi32>
tile.kernel @full_literals() {
  %a = tile.full 1.44269504088896340736 : !tile.tile<8 x f32>
  %b = tile.full 0.0 : !tile.tile<8 x bf16>
  %c = tile.full 3 : !tile.tile<8 x i32>
  tile.return
}

// CHECK-LABEL: tile.kernel @mma_precision
// CHECK: mma %{{.*}}, %{{.*}}, %{{.*}} precision = tf32 : tensor<16x8xbf16>, tensor<8x16xf32>, tensor<16x16xf32>
tile.kernel @mma_precision(%s: bf16, %t: f32) {
  %a = tile.full %s : !tile.tile<16 x 8 x bf16>
  %b = tile.full %t : !tile.tile<8 x 16 x f32>
  %c = tile.full 0.0 : !tile.tile<16 x 16 x f32>
  %d = tile.mma %a, %b, %c precision = tf32
      : !tile.tile<16 x 8 x bf16>, !tile.tile<8 x 16 x f32>, !tile.tile<16 x 16 x f32>
  tile.return
}

// CHECK-LABEL: tile.kernel @mma_split_bf16
// CHECK: mma %{{.*}}, %{{.*}}, %{{.*}} precision = split_bf16 : tensor<16x8xbf16>, tensor<8x16xf32>, tensor<16x16xf32>
// CHECK: mma %{{.*}}, %{{.*}}, %{{.*}} precision = split_bf16 : tensor<16x8xf32>, tensor<8x16xf16>, tensor<16x16xf32>
tile.kernel @mma_split_bf16(%s: bf16, %t: f32, %h: f16) {
  %a = tile.full %s : !tile.tile<16 x 8 x bf16>
  %b = tile.full %t : !tile.tile<8 x 16 x f32>
  %c = tile.full 0.0 : !tile.tile<16 x 16 x f32>
  %d = tile.mma %a, %b, %c precision = split_bf16
      : !tile.tile<16 x 8 x bf16>, !tile.tile<8 x 16 x f32>, !tile.tile<16 x 16 x f32>
  %x = tile.full %t : !tile.tile<16 x 8 x f32>
  %y = tile.full %h : !tile.tile<8 x 16 x f16>
  %e = tile.mma %x, %y, %d precision = split_bf16
      : !tile.tile<16 x 8 x f32>, !tile.tile<8 x 16 x f16>, !tile.tile<16 x 16 x f32>
  tile.return
}

// CHECK-LABEL: tile.kernel @several_results
// CHECK: %{{.*}}:2 = param "A", "B"
// CHECK: %{{.*}}:2 = dim %{{.*}}[2, 0] : <3, f32>
// CHECK: arange %{{.*}} : tensor<?xi32, #tile.dims<[A]>>
tile.kernel @several_results<A = 8, B = 4>(%v: !tile.view<3, f32>) {
  %a, %b = tile.param "A", "B"
  %n2, %n0 = tile.dim %v[2, 0] : !tile.view<3, f32>
  %rows = tile.arange %a : !tile.tile<A x i32>
  tile.return
}

// CHECK-LABEL: tile.kernel @conditional_load
// CHECK: load %{{.*}}[%{{.*}}, 0] if %{{.*}} padding = nan dims = [1, 0] : <2, f32>, i32 -> tensor<?x4xf32, #tile.dims<[N, 4]>>
// CHECK: load %{{.*}}[%{{.*}}, 0] if %{{.*}} : <2, f32>, i1 -> tensor<4x4xf32>
tile.kernel @conditional_load<N = 8>(%x: !tile.view<2, f32>, %flag: i32, %on: i1) {
  %i = tile.block_id x
  %a = tile.load %x[%i, 0] if %flag padding = nan dims = [1, 0]
      : !tile.view<2, f32>, i32 -> !tile.tile<N x 4 x f32>
  %b = tile.load %x[%i, 0] if %on : !tile.view<2, f32>, i1 -> !tile.tile<4 x 4 x f32>
  tile.return
}

// CHECK-LABEL: tile.kernel @broadcasting_integer_ops
// CHECK: addi %{{.*}}, %{{.*}} : tensor<4x8xi32>, tensor<8xi32> -> tensor<4x8xi32>
// CHECK: andi %{{.*}}, %{{.*}} : tensor<4x8xi1>, i1 -> tensor<4x8xi1>
// CHECK: cmpi slt, %{{.*}}, %{{.*}} : tensor<4x1xi32>, tensor<8xi32> -> tensor<4x8xi1>
// CHECK: cmpf ole, %{{.*}}, %{{.*}} : tensor<?x8xf32, #tile.dims<[M, 8]>>, f32 -> tensor<?x8xi1, #tile.dims<[M, 8]>>
// CHECK: maximumf %{{.*}}, %{{.*}} : tensor<?x8xf32, #tile.dims<[M, 8]>>, f32 -> tensor<?x8xf32, #tile.dims<[M, 8]>>
// CHECK: minimumf %{{.*}}, %{{.*}} : f32, tensor<?x8xf32, #tile.dims<[M, 8]>> -> tensor<?x8xf32, #tile.dims<[M, 8]>>
tile.kernel @broadcasting_integer_ops<M = 4>(%i: i32, %b: i1, %f: f32) {
  %t = tile.full %i : !tile.tile<4 x 8 x i32>
  %row = tile.full %i : !tile.tile<8 x i32>
  %col = tile.full %i : !tile.tile<4 x 1 x i32>
  %m = tile.full %b : !tile.tile<4 x 8 x i1>
  %x = tile.full %f : !tile.tile<M x 8 x f32>
  %add = tile.addi %t, %row : !tile.tile<4 x 8 x i32>, !tile.tile<8 x i32> -> !tile.tile<4 x 8 x i32>
  %and = tile.andi %m, %b : !tile.tile<4 x 8 x i1>, i1 -> !tile.tile<4 x 8 x i1>
  %lt = tile.cmpi slt, %col, %row : !tile.tile<4 x 1 x i32>, !tile.tile<8 x i32> -> !tile.tile<4 x 8 x i1>
  %le = tile.cmpf ole, %x, %f : !tile.tile<M x 8 x f32>, f32 -> !tile.tile<M x 8 x i1>
  %hi = tile.maximumf %x, %f : !tile.tile<M x 8 x f32>, f32 -> !tile.tile<M x 8 x f32>
  %lo = tile.minimumf %f, %hi : f32, !tile.tile<M x 8 x f32> -> !tile.tile<M x 8 x f32>
  tile.return
}
