// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Every op of the dialect, in its custom form. Inside a kernel `tile` is the
// default dialect, so the printer leaves the prefix off its ops and types.

// CHECK-LABEL: tile.kernel @grid
// CHECK-SAME: (%{{.*}}: !tile.view<1, i32>)
// CHECK-SAME: attributes {num_warps = 1 : i32, occupancy = 1 : i32}
// CHECK: %[[X:.*]] = block_id x
// CHECK: %[[Y:.*]] = block_id y
// CHECK: %[[Z:.*]] = block_id z
// CHECK: num_blocks x
// CHECK: num_blocks y
// CHECK: num_blocks z
// CHECK: dim %{{.*}}[0] : <1, i32>
// CHECK: return
tile.kernel @grid(%out: !tile.view<1, i32>) attributes {num_warps = 1 : i32} {
  %x = tile.block_id x
  %y = tile.block_id y
  %z = tile.block_id z
  %nx = tile.num_blocks x
  %ny = tile.num_blocks y
  %nz = tile.num_blocks z
  %n = tile.dim %out[0] : !tile.view<1, i32>
  tile.return
}

// The prefix may be left off in the input too.
// CHECK-LABEL: tile.kernel @short_names
// CHECK: block_id x
// CHECK: return
tile.kernel @short_names() {
  %x = block_id x
  return
}

// CHECK-LABEL: tile.kernel @defaults
// CHECK-SAME: attributes {num_warps = 4 : i32, occupancy = 1 : i32}
tile.kernel @defaults(%s: f32, %i: i32, %b: i1, %n: index) {
  tile.return
}

// A view whose strides no variant may assume anything of.
// CHECK-LABEL: tile.kernel @any_strides
// CHECK-SAME: (%{{.*}}: !tile.view<2, f32> {tile.any_strides}, %{{.*}}: !tile.view<1, f32>)
tile.kernel @any_strides(%d: !tile.view<2, f32> {tile.any_strides},
                         %x: !tile.view<1, f32>) {
  tile.return
}

// CHECK-LABEL: tile.kernel @scalars
// CHECK-SAME: (%{{.*}}: f32, %{{.*}}: f16, %{{.*}}: bf16, %{{.*}}: i1, %{{.*}}: i8, %{{.*}}: i16, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: index)
// CHECK-SAME: attributes {num_warps = 8 : i32, occupancy = 2 : i32}
tile.kernel @scalars(%a: f32, %b: f16, %c: bf16, %d: i1, %e: i8, %f: i16,
                     %g: i32, %h: i64, %i: index)
    attributes {num_warps = 8 : i32, occupancy = 2 : i32} {
  tile.return
}

// Views of every element type and of ranks 1 and 8.
// CHECK-LABEL: tile.kernel @views
// CHECK-SAME: !tile.view<1, f32>, %{{.*}}: !tile.view<2, f16>, %{{.*}}: !tile.view<3, bf16>, %{{.*}}: !tile.view<4, i8>, %{{.*}}: !tile.view<5, i16>, %{{.*}}: !tile.view<6, i32>, %{{.*}}: !tile.view<8, i64>
tile.kernel @views(%a: !tile.view<1, f32>, %b: !tile.view<2, f16>,
                   %c: !tile.view<3, bf16>, %d: !tile.view<4, i8>,
                   %e: !tile.view<5, i16>, %f: !tile.view<6, i32>,
                   %g: !tile.view<8, i64>) {
  tile.return
}

// Private kernels keep their visibility.
// CHECK-LABEL: tile.kernel private @hidden
tile.kernel private @hidden() {
  tile.return
}

