// Element-type parameters (docs/dialect.md, "Compile-time parameters"): they
// parse, print back, and tile-bind-params gives them their default or the
// bound type in tiles, views, scalars and the kernel's signature.
// RUN: tile-opt %s | tile-opt | FileCheck %s --check-prefix=PARSE
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s --check-prefix=PARSE
// RUN: tile-opt %s --tile-bind-params | FileCheck %s --check-prefixes=BOUND,DEFAULT
// RUN: tile-opt %s --tile-bind-params="params=XT=f16,BLOCK=32" | FileCheck %s --check-prefixes=BOUND,F16
// RUN: tile-opt %s --tile-bind-params="params=XT=f32" --canonicalize | FileCheck %s --check-prefix=F32
// RUN: tile-opt %s --tile-bind-params | tile-opt --verify-roundtrip > /dev/null

// Bindings that are not an element type, or an element type for an extent.
// RUN: not tile-opt %s --tile-bind-params="params=XT=16" 2>&1 | FileCheck %s --check-prefix=INTEGER-FOR-TYPE
// RUN: not tile-opt %s --tile-bind-params="params=XT=f64" 2>&1 | FileCheck %s --check-prefix=NOT-ELEMENT
// RUN: not tile-opt %s --tile-bind-params="params=XT=vector<4xf32>" 2>&1 | FileCheck %s --check-prefix=NOT-ELEMENT-VECTOR
// RUN: not tile-opt %s --tile-bind-params="params=XT=f3" 2>&1 | FileCheck %s --check-prefix=NOT-A-TYPE
// RUN: not tile-opt %s --tile-bind-params="params=BLOCK=bf16" 2>&1 | FileCheck %s --check-prefix=TYPE-FOR-EXTENT
// A type the kernel's ops do not allow fails verification after the pass.
// RUN: not tile-opt %s --tile-bind-params="params=XT=i32" 2>&1 | FileCheck %s --check-prefix=BAD-TYPE
// RUN: not tile-opt %s --tile-bind-params="params=ST=i32" 2>&1 | FileCheck %s --check-prefix=BAD-SCALAR-PADDING

// INTEGER-FOR-TYPE: error: type parameter 'XT' of kernel @copy is bound to '16': bind it to an element type (f32, f16, bf16, tf32, i1, i8, i16, i32 or i64)
// NOT-ELEMENT: error: type parameter 'XT' of kernel @copy is bound to 'f64'
// NOT-ELEMENT-VECTOR: error: type parameter 'XT' of kernel @copy is bound to 'vector<4xf32>'
// NOT-A-TYPE: error: type parameter 'XT' of kernel @copy is bound to 'f3'
// TYPE-FOR-EXTENT: error: parameter binding 'BLOCK=bf16' is not NAME=VALUE with a positive VALUE
// BAD-TYPE: error: 'tile.mma' op operand #0 must be ranked tensor of
// BAD-SCALAR-PADDING: error: 'tile.load_scalar' op padding = nan needs a float view; integer views pad with zero

// PARSE-LABEL: tile.kernel @copy
// PARSE-SAME: (%{{.*}}: !tile.view<2, XT>, %{{.*}}: !tile.view<2, f32>, %{{.*}}: !tile.type_param<XT>, %{{.*}}: i1)
// PARSE-SAME: params = {BLOCK = 16 : i64, XT = bf16}
// PARSE: load %{{.*}} : <2, XT> -> tensor<?x16x!tile.type_param<XT>, #tile.dims<[BLOCK, 16]>>
// PARSE: full %{{.*}} : tensor<?x16x!tile.type_param<XT>, #tile.dims<[BLOCK, 16]>>
// PARSE: convert %{{.*}} : tensor<?x16x!tile.type_param<XT>, #tile.dims<[BLOCK, 16]>> -> tensor<?x16xf32, #tile.dims<[BLOCK, 16]>>
// PARSE: load %{{.*}} : <2, XT> -> tensor<16x16x!tile.type_param<XT>>
// PARSE: mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x16x!tile.type_param<XT>, #tile.dims<[BLOCK, 16]>>, tensor<16x16x!tile.type_param<XT>>, tensor<?x16xf32, #tile.dims<[BLOCK, 16]>>
// PARSE: store %{{.*}} : tensor<?x16x!tile.type_param<XT>, #tile.dims<[BLOCK, 16]>>, <2, XT>

