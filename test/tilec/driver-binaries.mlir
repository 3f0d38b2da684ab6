// REQUIRES: ptxas
// Cubins and fatbins of kernels/examples/scale.mlir: ptxas accepts the PTX
// of every target.

// RUN: tilec %tilec_src/kernels/examples/scale.mlir --emit=cubin -o %t.sm80.cubin
// RUN: tilec %tilec_src/kernels/examples/scale.mlir --emit=cubin --target=sm_90a -o %t.sm90a.cubin
// RUN: tilec %tilec_src/kernels/examples/scale.mlir --emit=cubin --target=sm_100a -o %t.sm100a.cubin
// RUN: od -A n -t x1 -N 4 %t.sm100a.cubin | FileCheck %s --check-prefix=ELF
// ELF: 7f 45 4c 46

// RUN: tilec %tilec_src/kernels/examples/scale.mlir -D BLOCK=1024 --emit=fatbin -o %t.fatbin
// RUN: od -A n -t x4 -N 4 %t.fatbin | FileCheck %s --check-prefix=FATBIN
// FATBIN: ba55ed50
