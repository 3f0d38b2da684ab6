// A kernel already in the LLVM and NVVM dialects, with the ABI of
// include/tilec/Conversion/Pipeline.h: it skips the lowering and exercises
// translation and the NVPTX backend for each target.

// RUN: tilec %s --emit=ptx | FileCheck %s --check-prefix=SM80
// RUN: tilec %s --emit=ptx --target=sm_90 | FileCheck %s --check-prefix=SM90
// RUN: tilec %s --emit=ptx --target=sm_90a | FileCheck %s --check-prefix=SM90A
// RUN: tilec %s --emit=ptx --target=sm_100a | FileCheck %s --check-prefix=SM100A
// RUN: tilec %s --emit=llvm-ir --target=sm_90 | FileCheck %s --check-prefix=IR
// RUN: tilec %s --emit=llvm-dialect | FileCheck %s --check-prefix=DIALECT

// SM80: .version 7.0
// SM80: .target sm_80
// SM80: .address_size 64
// SM80: .visible .entry scale(
// SM80: ld.global
// SM80: mul.rn.f32
// SM80: st.global

// SM90: .version 7.8
// SM90: .target sm_90

// SM90A: .version 8.0
// SM90A: .target sm_90a
// SM90A: .entry scale(

// SM100A: .version 8.8
// SM100A: .target sm_100a

// IR: target datalayout = "e-p6:32:32-i64:64-i128:128
// IR: target triple = "nvptx64-nvidia-cuda"
// IR: define ptx_kernel void @scale(ptr addrspace(1)

// DIALECT: llvm.func @scale(
// DIALECT-SAME: tile.num_warps = 4 : i32

module {
  llvm.func @scale(%x: !llvm.ptr<1>, %xn: i64, %xs: i64, %y: !llvm.ptr<1>,
                   %yn: i64, %ys: i64, %s: f32)
      attributes {nvvm.kernel, tile.num_warps = 4 : i32,
                  tile.shared_bytes = 0 : i64} {
    %b = nvvm.read.ptx.sreg.ctaid.x : i32
    %t = nvvm.read.ptx.sreg.tid.x : i32
    %n = nvvm.read.ptx.sreg.ntid.x : i32
    %m = llvm.mul %b, %n : i32
    %i32 = llvm.add %m, %t : i32
    %i = llvm.zext %i32 : i32 to i64
    %in = llvm.icmp "slt" %i, %xn : i64
    llvm.cond_br %in, ^body, ^exit
  ^body:
    %xo = llvm.mul %i, %xs : i64
    %px = llvm.getelementptr %x[%xo] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %v = llvm.load %px : !llvm.ptr<1> -> f32
    %r = llvm.fmul %v, %s : f32
    %yo = llvm.mul %i, %ys : i64
    %py = llvm.getelementptr %y[%yo] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %r, %py : f32, !llvm.ptr<1>
    llvm.br ^exit
  ^exit:
    llvm.return
  }
}
