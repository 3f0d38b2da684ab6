// RUN: tile-opt %s --convert-tile-to-llvm --split-input-file | FileCheck %s

// bf16: mma.sync m16n8k16; 32x16 by 16x16 on 2 warps.
// Shared memory: A 32x16 at 0 (rows of 16 + 8 skew), B column-major at 1520
// (columns of 16 + 8), C 32x16 f32 at 2272 (rows of 16 + 4): 4816 bytes.
// CHECK-LABEL: llvm.func @mma_bf16(
// CHECK-SAME: tile.shared_bytes = 4816 : i64
// No padding to zero: the extents are multiples of the instruction's.
// CHECK-NOT: arith.cmpi uge
// CHECK: nvvm.barrier0
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32_i32 : i32
// 2 x 2 output tiles of 16x8, warp w takes w, w + 2.
// CHECK: scf.for %{{.*}} = %[[WARP]] to %c4_i32{{.*}} step %c2_i32{{.*}}  : i32 {
// CHECK:   llvm.getelementptr %{{.*}}[2272] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK:   scf.for %{{.*}} = %c0_i32{{.*}} to %c16_i32{{.*}} step %c16_i32{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)  : i32 {
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK:     llvm.getelementptr %{{.*}}[1520] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK:     %[[D:.*]] = nvvm.mma.sync A[{{.*}}]  B[{{.*}}]  C[{{.*}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-4: llvm.extractvalue %[[D]]
// CHECK:   }
// CHECK-COUNT-4: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: }
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.barrier0
tile.kernel @mma_bf16(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                      %c: !tile.view<2, f32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x16xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x16xbf16>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<32x16xf32>
  %d = tile.mma %ta, %tb, %tc : tensor<32x16xbf16>, tensor<16x16xbf16>, tensor<32x16xf32>
  tile.store %d, %c[%c0, %c0] : tensor<32x16xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// tf32: rounded by cvt.rna, then mma.sync m16n8k8; 20x12 by 12x6 is padded
// to 32x16 by 16x8 with zeros.
// CHECK-LABEL: llvm.func @mma_tf32(
// CHECK-SAME: tile.shared_bytes = 4688 : i64
// CHECK: %[[BITS:.*]] = nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK: llvm.bitcast %[[BITS]] : i32 to f32
// A's padding (rows >= 20 or columns >= 12 of 32x16) is zeroed by all
// threads, then B's (rows >= 12 or columns >= 6 of 16x8).
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512_i32 step %c32_i32{{.*}}  : i32 {
// CHECK-DAG: arith.cmpi uge, %{{.*}}, %c12_i32{{.*}} : i32
// CHECK-DAG: arith.cmpi uge, %{{.*}}, %c20_i32{{.*}} : i32
// CHECK: scf.if
// CHECK:   llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c128_i32{{.*}} step %c32_i32{{.*}}  : i32 {
// CHECK: nvvm.barrier0
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2_i32{{.*}} step %c1_i32{{.*}}  : i32 {
// CHECK:   scf.for %{{.*}} = %c0_i32{{.*}} to %c16_i32{{.*}} step %c8_i32{{.*}} iter_args
// CHECK:     nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: nvvm.barrier0
// CHECK: nvvm.barrier0
tile.kernel @mma_tf32(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>,
                      %c: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<20x12xf32>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<12x6xf32>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<20x6xf32>
  %xa = tile.convert %ta : tensor<20x12xf32> -> tensor<20x12xtf32>
  %xb = tile.convert %tb : tensor<12x6xf32> -> tensor<12x6xtf32>
  %d = tile.mma %xa, %xb, %tc : tensor<20x12xtf32>, tensor<12x6xtf32>, tensor<20x6xf32>
  tile.store %d, %c[%c0, %c0] : tensor<20x6xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// f32 operands: fused multiply-adds over K.
// CHECK-LABEL: llvm.func @mma_f32(
// CHECK-SAME: tile.shared_bytes = 256 : i64
// CHECK: nvvm.barrier0
// CHECK: %[[C0:.*]] = llvm.extractelement
// CHECK: scf.for %{{.*}} = %c0_i32{{.*}} to %c4_i32{{.*}} step %c1_i32{{.*}} iter_args(%[[ACC:.*]] = %[[C0]]) -> (f32)  : i32 {
// CHECK:   %[[A:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:   llvm.getelementptr %{{.*}}[128] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:   %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:   llvm.intr.fma(%[[A]], %[[B]], %[[ACC]]) : (f32, f32, f32) -> f32
// CHECK: nvvm.barrier0
tile.kernel @mma_f32(%a: !tile.view<2, f32>, %c: !tile.view<2, f32>)
    attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<8x4xf32>
  %tb = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<4x8xf32>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<8x8xf32>
  %d = tile.mma %ta, %tb, %tc : tensor<8x4xf32>, tensor<4x8xf32>, tensor<8x8xf32>
  tile.store %d, %c[%c0, %c0] : tensor<8x8xf32>, !tile.view<2, f32>
  tile.return
}
