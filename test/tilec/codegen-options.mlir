// --codegen and --vectorize of the driver.
// RUN: tilec %s --codegen=layouts --emit=llvm-dialect | FileCheck %s --check-prefix=LAYOUTS
// RUN: not tilec %s --vectorize --emit=llvm-dialect 2>&1 | FileCheck %s --check-prefix=NOLAYOUTS
// RUN: not tilec %s --codegen=layouts --vectorize --emit=cpp -o %t 2>&1 | FileCheck %s --check-prefix=CPP
// RUN: not tilec %s --codegen=fast --emit=llvm-dialect 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// LAYOUTS-LABEL: llvm.func @copy(
// LAYOUTS: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// NOLAYOUTS: error: --vectorize needs --codegen=layouts
// CPP: error: --vectorize is not available with --emit=cpp: the generated launchers do not check the facts it assumes
// UNKNOWN: for the --codegen option: Cannot find option named 'fast'!
tile.kernel @copy(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0] : !tile.view<1, f32> -> tensor<32xf32>
  tile.store %t, %y[%c0] : tensor<32xf32>, !tile.view<1, f32>
  tile.return
}
