// tilegpu-prefetch-registers: loads that stay in registers are issued one
// iteration ahead and carried as scf.for iteration arguments.
// RUN: tile-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-prefetch-registers | FileCheck %s
// RUN: tile-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-prefetch-registers="max-carried-registers=8" | FileCheck %s --check-prefix=BUDGET

// An affine index (base + k): the first iteration's load before the loop,
// guarded by lb < ub; in the body the load of k + 1, guarded by k + 1 < ub,
// yielded into the new argument that the body uses instead.
// CHECK-LABEL: kernel @prefetched
// CHECK: %[[FIRST:.*]] = arith.cmpi slt, %[[LB:.*]], %[[UB:.*]] : index
// CHECK: %[[INIT:.*]] = scf.if %[[FIRST]]
// CHECK:   %[[I0:.*]] = arith.addi %{{.*}}, %[[LB]] : index
// CHECK:   %[[L0:.*]] = tile.load %{{.*}}[%[[I0]]] : <1, f32>
// CHECK:   scf.yield %[[L0]]
// CHECK: } else {
// CHECK:   tile.full
// CHECK: scf.for %[[K:.*]] = %[[LB]] to %[[UB]] step %[[STEP:.*]] iter_args(%{{[^ ]*}} = %{{.*}}, %[[CUR:.*]] = %[[INIT]])
// CHECK:   %[[NEXTK:.*]] = arith.addi %[[K]], %[[STEP]] : index
// CHECK:   %[[VALID:.*]] = arith.cmpi slt, %[[NEXTK]], %[[UB]] : index
// CHECK:   %[[NEXT:.*]] = scf.if %[[VALID]]
// CHECK:     %[[I1:.*]] = arith.addi %{{.*}}, %[[NEXTK]] : index
// CHECK:     tile.load %{{.*}}[%[[I1]]] : <1, f32>
// CHECK:   arith.addf %{{.*}}, %[[CUR]]
// CHECK:   scf.yield %{{[^,]*}}, %[[NEXT]] :
// CHECK-NOT: latency
// BUDGET-LABEL: kernel @prefetched
// BUDGET: scf.for {{.*}} iter_args(%{{[^,]*}}, %{{[^)]*}})
tile.kernel @prefetched(%a: !tile.view<1, f32>, %out: !tile.view<1, f32>, %base: index, %n: index) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.full %zero : tensor<128xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<128xf32> {
    %i = arith.addi %base, %k : index
    %t = tile.load %a[%i] latency = 1 : !tile.view<1, f32> -> tensor<128xf32>
    %s = arith.addf %acc, %t : tensor<128xf32>
    scf.yield %s : tensor<128xf32>
  }
  tile.store %r, %out[%c0] : tensor<128xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// Two loads, 1 + 16 registers per thread (128 and 64x32 f32 over 128
// threads): both fit the budget (32, and 255 / 8 at occupancy 1); with a
// budget of 8 the two do not, and both stay (all or nothing: one load left
// behind still makes the iteration wait).
// CHECK-LABEL: kernel @budget
// CHECK: scf.for {{.*}} iter_args(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,)]*}})
// CHECK-NOT: latency
// BUDGET-LABEL: kernel @budget
// BUDGET: scf.for {{.*}} iter_args(%{{[^,]*}}, %{{[^,)]*}}) -> (tensor<128xf32, {{.*}}>, tensor<64x32xf32, {{.*}}>)
// BUDGET: tile.load %{{.*}}[%{{.*}}] latency = 2 : <1, f32>
// BUDGET: tile.load %{{.*}}[%{{.*}}, %{{.*}}] latency = 2 : <2, f32>
tile.kernel @budget(%a: !tile.view<1, f32>, %b: !tile.view<2, f32>, %out: !tile.view<1, f32>, %out2: !tile.view<2, f32>, %n: index) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.full %zero : tensor<128xf32>
  %init2 = tile.full %zero : tensor<64x32xf32>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init, %acc2 = %init2) -> (tensor<128xf32>, tensor<64x32xf32>) {
    %t = tile.load %a[%k] latency = 2 : !tile.view<1, f32> -> tensor<128xf32>
    %u = tile.load %b[%k, %c0] latency = 2 : !tile.view<2, f32> -> tensor<64x32xf32>
    %s = arith.addf %acc, %t : tensor<128xf32>
    %s2 = arith.addf %acc2, %u : tensor<64x32xf32>
    scf.yield %s, %s2 : tensor<128xf32>, tensor<64x32xf32>
  }
  tile.store %r#0, %out[%c0] : tensor<128xf32>, !tile.view<1, f32>
  tile.store %r#1, %out2[%c0, %c0] : tensor<64x32xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// The same loads at occupancy 4: 65536 / (4 x 128) = 128 registers per
