// RUN: tile-opt %s --convert-tile-to-llvm --split-input-file | FileCheck %s

// Grid coordinates and view sizes.
// CHECK-LABEL: llvm.func @grid(
// CHECK-SAME: %[[PTR:arg[0-9]+]]: !llvm.ptr<1>, %arg1: i64, %[[SIZE1:arg[0-9]+]]: i64
// CHECK: %[[DIM:.*]] = builtin.unrealized_conversion_cast %[[SIZE1]] : i64 to index
// CHECK: %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK: %[[Y64:.*]] = arith.extui %[[Y]] : i32 to i64
// CHECK: %[[N:.*]] = nvvm.read.ptx.sreg.nctaid.z : i32
// CHECK: arith.extui %[[N]] : i32 to i64
tile.kernel @grid(%v: !tile.view<2, f32>, %o: !tile.view<1, i64>)
    attributes {num_warps = 1 : i32} {
  %y = tile.block_id y
  %n = tile.num_blocks z
  %d = tile.dim %v[1] : !tile.view<2, f32>
  %s = arith.addi %y, %n : index
  %t = arith.addi %s, %d : index
  %i = arith.index_cast %t : index to i64
  %f = tile.full %i : tensor<32xi64>
  tile.store %f, %o[%y] : tensor<32xi64>, !tile.view<1, i64>
  tile.return
}

// -----

