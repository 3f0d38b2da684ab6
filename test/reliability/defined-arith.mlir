// s03, s03b, s03c: shifts by the width or more, an out-of-range fptosi and
// MIN / -1 are poison (or undefined) in LLVM, and the optimizer deleted the
// stores of their results; docs/semantics.md defines them, and the GPU code
// now stores exactly those values (as the interpreter computes them).

// RUN: split-file %s %t
// RUN: tilec %t/shift.mlir --emit=ptx --target=sm_90 -o - | FileCheck %s --check-prefix=SHIFT
// RUN: tilec %t/fptosi.mlir --emit=ptx --target=sm_90 -o - | FileCheck %s --check-prefix=FPTOSI
// RUN: tilec %t/divsi.mlir --emit=ptx --target=sm_90 -o - | FileCheck %s --check-prefix=DIVSI
// RUN: tile-opt %t/scalar.mlir --convert-tile-to-llvm | FileCheck %s --check-prefix=SCALAR

// -8 << 40 is 0 and -8 >> 40 (arithmetic) is -1.
// SHIFT-LABEL: .entry k(
// SHIFT-DAG: st.global.b32 [%rd{{[0-9]+}}], 0;
// SHIFT-DAG: st.global.b32 [%rd{{[0-9]+}}], -1;

// 1e10 saturates to INT32_MAX.
// FPTOSI-LABEL: .entry k(
// FPTOSI: st.global.b32 [%rd{{[0-9]+}}], 2147483647;

// MIN / -1 wraps to MIN.
// DIVSI-LABEL: .entry k(
// DIVSI: st.global.b32 [%rd{{[0-9]+}}], -2147483648;

// On scalars of unknown value: the amount is made safe before the shift and
// the defined result selected after it; the divisor -1 is replaced before
// the division; fptosi saturates.
// SCALAR-LABEL: llvm.func @scalars(
// SCALAR-SAME: %[[X:arg[0-9]+]]: i32, %[[N:arg[0-9]+]]: i32, %[[F:arg[0-9]+]]: f32
// SCALAR: %[[W:.*]] = llvm.mlir.constant(32 : i32) : i32
// SCALAR: %[[OK:.*]] = llvm.icmp "ult" %[[N]], %[[W]] : i32
// SCALAR: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// SCALAR: %[[SAFE:.*]] = llvm.select %[[OK]], %[[N]], %[[Z]] : i1, i32
// SCALAR: %[[SHL:.*]] = llvm.shl %[[X]], %[[SAFE]] : i32
// SCALAR: llvm.select %[[OK]], %[[SHL]], %[[Z]] : i1, i32
// SCALAR: %[[M1:.*]] = llvm.mlir.constant(-1 : i32) : i32
// SCALAR: %[[BYM1:.*]] = llvm.icmp "eq" %[[N]], %[[M1]] : i32
// SCALAR: %[[D:.*]] = llvm.select %[[BYM1]], %{{.*}}, %[[N]] : i1, i32
// SCALAR: %[[Q:.*]] = llvm.sdiv %[[X]], %[[D]] : i32
// SCALAR: %[[NEG:.*]] = llvm.sub %{{.*}}, %[[X]] : i32
// SCALAR: llvm.select %[[BYM1]], %[[NEG]], %[[Q]] : i1, i32
// SCALAR: llvm.call_intrinsic "llvm.fptosi.sat"(%[[F]]) : (f32) -> i32

//--- shift.mlir
// semantics.md: "Shifts by the width or more give 0 (shli, shrui) or the sign (shrsi)"
tile.kernel @k(%y: !tile.view<1, i32>, %z: !tile.view<1, i32>) {
  %i = tile.block_id x
  %one = arith.constant dense<-8> : tensor<128xi32>
  %sh = arith.constant dense<40> : tensor<128xi32>
  %r = arith.shli %one, %sh : tensor<128xi32>
  %q = arith.shrsi %one, %sh : tensor<128xi32>
  tile.store %r, %y[%i] : tensor<128xi32>, !tile.view<1, i32>
  tile.store %q, %z[%i] : tensor<128xi32>, !tile.view<1, i32>
  tile.return
}

//--- fptosi.mlir
// semantics.md: "arith.fptosi ... saturates to the range of the result; NaN gives 0"
tile.kernel @k(%y: !tile.view<1, i32>) {
  %i = tile.block_id x
  %big = arith.constant dense<1.0e10> : tensor<128xf32>
  %r = arith.fptosi %big : tensor<128xf32> to tensor<128xi32>
  tile.store %r, %y[%i] : tensor<128xi32>, !tile.view<1, i32>
  tile.return
}

//--- divsi.mlir
// semantics.md: "MIN / -1 wraps to MIN"
tile.kernel @k(%y: !tile.view<1, i32>) {
  %i = tile.block_id x
  %min = arith.constant dense<-2147483648> : tensor<128xi32>
  %m1 = arith.constant dense<-1> : tensor<128xi32>
  %r = arith.divsi %min, %m1 : tensor<128xi32>
  tile.store %r, %y[%i] : tensor<128xi32>, !tile.view<1, i32>
  tile.return
}

//--- scalar.mlir
tile.kernel @scalars(%x: i32, %n: i32, %f: f32, %y: !tile.view<1, i32>) {
  %i = tile.block_id x
  %a = arith.shli %x, %n : i32
  %b = arith.divsi %x, %n : i32
  %c = arith.fptosi %f : f32 to i32
  %ab = arith.addi %a, %b : i32
  %abc = arith.addi %ab, %c : i32
  %t = tile.full %abc : tensor<128xi32>
  tile.store %t, %y[%i] : tensor<128xi32>, !tile.view<1, i32>
  tile.return
}