// thread, an eighth of them 16 < 17: not prefetched.
// CHECK-LABEL: kernel @occupancy
// CHECK: scf.for {{.*}} iter_args(%{{[^,]*}}, %{{[^,)]*}}) -> (tensor<128xf32, {{.*}}>, tensor<64x32xf32, {{.*}}>)
// CHECK: tile.load %{{.*}}[%{{.*}}] latency = 2 : <1, f32>
tile.kernel @occupancy(%a: !tile.view<1, f32>, %b: !tile.view<2, f32>, %out: !tile.view<1, f32>, %out2: !tile.view<2, f32>, %n: index) attributes {num_warps = 4 : i32, occupancy = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.full %zero : tensor<128xf32>
  %init2 = tile.full %zero : tensor<64x32xf32>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init, %acc2 = %init2) -> (tensor<128xf32>, tensor<64x32xf32>) {
    %t = tile.load %a[%k] latency = 2 : !tile.view<1, f32> -> tensor<128xf32>
    %u = tile.load %b[%k, %c0] latency = 2 : !tile.view<2, f32> -> tensor<64x32xf32>
    %s = arith.addf %acc, %t : tensor<128xf32>
    %s2 = arith.addf %acc2, %u : tensor<64x32xf32>
    scf.yield %s, %s2 : tensor<128xf32>, tensor<64x32xf32>
  }
  tile.store %r#0, %out[%c0] : tensor<128xf32>, !tile.view<1, f32>
  tile.store %r#1, %out2[%c0, %c0] : tensor<64x32xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// The view is written after the loop: the load stays where it is.
// CHECK-LABEL: kernel @aliased
// CHECK: scf.for {{.*}} iter_args(%{{[^,)]*}}) -> (tensor<128xf32
// CHECK: tile.load %{{.*}}[%{{.*}}] latency = 1
tile.kernel @aliased(%a: !tile.view<1, f32>, %n: index) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.full %zero : tensor<128xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<128xf32> {
    %t = tile.load %a[%k] latency = 1 : !tile.view<1, f32> -> tensor<128xf32>
    %s = arith.addf %acc, %t : tensor<128xf32>
    scf.yield %s : tensor<128xf32>
  }
  tile.store %r, %a[%c0] : tensor<128xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// Another view is written inside the loop (it may share the loaded bytes).
// CHECK-LABEL: kernel @loop_writes
// CHECK: scf.for {{.*}} iter_args(%{{[^,)]*}}) -> (tensor<128xf32
// CHECK: tile.load %{{.*}}[%{{.*}}] latency = 1
tile.kernel @loop_writes(%a: !tile.view<1, f32>, %out: !tile.view<1, f32>, %n: index) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.full %zero : tensor<128xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<128xf32> {
    %t = tile.load %a[%k] latency = 1 : !tile.view<1, f32> -> tensor<128xf32>
    %s = arith.addf %acc, %t : tensor<128xf32>
    tile.store %s, %out[%k] : tensor<128xf32>, !tile.view<1, f32>
    scf.yield %s : tensor<128xf32>
  }
  tile.return
}

// -----

// k / 2 is not affine in k: not prefetched.
// CHECK-LABEL: kernel @not_affine
// CHECK: scf.for {{.*}} iter_args(%{{[^,)]*}}) -> (tensor<128xf32
// CHECK: tile.load %{{.*}}[%{{.*}}] latency = 1
tile.kernel @not_affine(%a: !tile.view<1, f32>, %out: !tile.view<1, f32>, %n: index) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.full %zero : tensor<128xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<128xf32> {
    %half = arith.divui %k, %c2 : index
    %t = tile.load %a[%half] latency = 1 : !tile.view<1, f32> -> tensor<128xf32>
    %s = arith.addf %acc, %t : tensor<128xf32>
    scf.yield %s : tensor<128xf32>
  }
  tile.store %r, %out[%c0] : tensor<128xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// No latency: the kernel did not ask for the load to be read ahead.
// CHECK-LABEL: kernel @no_latency
// CHECK: scf.for {{.*}} iter_args(%{{[^,)]*}}) -> (tensor<128xf32
// CHECK: tile.load %{{.*}}[%{{.*}}] : <1, f32>
tile.kernel @no_latency(%a: !tile.view<1, f32>, %out: !tile.view<1, f32>, %n: index) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.full %zero : tensor<128xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<128xf32> {
    %t = tile.load %a[%k] : !tile.view<1, f32> -> tensor<128xf32>
    %s = arith.addf %acc, %t : tensor<128xf32>
    scf.yield %s : tensor<128xf32>
  }
  tile.store %r, %out[%c0] : tensor<128xf32>, !tile.view<1, f32>
  tile.return
}
