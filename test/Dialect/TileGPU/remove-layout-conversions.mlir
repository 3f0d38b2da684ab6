// tilegpu-remove-layout-conversions, one case per rewrite. The first two
// inputs are what tilegpu-assign-layouts makes of plain kernels; the others
// are written with the layouts that exercise one rule each.
// RUN: tile-opt %s --tilegpu-remove-layout-conversions --mlir-print-local-scope | FileCheck %s

#default = #tilegpu.dist<register = [[4, 0], [8, 0]], lane = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]], warp = []>
#loadA = #tilegpu.dist<register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#loadB = #tilegpu.dist<register = [[0, 1], [0, 2], [0, 4]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]], warp = []>
#mmaA = #tilegpu.dist<register = [[0, 1], [8, 0], [0, 8]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
#mmaB = #tilegpu.dist<register = [[1, 0], [8, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = []>
#mmaAcc = #tilegpu.dist<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
#storeLayout = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#row1d = #tilegpu.dist<register = [[1], [2]], lane = [[4], [8], [0], [0], [0]], warp = []>
#rowCol = #tilegpu.dist<register = [[1, 0], [2, 0]], lane = [[4, 0], [8, 0], [0, 0], [0, 0], [0, 0]], warp = []>
#rowColAcc = #tilegpu.dist<register = [[4, 0], [8, 0]], lane = [[0, 0], [0, 0], [0, 0], [1, 0], [2, 0]], warp = []>
#iota1d = #tilegpu.dist<register = [], lane = [[1], [2], [4], [8], [0]], warp = []>
#iotaCol = #tilegpu.dist<register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]], warp = []>
// A 16x8 f32 tile in one warp: blocked (two consecutive columns per thread),
// the same with the two register bits swapped (a renaming of registers), the
// mma.sync accumulator, and the blocked tile reduced along its rows.
#blocked = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#swapped = #tilegpu.dist<register = [[0, 2], [0, 1]], lane = [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []>
#mma = #tilegpu.dist<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
#blockedRows = #tilegpu.dist<register = [], lane = [[0], [1], [2], [4], [8]], warp = []>

// The accumulator is carried in the mma layout: its tile.full is rebuilt in
// that layout before the loop, the body has no conversion left but the
// operands', and the one conversion to the store's layout follows the loop.
// CHECK-LABEL: kernel @loop_carries_accumulator
// CHECK: %[[INIT:.*]] = full %{{.*}} : tensor<16x8xf32, [[ACC:#tilegpu.dist<register = \[\[0, 1\], \[8, 0\]\], lane = \[\[0, 2\], \[0, 4\], \[1, 0\], \[2, 0\], \[4, 0\]\], warp = \[\]>]]>
// CHECK-NOT: convert_layout %[[INIT]]
// CHECK: scf.for {{.*}} iter_args(%[[ARG:.*]] = %[[INIT]]) -> (tensor<16x8xf32, [[ACC]]>)
// CHECK: convert_layout {{.*}} -> tensor<16x16xbf16
// CHECK: convert_layout {{.*}} -> tensor<16x8xbf16
// CHECK-NEXT: %[[D:.*]] = tile.mma %{{.*}}, %{{.*}}, %[[ARG]] : {{.*}}, tensor<16x8xf32, [[ACC]]>
// CHECK-NEXT: scf.yield %[[D]] : tensor<16x8xf32, [[ACC]]>
// CHECK: %[[OUT:.*]] = tilegpu.convert_layout %{{.*}} : tensor<16x8xf32, [[ACC]]> -> tensor<16x8xf32, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2]]
// CHECK-NEXT: store %[[OUT]]
tile.kernel @loop_carries_accumulator(%arg0: !tile.view<2, bf16>, %arg1: !tile.view<2, bf16>, %arg2: !tile.view<2, f32>, %arg3: index) attributes {num_warps = 1 : i32, occupancy = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = full %cst : tensor<16x8xf32, #default>
  %1 = scf.for %arg4 = %c0 to %arg3 step %c1 iter_args(%arg5 = %0) -> (tensor<16x8xf32, #default>) {
    %3 = tile.load %arg0[%c0, %arg4] : <2, bf16> -> tensor<16x16xbf16, #loadA>
    %4 = tile.load %arg1[%arg4, %c0] : <2, bf16> -> tensor<16x8xbf16, #loadB>
    %5 = tilegpu.convert_layout %3 : tensor<16x16xbf16, #loadA> -> tensor<16x16xbf16, #mmaA>
    %6 = tilegpu.convert_layout %4 : tensor<16x8xbf16, #loadB> -> tensor<16x8xbf16, #mmaB>
    %7 = tilegpu.convert_layout %arg5 : tensor<16x8xf32, #default> -> tensor<16x8xf32, #mmaAcc>
    %8 = tile.mma %5, %6, %7 : tensor<16x16xbf16, #mmaA>, tensor<16x8xbf16, #mmaB>, tensor<16x8xf32, #mmaAcc>
    %9 = tilegpu.convert_layout %8 : tensor<16x8xf32, #mmaAcc> -> tensor<16x8xf32, #default>
    scf.yield %9 : tensor<16x8xf32, #default>
  }
  %2 = tilegpu.convert_layout %1 : tensor<16x8xf32, #default> -> tensor<16x8xf32, #storeLayout>
  store %2, %arg2[%c0, %c0] : tensor<16x8xf32, #storeLayout>, <2, f32>
  return
}