// CHECK-LABEL: tile.kernel @memory
tile.kernel @memory(%v: !tile.view<2, bf16>, %w: !tile.view<2, f32>) {
  %i = tile.block_id x
  %j = tile.block_id y
  // CHECK: %[[A:.*]] = load %{{.*}}[%{{.*}}, %{{.*}}] : <2, bf16> -> tensor<64x32xbf16>
  %a = tile.load %v[%i, %j] : !tile.view<2, bf16> -> tensor<64x32xbf16>
  // The default padding is not printed.
  // CHECK: load %{{.*}}[%{{.*}}, %{{.*}}] : <2, bf16> -> tensor<64x32xbf16>
  %b = tile.load %v[%i, %j] padding = zero : !tile.view<2, bf16> -> tensor<64x32xbf16>
  // CHECK: load %{{.*}}[%{{.*}}, %{{.*}}] padding = nan : <2, f32>
  %c = tile.load %w[%i, %j] padding = nan : !tile.view<2, f32> -> tensor<16x16xf32>
  // CHECK: load %{{.*}}[%{{.*}}, %{{.*}}] padding = neg_inf : <2, f32>
  %d = tile.load %w[%i, %j] padding = neg_inf : !tile.view<2, f32> -> tensor<16x16xf32>
  // CHECK: load %{{.*}}[%{{.*}}, %{{.*}}] padding = pos_inf : <2, f32>
  %e = tile.load %w[%i, %j] padding = pos_inf : !tile.view<2, f32> -> tensor<16x16xf32>
  // CHECK: load %{{.*}}[%{{.*}}, %{{.*}}] order = [1, 0] : <2, bf16> -> tensor<32x64xbf16>
  %f = tile.load %v[%i, %j] order = [1, 0] : !tile.view<2, bf16> -> tensor<32x64xbf16>
  // CHECK: load %{{.*}}[%{{.*}}, %{{.*}}] latency = 2 : <2, bf16> -> tensor<64x32xbf16>
  %g = tile.load %v[%i, %j] latency = 2 : !tile.view<2, bf16> -> tensor<64x32xbf16>
  // CHECK: load %{{.*}}[%{{.*}}, %{{.*}}] padding = neg_inf order = [1, 0] latency = 3 : <2, f32> -> tensor<8x16xf32>
  %h = tile.load %w[%i, %j] padding = neg_inf order = [1, 0] latency = 3 : !tile.view<2, f32> -> tensor<8x16xf32>
  // CHECK: store %[[A]], %{{.*}}[%{{.*}}, %{{.*}}] : tensor<64x32xbf16>, <2, bf16>
  tile.store %a, %v[%i, %j] : tensor<64x32xbf16>, !tile.view<2, bf16>
  // CHECK: store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] order = [1, 0] : tensor<32x64xbf16>, <2, bf16>
  tile.store %f, %v[%i, %j] order = [1, 0] : tensor<32x64xbf16>, !tile.view<2, bf16>
  tile.return
}

// CHECK-LABEL: tile.kernel @scalar_loads
tile.kernel @scalar_loads(%idx: !tile.view<1, i64>, %seq: !tile.view<1, i32>,
                          %w: !tile.view<2, f32>, %h: !tile.view<2, bf16>) {
  %b = tile.block_id x
  // CHECK: %[[R:.*]] = load_scalar %{{.*}}[%{{.*}}] : <1, i64> -> i64
  %r = tile.load_scalar %idx[%b] : !tile.view<1, i64> -> i64
  // CHECK: arith.index_cast %[[R]] : i64 to index
  %row = arith.index_cast %r : i64 to index
  // CHECK: load_scalar %{{.*}}[3] : <1, i32> -> i32
  %s = tile.load_scalar %seq[3] : !tile.view<1, i32> -> i32
  // CHECK: load_scalar %{{.*}}[%{{.*}}, 0] padding = nan : <2, f32> -> f32
  %a = tile.load_scalar %w[%row, 0] padding = nan : !tile.view<2, f32> -> f32
  // The default padding is not printed.
  // CHECK: load_scalar %{{.*}}[%{{.*}}, %{{.*}}] : <2, bf16> -> bf16
  %c = tile.load_scalar %h[%b, %row] padding = zero : !tile.view<2, bf16> -> bf16
  tile.return
}

