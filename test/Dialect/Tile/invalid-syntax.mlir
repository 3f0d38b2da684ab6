// RUN: tile-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the kernel language's shorthands.

// expected-error @+1 {{'num_warps' is given in the kernel header and in attributes}}
tile.kernel @warps_twice() warps 4 attributes {num_warps = 8 : i32} {
  tile.return
}

// -----

// expected-error @+1 {{parameter 'N' is declared twice}}
tile.kernel @param_twice<N = 4, N = 8>() {
  tile.return
}

// -----

// expected-error @+1 {{parameter "N" needs a positive integer default value}}
tile.kernel @param_zero<N = 0>() {
  tile.return
}

// -----

tile.kernel @tile_question(%s: f32) {
  // expected-error @+1 {{a tile extent is a number or the name of a kernel parameter}}
  %t = tile.full %s : !tile.tile<? x f32>
  tile.return
}

// -----

tile.kernel @tile_zero_extent(%s: f32) {
  // expected-error @+1 {{tile extents are positive, not 0}}
  %t = tile.full %s : !tile.tile<0 x f32>
  tile.return
}

// -----

tile.kernel @tile_undeclared(%s: f32) {
  // expected-error @+1 {{tile shape uses parameter 'BLOCK', which kernel @tile_undeclared does not declare}}
  %t = tile.full %s : !tile.tile<BLOCK x f32>
  tile.return
}

// -----

tile.kernel @block_id_twice() {
  // expected-error @+1 {{'tile.block_id' op names axis x twice}}
  %a, %b = tile.block_id x, x
  tile.return
}

// -----

tile.kernel @dims_count(%v: !tile.view<3, f32>) {
  %i = tile.block_id x
  // expected-error @+1 {{'tile.load' op dims maps each dimension of the 16x8 f32 tile to a view dimension: it needs 2 entries, not 1}}
  %t = tile.load %v[%i, %i, %i] dims = [1] : !tile.view<3, f32> -> !tile.tile<16 x 8 x f32>
  tile.return
}

// -----

tile.kernel @dims_repeated(%v: !tile.view<3, f32>) {
  %i = tile.block_id x
  // expected-error @+1 {{'tile.load' op dims must name distinct dimensions of the view, from 0 to 2}}
  %t = tile.load %v[%i, %i, %i] dims = [1, 1] : !tile.view<3, f32> -> !tile.tile<16 x 8 x f32>
  tile.return
}

// -----

tile.kernel @dims_out_of_range(%v: !tile.view<3, f32>, %s: f32) {
  %i = tile.block_id x
  %t = tile.full %s : !tile.tile<16 x f32>
  // expected-error @+1 {{'tile.store' op dims must name distinct dimensions of the view, from 0 to 2}}
  tile.store %t, %v[%i, %i, %i] dims = [3] : !tile.tile<16 x f32>, !tile.view<3, f32>
  tile.return
}

// -----

tile.kernel @dims_and_order(%v: !tile.view<2, f32>) {
  %i = tile.block_id x
  // expected-error @+1 {{'tile.load' op takes order or dims, not both}}
  %t = tile.load %v[%i, %i] order = [1, 0] dims = [1, 0] : !tile.view<2, f32> -> !tile.tile<16 x 8 x f32>
  tile.return
}

// -----

tile.kernel @literal_index_negative(%v: !tile.view<2, f32>) {
  %i = tile.block_id x
  // expected-error @+1 {{'tile.load' op tile index -1 is negative}}
  %t = tile.load %v[%i, -1] : !tile.view<2, f32> -> !tile.tile<16 x 8 x f32>
  tile.return
}

// -----

tile.kernel @literal_index_count(%v: !tile.view<2, f32>) {
  // expected-error @+1 {{'tile.load' op takes one tile index per view dimension: the view has 2, but 3 indices are given}}
  %t = tile.load %v[0, 0, 0] : !tile.view<2, f32> -> !tile.tile<16 x 8 x f32>
  tile.return
}

// -----

tile.kernel @new_dims_rank(%s: f32) {
  %t = tile.full %s : !tile.tile<16 x f32>
  // expected-error @+1 {{'tile.broadcast' op a rank-1 source with 2 new dimensions cannot make a rank-2 result}}
  %r = tile.broadcast %t new_dims = [0, 1] : !tile.tile<16 x f32> -> !tile.tile<4 x 16 x f32>
  tile.return
}

// -----

tile.kernel @new_dims_repeated(%s: f32) {
  %t = tile.full %s : !tile.tile<16 x f32>
  // expected-error @+1 {{'tile.broadcast' op new_dims must name distinct dimensions of the result, from 0 to 2}}
  %r = tile.broadcast %t new_dims = [0, 0] : !tile.tile<16 x f32> -> !tile.tile<4 x 4 x 16 x f32>
  tile.return
}

// -----

tile.kernel @new_dims_extent(%s: f32) {
  %t = tile.full %s : !tile.tile<16 x f32>
  // expected-error @+1 {{'tile.broadcast' op dimension 0 of the source is 16: it must be 1 or equal the result's 8}}
  %r = tile.broadcast %t new_dims = [1] : !tile.tile<16 x f32> -> !tile.tile<8 x 16 x f32>
  tile.return
}

// -----

tile.kernel @full_float_literal_in_int_tile() {
  // expected-error @+1 {{an integer tile needs an integer literal, not 1.5}}
  %t = tile.full 1.5 : !tile.tile<16 x i32>
  tile.return
}

// -----

tile.kernel @full_value_and_literal(%s: f32) {
  // expected-error @+1 {{'tile.full' op takes either a scalar operand or a literal}}
  %t = "tile.full"(%s) <{constant = 1.0 : f32}> : (f32) -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @mma_precision_not_tf32(%a: f32) {
  %t = tile.full %a : !tile.tile<16 x 16 x f32>
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'precision' [tf32, split_bf16]}}
  %r = tile.mma %t, %t, %t precision = bf16 : !tile.tile<16 x 16 x f32>, !tile.tile<16 x 16 x f32>, !tile.tile<16 x 16 x f32>
  tile.return
}

// -----

tile.kernel @param_undeclared<A = 1>() {
  // expected-error @+1 {{'tile.param' op kernel @param_undeclared declares no parameter 'B'}}
  %a, %b = tile.param "A", "B"
  tile.return
}

// -----

tile.kernel @dim_out_of_range(%v: !tile.view<2, f32>) {
  // expected-error @+1 {{'tile.dim' op dimension 2 is not one of the view's 2}}
  %a, %b = tile.dim %v[0, 2] : !tile.view<2, f32>
  tile.return
}

// -----

// expected-error @+1 {{expected 'type'}}
tile.kernel @type_param_keyword<XT : int = 4>() {
  tile.return
}

// -----

// expected-error @+1 {{expected non-function type}}
tile.kernel @type_param_not_a_type<XT : type = 4>() {
  tile.return
}

// -----

tile.kernel @type_param_literal<XT : type = f32>() {
  // expected-error @+1 {{a '!tile.type_param<XT>' tile cannot be filled from a literal}}
  %t = tile.full 1.0 : !tile.tile<4 x XT>
  tile.return
}
