// tilegpu.interior_copies (tile-to-llvm interior-copies=true, which has
// tilegpu-pipeline mark its copies): the lowering of an async copy branches
// on whether the whole box lies inside the view (per view dim, size - origin
// >= the box's extent); inside, each 16-byte run copies with no compare and
// no src-size select; at the view's edges, the checked copies (the default
// lowering, RUN line 2).
// RUN: tile-opt %s --tile-to-llvm="codegen=layouts vectorize=true interior-copies=true" | FileCheck %s
// RUN: tile-opt %s --tile-to-llvm="codegen=layouts vectorize=true" | FileCheck %s --check-prefix=DEFAULT

// A: 32 x 16 bf16 over one warp, two 16-byte runs per thread.
// CHECK-LABEL: llvm.func @mma_operand_runs(
// CHECK: %[[SIXTEEN:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK: %[[ROWS:.*]] = llvm.icmp "sge" %{{.*}}, %{{.*}} : i64
// CHECK: %[[COLS:.*]] = llvm.icmp "sge" %{{.*}}, %{{.*}} : i64
// CHECK: %[[INSIDE:.*]] = llvm.and %{{.*}}, %[[COLS]] : i1
// CHECK: llvm.cond_br %[[INSIDE]], ^[[UNCHECKED:.*]], ^[[CHECKED:.*]]
// CHECK: ^[[UNCHECKED]]:
// CHECK-NOT: llvm.select
// CHECK-NOT: llvm.icmp
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %[[SIXTEEN]]
// CHECK-NOT: llvm.select
// CHECK-NOT: llvm.icmp
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %[[SIXTEEN]]
// CHECK: ^[[CHECKED]]:
// CHECK: %[[SRC:.*]] = llvm.select %{{.*}}, %{{.*}}, %arg0 : i1, !llvm.ptr<1>
// CHECK: %[[SIZE:.*]] = llvm.select %{{.*}}, %[[SIXTEEN]], %{{.*}} : i1, i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %[[SRC]], 16, cache =  cg, %[[SIZE]]
// CHECK: llvm.select
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// DEFAULT-LABEL: llvm.func @mma_operand_runs(
// DEFAULT-NOT: llvm.icmp "sge"
// DEFAULT-NOT: llvm.cond_br
// DEFAULT: llvm.select
// DEFAULT: nvvm.cp.async.shared.global
// DEFAULT: llvm.select
// DEFAULT: nvvm.cp.async.shared.global
// DEFAULT-NEXT: nvvm.cp.async.commit.group
tile.kernel @mma_operand_runs(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x16xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x8xbf16>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<32x8xf32>
  %d = tile.mma %ta, %tb, %tc : tensor<32x16xbf16>, tensor<16x8xbf16>, tensor<32x8xf32>
  tile.store %d, %c[%c0, %c0] : tensor<32x8xf32>, !tile.view<2, f32>
  tile.return
}