// The product keeps the mma layout through mulf and addf: the broadcast of a
// loaded row converts its 16x1 source instead of the 16x8 result, and the
// arange chain is rebuilt in the layout its broadcast needs.
// CHECK-LABEL: kernel @rematerialise_broadcast
// CHECK: %[[D:.*]] = mma {{.*}}, tensor<16x8xf32, [[ACC:#tilegpu.dist<register = \[\[0, 1\], \[8, 0\]\], lane = \[\[0, 2\], \[0, 4\], \[1, 0\], \[2, 0\], \[4, 0\]\], warp = \[\]>]]>
// CHECK: %[[COL:.*]] = tilegpu.convert_layout %{{.*}} : tensor<16x1xf32, {{.*}}> -> tensor<16x1xf32, [[PROJ:#tilegpu.dist<register = \[\[8, 0\]\], lane = \[\[0, 0\], \[0, 0\], \[1, 0\], \[2, 0\], \[4, 0\]\], warp = \[\]>]]>
// CHECK: %[[SCALE:.*]] = broadcast %[[COL]] : {{.*}} -> tensor<16x8xf32, [[ACC]]>
// CHECK: arange : tensor<16xi32, #tilegpu.dist<register = {{\[}}[8]], lane = {{\[}}[0], [0], [1], [2], [4]], warp = []>>
// CHECK-NOT: convert_layout
// CHECK: %[[ROWS:.*]] = broadcast %{{.*}} -> tensor<16x8xi32, [[ACC]]>
// CHECK: %[[ROWSF:.*]] = arith.sitofp %[[ROWS]] {{.*}} to tensor<16x8xf32, [[ACC]]>
// CHECK: %[[SCALED:.*]] = arith.mulf %[[D]], %[[SCALE]] : tensor<16x8xf32, [[ACC]]>
// CHECK: %[[Y:.*]] = arith.addf %[[SCALED]], %[[ROWSF]] : tensor<16x8xf32, [[ACC]]>
// CHECK: %[[OUT:.*]] = tilegpu.convert_layout %[[Y]]
// CHECK-NEXT: store %[[OUT]]
tile.kernel @rematerialise_broadcast(%arg0: !tile.view<2, bf16>, %arg1: !tile.view<2, bf16>, %arg2: !tile.view<2, f32>, %arg3: !tile.view<1, f32>) attributes {num_warps = 1 : i32, occupancy = 1 : i32} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = load %arg0[%c0, %c0] : <2, bf16> -> tensor<16x16xbf16, #loadA>
  %1 = load %arg1[%c0, %c0] : <2, bf16> -> tensor<16x8xbf16, #loadB>
  %2 = full %cst : tensor<16x8xf32, #default>
  %3 = tilegpu.convert_layout %0 : tensor<16x16xbf16, #loadA> -> tensor<16x16xbf16, #mmaA>
  %4 = tilegpu.convert_layout %1 : tensor<16x8xbf16, #loadB> -> tensor<16x8xbf16, #mmaB>
  %5 = tilegpu.convert_layout %2 : tensor<16x8xf32, #default> -> tensor<16x8xf32, #mmaAcc>
  %6 = mma %3, %4, %5 : tensor<16x16xbf16, #mmaA>, tensor<16x8xbf16, #mmaB>, tensor<16x8xf32, #mmaAcc>
  %7 = load %arg3[%c0] : <1, f32> -> tensor<16xf32, #row1d>
  %8 = reshape %7 : tensor<16xf32, #row1d> -> tensor<16x1xf32, #rowCol>
  %9 = tilegpu.convert_layout %8 : tensor<16x1xf32, #rowCol> -> tensor<16x1xf32, #rowColAcc>
  %10 = broadcast %9 : tensor<16x1xf32, #rowColAcc> -> tensor<16x8xf32, #default>
  %11 = arange : tensor<16xi32, #iota1d>
  %12 = reshape %11 : tensor<16xi32, #iota1d> -> tensor<16x1xi32, #iotaCol>
  %13 = tilegpu.convert_layout %12 : tensor<16x1xi32, #iotaCol> -> tensor<16x1xi32, #rowColAcc>
  %14 = broadcast %13 : tensor<16x1xi32, #rowColAcc> -> tensor<16x8xi32, #default>
  %15 = arith.sitofp %14 : tensor<16x8xi32, #default> to tensor<16x8xf32, #default>
  %16 = tilegpu.convert_layout %10 : tensor<16x8xf32, #default> -> tensor<16x8xf32, #mmaAcc>
  %17 = arith.mulf %6, %16 : tensor<16x8xf32, #mmaAcc>
  %18 = tilegpu.convert_layout %15 : tensor<16x8xf32, #default> -> tensor<16x8xf32, #mmaAcc>
  %19 = arith.addf %17, %18 : tensor<16x8xf32, #mmaAcc>
  %20 = tilegpu.convert_layout %19 : tensor<16x8xf32, #mmaAcc> -> tensor<16x8xf32, #storeLayout>
  store %20, %arg2[%c0, %c0] : tensor<16x8xf32, #storeLayout>, <2, f32>
  return
}