// CHECK-LABEL: tile.kernel @movement
tile.kernel @movement(%s: f32, %h: bf16, %k: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[F:.*]] = full %{{.*}} : tensor<64x32xf32>
  %f = tile.full %s : tensor<64x32xf32>
  // CHECK: full %{{.*}} : tensor<16xbf16>
  %fh = tile.full %h : tensor<16xbf16>
  // CHECK: full %{{.*}} : tensor<4x4xi32>
  %fk = tile.full %k : tensor<4x4xi32>
  // CHECK: arange : tensor<64xi32>
  %r32 = tile.arange : tensor<64xi32>
  // CHECK: arange : tensor<128xi64>
  %r64 = tile.arange : tensor<128xi64>
  // CHECK: arange %{{.*}} dim 1 : tensor<4x4xi32>
  %rcol = tile.arange %c1 dim 1 : tensor<4x4xi32>
  // CHECK: %[[ROW:.*]] = extract %[[F]][%{{.*}}, %{{.*}}] : tensor<64x32xf32> -> tensor<1x32xf32>
  %row = tile.extract %f[%c1, %c0] : tensor<64x32xf32> -> tensor<1x32xf32>
  // CHECK: broadcast %[[ROW]] : tensor<1x32xf32> -> tensor<64x32xf32>
  %b = tile.broadcast %row : tensor<1x32xf32> -> tensor<64x32xf32>
  // CHECK: reshape %[[F]] : tensor<64x32xf32> -> tensor<2x32x32xf32>
  %r = tile.reshape %f : tensor<64x32xf32> -> tensor<2x32x32xf32>
  // CHECK: permute %{{.*}} [2, 0, 1] : tensor<2x32x32xf32> -> tensor<32x2x32xf32>
  %p = tile.permute %r [2, 0, 1] : tensor<2x32x32xf32> -> tensor<32x2x32xf32>
  // CHECK: convert %[[F]] : tensor<64x32xf32> -> tensor<64x32xtf32>
  %t = tile.convert %f : tensor<64x32xf32> -> tensor<64x32xtf32>
  // CHECK: convert %[[F]] : tensor<64x32xf32> -> tensor<64x32xbf16>
  %cb = tile.convert %f : tensor<64x32xf32> -> tensor<64x32xbf16>
  // CHECK: convert %{{.*}} : tensor<4x4xi32> -> tensor<4x4xf16>
  %ci = tile.convert %fk : tensor<4x4xi32> -> tensor<4x4xf16>
  // CHECK: convert %{{.*}} : tensor<64xi32> -> tensor<64xi1>
  %cm = tile.convert %r32 : tensor<64xi32> -> tensor<64xi1>
  tile.return
}

// CHECK-LABEL: tile.kernel @compute
tile.kernel @compute(%s: f32, %h: bf16, %k: i32) {
  %a = tile.full %s : tensor<64x8xf32>
  %ai = tile.full %k : tensor<64x8xi32>
  // CHECK: cumsum %{{.*}} axis = 0 : tensor<64x8xf32>
  %g = tile.cumsum %a axis = 0 : tensor<64x8xf32>
  // CHECK: cumsum %{{.*}} axis = 1 : tensor<64x8xi32>
  %gi = tile.cumsum %ai axis = 1 : tensor<64x8xi32>
  // CHECK: reduce sum %{{.*}} axis = 0 : tensor<64x8xf32> -> tensor<8xf32>
  %rs = tile.reduce sum %a axis = 0 : tensor<64x8xf32> -> tensor<8xf32>
  // CHECK: reduce max %{{.*}} axis = 1 : tensor<64x8xf32> -> tensor<64xf32>
  %rm = tile.reduce max %a axis = 1 : tensor<64x8xf32> -> tensor<64xf32>
  // CHECK: reduce min %{{.*}} axis = 1 : tensor<64x8xi32> -> tensor<64xi32>
  %rn = tile.reduce min %ai axis = 1 : tensor<64x8xi32> -> tensor<64xi32>
  // CHECK: reduce sum %{{.*}} axis = 0 : tensor<64xf32> -> tensor<f32>
  %r0 = tile.reduce sum %rm axis = 0 : tensor<64xf32> -> tensor<f32>
  %x = tile.full %h : tensor<64x16xbf16>
  %y = tile.full %h : tensor<16x32xbf16>
  %acc = tile.full %s : tensor<64x32xf32>
  // CHECK: mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
  %d = tile.mma %x, %y, %acc : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
  %x32 = tile.full %s : tensor<64x16xf32>
  %y32 = tile.full %s : tensor<16x32xf32>
  // CHECK: mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x16xf32>, tensor<16x32xf32>, tensor<64x32xf32>
  %d32 = tile.mma %x32, %y32, %acc : tensor<64x16xf32>, tensor<16x32xf32>, tensor<64x32xf32>
  %xt = tile.convert %x32 : tensor<64x16xf32> -> tensor<64x16xtf32>
  %yt = tile.convert %y32 : tensor<16x32xf32> -> tensor<16x32xtf32>
  // CHECK: mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x16xtf32>, tensor<16x32xtf32>, tensor<64x32xf32>
  %dt = tile.mma %xt, %yt, %acc : tensor<64x16xtf32>, tensor<16x32xtf32>, tensor<64x32xf32>
  %x16 = tile.convert %x32 : tensor<64x16xf32> -> tensor<64x16xf16>
  %y16 = tile.convert %y32 : tensor<16x32xf32> -> tensor<16x32xf16>
  // CHECK: mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x16xf16>, tensor<16x32xf16>, tensor<64x32xf32>
  %d16 = tile.mma %x16, %y16, %acc : tensor<64x16xf16>, tensor<16x32xf16>, tensor<64x32xf32>
  // CHECK: exp2 %{{.*}} : tensor<64x32xf32>
  %e = tile.exp2 %d : tensor<64x32xf32>
  %i = tile.arange : tensor<64xi32>
  %ic = tile.reshape %i : tensor<64xi32> -> tensor<64x1xi32>
  %ir = tile.reshape %i : tensor<64xi32> -> tensor<1x64xi32>
  %bc = tile.broadcast %ic : tensor<64x1xi32> -> tensor<64x64xi32>
  %br = tile.broadcast %ir : tensor<1x64xi32> -> tensor<64x64xi32>
  %causal = arith.cmpi sge, %bc, %br : tensor<64x64xi32>
  %one = tile.full %s : tensor<64x64xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // CHECK: where %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xi1>, tensor<64x64xf32>
  %w = tile.where %causal, %one, %zero : tensor<64x64xi1>, tensor<64x64xf32>
  tile.return
}

