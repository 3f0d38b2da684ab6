// RUN: not tilec %t.does-not-exist.mlir 2>&1 | FileCheck %s
// RUN: not tilec %s -o %t.no-such-dir/out.mlir 2>&1 | FileCheck %s --check-prefix=OUTPUT

// CHECK: tilec: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// OUTPUT: tilec: cannot open output file '{{.*}}no-such-dir/out.mlir'

tile.kernel @empty() {
  tile.return
}
