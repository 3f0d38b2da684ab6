// c08, c09: a file with no tile kernel is compiled as lowered LLVM-dialect
// code (docs/codegen.md). An f128 llvm.frem aborted the backend (LLVM
// ERROR), an llvm.intr.frexp with one result crashed it (SIGSEGV). Such input
// now gets the limits of what tile kernels lower to: located errors, exit 1.

// RUN: split-file %s %t
// RUN: not tilec %t/frem.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=FREM
// FREM-LABEL: frem.mlir:2:8: error: 'llvm.frem' op uses 'f128', which tilec does not compile: integers of 1, 8, 16, 32 or 64 bits, f16, bf16, f32 and f64 only
// RUN: not tilec %t/frexp.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=FREXP
// FREXP-LABEL: frexp.mlir:2:8: error: 'llvm.intr.frexp' op is not one of the intrinsics tilec passes to the NVPTX backend (see docs/codegen.md)
// llvm.call_intrinsic is limited the same way: llvm.sin.f32 cannot be selected.
// RUN: not tilec %t/call-sin.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=CALL
// CALL-LABEL: call-sin.mlir:2:8: error: 'llvm.call_intrinsic' op calls llvm.sin.f32, which is not an NVVM intrinsic nor one the tile lowering calls (see docs/codegen.md)
// Ops of other dialects are not lowered in such a file.
// RUN: not tilec %t/arith.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ARITH
// ARITH-LABEL: arith.mlir:2:8: error: 'arith.addf' op is neither a tile kernel nor in the LLVM or NVVM dialect: a file without tile.kernel is compiled as lowered LLVM-dialect code
// Within the limits, LLVM-dialect input still compiles.
// RUN: tilec %t/valid.mlir --emit=ptx --target=sm_90 -o - | FileCheck %s --check-prefix=VALID
// VALID-LABEL: .entry k(
// VALID: rem.s64
// VALID: st.global

//--- frem.mlir
llvm.func @k(%a: f128, %b: f128, %p: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %c = llvm.frem %a, %b : f128
  llvm.store %c, %p : f128, !llvm.ptr<1>
  llvm.return
}

//--- frexp.mlir
llvm.func @k(%a: f32, %p: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %c = llvm.intr.frexp(%a) : (f32) -> f32
  llvm.store %c, %p : f32, !llvm.ptr<1>
  llvm.return
}

//--- call-sin.mlir
llvm.func @k(%a: f32, %p: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %c = llvm.call_intrinsic "llvm.sin.f32"(%a) : (f32) -> f32
  llvm.store %c, %p : f32, !llvm.ptr<1>
  llvm.return
}

//--- arith.mlir
llvm.func @k(%a: f32, %p: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %c = arith.addf %a, %a : f32
  llvm.store %c, %p : f32, !llvm.ptr<1>
  llvm.return
}

//--- valid.mlir
llvm.func @k(%a: i64, %b: i64, %p: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %c = llvm.srem %a, %b : i64
  llvm.store %c, %p : i64, !llvm.ptr<1>
  llvm.return
}
