// REQUIRES: ptxas
// Calls to libdevice (__nv_*) are linked from the toolkit's libdevice.10.bc
// and inlined: no call is left in the PTX, and ptxas accepts it.

// RUN: tilec %s --emit=ptx | FileCheck %s
// RUN: tilec %s --emit=cubin -o %t.cubin

// CHECK: .entry exp(
// CHECK-NOT: __nv_expf
// CHECK: ex2.approx
// CHECK-NOT: call

module {
  llvm.func @__nv_expf(f32) -> f32
  llvm.func @exp(%x: !llvm.ptr<1>) attributes {nvvm.kernel,
      tile.num_warps = 1 : i32, tile.shared_bytes = 0 : i64} {
    %v = llvm.load %x : !llvm.ptr<1> -> f32
    %e = llvm.call @__nv_expf(%v) : (f32) -> f32
    llvm.store %e, %x : f32, !llvm.ptr<1>
    llvm.return
  }
}
