// The layout passes on the three bound Mamba-2 kernels: the mma
// accumulators stay in one mma.sync layout across their loops (no conversion
// of an accumulator inside a loop), and global loads and stores move 16
// bytes per thread along each view's innermost dimension. (No canonicalize
// before the layout passes: it would remove compute_out's column loop where
// it has one iteration, and the loop is what the checks look at.)
// RUN: tile-opt --tile-bind-params="params=CHUNK=64" --tile-expand-forms --tilegpu-assign-layouts --tilegpu-remove-layout-conversions --mlir-print-local-scope %tilec_src/kernels/mamba2/compute_out.mlir | FileCheck %s --check-prefix=CO -DBM=64 -DBK=64 -DBP=64 -DBN=64
// RUN: tile-opt --tile-bind-params="params=CHUNK=128,BLOCK_M=32,BLOCK_K=16,BLOCK_P=32,BLOCK_N=128" --tile-expand-forms --tilegpu-assign-layouts --tilegpu-remove-layout-conversions --mlir-print-local-scope %tilec_src/kernels/mamba2/compute_out.mlir | FileCheck %s --check-prefix=CO -DBM=32 -DBK=16 -DBP=32 -DBN=128
// RUN: tile-opt --tile-bind-params="params=CHUNK=256,BLOCK_M=128,BLOCK_K=64" --tile-expand-forms --tilegpu-assign-layouts --tilegpu-remove-layout-conversions --mlir-print-local-scope %tilec_src/kernels/mamba2/compute_out.mlir | FileCheck %s --check-prefix=CO -DBM=128 -DBK=64 -DBP=64 -DBN=64
// RUN: tile-opt --tile-bind-params="params=CHUNK=128,BLOCK_M=128,BLOCK_K=32,BLOCK_P=64,BLOCK_N=64,WARPS=8" --tile-expand-forms --tilegpu-assign-layouts="sm=90" --tilegpu-remove-layout-conversions --mlir-print-local-scope %tilec_src/kernels/mamba2/compute_out.mlir | FileCheck %s --check-prefix=CO90
// RUN: tile-opt --tile-bind-params="params=CHUNK=128" --tile-expand-forms --tilegpu-assign-layouts --tilegpu-remove-layout-conversions --mlir-print-local-scope %tilec_src/kernels/mamba2/fwd_pass_state.mlir | FileCheck %s --check-prefix=FPS
// RUN: tile-opt --tile-bind-params="params=CHUNK=128,BLOCK_H=4" --tile-expand-forms --tilegpu-assign-layouts --tilegpu-remove-layout-conversions --mlir-print-local-scope %tilec_src/kernels/mamba2/chunk_cumsum.mlir | FileCheck %s --check-prefix=CC -DCHUNK=128 -DBH=4

// An mma.sync accumulator layout starts with the m16n8 C fragment's
// registers (columns 2t and 2t+1, rows g and g+8) and lanes (t, then g).

// compute_out. The state term exp2(G_i) * (C h^T) accumulates over dstate:
// CO-LABEL: kernel @compute_out
// CO: scf.for {{.*}} iter_args(%[[SACC:[a-z0-9_]+]] = %{{.*}}) -> (tensor<[[BM]]x[[BP]]xf32, [[OUT:#tilegpu.dist<register = \[\[0, 1\], \[8, 0\].*lane = \[\[0, 2\], \[0, 4\], \[1, 0\], \[2, 0\], \[4, 0\]\].*>]]>)
// CO-NOT: convert_layout %[[SACC]]
// The state's split bf16 halves, the low one first, on one running sum.
// CO: %[[SLO:[0-9]+]] = tile.mma %{{.*}}, %{{.*}}, %[[SACC]] :
// CO: %[[S:[0-9]+]] = tile.mma %{{.*}}, %{{.*}}, %[[SLO]] :
// CO-NEXT: scf.yield %[[S]] : tensor<[[BM]]x[[BP]]xf32, [[OUT]]>
// This chunk: the output accumulator is carried across the column tiles...
// CO: scf.for {{.*}} iter_args(%[[ACC:[a-z0-9_]+]] = %{{.*}}) -> (tensor<[[BM]]x[[BP]]xf32, [[OUT]]>)
// CO-NOT: convert_layout %[[ACC]]
// ... and bmm_chunk's C B^T tile is read 4 f32 per thread along its
// contiguous dim, with no loop nested in the column loop.
// CO-NOT: scf.for
// CO: tile.load {{.*}} : <5, f32> -> tensor<1x1x1x[[BM]]x[[BK]]xf32, #tilegpu.dist<register = {{\[}}[0, 0, 0, 0, 1], [0, 0, 0, 0, 2]{{[],]}}
// CO-NOT: scf.for
// CO-NOT: convert_layout %[[ACC]]
// CO: tile.load {{.*}} -> tensor<1x[[BK]]x1x[[BP]]xbf16, #tilegpu.dist<register = {{\[}}[0, 0, 0, 1], [0, 0, 0, 2], [0, 0, 0, 4]{{[],]}}
// CO-NOT: convert_layout %[[ACC]]
// The weights' split bf16 halves, the low one first, on one running sum.
// CO: %[[LO:[0-9]+]] = tile.mma %{{.*}}, %{{.*}}, %[[ACC]] :
// CO: %[[N:[0-9]+]] = tile.mma %{{.*}}, %{{.*}}, %[[LO]] :
// CO-NEXT: scf.yield %[[N]] : tensor<[[BM]]x[[BP]]xf32, [[OUT]]>
// The output: 4 f32 per thread.
// CO: store {{.*}} : tensor<1x[[BM]]x1x[[BP]]xf32, #tilegpu.dist<register = {{\[}}[0, 0, 0, 1], [0, 0, 0, 2]{{[],]}}

