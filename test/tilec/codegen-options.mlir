// --codegen of the driver, and the variants it compiles by default: the
// vec variant only where the code generator makes it differ (layouts).
// RUN: tilec %s --codegen=layouts --emit=llvm-dialect | FileCheck %s --check-prefix=LAYOUTS
// RUN: tilec %s --codegen=layouts --variants=vec --emit=llvm-dialect | FileCheck %s --check-prefix=VEC
// RUN: not tilec %s --codegen=fast --emit=llvm-dialect 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: tilec %s --codegen=layouts --emit=cpp -o %t.layouts
// RUN: FileCheck %s --check-prefix=BOTH < %t.layouts.cpp
// RUN: tilec %s --emit=cpp -o %t.simple
// RUN: FileCheck %s --check-prefix=GENERIC < %t.simple.cpp

// LAYOUTS-LABEL: llvm.func @copy(
// LAYOUTS: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// VEC-LABEL: llvm.func @copy_vec(
// VEC: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// UNKNOWN: for the --codegen option: Cannot find option named 'fast'!
// BOTH: const tilec_kernel tilec_kernel_copy = {tilec_fatbin, "copy", 32, 0};
// BOTH-NEXT: const tilec_kernel tilec_kernel_copy_vec = {tilec_fatbin, "copy_vec", 32, 0};
// GENERIC: const tilec_kernel tilec_kernel_copy = {tilec_fatbin, "copy", 32, 0};
// GENERIC-NOT: copy_vec
tile.kernel @copy(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0] : !tile.view<1, f32> -> tensor<32xf32>
  tile.store %t, %y[%c0] : tensor<32xf32>, !tile.view<1, f32>
  tile.return
}
