// tilegpu-assign-layouts for sm_90a (sm=90): bf16/f16 products of whole
// warpgroups get the wgmma accumulator layout and the tilegpu.wgmma mark,
// their operands keep the loads' layouts (no conversion: wgmma reads them
// from shared memory; the zero accumulator's conversion is folded by
// tilegpu-remove-layout-conversions); other products keep the mma.sync
// layouts.
// RUN: tile-opt %s --split-input-file --tilegpu-assign-layouts="sm=90" --mlir-print-local-scope | FileCheck %s
// RUN: tile-opt %s --split-input-file --tilegpu-assign-layouts="sm=80" --mlir-print-local-scope | FileCheck %s --check-prefix=SM80

// 128 x 128 on 8 warps: warp w % 4 takes rows 16 (w % 4), the warpgroup
// w / 4 rows 64 (w / 4); registers: the m16n8 fragment, then N up to 128.
// CHECK-LABEL: kernel @stacked
// CHECK: %[[A:.*]] = load
// CHECK: %[[B:.*]] = load
// CHECK: = mma %[[A]], %[[B]], %{{.*}} {tilegpu.wgmma} : tensor<128x32xbf16, {{.*}}>, tensor<32x128xbf16, {{.*}}>, tensor<128x128xf32, #tilegpu.dist<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[16, 0], [32, 0], [64, 0]]>>
// On sm_80 the mma.sync fragments, reached by conversions.
// SM80-LABEL: kernel @stacked
// SM80-COUNT-2: convert_layout
// SM80-NOT: tilegpu.wgmma
// SM80: = mma
tile.kernel @stacked(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                     %c: !tile.view<2, f32>) attributes {num_warps = 8 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<128x128xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<128x32xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x128xbf16>
  %d = tile.mma %ta, %tb, %zero : tensor<128x32xbf16>, tensor<32x128xbf16>, tensor<128x128xf32>
  tile.store %d, %c[%c0, %c0] : tensor<128x128xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// 64 x 64 on 8 warps: one 64-row block, so the second warpgroup takes
// columns 32..63 (instrN = 32).
// CHECK-LABEL: kernel @side_by_side
// CHECK: = mma {{.*}} {tilegpu.wgmma} : {{.*}}, tensor<64x64xf32, #tilegpu.dist<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[16, 0], [32, 0], [0, 32]]>>
tile.kernel @side_by_side(%a: !tile.view<2, f16>, %b: !tile.view<2, f16>,
                          %c: !tile.view<2, f32>) attributes {num_warps = 8 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<64x64xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, f16> -> tensor<64x64xf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, f16> -> tensor<64x64xf16>
  %d = tile.mma %ta, %tb, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// Below one warpgroup's 64 rows: mma.sync layouts on sm_90a too. tf32 of
// 64 x 64 x 16: wgmma (m64nNk8, B stored K-major by the lowering).
// CHECK-LABEL: kernel @small_and_tf32
// CHECK-NOT: tilegpu.wgmma
// CHECK: = mma {{.*}} : tensor<32x32xbf16
// CHECK: = mma {{.*}} {tilegpu.wgmma} : tensor<64x16xtf32
// SM80-LABEL: kernel @small_and_tf32
// SM80-NOT: tilegpu.wgmma
// SM80: return
tile.kernel @small_and_tf32(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                            %x: !tile.view<2, f32>, %y: !tile.view<2, f32>,
                            %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<32x32xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x32xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x32xbf16>
  %d = tile.mma %ta, %tb, %zero : tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<32x32xf32>
  %zero64 = tile.full %f0 : tensor<64x64xf32>
  %fx = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<64x16xf32>
  %fy = tile.load %y[%c0, %c0] : !tile.view<2, f32> -> tensor<16x64xf32>
  %tx = tile.convert %fx : tensor<64x16xf32> -> tensor<64x16xtf32>
  %ty = tile.convert %fy : tensor<16x64xf32> -> tensor<16x64xtf32>
  %e = tile.mma %tx, %ty, %zero64 : tensor<64x16xtf32>, tensor<16x64xtf32>, tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<32x32xf32>, !tile.view<2, f32>
  tile.store %e, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// An A computed in registers (f32 weights scaled per column, rounded to
// bf16) is formed in the fragment layout wgmma reads A from registers in:
// per warp the m16n8k16 A fragment, warp w % 4 on rows 16 (w % 4), the
// warpgroup w / 4 on rows 64 (w / 4). The layout reaches back through the
// conversion, the product and the broadcast to both loads (the vector in
// the broadcast's source layout): no convert_layout anywhere. B keeps its
// load's layout (wgmma reads it from shared memory).
// CHECK-LABEL: kernel @register_a
// CHECK: %[[W:.*]] = load %{{.*}} -> tensor<128x32xf32, #tilegpu.dist<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[16, 0], [32, 0], [64, 0]]>>
// CHECK-NOT: convert_layout
// CHECK: %[[S:.*]] = load %{{.*}} -> tensor<1x32xf32, #tilegpu.dist<register = {{\[}}[0, 1], [0, 8], [0, 16]], lane = {{\[}}[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], warp = {{\[}}[0, 0], [0, 0], [0, 0]]>>
// CHECK: %[[SB:.*]] = broadcast %[[S]]
// CHECK: %[[X:.*]] = arith.mulf %[[W]], %[[SB]] : tensor<128x32xf32, #tilegpu.dist<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16]]
// CHECK: %[[A:.*]] = convert %[[X]] : {{.*}} -> tensor<128x32xbf16, #tilegpu.dist<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[16, 0], [32, 0], [64, 0]]>>
// CHECK: = mma %[[A]], %{{.*}}, %{{.*}} {tilegpu.wgmma}
// On sm_80 the weights keep their load's layout.
// SM80-LABEL: kernel @register_a
// SM80: load %{{.*}} -> tensor<128x32xf32, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2], [32, 0], [64, 0]],
tile.kernel @register_a(%w: !tile.view<2, f32>, %s: !tile.view<2, f32>,
                        %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>) attributes {num_warps = 8 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<128x128xf32>
  %tw = tile.load %w[%c0, %c0] : !tile.view<2, f32> -> tensor<128x32xf32>
  %ts = tile.load %s[%c0, %c0] : !tile.view<2, f32> -> tensor<1x32xf32>
  %sb = tile.broadcast %ts : tensor<1x32xf32> -> tensor<128x32xf32>
  %x = arith.mulf %tw, %sb : tensor<128x32xf32>
  %a = tile.convert %x : tensor<128x32xf32> -> tensor<128x32xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x128xbf16>
  %d = tile.mma %a, %tb, %zero : tensor<128x32xbf16>, tensor<32x128xbf16>, tensor<128x128xf32>
  tile.store %d, %c[%c0, %c0] : tensor<128x128xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// The walk reaches through a branch: an A computed from an scf.if's result
// (a mask only some launches compute) takes the fragment layout, and so
// does what each branch yields; the load in the branch reads in the
// broadcast's source layout. No convert_layout on the way to A (only the
// zero accumulator's and the stored result's remain).
// CHECK-LABEL: kernel @register_a_through_branch
// CHECK-NOT: convert_layout
// CHECK: %[[M:.*]] = scf.if %{{.*}} -> (tensor<128x32xi1, #tilegpu.dist<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[16, 0], [32, 0], [64, 0]]>>)
// CHECK: load %{{.*}} -> tensor<1x32xf32, #tilegpu.dist<register = {{\[}}[0, 1], [0, 8], [0, 16]]
// CHECK: scf.yield %{{.*}} : tensor<128x32xi1, #tilegpu.dist<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16]]
// CHECK: } else {
// CHECK: scf.yield %{{.*}} : tensor<128x32xi1, #tilegpu.dist<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16]]
// CHECK-NOT: convert_layout
// CHECK: %[[A:.*]] = convert %{{.*}} -> tensor<128x32xbf16, #tilegpu.dist<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16]]
// CHECK: = mma %[[A]], %{{.*}}, %{{.*}} {tilegpu.wgmma}
tile.kernel @register_a_through_branch(%w: !tile.view<2, f32>, %s: !tile.view<2, f32>,
                                       %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>,
                                       %flag: i1) attributes {num_warps = 8 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<128x128xf32>
  %zero32 = tile.full %f0 : tensor<128x32xf32>
  %tw = tile.load %w[%c0, %c0] : !tile.view<2, f32> -> tensor<128x32xf32>
  %positive = arith.cmpf ogt, %tw, %zero32 : tensor<128x32xf32>
  %mask = scf.if %flag -> (tensor<128x32xi1>) {
    %ts = tile.load %s[%c0, %c0] : !tile.view<2, f32> -> tensor<1x32xf32>
    %sb = tile.broadcast %ts : tensor<1x32xf32> -> tensor<128x32xf32>
    %below = arith.cmpf olt, %tw, %sb : tensor<128x32xf32>
    %both = arith.andi %positive, %below : tensor<128x32xi1>
    scf.yield %both : tensor<128x32xi1>
  } else {
    scf.yield %positive : tensor<128x32xi1>
  }
  %x = tile.where %mask, %tw, %zero32 : tensor<128x32xi1>, tensor<128x32xf32>
  %a = tile.convert %x : tensor<128x32xf32> -> tensor<128x32xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x128xbf16>
  %d = tile.mma %a, %tb, %zero : tensor<128x32xbf16>, tensor<32x128xbf16>, tensor<128x128xf32>
  tile.store %d, %c[%c0, %c0] : tensor<128x128xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// An A the walk back cannot form in the fragment layout (a loop's
// iteration argument: it would need a conversion of the whole tile every
// iteration) keeps the layouts it has, and wgmma stores it to shared
// memory as before; so does an A loaded as it is (tilegpu-pipeline copies
// it into a buffer wgmma reads).
// CHECK-LABEL: kernel @shared_a
// CHECK: scf.for
// CHECK: %[[A:.*]] = tile.convert %{{.*}} : {{.*}} -> tensor<128x32xbf16, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2], [32, 0], [64, 0]]
// CHECK-NOT: convert_layout %[[A]]
// CHECK: = tile.mma %[[A]], {{.*}} {tilegpu.wgmma}
// CHECK: %[[L:.*]] = load %{{.*}} -> tensor<128x32xbf16, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2], [0, 4], [64, 0]]
// CHECK-NOT: convert_layout %[[L]]
// CHECK: = mma %[[L]], {{.*}} {tilegpu.wgmma}
tile.kernel @shared_a(%w: !tile.view<2, f32>, %a: !tile.view<2, bf16>,
                      %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>,
                      %n: index) attributes {num_warps = 8 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<128x128xf32>
  %w0 = tile.load %w[%c0, %c0] : !tile.view<2, f32> -> tensor<128x32xf32>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x128xbf16>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero, %wk = %w0) -> (tensor<128x128xf32>, tensor<128x32xf32>) {
    %ak = tile.convert %wk : tensor<128x32xf32> -> tensor<128x32xbf16>
    %d = tile.mma %ak, %tb, %acc : tensor<128x32xbf16>, tensor<32x128xbf16>, tensor<128x128xf32>
    %next = arith.addf %wk, %wk : tensor<128x32xf32>
    scf.yield %d, %next : tensor<128x128xf32>, tensor<128x32xf32>
  }
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<128x32xbf16>
  %e = tile.mma %ta, %tb, %r#0 : tensor<128x32xbf16>, tensor<32x128xbf16>, tensor<128x128xf32>
  tile.store %e, %c[%c0, %c0] : tensor<128x128xf32>, !tile.view<2, f32>
  tile.return
}