// A conversion back and forth folds away; a chain becomes one conversion.
// CHECK-LABEL: kernel @fold_chains
// CHECK: %[[T:.*]] = load
// CHECK-NEXT: store %[[T]]
// CHECK-NEXT: %[[S:.*]] = tilegpu.convert_layout %[[T]] : tensor<16x8xf32, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2]]{{.*}} -> tensor<16x8xf32, #tilegpu.dist<register = {{\[}}[0, 2], [0, 1]]
// CHECK-NEXT: store %[[S]]
tile.kernel @fold_chains(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #blocked>
  %m = tilegpu.convert_layout %t : tensor<16x8xf32, #blocked> -> tensor<16x8xf32, #mma>
  %b = tilegpu.convert_layout %m : tensor<16x8xf32, #mma> -> tensor<16x8xf32, #blocked>
  tile.store %b, %x[%c0, %c0] : tensor<16x8xf32, #blocked>, !tile.view<2, f32>
  %s = tilegpu.convert_layout %m : tensor<16x8xf32, #mma> -> tensor<16x8xf32, #swapped>
  tile.store %s, %x[%c0, %c0] : tensor<16x8xf32, #swapped>, !tile.view<2, f32>
  tile.return
}

// A conversion of a loaded tile moves past addf (the tile.full is rebuilt in
// the loaded layout), exp2 and where (the mask is an arange comparison, also
// rebuilt), down to the store that needs the other layout. The tile.full
// rebuilt for two users is built once.
// CHECK-LABEL: kernel @push_forward
// CHECK: %[[T:.*]] = load {{.*}} -> tensor<16x8xf32, [[MMA:#tilegpu.dist<register = \[\[0, 1\], \[8, 0\]\].*>]]>
// CHECK: %[[F:.*]] = full %{{.*}} : tensor<16x8xf32, [[MMA]]>
// CHECK-NOT: full
// CHECK: %[[S:.*]] = arith.addf %[[T]], %[[F]] : tensor<16x8xf32, [[MMA]]>
// CHECK: %[[E:.*]] = exp2 %[[S]] : tensor<16x8xf32, [[MMA]]>
// CHECK: %[[W:.*]] = where %{{.*}}, %[[E]], %[[F]] : tensor<16x8xi1, [[MMA]]>, tensor<16x8xf32, [[MMA]]>
// CHECK-NEXT: %[[B:.*]] = tilegpu.convert_layout %[[W]] : tensor<16x8xf32, [[MMA]]> -> tensor<16x8xf32, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2]]
// CHECK-NEXT: store %[[B]]
tile.kernel @push_forward(%x: !tile.view<2, f32>, %v: f32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #mma>
  %c = tilegpu.convert_layout %t : tensor<16x8xf32, #mma> -> tensor<16x8xf32, #blocked>
  %f = tile.full %v : tensor<16x8xf32, #blocked>
  %s = arith.addf %c, %f : tensor<16x8xf32, #blocked>
  %e = tile.exp2 %s : tensor<16x8xf32, #blocked>
  %zero = arith.constant dense<0> : tensor<16x8xi32, #blocked>
  %mask = arith.cmpi sgt, %zero, %zero : tensor<16x8xi32, #blocked>
  %w = tile.where %mask, %e, %f : tensor<16x8xi1, #blocked>, tensor<16x8xf32, #blocked>
  tile.store %w, %x[%c0, %c0] : tensor<16x8xf32, #blocked>, !tile.view<2, f32>
  tile.return
}

