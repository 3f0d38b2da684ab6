// tile.any_strides through parameter binding: tile-bind-params rewrites the
// kernel's signature (here an element-type parameter, XT = f32, and an
// extent), and the attribute must stay on the view it marks, or the vec
// variant would read a stride-0 view (a broadcast D) 16 bytes at a time.
// RUN: tile-opt %s --tile-bind-params --tile-to-llvm="codegen=layouts vectorize=true" | FileCheck %s
// RUN: tile-opt %s --tile-bind-params | FileCheck %s --check-prefix=BOUND

// BOUND-LABEL: tile.kernel @scale_rows
// BOUND-SAME: (%{{.*}}: !tile.view<2, f32> {tile.any_strides}, %{{.*}}: !tile.view<2, f32>, %{{.*}}: !tile.view<2, f32>)

// 16 x 64 f32 on 2 warps: 16 elements per thread. The marked view is read an
// element at a time, the other 16 bytes at a time (by cp.async: its tile goes
// through shared memory to meet D's layout, tilegpu-pipeline); the store is
// vectorised.
// CHECK-LABEL: llvm.func @scale_rows(
// CHECK-COUNT-16: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK-NOT: !llvm.ptr<1> -> f32
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: llvm.return
tile.kernel @scale_rows<ROWS = 16, XT : type = f32>(
    %d: !tile.view<2, XT> {tile.any_strides}, %x: !tile.view<2, XT>,
    %y: !tile.view<2, f32>) warps 2 {
  %i = tile.block_id x
  %dt = tile.load %d[%i, 0] : !tile.view<2, XT> -> !tile.tile<ROWS x 64 x XT>
  %xt = tile.load %x[%i, 0] : !tile.view<2, XT> -> !tile.tile<ROWS x 64 x XT>
  %df = tile.convert %dt : !tile.tile<ROWS x 64 x XT> -> !tile.tile<ROWS x 64 x f32>
  %xf = tile.convert %xt : !tile.tile<ROWS x 64 x XT> -> !tile.tile<ROWS x 64 x f32>
  %r = arith.mulf %df, %xf : !tile.tile<ROWS x 64 x f32>
  tile.store %r, %y[%i, 0] : !tile.tile<ROWS x 64 x f32>, !tile.view<2, f32>
  tile.return
}
