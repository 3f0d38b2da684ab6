// Driver errors on tile input: invalid IR, unknown targets, unwritable
// outputs. Each is reported with a non-zero exit status.

// RUN: not tilec %s --emit=ptx 2>&1 | FileCheck %s --check-prefix=INVALID
// INVALID: driver-errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error:

// RUN: not tilec %tilec_src/kernels/examples/scale.mlir --emit=fatbin --target=sm_75 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: tilec: --target: unknown target 'sm_75'

// RUN: not tilec %tilec_src/kernels/examples/scale.mlir --emit=cpp -o /nonexistent/dir/scale 2>&1 | FileCheck %s --check-prefix=OUTPUT
// OUTPUT: tilec: cannot open output file '/nonexistent/dir/scale.h'

tile.kernel @broken(%x: !tile.view<1, f32>) {
  %i = tile.block_id w
  tile.return
}
