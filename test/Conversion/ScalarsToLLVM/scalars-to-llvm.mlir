// The pass after convert-scf-to-cf without rollback, as the tile-to-llvm
// pipeline runs them.
// RUN: tile-opt %s --convert-scf-to-cf="allow-pattern-rollback=false" --convert-scalars-to-llvm --split-input-file | FileCheck %s
// RUN: tile-opt %s --convert-scf-to-cf="allow-pattern-rollback=false" --convert-scalars-to-llvm --split-input-file | FileCheck %s --check-prefix=NONE

// No op of the dialects the pass lowers is left in any case.
// NONE-NOT: {{(scf|arith|math|cf)\.}}

// scf.if with results: a conditional branch and a block argument.
// CHECK-LABEL: llvm.func @select(
// CHECK-SAME: %[[C:.*]]: i1, %[[A:.*]]: i32, %[[B:.*]]: i32) -> i32
// CHECK: llvm.cond_br %[[C]], ^[[THEN:.*]], ^[[ELSE:.*]]
// CHECK: ^[[THEN]]:
// CHECK: llvm.br ^[[JOIN:.*]](%[[A]] : i32)
// CHECK: ^[[ELSE]]:
// CHECK: llvm.br ^[[JOIN]](%[[B]] : i32)
// CHECK: ^[[JOIN]](%[[R:.*]]: i32):
// CHECK: llvm.return %[[R]] : i32
llvm.func @select(%c: i1, %a: i32, %b: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    scf.yield %a : i32
  } else {
    scf.yield %b : i32
  }
  llvm.return %r : i32
}

// -----

// scf.for with an iteration argument and an scf.if inside: the loop header
// carries the induction variable and the sum.
// CHECK-LABEL: llvm.func @sum_odd(
// CHECK-SAME: %[[N:.*]]: i64)
// CHECK: llvm.br ^[[HEAD:.*]](%{{.*}}, %{{.*}} : i64, i64)
// CHECK: ^[[HEAD]](%[[I:.*]]: i64, %[[S:.*]]: i64):
// CHECK: %[[MORE:.*]] = llvm.icmp "slt" %[[I]], %[[N]] : i64
// CHECK: llvm.cond_br %[[MORE]]
// CHECK: llvm.and %[[I]], %{{.*}} : i64
// CHECK: llvm.add %[[S]], %[[I]] : i64
// CHECK: %[[NEXT:.*]] = llvm.add %[[I]], %{{.*}} : i64
// CHECK: llvm.br ^[[HEAD]](%[[NEXT]], %{{.*}} : i64, i64)
// CHECK: llvm.return %[[S]] : i64
llvm.func @sum_odd(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0) -> (i64) : i64 {
    %bit = arith.andi %i, %c1 : i64
    %odd = arith.cmpi ne, %bit, %c0 : i64
    %next = scf.if %odd -> (i64) {
      %t = arith.addi %s, %i : i64
      scf.yield %t : i64
    } else {
      scf.yield %s : i64
    }
    scf.yield %next : i64
  }
  llvm.return %sum : i64
}

// -----

// arith.ceildivui is expanded (as convert-arith-to-llvm does) before it
// becomes LLVM.
// CHECK-LABEL: llvm.func @tiles(
// CHECK-SAME: %[[SIZE:.*]]: i64, %[[EXTENT:.*]]: i64)
// CHECK: llvm.udiv
// CHECK: llvm.return
llvm.func @tiles(%size: i64, %extent: i64) -> i64 {
  %n = arith.ceildivui %size, %extent : i64
  llvm.return %n : i64
}

// -----

// math on per-thread vectors becomes LLVM intrinsics.
// CHECK-LABEL: llvm.func @exp2(
// CHECK: llvm.intr.exp2(%{{.*}}) : (vector<4xf32>) -> vector<4xf32>
llvm.func @exp2(%x: vector<4xf32>) -> vector<4xf32> {
  %r = math.exp2 %x : vector<4xf32>
  llvm.return %r : vector<4xf32>
}

// -----

// An NVVM op without an LLVM intrinsic becomes inline PTX; one with an
// intrinsic stays.
// CHECK-LABEL: llvm.func @arrive(
// CHECK-SAME: %[[COUNT:.*]]: i32)
// CHECK: llvm.inline_asm has_side_effects {{.*}}"bar.arrive 0, $0;", "r" %[[COUNT]]
// CHECK: nvvm.barrier0
llvm.func @arrive(%count: i32) {
  nvvm.barrier.arrive number_of_threads = %count
  nvvm.barrier0
  llvm.return
}

// -----

// scf.while: the before region is the loop header.
// CHECK-LABEL: llvm.func @halve(
// CHECK: llvm.br ^[[BEFORE:.*]](%{{.*}} : i32)
// CHECK: ^[[BEFORE]](%[[V:.*]]: i32):
// CHECK: %[[GO:.*]] = llvm.icmp "ugt" %[[V]]
// CHECK: llvm.cond_br %[[GO]], ^{{.*}}, ^{{.*}}
// CHECK: llvm.lshr
// CHECK: llvm.br ^[[BEFORE]]
llvm.func @halve(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %r = scf.while (%v = %x) : (i32) -> i32 {
    %go = arith.cmpi ugt, %v, %c1 : i32
    scf.condition(%go) %v : i32
  } do {
  ^bb0(%v: i32):
    %h = arith.shrui %v, %c1 : i32
    scf.yield %h : i32
  }
  llvm.return %r : i32
}