// Through a reduction the conversion moves to the 16 sums.
// CHECK-LABEL: kernel @push_through_reduce
// CHECK: %[[T:.*]] = load
// CHECK-NEXT: %[[R:.*]] = reduce sum %[[T]] axis = 1 : {{.*}} -> tensor<16xf32, #tilegpu.dist<register = {{\[}}[8]], lane = {{\[}}[0], [0], [1], [2], [4]], warp = []>>
// CHECK-NEXT: %[[B:.*]] = tilegpu.convert_layout %[[R]] : {{.*}} -> tensor<16xf32, #tilegpu.dist<register = [], lane = {{\[}}[0], [1], [2], [4], [8]], warp = []>>
// CHECK-NEXT: store %[[B]]
tile.kernel @push_through_reduce(%x: !tile.view<2, f32>, %y: !tile.view<1, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #mma>
  %c = tilegpu.convert_layout %t : tensor<16x8xf32, #mma> -> tensor<16x8xf32, #blocked>
  %r = tile.reduce sum %c axis = 1 : tensor<16x8xf32, #blocked> -> tensor<16xf32, #blockedRows>
  tile.store %r, %y[%c0] : tensor<16xf32, #blockedRows>, !tile.view<1, f32>
  tile.return
}

// The planner calls #swapped -> #blocked a renaming of registers: it costs
// nothing where it is, so it is not moved.
// CHECK-LABEL: kernel @free_conversion_stays
// CHECK: %[[T:.*]] = load {{.*}} -> tensor<16x8xf32, [[SWAPPED:#tilegpu.dist<register = \[\[0, 2\], \[0, 1\]\].*>]]>
// CHECK: %[[U:.*]] = load {{.*}} -> tensor<16x8xf32, [[BLOCKED:#tilegpu.dist<register = \[\[0, 1\], \[0, 2\]\].*>]]>
// CHECK: %[[C:.*]] = tilegpu.convert_layout %[[T]] : tensor<16x8xf32, [[SWAPPED]]> -> tensor<16x8xf32, [[BLOCKED]]>
// CHECK: arith.addf %[[C]], %[[U]] : tensor<16x8xf32, [[BLOCKED]]>
tile.kernel @free_conversion_stays(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #swapped>
  %u = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #blocked>
  %c = tilegpu.convert_layout %t : tensor<16x8xf32, #swapped> -> tensor<16x8xf32, #blocked>
  %s = arith.addf %c, %u : tensor<16x8xf32, #blocked>
  tile.store %s, %x[%c0, %c0] : tensor<16x8xf32, #blocked>, !tile.view<2, f32>
  tile.return
}