// One kernel with every op, on symbolic shapes: `?` extents named by
// parameters through #tile.dims, mixed with numbers, and in scf.for iter_args.
!Chunk = tensor<?xf32, #tile.dims<[CHUNK]>>
!ChunkxP = tensor<?x?xf32, #tile.dims<[CHUNK, P]>>
!PxChunk = tensor<?x?xf32, #tile.dims<[P, CHUNK]>>

// CHECK-LABEL: tile.kernel @symbolic
// CHECK-SAME: params = {CHUNK = 64 : i64, P = 32 : i64}
tile.kernel @symbolic(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>, %s: f32,
                      %flag: i1)
    attributes {params = {CHUNK = 64 : i64, P = 32 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: block_id x
  %i = tile.block_id x
  // CHECK: num_blocks y
  %nb = tile.num_blocks y
  // CHECK: param "CHUNK"
  %chunk = tile.param "CHUNK"
  // CHECK: load %{{.*}}[%{{.*}}, %{{.*}}] : <2, f32> -> tensor<?x?xf32, #tile.dims<[CHUNK, P]>>
  %t = tile.load %x[%i, %c0] : !tile.view<2, f32> -> !ChunkxP
  // CHECK: load %{{.*}}[%{{.*}}, %{{.*}}] order = [1, 0] : <2, f32> -> tensor<?x?xf32, #tile.dims<[P, CHUNK]>>
  %u = tile.load %x[%i, %c0] order = [1, 0] : !tile.view<2, f32> -> !PxChunk
  // A number where a parameter could stand is kept as a number.
  // CHECK: full %{{.*}} : tensor<?x16xf32, #tile.dims<[CHUNK, 16]>>
  %z = tile.full %s : tensor<?x16xf32, #tile.dims<[CHUNK, 16]>>
  // CHECK: cumsum %{{.*}} axis = 0 : tensor<?x?xf32, #tile.dims<[CHUNK, P]>>
  %g = tile.cumsum %t axis = 0 : !ChunkxP
  // CHECK: reduce sum %{{.*}} axis = 1 : tensor<?x?xf32, #tile.dims<[CHUNK, P]>> -> tensor<?xf32, #tile.dims<[CHUNK]>>
  %r = tile.reduce sum %g axis = 1 : !ChunkxP -> !Chunk
  // CHECK: permute %{{.*}} [1, 0] : tensor<?x?xf32, #tile.dims<[CHUNK, P]>> -> tensor<?x?xf32, #tile.dims<[P, CHUNK]>>
  %p = tile.permute %g [1, 0] : !ChunkxP -> !PxChunk
  // CHECK: mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?xf32, #tile.dims<[CHUNK, P]>>, tensor<?x?xf32, #tile.dims<[P, CHUNK]>>, tensor<?x?xf32, #tile.dims<[CHUNK, CHUNK]>>
  %acc = tile.full %s : tensor<?x?xf32, #tile.dims<[CHUNK, CHUNK]>>
  %m = tile.mma %t, %p, %acc : !ChunkxP, !PxChunk, tensor<?x?xf32, #tile.dims<[CHUNK, CHUNK]>>
  // CHECK: reshape %{{.*}} : tensor<?xf32, #tile.dims<[CHUNK]>> -> tensor<?x1xf32, #tile.dims<[CHUNK, 1]>>
  %rc = tile.reshape %r : !Chunk -> tensor<?x1xf32, #tile.dims<[CHUNK, 1]>>
  // CHECK: broadcast %{{.*}} : tensor<?x1xf32, #tile.dims<[CHUNK, 1]>> -> tensor<?x?xf32, #tile.dims<[CHUNK, P]>>
  %bc = tile.broadcast %rc : tensor<?x1xf32, #tile.dims<[CHUNK, 1]>> -> !ChunkxP
  // CHECK: extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<?x?xf32, #tile.dims<[CHUNK, P]>> -> tensor<1x?xf32, #tile.dims<[1, P]>>
  %row = tile.extract %bc[%c1, %c0] : !ChunkxP -> tensor<1x?xf32, #tile.dims<[1, P]>>
  // CHECK: exp2 %{{.*}} : tensor<?x?xf32, #tile.dims<[CHUNK, P]>>
  %e = tile.exp2 %bc : !ChunkxP
  // CHECK: convert %{{.*}} : tensor<?x?xf32, #tile.dims<[CHUNK, P]>> -> tensor<?x?xbf16, #tile.dims<[CHUNK, P]>>
  %h = tile.convert %e : !ChunkxP -> tensor<?x?xbf16, #tile.dims<[CHUNK, P]>>
  %ar = tile.arange : tensor<?xi32, #tile.dims<[CHUNK]>>
  %arc = tile.reshape %ar : tensor<?xi32, #tile.dims<[CHUNK]>> -> tensor<?x1xi32, #tile.dims<[CHUNK, 1]>>
  %arb = tile.broadcast %arc : tensor<?x1xi32, #tile.dims<[CHUNK, 1]>> -> tensor<?x?xi32, #tile.dims<[CHUNK, P]>>
  %zero = arith.constant 0 : i32
  %zeros = tile.full %zero : tensor<?x?xi32, #tile.dims<[CHUNK, P]>>
  %mask = arith.cmpi sgt, %arb, %zeros : tensor<?x?xi32, #tile.dims<[CHUNK, P]>>
  // CHECK: where %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?xi1, #tile.dims<[CHUNK, P]>>, tensor<?x?xf32, #tile.dims<[CHUNK, P]>>
  %w = tile.where %mask, %e, %t : tensor<?x?xi1, #tile.dims<[CHUNK, P]>>, !ChunkxP
  // Broadcasting float ops: a row, a column, a scalar, the result's own type.
  // CHECK: addf %{{.*}}, %{{.*}} : tensor<?x?xf32, #tile.dims<[CHUNK, P]>>, tensor<?xf32, #tile.dims<[P]>> -> tensor<?x?xf32, #tile.dims<[CHUNK, P]>>
  %rowP = tile.full %s : tensor<?xf32, #tile.dims<[P]>>
  %bAdd = tile.addf %t, %rowP : !ChunkxP, tensor<?xf32, #tile.dims<[P]>> -> !ChunkxP
  // CHECK: subf %{{.*}}, %{{.*}} : tensor<?x1xf32, #tile.dims<[CHUNK, 1]>>, tensor<?x?xf32, #tile.dims<[CHUNK, P]>> -> tensor<?x?xf32, #tile.dims<[CHUNK, P]>>
  %bSub = tile.subf %rc, %bAdd : tensor<?x1xf32, #tile.dims<[CHUNK, 1]>>, !ChunkxP -> !ChunkxP
  // CHECK: mulf %{{.*}}, %{{.*}} : tensor<?x?xf32, #tile.dims<[CHUNK, P]>>, f32 -> tensor<?x?xf32, #tile.dims<[CHUNK, P]>>
  %bMul = tile.mulf %bSub, %s : !ChunkxP, f32 -> !ChunkxP
  // CHECK: divf %{{.*}}, %{{.*}} : tensor<?x?xf32, #tile.dims<[CHUNK, P]>>, tensor<?x?xf32, #tile.dims<[CHUNK, P]>> -> tensor<?x?xf32, #tile.dims<[CHUNK, P]>>
  %bDiv = tile.divf %bMul, %t : !ChunkxP, !ChunkxP -> !ChunkxP
  // Broadcasting where: a column mask, a tile and a scalar.
  // CHECK: where %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x1xi1, #tile.dims<[CHUNK, 1]>>, tensor<?x?xf32, #tile.dims<[CHUNK, P]>>, f32 -> tensor<?x?xf32, #tile.dims<[CHUNK, P]>>
  %colMask = tile.full %flag : tensor<?x1xi1, #tile.dims<[CHUNK, 1]>>
  %bWhere = tile.where %colMask, %bDiv, %s : tensor<?x1xi1, #tile.dims<[CHUNK, 1]>>, !ChunkxP, f32 -> !ChunkxP
  // CHECK: softplus %{{.*}} : tensor<?x?xf32, #tile.dims<[CHUNK, P]>>
  %soft = tile.softplus %bWhere : !ChunkxP
  // CHECK: softplus %{{.*}} if %{{.*}} : tensor<?x?xf32, #tile.dims<[CHUNK, P]>>, i32
  %softIf = tile.softplus %soft if %zero : !ChunkxP, i32
  // CHECK: silu %{{.*}} : tensor<?x?xf32, #tile.dims<[CHUNK, P]>>
  %gate = tile.silu %softIf : !ChunkxP
  // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<?x?xf32, #tile.dims<[CHUNK, P]>>)
  %n = tile.dim %x[0] : !tile.view<2, f32>
  %sum = scf.for %k = %c0 to %n step %chunk iter_args(%acc2 = %w) -> (!ChunkxP) {
    // CHECK: tile.load
    %l = tile.load %x[%k, %c0] latency = 2 : !tile.view<2, f32> -> !ChunkxP
    %next = arith.addf %acc2, %l : !ChunkxP
    scf.yield %next : !ChunkxP
  }
  // CHECK: store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<?x?xf32, #tile.dims<[CHUNK, P]>>, <2, f32>
  tile.store %sum, %y[%i, %c0] : !ChunkxP, !tile.view<2, f32>
  // CHECK: store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] order = [1, 0] : tensor<?x?xf32, #tile.dims<[P, CHUNK]>>, <2, f32>
  tile.store %u, %y[%i, %c0] order = [1, 0] : !PxChunk, !tile.view<2, f32>
  tile.return
}

// The forms that state a step once: a load and a store that convert, a
// conditional store, clamp,
// pad past an extent (with a padding), delinearize, and a kernel whose
// closing tile.return is left out (the parser adds it).
// CHECK-LABEL: tile.kernel @forms
// CHECK: %[[X:.*]] = load %{{.*}}[%{{.*}}, 0] : <2, bf16> -> tensor<?x8xf32, #tile.dims<[CHUNK, 8]>>
// CHECK: %[[C:.*]] = clamp %[[X]], %{{.*}}, %{{.*}} : tensor<?x8xf32, #tile.dims<[CHUNK, 8]>>, f32, tensor<8xf32>
// CHECK: %[[P:.*]] = pad %[[C]] dim 0 past %{{.*}} at %{{.*}} : tensor<?x8xf32, #tile.dims<[CHUNK, 8]>>
// CHECK: pad %[[P]] dim 1 past %{{.*}} at %{{.*}} padding = neg_inf : tensor<?x8xf32, #tile.dims<[CHUNK, 8]>>
// CHECK: %{{.*}}:3 = delinearize %{{.*}} by %{{.*}}, %{{.*}}
// CHECK: store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<?x8xf32, #tile.dims<[CHUNK, 8]>>, <2, f16>
// CHECK: store %{{.*}}, %{{.*}}[%{{.*}}, 0] if %{{.*}} : tensor<?x8xf32, #tile.dims<[CHUNK, 8]>>, <2, f16>, index
// CHECK: return
tile.kernel @forms<CHUNK = 16>(%x: !tile.view<2, bf16>, %y: !tile.view<2, f16>,
                               %lo: f32, %n: index) {
  %i = tile.block_id x
  %t = tile.load %x[%i, 0] : !tile.view<2, bf16> -> !tile.tile<CHUNK x 8 x f32>
  %hi = tile.full 4.0 : !tile.tile<8 x f32>
  %c = tile.clamp %t, %lo, %hi : !tile.tile<CHUNK x 8 x f32>, f32, !tile.tile<8 x f32>
  %p = tile.pad %c dim 0 past %n at %i : !tile.tile<CHUNK x 8 x f32>
  %q = tile.pad %p dim 1 past %n at %i padding = neg_inf : !tile.tile<CHUNK x 8 x f32>
  %a, %b, %d = tile.delinearize %i by %n, %n
  tile.store %q, %y[%a, %d] : !tile.tile<CHUNK x 8 x f32>, !tile.view<2, f16>
  tile.store %q, %y[%b, 0] if %n : !tile.tile<CHUNK x 8 x f32>, !tile.view<2, f16>, index
}

// The loop and index forms: tile.for over range(n) and over the tiles of an
// extent (with and without iter_args), delinearize and linearize by tile
// counts, the triangular mask, a column load (a unit dimension), an i1
// flag with `unless`, and a where of a flag.
// CHECK-LABEL: tile.kernel @loops_and_masks
// CHECK: %[[SUM:.*]] = for %[[K:.*]] in tiles(%{{.*}}, %{{.*}}) iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<4x8xf32>) {
// CHECK: yield %{{.*}} : tensor<4x8xf32>
// CHECK: for %{{.*}} in range(%{{.*}}) {
// CHECK-NOT: yield
// CHECK: }
// CHECK: %{{.*}}:2 = delinearize %{{.*}} by tiles(%{{.*}}, %{{.*}})
// CHECK: linearize %{{.*}}, %{{.*}} by %{{.*}}, tiles(%{{.*}}, %{{.*}})
// CHECK: tri at %{{.*}}, %{{.*}} : tensor<4x8xi1>
// CHECK: load %{{.*}}[%{{.*}}, %{{.*}}] unless %{{.*}} dims = [1, 0] : <2, f32>, i1 -> tensor<4x1xf32>
// CHECK: where %{{.*}}, %{{.*}}, %{{.*}} : i1, tensor<4x8xf32>
// CHECK: store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] unless %{{.*}} : tensor<4x8xf32>, <2, f32>, i1
tile.kernel @loops_and_masks(%x: !tile.view<2, f32>, %n: index, %flag: i1) {
  %i = tile.block_id x
  %zero = tile.full 0.0 : !tile.tile<4 x 8 x f32>
  %sum = tile.for %k in tiles(%n, %i) iter_args(%acc = %zero) -> (!tile.tile<4 x 8 x f32>) {
    %t = tile.load %x[%i, %k] : !tile.view<2, f32> -> !tile.tile<4 x 8 x f32>
    %next = arith.addf %acc, %t : !tile.tile<4 x 8 x f32>
    tile.yield %next : !tile.tile<4 x 8 x f32>
  }
  tile.for %k in range(%n) {
    tile.store %sum, %x[%i, %k] : !tile.tile<4 x 8 x f32>, !tile.view<2, f32>
  }
  %m, %p = tile.delinearize %i by tiles(%n, %i)
  %l = tile.linearize %m, %p, %i by %n, tiles(%n, %i)
  %mask = tile.tri at %m, %l : !tile.tile<4 x 8 x i1>
  %col = tile.load %x[%i, %p] unless %flag dims = [1, 0]
      : !tile.view<2, f32>, i1 -> !tile.tile<4 x 1 x f32>
  %masked = tile.where %mask, %sum, %col
      : !tile.tile<4 x 8 x i1>, !tile.tile<4 x 8 x f32>, !tile.tile<4 x 1 x f32>
        -> !tile.tile<4 x 8 x f32>
  %chosen = tile.where %flag, %masked, %sum : i1, !tile.tile<4 x 8 x f32>
  tile.store %chosen, %x[%m, %p] unless %flag
      : !tile.tile<4 x 8 x f32>, !tile.view<2, f32>, i1
}
