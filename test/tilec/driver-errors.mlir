// Driver errors on tile input: invalid IR (located at the offending op), a
// verifier error, unknown parameters and bad bindings, unknown targets,
// unwritable outputs. Each is reported with a non-zero exit status and
// nothing else on stderr.

// RUN: split-file %s %t

// RUN: not tilec %t/parse.mlir --emit=ptx 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: parse.mlir:3:22: error: custom op 'tile.block_id' expected string or keyword containing one of the following enum values for attribute 'axis' [x, y, z]
// PARSE-NEXT: %i = tile.block_id w
// PARSE-NOT: error:

// RUN: not tilec %t/verify.mlir --emit=ptx 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: verify.mlir:4:8: error: 'tile.load' op takes one tile index per view dimension: the view has 2, but 1 indices are given
// VERIFY-NOT: error:

// RUN: not tilec %t/params.mlir -D NOPE=1 --emit=ptx 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: params.mlir:0:0: error: no kernel declares parameter 'NOPE'
// UNKNOWN-NOT: error:
// RUN: not tilec %t/params.mlir -D BLOCK=x --emit=ptx 2>&1 | FileCheck %s --check-prefix=BINDING
// BINDING: params.mlir:1:1: error: parameter binding 'BLOCK=x' is not NAME=VALUE with a positive VALUE
// BINDING-NOT: error:

// RUN: not tilec %tilec_src/kernels/examples/scale.mlir --emit=fatbin --target=sm_75 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: tilec: --target: unknown target 'sm_75'

// RUN: not tilec %tilec_src/kernels/examples/scale.mlir --emit=cpp -o /nonexistent/dir/scale 2>&1 | FileCheck %s --check-prefix=OUTPUT
// OUTPUT: tilec: cannot open output file '/nonexistent/dir/scale.h'

// RUN: not tilec %tilec_src/kernels/examples/scale.mlir --emit=fatbin --variants=generic,simd 2>&1 | FileCheck %s --check-prefix=VARIANT
// VARIANT: tilec: --variants: unknown variant 'simd' (supported: generic, vec)
// RUN: not tilec %tilec_src/kernels/examples/scale.mlir --emit=ptx --variants=generic,vec 2>&1 | FileCheck %s --check-prefix=ONEVARIANT
// ONEVARIANT: tilec: --emit=ptx writes one variant's code; got --variants=generic,vec
// RUN: not tilec %t/variant-name.mlir --emit=fatbin --target=sm_80 --variants=generic,vec -o %t.fatbin 2>&1 | FileCheck %s --check-prefix=VARIANTNAME
// VARIANTNAME: variant-name.mlir:1:1: error: kernel @k has a vec variant @k_vec, which is also the name of another kernel of the file: rename that kernel
// VARIANTNAME-NOT: error:
// --variants=vec alone on a kernel the variant has no instance of (no view,
// or only views marked tile.any_strides) is an error, not an empty output.
// RUN: not tilec %t/no-views.mlir --codegen=layouts --variants=vec --emit=ptx -o %t.ptx 2>&1 | FileCheck %s --check-prefix=NOVEC
// RUN: not tilec %t/no-views.mlir --codegen=layouts --variants=vec --emit=fatbin --target=sm_80 -o %t.fatbin 2>&1 | FileCheck %s --check-prefix=NOVEC
// NOVEC: no-views.mlir:1:1: error: kernel @only_scalars has no vec variant: it takes no view whose vectorize facts the variant could assume (none, or only views marked tile.any_strides); compile it with --variants=generic
// NOVEC-NOT: error:
// RUN: not tilec %t/any-strides.mlir --codegen=layouts --variants=vec --emit=ptx -o %t.ptx 2>&1 | FileCheck %s --check-prefix=ANYSTRIDES
// ANYSTRIDES: any-strides.mlir:1:1: error: kernel @only_free_views has no vec variant
// The generic variant of the same files compiles.
// RUN: tilec %t/no-views.mlir --codegen=layouts --variants=generic --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=GENERICPTX < %t.ptx
// GENERICPTX: .entry only_scalars(
// tile.any_strides belongs on kernel views (tile-opt has no other function
// op to put it on; tilec's LLVM-dialect input has).
// RUN: not tilec %t/any-strides-llvm.mlir --emit=ptx 2>&1 | FileCheck %s --check-prefix=ANYSTRIDESLLVM
// ANYSTRIDESLLVM: any-strides-llvm.mlir:1:1: error: 'llvm.func' op 'tile.any_strides' marks arguments of a tile.kernel only
// RUN: not tilec %t/image-target.mlir --emit=ptx 2>&1 | FileCheck %s --check-prefix=IMAGETARGET
// IMAGETARGET: image-target.mlir:{{[0-9]+}}:{{[0-9]+}}: error: the symbol @tilec_image_target is tilec's: it names each image's target

//--- variant-name.mlir
tile.kernel @k(%x: !tile.view<1, f32>) {
  tile.return
}
tile.kernel @k_vec(%s: f32) {
  tile.return
}

//--- no-views.mlir
tile.kernel @only_scalars(%s: f32) {
  tile.return
}

//--- any-strides.mlir
tile.kernel @only_free_views(%x: !tile.view<1, f32> {tile.any_strides}) {
  tile.return
}

//--- any-strides-llvm.mlir
llvm.func @lowered(%p: !llvm.ptr<1> {tile.any_strides}) {
  llvm.return
}

//--- image-target.mlir
tile.kernel @tilec_image_target(%s: f32) {
  tile.return
}

//--- parse.mlir
// An axis that does not exist.
tile.kernel @broken(%x: !tile.view<1, f32>) {
  %i = tile.block_id w
  tile.return
}

//--- verify.mlir
// One tile index for a 2-D view.
tile.kernel @bad_rank(%x: !tile.view<2, f32>) {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<2, f32> -> tensor<64xf32>
  tile.return
}

//--- params.mlir
tile.kernel @copy(%x: !tile.view<1, f32>) attributes {params = {BLOCK = 64 : i64}} {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> tensor<?xf32, #tile.dims<[BLOCK]>>
  tile.store %t, %x[%i] : tensor<?xf32, #tile.dims<[BLOCK]>>, !tile.view<1, f32>
  tile.return
}
