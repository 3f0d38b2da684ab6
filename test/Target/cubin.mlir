// REQUIRES: ptxas, zstd
// Cubins through ptxas and fatbins through fatbinary, from a kernel already
// in the LLVM and NVVM dialects. Inputs/list-fatbin.py lists the images of
// a fatbin (and the kernels of a cubin) as cuobjdump --list-elf/--list-ptx
// would.

// The PTX tilec writes is accepted by ptxas itself, and has the kernel.
// RUN: tilec %s --emit=ptx -o %t.ptx
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.ptxas.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX: .target sm_80
// PTX: .visible .entry copy(

// A cubin is a CUDA ELF file (machine 190) with the kernel's code.
// RUN: tilec %s --emit=cubin --target=sm_90a -o %t.cubin
// RUN: od -A n -t x1 -N 4 %t.cubin | FileCheck %s --check-prefix=ELF
// ELF: 7f 45 4c 46
// RUN: python3 %S/Inputs/list-fatbin.py --cubin %t.cubin | FileCheck %s --check-prefix=CUBIN
// CUBIN: elf machine 190 kernels: copy

// The default fatbin holds sm_80, sm_90 and sm_90a cubins and sm_80 PTX (for
// the driver to JIT on newer devices), each with the kernel, and nothing
// else. An already lowered module has no variants.
// RUN: tilec %s --emit=fatbin -o %t.fatbin
// RUN: od -A n -t x4 -N 4 %t.fatbin | FileCheck %s --check-prefix=FATBIN
// FATBIN: ba55ed50
// RUN: python3 %S/Inputs/list-fatbin.py %t.fatbin | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: elf sm_80 kernels: copy{{$}}
// DEFAULT-NEXT: elf sm_90 kernels: copy{{$}}
// DEFAULT-NEXT: elf sm_90a kernels: copy{{$}}
// DEFAULT-NEXT: ptx sm_80 entries: copy{{$}}
// DEFAULT-NOT: {{.}}

// Every target asked for, PTX of the lowest.
// RUN: tilec %s --emit=fatbin --target=sm_80,sm_90a,sm_100a -o %t.all.fatbin
// RUN: od -A n -t x4 -N 4 %t.all.fatbin | FileCheck %s --check-prefix=FATBIN
// RUN: python3 %S/Inputs/list-fatbin.py %t.all.fatbin | FileCheck %s --check-prefix=ALL
// ALL: elf sm_80 kernels: copy
// ALL-NEXT: elf sm_90a kernels: copy
// ALL-NEXT: elf sm_100a kernels: copy
// ALL-NEXT: ptx sm_80 entries: copy
// ALL-NOT: {{.}}

module {
  llvm.func @copy(%x: !llvm.ptr<1>, %xn: i64, %xs: i64, %y: !llvm.ptr<1>,
                  %yn: i64, %ys: i64)
      attributes {nvvm.kernel, tile.num_warps = 1 : i32,
                  tile.shared_bytes = 0 : i64} {
    %t = nvvm.read.ptx.sreg.tid.x : i32
    %i = llvm.zext %t : i32 to i64
    %xo = llvm.mul %i, %xs : i64
    %px = llvm.getelementptr %x[%xo] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %v = llvm.load %px : !llvm.ptr<1> -> f32
    %yo = llvm.mul %i, %ys : i64
    %py = llvm.getelementptr %y[%yo] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %v, %py : f32, !llvm.ptr<1>
    llvm.return
  }
}
