// REQUIRES: ptxas, zstd
// Cubins and fatbins of kernels/examples/scale.mlir: ptxas accepts the PTX
// of every target, each cubin holds the kernel, and the fatbin holds the
// default targets' cubins (sm_80, sm_90, sm_90a) and PTX, each with the
// variants asked for (listed by test/Target/Inputs/list-fatbin.py
// as cuobjdump --list-elf/--list-ptx would).
// DEFINE: %{list} = python3 %tilec_src/test/Target/Inputs/list-fatbin.py

// RUN: tilec %tilec_src/kernels/examples/scale.mlir --emit=cubin -o %t.sm80.cubin
// RUN: tilec %tilec_src/kernels/examples/scale.mlir --emit=cubin --target=sm_90a -o %t.sm90a.cubin
// RUN: tilec %tilec_src/kernels/examples/scale.mlir --emit=cubin --target=sm_100a -o %t.sm100a.cubin
// RUN: od -A n -t x1 -N 4 %t.sm100a.cubin | FileCheck %s --check-prefix=ELF
// ELF: 7f 45 4c 46
// RUN: %{list} --cubin %t.sm80.cubin | FileCheck %s --check-prefix=CUBIN
// RUN: %{list} --cubin %t.sm90a.cubin | FileCheck %s --check-prefix=CUBIN
// RUN: %{list} --cubin %t.sm100a.cubin | FileCheck %s --check-prefix=CUBIN
// CUBIN: elf machine 190 kernels: scale

// RUN: tilec %tilec_src/kernels/examples/scale.mlir -D BLOCK=1024 --emit=fatbin --variants=generic,vec -o %t.fatbin
// RUN: od -A n -t x4 -N 4 %t.fatbin | FileCheck %s --check-prefix=FATBIN
// FATBIN: ba55ed50
// RUN: %{list} %t.fatbin | FileCheck %s --check-prefix=IMAGES
// IMAGES: elf sm_80 kernels: scale scale_vec
// IMAGES-NEXT: elf sm_90 kernels: scale scale_vec
// IMAGES-NEXT: elf sm_90a kernels: scale scale_vec
// IMAGES-NEXT: ptx sm_80 entries: scale scale_vec
// IMAGES-NOT: {{.}}

// The variants a fatbin holds are --variants'; by default the generic one
// alone with the simple code generator (which ignores the vectorize facts),
// both with --codegen=layouts. The one-target kinds compile one variant, the
// generic one by default.
// RUN: tilec %tilec_src/kernels/examples/scale.mlir --target=sm_80 --emit=fatbin -o %t.generic.fatbin
// RUN: %{list} %t.generic.fatbin | FileCheck %s --check-prefix=GENERIC
// RUN: tilec %tilec_src/kernels/examples/scale.mlir --codegen=layouts --target=sm_80 --emit=fatbin -o %t.layouts.fatbin
// RUN: %{list} %t.layouts.fatbin | FileCheck %s --check-prefix=LAYOUTS
// LAYOUTS: elf sm_80 kernels: scale scale_vec
// RUN: tilec %tilec_src/kernels/examples/scale.mlir --variants=generic --codegen=layouts --target=sm_80 --emit=fatbin -o %t.generic.fatbin
// RUN: %{list} %t.generic.fatbin | FileCheck %s --check-prefix=GENERIC
// GENERIC: elf sm_80 kernels: scale{{$}}
// GENERIC-NEXT: ptx sm_80 entries: scale{{$}}
// RUN: tilec %tilec_src/kernels/examples/scale.mlir --variants=vec --emit=cubin -o %t.vec.cubin
// RUN: %{list} --cubin %t.vec.cubin | FileCheck %s --check-prefix=VEC
// VEC: elf machine 190 kernels: scale_vec{{$}}

// Each image names its target in @tilec_image_target, which the runtime
// reads back to say which cubin the driver picked.
// RUN: tilec %tilec_src/kernels/examples/scale.mlir --emit=ptx --target=sm_90a | FileCheck %s --check-prefix=MARKER
// MARKER: .visible .global .align 1 .b8 tilec_image_target[7] = {115, 109, 95, 57, 48, 97};