// BOUND-LABEL: tile.kernel @copy
// DEFAULT-SAME: (%{{.*}}: !tile.view<2, bf16>, %{{.*}}: !tile.view<2, f32>, %{{.*}}: bf16, %{{.*}}: i1)
// DEFAULT-SAME: params = {BLOCK = 16 : i64, XT = bf16}
// DEFAULT: load %{{.*}} : <2, bf16> -> tensor<16x16xbf16>
// DEFAULT: convert %{{.*}} : tensor<16x16xbf16> -> tensor<16x16xf32>
// F16-SAME: (%{{.*}}: !tile.view<2, f16>, %{{.*}}: !tile.view<2, f32>, %{{.*}}: f16, %{{.*}}: i1)
// F16-SAME: params = {BLOCK = 32 : i64, XT = f16}
// F16: load %{{.*}} : <2, f16> -> tensor<32x16xf16>
// F16: full %{{.*}} : tensor<32x16xf16>
// F16: convert %{{.*}} : tensor<32x16xf16> -> tensor<32x16xf32>
// F16: mma %{{.*}} : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
// F16: store %{{.*}} : tensor<32x16xf16>, <2, f16>
// BOUND-NOT: type_param

// With XT = f32 the conversion to f32 is the identity and folds away.
// F32-LABEL: tile.kernel @copy
// F32-NOT: convert
// F32: return
tile.kernel @copy<BLOCK = 16, XT : type = bf16>(
    %x: !tile.view<2, XT>, %y: !tile.view<2, f32>, %s: !tile.type_param<XT>,
    %flag: i1) {
  %i = tile.block_id x
  %m = tile.full %flag : !tile.tile<BLOCK x 16 x i1>
  %t = tile.load %x[%i, 0] : !tile.view<2, XT> -> !tile.tile<BLOCK x 16 x XT>
  %f = tile.full %s : !tile.tile<BLOCK x 16 x XT>
  %w = tile.where %m, %t, %f : !tile.tile<BLOCK x 16 x i1>, !tile.tile<BLOCK x 16 x XT>
  %c = tile.convert %w : !tile.tile<BLOCK x 16 x XT> -> !tile.tile<BLOCK x 16 x f32>
  %b = tile.load %x[0, 0] : !tile.view<2, XT> -> !tile.tile<16 x 16 x XT>
  %p = tile.mma %t, %b, %c : !tile.tile<BLOCK x 16 x XT>, !tile.tile<16 x 16 x XT>,
                             !tile.tile<BLOCK x 16 x f32>
  tile.store %p, %y[%i, 0] : !tile.tile<BLOCK x 16 x f32>, !tile.view<2, f32>
  tile.store %w, %x[%i, 0] : !tile.tile<BLOCK x 16 x XT>, !tile.view<2, XT>
  tile.return
}

// A scalar load from a view of a type parameter gives a scalar of it, bound
// with the kernel; its NaN padding is checked once the type is known.
// PARSE-LABEL: tile.kernel @scalar_of_param
// PARSE: load_scalar %{{.*}}[%{{.*}}] padding = nan : <1, ST> -> !tile.type_param<ST>
// BOUND-LABEL: tile.kernel @scalar_of_param
// DEFAULT: load_scalar %{{.*}}[%{{.*}}] padding = nan : <1, f16> -> f16
// DEFAULT: full %{{.*}} : tensor<4xf16>
tile.kernel @scalar_of_param<ST : type = f16>(%v: !tile.view<1, ST>,
                                              %o: !tile.view<1, ST>, %i: index) {
  %s = tile.load_scalar %v[%i] padding = nan : !tile.view<1, ST> -> !tile.type_param<ST>
  %t = tile.full %s : !tile.tile<4 x ST>
  tile.store %t, %o[0] : !tile.tile<4 x ST>, !tile.view<1, ST>
  tile.return
}