// #mma -> #blocked moves data between lanes, and the other operand is a
// load: moving the conversion would only trade it for another. It stays.
// CHECK-LABEL: kernel @costly_conversion_stays
// CHECK: %[[C:.*]] = tilegpu.convert_layout %{{.*}} : tensor<16x8xf32, #tilegpu.dist<register = {{\[}}[0, 1], [8, 0]]
// CHECK-NEXT: arith.addf %[[C]], %{{.*}} : tensor<16x8xf32, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2]]
tile.kernel @costly_conversion_stays(%x: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #mma>
  %u = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #blocked>
  %c = tilegpu.convert_layout %t : tensor<16x8xf32, #mma> -> tensor<16x8xf32, #blocked>
  %s = arith.addf %c, %u : tensor<16x8xf32, #blocked>
  tile.store %s, %x[%c0, %c0] : tensor<16x8xf32, #blocked>, !tile.view<2, f32>
  tile.return
}

// A conversion before a loop of a value the body uses stays before the
// loop: moved to its user it would run once per iteration.
// CHECK-LABEL: kernel @not_into_loops
// CHECK: tilegpu.convert_layout
// CHECK-NEXT: scf.for
// CHECK-NOT: convert_layout
// CHECK: scf.yield
tile.kernel @not_into_loops(%x: !tile.view<2, f32>, %n: index) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #mma>
  %u = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #blocked>
  %c = tilegpu.convert_layout %t : tensor<16x8xf32, #mma> -> tensor<16x8xf32, #blocked>
  %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %u) -> tensor<16x8xf32, #blocked> {
    %next = arith.addf %acc, %c : tensor<16x8xf32, #blocked>
    scf.yield %next : tensor<16x8xf32, #blocked>
  }
  tile.store %sum, %x[%c0, %c0] : tensor<16x8xf32, #blocked>, !tile.view<2, f32>
  tile.return
}

// A 32x8 f32 tile on two warps: the mma.sync accumulator (warps along rows),
// a vectorised store layout (warps along columns: the conversion crosses
// warps, through shared memory) and the generic variant's store layout (one
// element per access).
#acc2 = #tilegpu.dist<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0]]>
#store2 = #tilegpu.dist<register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[0, 4]]>
#scalar2 = #tilegpu.dist<register = [[8, 0], [16, 0]], lane = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]], warp = [[4, 0]]>

