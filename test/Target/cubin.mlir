// REQUIRES: ptxas
// Cubins through ptxas and fatbins through fatbinary, from a kernel already
// in the LLVM and NVVM dialects.

// The PTX tilec writes is accepted by ptxas itself.
// RUN: tilec %s --emit=ptx -o %t.ptx
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.ptxas.cubin

// A cubin is an ELF file.
// RUN: tilec %s --emit=cubin --target=sm_90a -o %t.cubin
// RUN: od -A n -t x1 -N 4 %t.cubin | FileCheck %s --check-prefix=ELF
// ELF: 7f 45 4c 46

// A fatbin starts with its magic number, 0xba55ed50; the default holds
// sm_80 and sm_90 cubins and sm_80 PTX, which embeds the kernel's name.
// RUN: tilec %s --emit=fatbin -o %t.fatbin
// RUN: od -A n -t x4 -N 4 %t.fatbin | FileCheck %s --check-prefix=FATBIN
// FATBIN: ba55ed50
// RUN: tilec %s --emit=fatbin --target=sm_80,sm_90a,sm_100a -o %t.all.fatbin
// RUN: od -A n -t x4 -N 4 %t.all.fatbin | FileCheck %s --check-prefix=FATBIN

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
