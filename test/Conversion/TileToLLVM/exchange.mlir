// RUN: tile-opt %s --convert-tile-to-llvm --split-input-file | FileCheck %s

// Ops moving elements between threads: source to shared memory, barrier,
// gather, barrier.

// CHECK: llvm.mlir.global external @tile_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @broadcast(
// CHECK-SAME: tile.shared_bytes = 128 : i64
// The 1x32 source: thread t writes element t.
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[SRC:.*]] = llvm.extractelement
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @tile_smem : !llvm.ptr<3>
// CHECK: %[[DST:.*]] = llvm.getelementptr %[[BASE]][%[[TID]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: llvm.store %[[SRC]], %[[DST]] {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// Four result registers, each reading source column (tid + 32 r) % 32.
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK: nvvm.barrier0
// CHECK-NEXT: llvm.return
tile.kernel @broadcast(%s: f32) attributes {num_warps = 1 : i32} {
  %r = tile.full %s : tensor<1x32xf32>
  %b = tile.broadcast %r : tensor<1x32xf32> -> tensor<4x32xf32>
  tile.return
}

// -----

// CHECK-LABEL: llvm.func @permute(
// CHECK-SAME: tile.shared_bytes = 256 : i64
// CHECK-COUNT-2: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// Result (i, j) = linear tid: reads source (j, i) at j * 8 + i.
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[I:.*]] = arith.divui %[[TID]], %{{.*}} : i32
// CHECK: %[[J:.*]] = arith.remui %[[TID]], %{{.*}} : i32
// CHECK: %[[J8:.*]] = arith.muli %[[J]], %{{.*}} : i32
// CHECK: %[[OFF:.*]] = arith.addi %[[J8]], %[[I]] : i32
// CHECK: %[[P:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
// CHECK: llvm.load %[[P]]
// CHECK: llvm.load
// CHECK: nvvm.barrier0
tile.kernel @permute() attributes {num_warps = 1 : i32} {
  %i = tile.arange : tensor<64xi32>
  %r = tile.reshape %i : tensor<64xi32> -> tensor<8x8xi32>
  %p = tile.permute %r [1, 0] : tensor<8x8xi32> -> tensor<8x8xi32>
  tile.return
}

// -----

// CHECK-LABEL: llvm.func @extract(
// CHECK-SAME: %[[K:arg[0-9]+]]: i64
// CHECK: nvvm.barrier0
// The sub-tile starts at row k * 2; its 16 elements leave padding in threads
// 16..31, which read element 15 instead of past the tile.
// CHECK: %[[K32:.*]] = arith.trunci %[[K]] : i64 to i32
// CHECK: %[[ROW0:.*]] = arith.muli %[[K32]], %c2_i32 : i32
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[LIN:.*]] = arith.minui %[[TID]], %c15_i32 : i32
// CHECK: %[[R:.*]] = arith.divui %[[LIN]], %{{.*}} : i32
// CHECK: arith.addi %[[ROW0]], %[[R]] : i32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: nvvm.barrier0
tile.kernel @extract(%k: index) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %i = tile.arange : tensor<64xi32>
  %r = tile.reshape %i : tensor<64xi32> -> tensor<8x8xi32>
  %e = tile.extract %r[%k, %c0] : tensor<8x8xi32> -> tensor<2x8xi32>
  tile.return
}
