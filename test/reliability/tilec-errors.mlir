// The reproducers' own command (tilec FILE --emit=ptx --target=sm_90): each
// is a located error with exit status 1, no crash.
// RUN: split-file %s %t

// c03 through tilec (the verifier crashed with SIGSEGV).
// RUN: not tilec %t/warps.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARPS
// WARPS: warps.mlir:1:1: error: 'tile.kernel' op attribute 'num_warps' failed to satisfy constraint: 32-bit signless integer attribute

// c06 through tilec, and through --kernel-suffix (LLVM aborted: "Symbol name
// with unsupported characters"). A suffix of letters, digits and '_' works.
// RUN: not tilec %t/dash.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=DASH
// DASH: dash.mlir:1:1: error: 'tile.kernel' op name 'a-b' is not a PTX and C++ identifier
// RUN: not tilec %t/plain.mlir --kernel-suffix=-v2 --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUFFIX
// SUFFIX: plain.mlir:1:1: error: --kernel-suffix=-v2 makes 'k-v2', which is not a PTX and C++ identifier: the suffix may hold letters, digits and '_'
// RUN: tilec %t/plain.mlir --kernel-suffix=_v2 --emit=ptx --target=sm_90 -o - | FileCheck %s --check-prefix=SUFFIX-OK
// SUFFIX-OK: .entry k_v2(

// c04 with the parameter bound on the command line.
// RUN: not tilec %t/param.mlir -D B=9223372036854775807 --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: param.mlir:{{[0-9]+}}:{{[0-9]+}}: error: a 9223372036854775807 f32 tile needs 72057594037927936 registers per thread

// s02 as the reproducer has it: the empty tile is rejected before binding.
// RUN: not tilec %t/reshape.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=RESHAPE
// RUN: not tilec %t/reshape.mlir -D B=1 --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=RESHAPE
// RESHAPE: reshape.mlir:4:8: error: tile extents must be positive, not 0 f32 tile

// s01: a kernel inside a nested module was dropped (PTX with no .entry).
// RUN: not tilec %t/nested.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: nested.mlir:3:5: error: 'tile.kernel' op is inside a nested module: only the kernels at the top level of the file are compiled

// s07: a permute needing 256 KiB of shared memory compiled; only the launch
// failed. Every emit kind past the lowering checks the target's limit.
// RUN: not tilec %t/permute.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not tilec %t/permute.mlir --emit=cubin --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not tilec %t/permute.mlir --emit=cpp --target=sm_80,sm_90 -o %t/permute 2>&1 | FileCheck %s --check-prefix=SHARED-80
// SHARED: permute.mlir:2:1: error: kernel @k needs 262144 bytes of shared memory (256 KiB), more than the 232448 (227 KiB) a CTA has on sm_90: use smaller tiles
// SHARED-80: error: kernel @k needs 262144 bytes of shared memory (256 KiB), more than the 166912 (163 KiB) a CTA has on sm_80
// The limit is the target's: 128 KiB fit sm_90 and sm_80, not sm_86.
// RUN: tilec %t/permute.mlir -D R=128 --emit=llvm-dialect --target=sm_90 -o - | FileCheck %s --check-prefix=FITS
// RUN: not tilec %t/permute.mlir -D R=128 --emit=llvm-dialect --target=sm_86 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM86
// FITS: tile.shared_bytes = 131072
// SM86: error: kernel @k needs 131072 bytes of shared memory (128 KiB), more than the 101376 (99 KiB) a CTA has on sm_86

// Also seen: matmul -D BM=3 -D BN=256 -D BK=256 took 37 s to compile; its
// 256x256 f32 tile is too large for 128 threads' registers.
// RUN: not tilec %tilec_src/test/gpu/kernels/matmul.mlir -D BM=3 -D BN=256 -D BK=256 --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=MATMUL
// MATMUL: error: a 256x256 f32 tile needs 512 registers per thread with num_warps = 4, more than the 255

// Tiles that fit the registers can still unroll to more straight-line code
// than LLVM and ptxas compile in bounded time (a libdevice call counts 32).
// RUN: not tilec %t/unrolled.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNROLLED
// UNROLLED: unrolled.mlir:1:1: error: 'tile.kernel' op unrolls to about 8926 element operations per thread, more than the 4096 tilec compiles in bounded time

//--- warps.mlir
tile.kernel @k() attributes {num_warps = unit} {
  tile.return
}

//--- dash.mlir
tile.kernel @"a-b"() {
  tile.return
}

//--- plain.mlir
tile.kernel @k() {
  tile.return
}

//--- param.mlir
tile.kernel @k(%y: !tile.view<1, f32>, %s: f32) attributes {params = {B = 128 : i64}} {
  %i = tile.block_id x
  %t = tile.full %s : tensor<?xf32, #tile.dims<[B]>>
  tile.store %t, %y[%i] : tensor<?xf32, #tile.dims<[B]>>, !tile.view<1, f32>
  tile.return
}

//--- reshape.mlir
// 2^32 x 2^32 elements "equal" 0 elements: the reshape verifies; then broadcast/store the tile
tile.kernel @k(%y: !tile.view<2, f32>, %s: f32) attributes {params = {B = 4294967296 : i64}} {
  %i = tile.block_id x
  %z = tile.full %s : tensor<0xf32>
  %t = tile.reshape %z : tensor<0xf32> -> tensor<?x?xf32, #tile.dims<[B, B]>>
  tile.store %t, %y[%i, %i] : tensor<?x?xf32, #tile.dims<[B, B]>>, !tile.view<2, f32>
  tile.return
}

//--- nested.mlir
module {
  module @inner {
    tile.kernel @k(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>) {
      %i = tile.block_id x
      %t = tile.load %x[%i] : !tile.view<1, f32> -> tensor<128xf32>
      tile.store %t, %y[%i] : tensor<128xf32>, !tile.view<1, f32>
      tile.return
    }
  }
}

//--- permute.mlir
// permute of a 256x256 f32 tile needs 256 KiB of shared scratch (> 227 KiB on sm_90)
tile.kernel @k(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>) attributes {num_warps = 32 : i32, params = {R = 256 : i64}} {
  %i = tile.block_id x
  %t = tile.load %x[%i, %i] : !tile.view<2, f32> -> tensor<?x256xf32, #tile.dims<[R, 256]>>
  %p = tile.permute %t [1, 0] : tensor<?x256xf32, #tile.dims<[R, 256]>> -> tensor<256x?xf32, #tile.dims<[256, R]>>
  tile.store %p, %y[%i, %i] : tensor<256x?xf32, #tile.dims<[256, R]>>, !tile.view<2, f32>
  tile.return
}

//--- unrolled.mlir
tile.kernel @k(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>) attributes {num_warps = 8 : i32} {
  %i = tile.block_id x
  %t = tile.load %x[%i, %i] : !tile.view<2, f32> -> tensor<256x255xf32>
  %e = tile.exp2 %t : tensor<256x255xf32>
  %s = math.sin %e : tensor<256x255xf32>
  tile.store %s, %y[%i, %i] : tensor<256x255xf32>, !tile.view<2, f32>
  tile.return
}
