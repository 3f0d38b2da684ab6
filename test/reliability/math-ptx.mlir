// REQUIRES: ptxas
// c01, c01b end to end: the libdevice functions are linked and inlined, no
// call is left in the PTX, and ptxas accepts it (the reproducers' command
// aborted with "LLVM ERROR: Cannot select").

// RUN: split-file %s %t
// RUN: tilec %t/sin.mlir --emit=ptx --target=sm_90 -o - | FileCheck %s --check-prefix=SIN
// RUN: tilec %t/sin.mlir --emit=cubin --target=sm_90 -o %t/sin.cubin
// RUN: tilec %t/powf.mlir --emit=ptx --target=sm_90 -o - | FileCheck %s --check-prefix=POWF
// RUN: tilec %t/powf.mlir --emit=cubin --target=sm_80 -o %t/powf.cubin

// SIN-LABEL: .entry k(
// SIN-NOT: call
// SIN-NOT: __nv_sinf
// SIN: st.global
// POWF-LABEL: .entry k(
// POWF-NOT: call
// POWF: st.global

//--- sin.mlir
tile.kernel @k(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>) {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> tensor<128xf32>
  %r = math.sin %t : tensor<128xf32>
  tile.store %r, %y[%i] : tensor<128xf32>, !tile.view<1, f32>
  tile.return
}

//--- powf.mlir
tile.kernel @k(%y: !tile.view<1, f32>, %s: f32) {
  %i = tile.block_id x
  %p = math.powf %s, %s : f32
  %t = tile.full %p : tensor<128xf32>
  tile.store %t, %y[%i] : tensor<128xf32>, !tile.view<1, f32>
  tile.return
}
