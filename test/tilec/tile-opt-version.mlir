// tile-opt --version names the tilec version after LLVM's banner.

// RUN: tile-opt --version | FileCheck %s -DVERSION=%tilec_version -DLLVM=%llvm_version
// CHECK: LLVM version [[LLVM]]
// CHECK: tile-opt from tilec [[VERSION]]{{$}}

tile.kernel @empty() {
  tile.return
}
