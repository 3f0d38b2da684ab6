// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt (operand_conversions*: one case per conversion kind of
// the layouts path).
// RUN: tilec %s --codegen=layouts --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --codegen=layouts --emit=cubin --target=sm_90a -o %t.sm90a.cubin
// RUN: tilec %s --codegen=layouts --variants=vec --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry operand_conversions_vec(
// The loaded operands go global -> shared by cp.async (tilegpu-pipeline) and
// are read from the swizzled buffers by ldmatrix (A plain, B .trans).
// CHECK-DAG: cp.async.cg.shared.global
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK-DAG: shfl.sync.idx.b32
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-DAG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

// One warp, so that conversions stay in the warp where the planner finds
// that cheaper (shfl.sync.idx rounds: the accumulators to the stores'
// layouts, the tf32 operands). The bf16 operands reach their mma.sync
// fragments through shared memory: A by ldmatrix.x4, B by x2 (.trans in the
// vec variant, whose loads are 16 bytes along N; shuffles in the generic
// one).
//   c  = a @ b      a: 16 x 16 bf16, b: 16 x 8 bf16, c: 16 x 8 f32
//   ct = at @ bt    at: 16 x 8 f32, bt: 8 x 8 f32 (tf32 operands)
tile.kernel @operand_conversions(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                                 %c: !tile.view<2, f32>, %at: !tile.view<2, f32>,
                                 %bt: !tile.view<2, f32>, %ct: !tile.view<2, f32>)
    attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<16x8xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x16xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x8xbf16>
  %d = tile.mma %ta, %tb, %zero : tensor<16x16xbf16>, tensor<16x8xbf16>, tensor<16x8xf32>
  tile.store %d, %c[%c0, %c0] : tensor<16x8xf32>, !tile.view<2, f32>
  %tat = tile.load %at[%c0, %c0] : !tile.view<2, f32> -> tensor<16x8xf32>
  %tbt = tile.load %bt[%c0, %c0] : !tile.view<2, f32> -> tensor<8x8xf32>
  %xa = tile.convert %tat : tensor<16x8xf32> -> tensor<16x8xtf32>
  %xb = tile.convert %tbt : tensor<8x8xf32> -> tensor<8x8xtf32>
  %dt = tile.mma %xa, %xb, %zero : tensor<16x8xtf32>, tensor<8x8xtf32>, tensor<16x8xf32>
  tile.store %dt, %ct[%c0, %c0] : tensor<16x8xf32>, !tile.view<2, f32>
  tile.return
}
