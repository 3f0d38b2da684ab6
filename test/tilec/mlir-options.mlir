// The MLIR debugging options --help lists take effect in tilec's pass
// pipelines.

// RUN: tilec %s --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// PRINT: IR Dump After TileBindParams
// PRINT: IR Dump After Canonicalizer
// PRINT: tile.kernel @empty

// RUN: tilec %s --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING
// TIMING: Execution time report
// TIMING: Total Execution Time

tile.kernel @empty() {
  tile.return
}