// exp2, where, elementwise ops and constants work on each thread's registers.
// CHECK-LABEL: llvm.func @elementwise(
// CHECK: %[[T:.*]] = llvm.insertelement %{{.*}}[%c1_i32 : i32] : vector<2xf32>
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(dense<0.000000e+00> : vector<2xf32>) : vector<2xf32>
// CHECK: %[[P:.*]] = arith.cmpf ogt, %[[T]], %[[ZERO]] : vector<2xf32>
// exp2: ex2.approx.ftz per element.
// CHECK: %[[T0:.*]] = llvm.extractelement %[[T]]
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[T0]]) : (f32) -> f32
// CHECK: %[[T1:.*]] = llvm.extractelement %[[T]]
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[T1]]) : (f32) -> f32
// CHECK: %[[E:.*]] = llvm.insertelement
// CHECK: %[[W:.*]] = llvm.select %[[P]], %[[E]], %[[ZERO]] : vector<2xi1>, vector<2xf32>
// math.log: lg2.approx per element, times ln 2.
// CHECK: llvm.extractelement %[[W]]
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%{{.*}}) : (f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%{{.*}}) : (f32) -> f32
// CHECK: %[[LN2:.*]] = llvm.mlir.constant(dense<0.693147182> : vector<2xf32>) : vector<2xf32>
// CHECK: %[[L:.*]] = llvm.fmul %{{.*}}, %[[LN2]] : vector<2xf32>
// math.exp: exp2 of x log2 e.
// CHECK: %[[LOG2E:.*]] = llvm.mlir.constant(dense<1.44269502> : vector<2xf32>) : vector<2xf32>
// CHECK: %[[X:.*]] = llvm.fmul %[[L]], %[[LOG2E]] : vector<2xf32>
// CHECK: %[[X0:.*]] = llvm.extractelement %[[X]]
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[X0]]) : (f32) -> f32
tile.kernel @elementwise(%v: !tile.view<1, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %v[%c0] : !tile.view<1, f32> -> tensor<64xf32>
  %z = arith.constant dense<0.0> : tensor<64xf32>
  %p = arith.cmpf ogt, %t, %z : tensor<64xf32>
  %e = tile.exp2 %t : tensor<64xf32>
  %w = tile.where %p, %e, %z : tensor<64xi1>, tensor<64xf32>
  %l = math.log %w : tensor<64xf32>
  %x = math.exp %l : tensor<64xf32>
  tile.store %x, %v[%c0] : tensor<64xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// Element type conversions.
// CHECK-LABEL: llvm.func @convert(
// CHECK: %[[F:.*]] = llvm.insertelement %{{.*}} : vector<1xf32>
// CHECK: %[[B:.*]] = llvm.fptrunc %[[F]] : vector<1xf32> to vector<1xbf16>
// bf16 -> f16 rounds once, through f32.
// CHECK: %[[BF:.*]] = llvm.fpext %[[B]] : vector<1xbf16> to vector<1xf32>
// CHECK: %[[H:.*]] = llvm.fptrunc %[[BF]] : vector<1xf32> to vector<1xf16>
// CHECK: %[[I:.*]] = llvm.call_intrinsic "llvm.fptosi.sat"(%[[H]]) : (vector<1xf16>) -> vector<1xi32>
// CHECK: %[[M:.*]] = llvm.trunc %[[I]] : vector<1xi32> to vector<1xi1>
// CHECK: %[[MF:.*]] = llvm.uitofp %[[M]] : vector<1xi1> to vector<1xf32>
// CHECK: %[[E:.*]] = llvm.extractelement %[[MF]]
// CHECK: %[[BITS:.*]] = nvvm.convert.float.to.tf32 %[[E]] {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK: %[[X:.*]] = llvm.bitcast %[[BITS]] : i32 to f32
// CHECK: %[[TF:.*]] = llvm.insertelement %[[X]]
// tf32 -> f32 keeps the bits.
// CHECK: llvm.extractelement %[[TF]]
// CHECK: llvm.store
tile.kernel @convert(%v: !tile.view<1, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %v[%c0] : !tile.view<1, f32> -> tensor<32xf32>
  %b = tile.convert %t : tensor<32xf32> -> tensor<32xbf16>
  %h = tile.convert %b : tensor<32xbf16> -> tensor<32xf16>
  %i = tile.convert %h : tensor<32xf16> -> tensor<32xi32>
  %m = tile.convert %i : tensor<32xi32> -> tensor<32xi1>
  %f = tile.convert %m : tensor<32xi1> -> tensor<32xf32>
  %x = tile.convert %f : tensor<32xf32> -> tensor<32xtf32>
  %y = tile.convert %x : tensor<32xtf32> -> tensor<32xf32>
  tile.store %y, %v[%c0] : tensor<32xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// f32 to bf16 or f16 with an even number of registers: cvt.rn.bf16x2.f32
// (cvt.rn.f16x2.f32) per pair, the intrinsic's first operand the pair's
// second element (the upper half); the same rounding as fptrunc.
// CHECK-LABEL: llvm.func @convert_pairs(
// CHECK: %[[T:.*]] = llvm.insertelement %{{.*}}[%c1_i32 : i32] : vector<2xf32>
// CHECK: %[[T1:.*]] = llvm.extractelement %[[T]][%c1_i32{{.*}} : i32] : vector<2xf32>
// CHECK: %[[T0:.*]] = llvm.extractelement %[[T]][%c0_i32{{.*}} : i32] : vector<2xf32>
// CHECK: llvm.call_intrinsic "llvm.nvvm.ff2bf16x2.rn"(%[[T1]], %[[T0]]) : (f32, f32) -> vector<2xbf16>
// CHECK-NOT: llvm.fptrunc
// CHECK: llvm.call_intrinsic "llvm.nvvm.ff2f16x2.rn"(%{{.*}}, %{{.*}}) : (f32, f32) -> vector<2xf16>
// CHECK-NOT: llvm.fptrunc
// CHECK: llvm.store
tile.kernel @convert_pairs(%v: !tile.view<1, f32>, %b: !tile.view<1, bf16>,
                           %h: !tile.view<1, f16>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %v[%c0] : !tile.view<1, f32> -> tensor<64xf32>
  %tb = tile.convert %t : tensor<64xf32> -> tensor<64xbf16>
  %th = tile.convert %t : tensor<64xf32> -> tensor<64xf16>
  tile.store %tb, %b[%c0] : tensor<64xbf16>, !tile.view<1, bf16>
  tile.store %th, %h[%c0] : tensor<64xf16>, !tile.view<1, f16>
  tile.return
}
