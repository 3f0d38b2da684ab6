// tilec --version prints tilec's version (project(VERSION) in CMakeLists.txt)
// and the LLVM and MLIR it was built with, instead of LLVM's own banner.

// RUN: tilec --version | FileCheck %s -DVERSION=%tilec_version -DLLVM=%llvm_version --implicit-check-not="Optimized build" --implicit-check-not="Default target"
// CHECK: {{^}}tilec [[VERSION]]{{$}}
// CHECK-NEXT: {{^}}  built with LLVM and MLIR [[LLVM]]{{$}}

tile.kernel @empty() {
  tile.return
}
