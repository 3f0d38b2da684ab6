// Compile time is bounded: no input of at most 1 MiB may take more than
// 30 s. c05 (a 4096x4096 f32 load and store) grew tilec's memory without
// bound; matmul -D BM=3 -D BN=256 -D BK=256 (tilec-errors.mlir) took 37 s; a
// 256x256 f32 exp2 at --emit=cpp more than 30 s. Tiles are bounded by the
// registers of a thread, and the straight-line code of one kernel and of all
// the kernels of a file by 4096 element operations per thread
// (docs/codegen.md, "Limits"). `timeout 20` fails a run that takes longer.

// RUN: split-file %s %t
// c05 through tilec: rejected up front, with the numbers.
// RUN: not timeout 20 tilec %t/c05.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=C05
// C05-LABEL: c05.mlir:3:8: error: a 4096x4096 f32 tile needs 131072 registers per thread with num_warps = 4, more than the 255 a thread of a program of 128 threads has: use smaller tiles or more warps

// The 256x256 f32 exp2 with enough warps for its registers compiles for two
// targets at --emit=cpp (LLVM, the NVPTX backend and ptxas twice) in bounded time.
// RUN: timeout 20 tilec %t/exp2.mlir --emit=cpp --target=sm_80,sm_90 -o %t/exp2
// RUN: FileCheck %s --check-prefix=EXP2 < %t/exp2.h
// EXP2-LABEL: k(

// Many kernels, each within the bound, used to add up: 22 copies of that
// kernel (193 operations per thread each) pass 4096 at the 22nd.
// RUN: %python -c "import sys; src = open('%t/exp2.mlir').read(); sys.stdout.write(''.join(src.replace('@k(', '@k%%d(' %% i) for i in range(22)))" > %t/many.mlir
// RUN: not timeout 20 tilec %t/many.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=MANY
// MANY-LABEL: many.mlir:148:1: error: 'tile.kernel' op brings the kernels of this file to about 4246 element operations per thread in all, more than the 4096 tilec compiles in bounded time: compile the kernels in separate files

// Scalar code counts too: 2000 chained scalar math.sin (libdevice calls,
// 32 each) took 36 s.
// RUN: %python -c "print('tile.kernel @s(%%y: !tile.view<1, f32>, %%s: f32) {\n  %%v0 = math.sin %%s : f32'); [print('  %%v' + str(j) + ' = math.sin %%v' + str(j - 1) + ' : f32') for j in range(1, 2000)]; print('  %%i = tile.block_id x\n  %%t = tile.full %%v1999 : tensor<128xf32>\n  tile.store %%t, %%y[%%i] : tensor<128xf32>, !tile.view<1, f32>\n  tile.return\n}')" > %t/scalar.mlir
// RUN: not timeout 20 tilec %t/scalar.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR-LABEL: scalar.mlir:1:1: error: 'tile.kernel' op unrolls to about 64003 element operations per thread, more than the 4096

//--- c05.mlir
tile.kernel @k(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>) {
  %i = tile.block_id x
  %t = tile.load %x[%i, %i] : !tile.view<2, f32> -> tensor<4096x4096xf32>
  tile.store %t, %y[%i, %i] : tensor<4096x4096xf32>, !tile.view<2, f32>
  tile.return
}

//--- exp2.mlir
tile.kernel @k(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>) attributes {num_warps = 32 : i32} {
  %i = tile.block_id x
  %t = tile.load %x[%i, %i] : !tile.view<2, f32> -> tensor<256x256xf32>
  %e = tile.exp2 %t : tensor<256x256xf32>
  tile.store %e, %y[%i, %i] : tensor<256x256xf32>, !tile.view<2, f32>
  tile.return
}
