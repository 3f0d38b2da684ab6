// RUN: tile-opt %s --split-input-file --convert-tile-to-llvm | FileCheck %s
// RUN: tilec %s --emit=ptx --target=sm_90 -o - | FileCheck %s --check-prefix=PTX

// `occupancy` is the CTAs per multiprocessor ptxas must leave room for:
// nvvm.minctasm, PTX .minnctapersm, beside the block size.
// CHECK-LABEL: llvm.func @two_per_sm(
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK-SAME: nvvm.minctasm = 2 : i32
// PTX-LABEL: .entry two_per_sm(
// PTX: .maxntid 256, 1, 1
// PTX-NEXT: .minnctapersm 2
tile.kernel @two_per_sm(%x: !tile.view<1, f32>) warps 8 occupancy 2 {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> !tile.tile<256 x f32>
  tile.store %t, %x[%i] : !tile.tile<256 x f32>, !tile.view<1, f32>
  tile.return
}

// -----

// The default, one CTA, leaves ptxas free: no minimum.
// CHECK-LABEL: llvm.func @one_per_sm(
// CHECK-NOT: nvvm.minctasm
// CHECK: llvm.return
// PTX-LABEL: .entry one_per_sm(
// PTX: .maxntid 128, 1, 1
// PTX-NOT: .minnctapersm
// PTX: ret;
tile.kernel @one_per_sm(%x: !tile.view<1, f32>) {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> !tile.tile<128 x f32>
  tile.store %t, %x[%i] : !tile.tile<128 x f32>, !tile.view<1, f32>
  tile.return
}