// The vectorised store writes the accumulator's registers itself (pairs of
// columns, four lanes side by side: 32-byte runs): no trip through shared
// memory. The generic store keeps its conversion (scalar accesses of the
// accumulator would write 4 bytes of every 8).
// CHECK-LABEL: kernel @store_in_place
// CHECK: %[[T:.*]] = load {{.*}} -> tensor<32x8xf32, [[ACC2:#tilegpu.dist<register = \[\[0, 1\], \[8, 0\]\].*>]]>
// CHECK-NEXT: store %[[T]], %{{.*}} : tensor<32x8xf32, [[ACC2]]>
// CHECK-NEXT: %[[S:.*]] = tilegpu.convert_layout %[[T]] : {{.*}} -> tensor<32x8xf32, #tilegpu.dist<register = {{\[}}[8, 0], [16, 0]]
// CHECK-NEXT: store %[[S]]
tile.kernel @store_in_place(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<32x8xf32, #acc2>
  %v = tilegpu.convert_layout %t : tensor<32x8xf32, #acc2> -> tensor<32x8xf32, #store2>
  tile.store %v, %y[%c0, %c0] : tensor<32x8xf32, #store2>, !tile.view<2, f32>
  %s = tilegpu.convert_layout %t : tensor<32x8xf32, #acc2> -> tensor<32x8xf32, #scalar2>
  tile.store %s, %y[%c0, %c0] : tensor<32x8xf32, #scalar2>, !tile.view<2, f32>
  tile.return
}

// A conversion of a branch's result moves into both branches, where each
// yielded value is rebuilt in the wanted layout from its cheap producers
// (a constant): the branch yields #mma and no conversion is left after it.
// What a branch computes from a load is not cheap: its conversion stays
// in the branch, and runs only with it.
// CHECK-LABEL: kernel @into_branches
// CHECK: %[[L:.*]] = load {{.*}} -> tensor<16x8xf32, [[MMA:#tilegpu.dist<register = \[\[0, 1\], \[8, 0\]\].*>]]>
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tensor<16x8xf32, [[MMA]]>) {
// CHECK: %[[T:.*]] = tile.load {{.*}} -> tensor<16x8xf32, [[BLOCKED:#tilegpu.dist<register = \[\[0, 1\], \[0, 2\]\].*>]]>
// CHECK: %[[TS:.*]] = arith.mulf %[[T]], %{{.*}} : tensor<16x8xf32, [[BLOCKED]]>
// CHECK: %[[TC:.*]] = tilegpu.convert_layout %[[TS]] : tensor<16x8xf32, [[BLOCKED]]> -> tensor<16x8xf32, [[MMA]]>
// CHECK: scf.yield %[[TC]] : tensor<16x8xf32, [[MMA]]>
// CHECK: } else {
// CHECK-NOT: convert_layout
// CHECK: %[[F:.*]] = arith.constant dense<2.000000e+00> : tensor<16x8xf32, [[MMA]]>
// CHECK: scf.yield %[[F]] : tensor<16x8xf32, [[MMA]]>
// CHECK-NOT: convert_layout
// CHECK: arith.addf %[[R]], %[[L]] : tensor<16x8xf32, [[MMA]]>
tile.kernel @into_branches(%x: !tile.view<2, f32>, %flag: i1) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %l = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #mma>
  %r = scf.if %flag -> (tensor<16x8xf32, #blocked>) {
    %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32, #blocked>
    %two = arith.constant dense<2.0> : tensor<16x8xf32, #blocked>
    %ts = arith.mulf %t, %two : tensor<16x8xf32, #blocked>
    scf.yield %ts : tensor<16x8xf32, #blocked>
  } else {
    %f = arith.constant dense<2.0> : tensor<16x8xf32, #blocked>
    scf.yield %f : tensor<16x8xf32, #blocked>
  }
  %m = tilegpu.convert_layout %r : tensor<16x8xf32, #blocked> -> tensor<16x8xf32, #mma>
  %s = arith.addf %m, %l : tensor<16x8xf32, #mma>
  tile.store %s, %x[%c0, %c0] : tensor<16x8xf32, #mma>, !tile.view<2, f32>
  tile.return
}