// compute_out on sm_90a (the c128 instance's tiles): the weights are formed
// in the wgmma A-fragment layout (per warp the m16n8k16 A fragment, warps
// on rows 16 w, the second warpgroup on rows 64..127), from C B^T read in
// it (pairs of f32 along K per thread) to both bf16 halves, which wgmma
// reads from registers: no conversion in the column loop.
// CO90-LABEL: kernel @compute_out
// CO90: scf.for
// CO90: scf.for {{.*}} iter_args(%[[ACC:[a-z0-9_]+]] = %{{.*}})
// CO90-NOT: convert_layout
// CO90: tile.load {{.*}} : <5, f32> -> tensor<1x1x1x128x32xf32, #tilegpu.dist<register = {{\[}}[0, 0, 0, 0, 1], [0, 0, 0, 8, 0], [0, 0, 0, 0, 8], [0, 0, 0, 0, 16]], lane = {{\[}}[0, 0, 0, 0, 2], [0, 0, 0, 0, 4], [0, 0, 0, 1, 0], [0, 0, 0, 2, 0], [0, 0, 0, 4, 0]], warp = {{\[}}[0, 0, 0, 16, 0], [0, 0, 0, 32, 0], [0, 0, 0, 64, 0]]>>
// CO90-NOT: convert_layout
// CO90: %[[LO:[0-9]+]] = tile.mma %{{.*}}, %{{.*}}, %[[ACC]] {tilegpu.wgmma} : tensor<128x32xbf16, [[A:#tilegpu.dist<register = \[\[0, 1\], \[8, 0\], \[0, 8\], \[0, 16\]\], lane = \[\[0, 2\], \[0, 4\], \[1, 0\], \[2, 0\], \[4, 0\]\], warp = \[\[16, 0\], \[32, 0\], \[64, 0\]\]>]]>
// CO90-NEXT: tile.mma %{{.*}}, %{{.*}}, %[[LO]] {tilegpu.wgmma} : tensor<128x32xbf16, [[A]]>

// fwd_pass_state: the state carried across chunks, and across the time
// steps of a chunk, in the mma layout; X read 8 bf16 per thread.
// FPS-LABEL: kernel @fwd_pass_state
// FPS: %[[STATE:[0-9]+]] = scf.for {{.*}} iter_args(%[[ST:[a-z0-9_]+]] = %{{.*}}) -> (tensor<64x64xf32, [[MMA:#tilegpu.dist<register = \[\[0, 1\], \[8, 0\].*lane = \[\[0, 2\], \[0, 4\], \[1, 0\], \[2, 0\], \[4, 0\]\].*>]]>)
// FPS: %[[INNER:[0-9]+]] = scf.for {{.*}} iter_args(%[[ACC:[a-z0-9_]+]] = %{{.*}}) -> (tensor<64x64xf32, [[MMA]]>)
// FPS-NOT: convert_layout %[[ACC]]
// FPS: tile.load {{.*}} -> tensor<1x64x1x64xbf16, #tilegpu.dist<register = {{\[}}[0, 0, 0, 1], [0, 0, 0, 2], [0, 0, 0, 4]{{[],]}}
// FPS-NOT: convert_layout %[[ACC]]
// FPS: %[[LO:[0-9]+]] = tile.mma %{{.*}}, %{{.*}}, %[[ACC]] : {{.*}}, tensor<64x64xf32, [[MMA]]>
// FPS: %[[N:[0-9]+]] = tile.mma %{{.*}}, %{{.*}}, %[[LO]] : {{.*}}, tensor<64x64xf32, [[MMA]]>
// FPS-NEXT: scf.yield %[[N]] : tensor<64x64xf32, [[MMA]]>
// FPS-NEXT: }
// FPS-NEXT: scf.yield %[[INNER]] : tensor<64x64xf32, [[MMA]]>

// chunk_cumsum: dt read 4 f32 per thread (BLOCK_H = 4 heads), and the
// scan runs in the loaded layout: rows in lanes and warps only.
// CC-LABEL: kernel @chunk_cumsum
// CC: load {{.*}} -> tensor<1x[[CHUNK]]x[[BH]]xf32, #tilegpu.dist<register = {{\[}}[0, 0, 1], [0, 0, 2]], lane = {{\[}}[0, 1, 0],
// CC-NOT: convert_layout
// CC: cumsum %{{.*}} axis = 0 : tensor<[[CHUNK]]x[[BH]]xf32, #tilegpu.dist<register = {{\[}}[0, 1], [0, 2]], lane
