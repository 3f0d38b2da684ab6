// RUN: tile-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// One case per verifier rule of the dialect (TileOps.cpp, TileDialect.cpp)
// and per ODS constraint worth a test, in the order of the sources.

//===----------------------------------------------------------------------===//
// !tile.view
//===----------------------------------------------------------------------===//

// expected-error @+1 {{a view has 1 to 8 dimensions, not 0}}
tile.kernel @view_rank_zero(%v: !tile.view<0, f32>) {
  tile.return
}

// -----

// expected-error @+1 {{a view has 1 to 8 dimensions, not 9}}
tile.kernel @view_rank_nine(%v: !tile.view<9, f32>) {
  tile.return
}

// -----

// expected-error @+1 {{a view holds f32, f16, bf16, i8, i16, i32 or i64 elements, not 'f64'}}
tile.kernel @view_f64(%v: !tile.view<1, f64>) {
  tile.return
}

// -----

// tf32 is a register format, not a memory one.
// expected-error @+1 {{a view holds f32, f16, bf16, i8, i16, i32 or i64 elements, not 'tf32'}}
tile.kernel @view_tf32(%v: !tile.view<1, tf32>) {
  tile.return
}

// -----

// expected-error @+1 {{a view holds f32, f16, bf16, i8, i16, i32 or i64 elements, not 'i1'}}
tile.kernel @view_i1(%v: !tile.view<1, i1>) {
  tile.return
}

//===----------------------------------------------------------------------===//
// Kernel argument attributes (tile.any_strides)
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'tile.kernel' op argument 1 is 'f32': 'tile.any_strides' marks views, whose strides it frees}}
tile.kernel @any_strides_on_scalar(%v: !tile.view<1, f32>, %s: f32 {tile.any_strides}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op 'tile.any_strides' takes no value: write {tile.any_strides}}}
tile.kernel @any_strides_with_value(%v: !tile.view<1, f32> {tile.any_strides = 1 : i32}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op argument 0 has attribute 'tile.contiguous', which the tile dialect does not define (it defines 'tile.any_strides' on kernel views)}}
tile.kernel @unknown_argument_attribute(%v: !tile.view<1, f32> {tile.contiguous}) {
  tile.return
}


//===----------------------------------------------------------------------===//
// #tile.dims
//===----------------------------------------------------------------------===//

// -----

tile.kernel @dims_not_a_list(%s: f32) attributes {params = {B = 64 : i64}} {
  // expected-error @+1 {{expected '['}}
  %t = tile.full %s : tensor<?xf32, #tile.dims<B>>
  tile.return
}

// -----

tile.kernel @dims_float_entry(%s: f32) attributes {params = {B = 64 : i64}} {
  // expected-error @+1 {{expected valid keyword or string}}
  %t = tile.full %s : tensor<?xf32, #tile.dims<[1.5]>>
  tile.return
}

// -----

tile.kernel @dims_count(%s: f32) attributes {params = {B = 64 : i64}} {
  // expected-error @+1 {{#tile.dims names 1 extents for a tile of rank 2}}
  %t = tile.full %s : tensor<?x64xf32, #tile.dims<[B]>>
  tile.return
}

// -----

tile.kernel @dims_wrong_number(%s: f32) {
  // expected-error @+1 {{#tile.dims gives extent 32 to dimension 1, but the tile's is 64}}
  %t = tile.full %s : tensor<16x64xf32, #tile.dims<[16, 32]>>
  tile.return
}

// -----

tile.kernel @dims_number_for_dynamic(%s: f32) {
  // expected-error @+1 {{#tile.dims gives extent 64 to dimension 0, but the tile's is ?}}
  %t = tile.full %s : tensor<?xf32, #tile.dims<[64]>>
  tile.return
}

// -----

tile.kernel @dims_name_for_static(%s: f32) attributes {params = {B = 64 : i64}} {
  // expected-error @+1 {{dimension 0 is named by parameter "B", so the tile must have '?' there, not 64}}
  %t = tile.full %s : tensor<64xf32, #tile.dims<[B]>>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.kernel and tile.return
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{kernels return nothing; write results to a view}}
tile.kernel @kernel_result(%s: f32) -> f32 {
  tile.return
}

// -----

// expected-error @+1 {{argument 1 is 'tensor<64xf32>': kernel arguments are views (!tile.view) or scalars of type f16, bf16, f32, i1, i8, i16, i32, i64, index or a type parameter}}
tile.kernel @kernel_tile_argument(%v: !tile.view<1, f32>, %t: tensor<64xf32>) {
  tile.return
}

// -----

// expected-error @+1 {{argument 0 is 'tf32': kernel arguments are views (!tile.view) or scalars of type f16, bf16, f32, i1, i8, i16, i32, i64, index or a type parameter}}
tile.kernel @kernel_tf32_argument(%s: tf32) {
  tile.return
}

// -----

// A scalar type no launcher can pass (found by tilec-fuzz-ptx: an i0
// parameter reached the NVPTX backend).
// expected-error @+1 {{argument 0 is 'i0': kernel arguments are views (!tile.view) or scalars of type f16, bf16, f32, i1, i8, i16, i32, i64, index or a type parameter}}
tile.kernel @kernel_i0_argument(%s: i0) {
  tile.return
}

// -----

// expected-error @+1 {{argument 0 is 'f64': kernel arguments are views (!tile.view) or scalars of type f16, bf16, f32, i1, i8, i16, i32, i64, index or a type parameter}}
tile.kernel @kernel_f64_argument(%s: f64) {
  tile.return
}

// -----

// expected-error @+1 {{num_warps must be a power of two from 1 to 32, not 3}}
tile.kernel @kernel_warps_not_power_of_two() attributes {num_warps = 3 : i32} {
  tile.return
}

// -----

// expected-error @+1 {{num_warps must be a power of two from 1 to 32, not 64}}
tile.kernel @kernel_too_many_warps() attributes {num_warps = 64 : i32} {
  tile.return
}

// -----

// expected-error @+1 {{num_warps must be a power of two from 1 to 32, not 0}}
tile.kernel @kernel_no_warps() attributes {num_warps = 0 : i32} {
  tile.return
}

// -----

// expected-error @+1 {{num_warps must be a power of two from 1 to 32, not -4}}
tile.kernel @kernel_negative_warps() attributes {num_warps = -4 : i32} {
  tile.return
}

// -----

// expected-error @+1 {{occupancy must be at least 1}}
tile.kernel @kernel_occupancy_zero() attributes {occupancy = 0 : i32} {
  tile.return
}

// -----

// expected-error @+1 {{occupancy must be at least 1}}
tile.kernel @kernel_occupancy_negative() attributes {occupancy = -1 : i32} {
  tile.return
}

// -----

// expected-error @+1 {{parameter "CHUNK" needs a positive integer default value}}
tile.kernel @kernel_param_zero() attributes {params = {CHUNK = 0 : i64}} {
  tile.return
}

// -----

// expected-error @+1 {{parameter "CHUNK" needs a positive integer default value}}
tile.kernel @kernel_param_not_integer() attributes {params = {CHUNK = "64"}} {
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op attribute 'num_warps' failed to satisfy constraint: 32-bit signless integer attribute}}
tile.kernel @kernel_warps_i64() attributes {num_warps = 4 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
tile.kernel @kernel_declaration(%s: f32)

// -----

// expected-error @+1 {{type of entry block argument #0('f32') must match the type of the corresponding argument in function signature('!tile.view<1, f32>')}}
"tile.kernel"() <{function_type = (!tile.view<1, f32>) -> (), sym_name = "entry_block_mismatch"}> ({
^bb0(%arg0: f32):
  "tile.return"() : () -> ()
}) : () -> ()

// -----

tile.kernel @kernel_unnamed_dynamic_extent(%s: f32) {
  // expected-error @+1 {{a tile extent is '?' without a parameter name; write the shape with #tile.dims}}
  %t = tile.full %s : tensor<?xf32>
  tile.return
}

// -----

tile.kernel @kernel_undeclared_parameter(%s: f32) attributes {params = {CHUNK = 64 : i64}} {
  // expected-error @+1 {{tile shape uses parameter 'BLOCK', which kernel @kernel_undeclared_parameter does not declare}}
  %t = tile.full %s : tensor<?xf32, #tile.dims<[BLOCK]>>
  tile.return
}

// -----

// The block arguments of regions are checked too.
tile.kernel @kernel_undeclared_parameter_in_region() {
  // expected-error @+1 {{tile shape uses parameter 'BLOCK', which kernel @kernel_undeclared_parameter_in_region does not declare}}
  "test.region"() ({
  ^bb0(%t: tensor<?xf32, #tile.dims<[BLOCK]>>):
    "test.end"() : () -> ()
  }) : () -> ()
  tile.return
}

// -----

// expected-error @+1 {{'tile.return' op expects parent op 'tile.kernel'}}
"tile.return"() : () -> ()

//===----------------------------------------------------------------------===//
// tile.param, tile.dim, tile.block_id
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'tile.param' op must be inside a tile.kernel}}
%p = tile.param "CHUNK"

// -----

tile.kernel @param_undeclared() attributes {params = {CHUNK = 64 : i64}} {
  // expected-error @+1 {{'tile.param' op kernel @param_undeclared declares no parameter 'BLOCK'}}
  %p = tile.param "BLOCK"
  tile.return
}

// -----

tile.kernel @param_without_params() {
  // expected-error @+1 {{'tile.param' op kernel @param_without_params declares no parameter 'CHUNK'}}
  %p = tile.param "CHUNK"
  tile.return
}

// -----

tile.kernel @dim_out_of_range(%v: !tile.view<2, f32>) {
  // expected-error @+1 {{'tile.dim' op dimension 2 is not one of the view's 2}}
  %d = tile.dim %v[2] : !tile.view<2, f32>
  tile.return
}

// -----

tile.kernel @dim_negative(%v: !tile.view<2, f32>) {
  // expected-error @+1 {{'tile.dim' op dimension -1 is not one of the view's 2}}
  %d = tile.dim %v[-1] : !tile.view<2, f32>
  tile.return
}

// -----

tile.kernel @block_id_axis() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'axis' [x, y, z]}}
  %x = tile.block_id w
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.load and tile.store
//===----------------------------------------------------------------------===//

// -----

tile.kernel @load_index_count(%v: !tile.view<2, f32>, %i: index) {
  // expected-error @+1 {{'tile.load' op takes one tile index per view dimension: the view has 2, but 1 indices are given}}
  %t = tile.load %v[%i] : !tile.view<2, f32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @load_rank(%v: !tile.view<2, f32>, %i: index) {
  // expected-error @+1 {{'tile.load' op a 16 f32 tile has rank 1, but the view has rank 2 (reshape to add or drop extent-1 axes)}}
  %t = tile.load %v[%i, %i] : !tile.view<2, f32> -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @load_element_type(%v: !tile.view<1, i32>, %i: index) {
  // expected-error @+1 {{'tile.load' op the tile holds 'f32' but the view holds 'i32': an access converts between float types only (use tile.convert)}}
  %t = tile.load %v[%i] : !tile.view<1, i32> -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @load_empty_tile(%v: !tile.view<2, f32>, %i: index) {
  // expected-error @+1 {{'tile.load' op tile extents must be positive}}
  %t = tile.load %v[%i, %i] : !tile.view<2, f32> -> tensor<16x0xf32>
  tile.return
}

// -----

tile.kernel @load_order_length(%v: !tile.view<2, f32>, %i: index) {
  // expected-error @+1 {{'tile.load' op order must list each of the view's 2 dimensions once}}
  %t = tile.load %v[%i, %i] order = [0] : !tile.view<2, f32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @load_order_repeated(%v: !tile.view<2, f32>, %i: index) {
  // expected-error @+1 {{'tile.load' op order must list each of the view's 2 dimensions once}}
  %t = tile.load %v[%i, %i] order = [1, 1] : !tile.view<2, f32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @load_order_out_of_range(%v: !tile.view<2, f32>, %i: index) {
  // expected-error @+1 {{'tile.load' op order must list each of the view's 2 dimensions once}}
  %t = tile.load %v[%i, %i] order = [0, 2] : !tile.view<2, f32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @load_order_negative(%v: !tile.view<2, f32>, %i: index) {
  // expected-error @+1 {{'tile.load' op order must list each of the view's 2 dimensions once}}
  %t = tile.load %v[%i, %i] order = [-1, 0] : !tile.view<2, f32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @load_latency_zero(%v: !tile.view<1, f32>, %i: index) {
  // expected-error @+1 {{'tile.load' op latency is a number of iterations, at least 1}}
  %t = tile.load %v[%i] latency = 0 : !tile.view<1, f32> -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @load_latency_negative(%v: !tile.view<1, f32>, %i: index) {
  // expected-error @+1 {{'tile.load' op latency is a number of iterations, at least 1}}
  %t = tile.load %v[%i] latency = -2 : !tile.view<1, f32> -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @load_integer_nan_padding(%v: !tile.view<1, i32>, %i: index) {
  // expected-error @+1 {{'tile.load' op padding = nan needs a float tile; integer tiles pad with zero}}
  %t = tile.load %v[%i] padding = nan : !tile.view<1, i32> -> tensor<16xi32>
  tile.return
}

// -----

tile.kernel @load_scalar_wrong_type(%v: !tile.view<1, i32>, %i: index) {
  // expected-error @+1 {{'tile.load_scalar' op the result is 'i64' but the view holds 'i32'; a scalar load reads the view's element type}}
  %s = tile.load_scalar %v[%i] : !tile.view<1, i32> -> i64
  tile.return
}

// -----

tile.kernel @load_scalar_integer_nan_padding(%v: !tile.view<1, i32>, %i: index) {
  // expected-error @+1 {{'tile.load_scalar' op padding = neg_inf needs a float view; integer views pad with zero}}
  %s = tile.load_scalar %v[%i] padding = neg_inf : !tile.view<1, i32> -> i32
  tile.return
}

// -----

tile.kernel @load_scalar_index_count(%v: !tile.view<2, f32>, %i: index) {
  // expected-error @+1 {{'tile.load_scalar' op takes one element index per view dimension: the view has 2, but 1 indices are given}}
  %s = tile.load_scalar %v[%i] : !tile.view<2, f32> -> f32
  tile.return
}

// -----

tile.kernel @load_scalar_negative_literal(%v: !tile.view<2, f32>, %i: index) {
  // expected-error @+1 {{'tile.load_scalar' op element index -1 is negative: it would always read the padding}}
  %s = tile.load_scalar %v[%i, -1] : !tile.view<2, f32> -> f32
  tile.return
}

// -----

tile.kernel @load_scalar_bool(%v: !tile.view<1, i32>, %i: index) {
  // expected-error @+1 {{'tile.load_scalar' op result #0 must be}}
  %s = tile.load_scalar %v[%i] : !tile.view<1, i32> -> i1
  tile.return
}

// -----

tile.kernel @load_padding(%v: !tile.view<1, f32>, %i: index) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'padding' [zero, nan, neg_inf, pos_inf]}}
  %t = tile.load %v[%i] padding = one : !tile.view<1, f32> -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @load_f64(%v: !tile.view<1, f32>, %i: index) {
  // expected-error @+1 {{'tile.load' op result #0 must be ranked tensor of}}
  %t = tile.load %v[%i] : !tile.view<1, f32> -> tensor<16xf64>
  tile.return
}

// -----

tile.kernel @store_index_count(%v: !tile.view<2, f32>, %t: f32, %i: index) {
  %x = tile.full %t : tensor<16x16xf32>
  // expected-error @+1 {{'tile.store' op takes one tile index per view dimension: the view has 2, but 3 indices are given}}
  tile.store %x, %v[%i, %i, %i] : tensor<16x16xf32>, !tile.view<2, f32>
  tile.return
}

// -----

tile.kernel @store_rank(%v: !tile.view<2, f32>, %t: f32, %i: index) {
  %x = tile.full %t : tensor<1x16x16xf32>
  // expected-error @+1 {{'tile.store' op a 1x16x16 f32 tile has rank 3, but the view has rank 2 (reshape to add or drop extent-1 axes)}}
  tile.store %x, %v[%i, %i] : tensor<1x16x16xf32>, !tile.view<2, f32>
  tile.return
}

// -----

tile.kernel @store_element_type(%v: !tile.view<1, i16>, %t: f32, %i: index) {
  %x = tile.full %t : tensor<16xf32>
  // expected-error @+1 {{'tile.store' op the tile holds 'f32' but the view holds 'i16': an access converts between float types only (use tile.convert)}}
  tile.store %x, %v[%i] : tensor<16xf32>, !tile.view<1, i16>
  tile.return
}

// -----

tile.kernel @store_empty_tile(%v: !tile.view<1, f32>, %t: f32, %i: index) {
  %x = tile.full %t : tensor<0xf32>
  // expected-error @+1 {{'tile.store' op tile extents must be positive}}
  tile.store %x, %v[%i] : tensor<0xf32>, !tile.view<1, f32>
  tile.return
}

// -----

tile.kernel @store_order(%v: !tile.view<2, f32>, %t: f32, %i: index) {
  %x = tile.full %t : tensor<16x16xf32>
  // expected-error @+1 {{'tile.store' op order must list each of the view's 2 dimensions once}}
  tile.store %x, %v[%i, %i] order = [0, 0] : tensor<16x16xf32>, !tile.view<2, f32>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.full and tile.arange
//===----------------------------------------------------------------------===//

// -----

tile.kernel @full_element_type(%s: f32) {
  // expected-error @+1 {{'tile.full' op failed to verify that the value has the tile's element type}}
  %t = "tile.full"(%s) : (f32) -> tensor<16xbf16>
  tile.return
}

// -----

tile.kernel @full_index(%n: index) {
  // expected-error @+1 {{'result' must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or tf32 type or 1-bit signless integer or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or element-type parameter values, but got 'tensor<16xindex>'}}
  %t = tile.full %n : tensor<16xindex>
  tile.return
}

// -----

tile.kernel @arange_rank() {
  // expected-error @+1 {{'tile.arange' op makes a 1-D tile, not a 8x8 i32 tile, unless `dim` says which dimension it counts along}}
  %r = tile.arange : tensor<8x8xi32>
  tile.return
}

// -----

tile.kernel @arange_dim() {
  // expected-error @+1 {{'tile.arange' op counts along dimension 2, but the tile has dimensions 0 to 1}}
  %r = tile.arange dim 2 : tensor<8x8xi32>
  tile.return
}

// -----

tile.kernel @arange_float() {
  // expected-error @+1 {{'tile.arange' op result #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %r = tile.arange : tensor<8xf32>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.extract
//===----------------------------------------------------------------------===//

// -----

tile.kernel @extract_element_type(%s: f32, %i: index) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.extract' op the sub-tile must hold the source's 'f32'}}
  %r = tile.extract %t[%i, %i] : tensor<64x32xf32> -> tensor<1x32xbf16>
  tile.return
}

// -----

tile.kernel @extract_rank(%s: f32, %i: index) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.extract' op a 32 f32 tile cannot be a sub-tile of a 64x32 f32 tile: ranks differ}}
  %r = tile.extract %t[%i, %i] : tensor<64x32xf32> -> tensor<32xf32>
  tile.return
}

// -----

tile.kernel @extract_index_count(%s: f32, %i: index) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.extract' op takes one tile index per dimension: 2, not 1}}
  %r = tile.extract %t[%i] : tensor<64x32xf32> -> tensor<1x32xf32>
  tile.return
}

// -----

tile.kernel @extract_not_a_multiple(%s: f32, %i: index) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.extract' op the source's extents must be multiples of the sub-tile's: 64x32 is not tiled by 64x24}}
  %r = tile.extract %t[%i, %i] : tensor<64x32xf32> -> tensor<64x24xf32>
  tile.return
}

// -----

tile.kernel @extract_larger(%s: f32, %i: index) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.extract' op the source's extents must be multiples of the sub-tile's: 64x32 is not tiled by 128x32}}
  %r = tile.extract %t[%i, %i] : tensor<64x32xf32> -> tensor<128x32xf32>
  tile.return
}

// -----

tile.kernel @extract_empty(%s: f32, %i: index) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.extract' op the source's extents must be multiples of the sub-tile's: 64x32 is not tiled by 0x32}}
  %r = tile.extract %t[%i, %i] : tensor<64x32xf32> -> tensor<0x32xf32>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.broadcast
//===----------------------------------------------------------------------===//

// -----

tile.kernel @broadcast_element_type(%s: f32) {
  %t = tile.full %s : tensor<1x32xf32>
  // expected-error @+1 {{'tile.broadcast' op broadcast keeps the element type 'f32'}}
  %r = tile.broadcast %t : tensor<1x32xf32> -> tensor<64x32xf16>
  tile.return
}

// -----

tile.kernel @broadcast_rank(%s: f32) {
  %t = tile.full %s : tensor<32xf32>
  // expected-error @+1 {{'tile.broadcast' op source and result ranks differ (1 and 2); use tile.reshape to add extent-1 axes first}}
  %r = tile.broadcast %t : tensor<32xf32> -> tensor<64x32xf32>
  tile.return
}

// -----

tile.kernel @broadcast_extent(%s: f32) {
  %t = tile.full %s : tensor<2x32xf32>
  // expected-error @+1 {{'tile.broadcast' op dimension 0 of the source is 2: it must be 1 or equal the result's 64}}
  %r = tile.broadcast %t : tensor<2x32xf32> -> tensor<64x32xf32>
  tile.return
}

// -----

// Two parameters are different extents even if their defaults agree.
tile.kernel @broadcast_other_parameter(%s: f32)
    attributes {params = {M = 64 : i64, N = 64 : i64}} {
  %t = tile.full %s : tensor<?xf32, #tile.dims<[M]>>
  // expected-error @+1 {{'tile.broadcast' op dimension 0 of the source is M: it must be 1 or equal the result's N}}
  %r = tile.broadcast %t : tensor<?xf32, #tile.dims<[M]>> -> tensor<?xf32, #tile.dims<[N]>>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.reshape
//===----------------------------------------------------------------------===//

// -----

tile.kernel @reshape_element_type(%s: f32) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.reshape' op reshape keeps the element type 'f32'}}
  %r = tile.reshape %t : tensor<64x32xf32> -> tensor<2048xi32>
  tile.return
}

// -----

tile.kernel @reshape_count(%s: f32) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.reshape' op a 64x32 tile cannot have as many elements as a 64x16 tile}}
  %r = tile.reshape %t : tensor<64x32xf32> -> tensor<64x16xf32>
  tile.return
}

// -----

// The parameters cancel: 32 * CHUNK elements cannot be 16 * CHUNK.
tile.kernel @reshape_count_symbolic(%s: f32) attributes {params = {CHUNK = 64 : i64}} {
  %t = tile.full %s : tensor<?x32xf32, #tile.dims<[CHUNK, 32]>>
  // expected-error @+1 {{'tile.reshape' op a CHUNKx32 tile cannot have as many elements as a 16xCHUNK tile}}
  %r = tile.reshape %t : tensor<?x32xf32, #tile.dims<[CHUNK, 32]>> -> tensor<16x?xf32, #tile.dims<[16, CHUNK]>>
  tile.return
}

// -----

// 100 elements are not 8 * CHUNK for any CHUNK.
tile.kernel @reshape_count_not_a_multiple(%s: f32) attributes {params = {CHUNK = 64 : i64}} {
  %t = tile.full %s : tensor<100xf32>
  // expected-error @+1 {{'tile.reshape' op a 100 tile cannot have as many elements as a 8xCHUNK tile}}
  %r = tile.reshape %t : tensor<100xf32> -> tensor<8x?xf32, #tile.dims<[8, CHUNK]>>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.permute
//===----------------------------------------------------------------------===//

// -----

tile.kernel @permute_element_type(%s: f32) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.permute' op permute keeps the element type 'f32'}}
  %r = tile.permute %t [1, 0] : tensor<64x32xf32> -> tensor<32x64xbf16>
  tile.return
}

// -----

tile.kernel @permute_length(%s: f32) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.permute' op the permutation must list each of the source's 2 dimensions once}}
  %r = tile.permute %t [1] : tensor<64x32xf32> -> tensor<32x64xf32>
  tile.return
}

// -----

tile.kernel @permute_result_rank(%s: f32) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.permute' op the permutation must list each of the source's 2 dimensions once}}
  %r = tile.permute %t [1, 0] : tensor<64x32xf32> -> tensor<32x64x1xf32>
  tile.return
}

// -----

tile.kernel @permute_repeated(%s: f32) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.permute' op the permutation must list each of the source's 2 dimensions once}}
  %r = tile.permute %t [0, 0] : tensor<64x32xf32> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @permute_out_of_range(%s: f32) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.permute' op the permutation must list each of the source's 2 dimensions once}}
  %r = tile.permute %t [2, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  tile.return
}

// -----

tile.kernel @permute_extent(%s: f32) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.permute' op result dimension 0 is source dimension 1 of extent 32, not 64}}
  %r = tile.permute %t [1, 0] : tensor<64x32xf32> -> tensor<64x32xf32>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.convert
//===----------------------------------------------------------------------===//

// -----

tile.kernel @convert_rank(%s: f32) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.convert' op convert keeps the shape: 64x32 cannot become 2048}}
  %r = tile.convert %t : tensor<64x32xf32> -> tensor<2048xbf16>
  tile.return
}

// -----

tile.kernel @convert_shape(%s: f32) attributes {params = {CHUNK = 64 : i64}} {
  %t = tile.full %s : tensor<?x32xf32, #tile.dims<[CHUNK, 32]>>
  // expected-error @+1 {{'tile.convert' op convert keeps the shape: CHUNKx32 cannot become CHUNKx16}}
  %r = tile.convert %t : tensor<?x32xf32, #tile.dims<[CHUNK, 32]>> -> tensor<?x16xbf16, #tile.dims<[CHUNK, 16]>>
  tile.return
}

// -----

tile.kernel @convert_i32_to_tf32(%s: i32) {
  %t = tile.full %s : tensor<16x16xi32>
  // expected-error @+1 {{'tile.convert' op only float tiles convert to tf32 (an integer tile converts to f32 first)}}
  %r = tile.convert %t : tensor<16x16xi32> -> tensor<16x16xtf32>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.cumsum and tile.reduce
//===----------------------------------------------------------------------===//

// -----

tile.kernel @cumsum_axis(%s: f32) {
  %t = tile.full %s : tensor<64x8xf32>
  // expected-error @+1 {{'tile.cumsum' op axis 2 is not a dimension of a 64x8 f32 tile}}
  %r = tile.cumsum %t axis = 2 : tensor<64x8xf32>
  tile.return
}

// -----

tile.kernel @cumsum_negative_axis(%s: f32) {
  %t = tile.full %s : tensor<64x8xf32>
  // expected-error @+1 {{'tile.cumsum' op axis -1 is not a dimension of a 64x8 f32 tile}}
  %r = tile.cumsum %t axis = -1 : tensor<64x8xf32>
  tile.return
}

// -----

tile.kernel @cumsum_i8(%s: i8) {
  %t = tile.full %s : tensor<64xi8>
  // expected-error @+1 {{'tile.cumsum' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values}}
  %r = tile.cumsum %t axis = 0 : tensor<64xi8>
  tile.return
}

// -----

tile.kernel @cumsum_type(%s: f32) {
  %t = tile.full %s : tensor<64xf32>
  // expected-error @+1 {{'tile.cumsum' op requires the same type for all operands and results}}
  %r = "tile.cumsum"(%t) <{axis = 0 : i64}> : (tensor<64xf32>) -> tensor<64xf16>
  tile.return
}

// -----

tile.kernel @reduce_axis(%s: f32) {
  %t = tile.full %s : tensor<64x8xf32>
  // expected-error @+1 {{'tile.reduce' op axis 2 is not a dimension of a 64x8 f32 tile}}
  %r = tile.reduce sum %t axis = 2 : tensor<64x8xf32> -> tensor<64xf32>
  tile.return
}

// -----

tile.kernel @reduce_element_type(%s: f32) {
  %t = tile.full %s : tensor<64x8xf32>
  // expected-error @+1 {{'tile.reduce' op the result must hold the source's 'f32'}}
  %r = tile.reduce max %t axis = 1 : tensor<64x8xf32> -> tensor<64xf16>
  tile.return
}

// -----

tile.kernel @reduce_extents(%s: f32) {
  %t = tile.full %s : tensor<64x8xf32>
  // expected-error @+1 {{'tile.reduce' op reducing a 64x8 tile along axis 1 leaves the other extents, not 8}}
  %r = tile.reduce sum %t axis = 1 : tensor<64x8xf32> -> tensor<8xf32>
  tile.return
}

// -----

// The reduced axis is dropped, not kept with extent 1.
tile.kernel @reduce_keeps_axis(%s: f32) {
  %t = tile.full %s : tensor<64x8xf32>
  // expected-error @+1 {{'tile.reduce' op reducing a 64x8 tile along axis 1 leaves the other extents, not 64x1}}
  %r = tile.reduce sum %t axis = 1 : tensor<64x8xf32> -> tensor<64x1xf32>
  tile.return
}

// -----

tile.kernel @reduce_kind(%s: f32) {
  %t = tile.full %s : tensor<64xf32>
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min]}}
  %r = tile.reduce prod %t axis = 0 : tensor<64xf32> -> tensor<f32>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.mma
//===----------------------------------------------------------------------===//

// -----

tile.kernel @mma_rank(%s: f32) {
  %a = tile.full %s : tensor<2x64x16xf32>
  %b = tile.full %s : tensor<16x32xf32>
  %c = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.mma' op multiplies matrices: a, b and acc must be 2-D tiles (a is 2x64x16, b is 16x32, acc is 64x32)}}
  %d = tile.mma %a, %b, %c : tensor<2x64x16xf32>, tensor<16x32xf32>, tensor<64x32xf32>
  tile.return
}

// -----

tile.kernel @mma_mixed_operands(%s: f32, %h: bf16) {
  %a = tile.full %s : tensor<64x16xf32>
  %b = tile.full %h : tensor<16x32xbf16>
  %c = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.mma' op a and b must have one element type; a holds 'f32' and b holds 'bf16'}}
  %d = tile.mma %a, %b, %c : tensor<64x16xf32>, tensor<16x32xbf16>, tensor<64x32xf32>
  tile.return
}

// -----

tile.kernel @mma_split_bf16_tf32_operand(%s: f32, %h: bf16) {
  %f = tile.full %s : tensor<64x16xf32>
  %a = tile.convert %f : tensor<64x16xf32> -> tensor<64x16xtf32>
  %b = tile.full %h : tensor<16x32xbf16>
  %c = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.mma' op with precision = split_bf16, a must hold bf16, f16 or f32 (each is split into bf16 halves), not 'tf32'}}
  %d = tile.mma %a, %b, %c precision = split_bf16 : tensor<64x16xtf32>, tensor<16x32xbf16>, tensor<64x32xf32>
  tile.return
}

// -----

tile.kernel @mma_k(%h: bf16, %s: f32) {
  %a = tile.full %h : tensor<64x16xbf16>
  %b = tile.full %h : tensor<32x32xbf16>
  %c = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.mma' op a is 64x16 and b is 32x32: a's columns (K = 16) must equal b's rows (K = 32)}}
  %d = tile.mma %a, %b, %c : tensor<64x16xbf16>, tensor<32x32xbf16>, tensor<64x32xf32>
  tile.return
}

// -----

tile.kernel @mma_m(%h: bf16, %s: f32) {
  %a = tile.full %h : tensor<64x16xbf16>
  %b = tile.full %h : tensor<16x32xbf16>
  %c = tile.full %s : tensor<128x32xf32>
  // expected-error @+1 {{'tile.mma' op a 64x16 by 16x32 product is 64x32, but acc is 128x32}}
  %d = tile.mma %a, %b, %c : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<128x32xf32>
  tile.return
}

// -----

tile.kernel @mma_n(%s: f32) attributes {params = {M = 64 : i64, N = 32 : i64}} {
  %a = tile.full %s : tensor<?x16xf32, #tile.dims<[M, 16]>>
  %b = tile.full %s : tensor<16x?xf32, #tile.dims<[16, N]>>
  %c = tile.full %s : tensor<?x?xf32, #tile.dims<[M, M]>>
  // expected-error @+1 {{'tile.mma' op a Mx16 by 16xN product is MxN, but acc is MxM}}
  %d = tile.mma %a, %b, %c : tensor<?x16xf32, #tile.dims<[M, 16]>>, tensor<16x?xf32, #tile.dims<[16, N]>>, tensor<?x?xf32, #tile.dims<[M, M]>>
  tile.return
}

// -----

tile.kernel @mma_integer_operands(%k: i32, %s: f32) {
  %a = tile.full %k : tensor<64x16xi32>
  %b = tile.full %k : tensor<16x32xi32>
  %c = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.mma' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or tf32 type or element-type parameter values}}
  %d = tile.mma %a, %b, %c : tensor<64x16xi32>, tensor<16x32xi32>, tensor<64x32xf32>
  tile.return
}

// -----

tile.kernel @mma_bf16_accumulator(%h: bf16) {
  %a = tile.full %h : tensor<64x16xbf16>
  %b = tile.full %h : tensor<16x32xbf16>
  %c = tile.full %h : tensor<64x32xbf16>
  // expected-error @+1 {{'tile.mma' op operand #2 must be ranked tensor of 32-bit float values}}
  %d = tile.mma %a, %b, %c : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xbf16>
  tile.return
}

// -----

tile.kernel @mma_result_type(%h: bf16, %s: f32) {
  %a = tile.full %h : tensor<64x16xbf16>
  %b = tile.full %h : tensor<16x32xbf16>
  %c = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.mma' op failed to verify that all of {acc, result} have same type}}
  %d = "tile.mma"(%a, %b, %c) : (tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>) -> tensor<32x64xf32>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.exp2, tile.where, tile.softplus and tile.silu
//===----------------------------------------------------------------------===//

// -----

tile.kernel @exp2_bf16(%h: bf16) {
  %t = tile.full %h : tensor<64xbf16>
  // expected-error @+1 {{'tile.exp2' op operand #0 must be ranked tensor of 32-bit float values}}
  %e = tile.exp2 %t : tensor<64xbf16>
  tile.return
}

// -----

tile.kernel @where_shape(%b: i1, %s: f32) {
  %c = tile.full %b : tensor<64x2xi1>
  %t = tile.full %s : tensor<64x64xf32>
  // expected-error @+1 {{'tile.where' op the condition operand is 64x2: aligned with the last dimensions of the result (64x64), its dimension 1 must be 1 or 64, not 2}}
  %w = tile.where %c, %t, %t : tensor<64x2xi1>, tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @where_rank(%b: i1, %s: f32) {
  %c = tile.full %b : tensor<2x64x64xi1>
  %t = tile.full %s : tensor<64x64xf32>
  // expected-error @+1 {{'tile.where' op the condition operand (2x64x64) has more dimensions than the result (64x64)}}
  %w = tile.where %c, %t, %t : tensor<2x64x64xi1>, tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @where_integer_condition(%k: i32, %s: f32) {
  %c = tile.full %k : tensor<64xi32>
  %t = tile.full %s : tensor<64xf32>
  // expected-error @+1 {{'tile.where' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %w = "tile.where"(%c, %t, %t) : (tensor<64xi32>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  tile.return
}

// -----

tile.kernel @where_value_types(%b: i1, %s: f32, %h: bf16) {
  %c = tile.full %b : tensor<64xi1>
  %t = tile.full %s : tensor<64xf32>
  %u = tile.full %h : tensor<64xbf16>
  // expected-error @+1 {{'tile.where' op the false value operand holds 'bf16' elements but the result 'f32'}}
  %w = "tile.where"(%c, %t, %u) : (tensor<64xi1>, tensor<64xf32>, tensor<64xbf16>) -> tensor<64xf32>
  tile.return
}

// -----

tile.kernel @where_scalar_type(%b: i1, %s: f32, %h: bf16) {
  %c = tile.full %b : !tile.tile<4 x 8 x i1>
  %t = tile.full %s : !tile.tile<4 x 8 x f32>
  // expected-error @+1 {{'tile.where' op the false value operand holds 'bf16' elements but the result 'f32'}}
  %w = tile.where %c, %t, %h : !tile.tile<4 x 8 x i1>, !tile.tile<4 x 8 x f32>, bf16 -> !tile.tile<4 x 8 x f32>
  tile.return
}

// -----

tile.kernel @where_value_shape(%b: i1, %s: f32) {
  %c = tile.full %b : !tile.tile<4 x 1 x i1>
  %t = tile.full %s : !tile.tile<3 x 8 x f32>
  // expected-error @+1 {{'tile.where' op the true value operand is 3x8: aligned with the last dimensions of the result (4x8), its dimension 0 must be 1 or 4, not 3}}
  %w = tile.where %c, %t, %s : !tile.tile<4 x 1 x i1>, !tile.tile<3 x 8 x f32>, f32 -> !tile.tile<4 x 8 x f32>
  tile.return
}

// -----

tile.kernel @softplus_bf16(%h: bf16) {
  %t = tile.full %h : !tile.tile<4 x bf16>
  // expected-error @+1 {{'tile.softplus' op operand #0 must be ranked tensor of 32-bit float values}}
  %u = tile.softplus %t : !tile.tile<4 x bf16>
  tile.return
}

// -----

tile.kernel @softplus_float_condition(%s: f32) {
  %t = tile.full %s : !tile.tile<4 x f32>
  // expected-error @+1 {{'tile.softplus' op operand #1 must be signless integer or index}}
  %u = tile.softplus %t if %s : !tile.tile<4 x f32>, f32
  tile.return
}

// -----

tile.kernel @softplus_result_type(%s: f32) {
  %t = tile.full %s : tensor<4xf32>
  // expected-error @+1 {{'tile.softplus' op failed to verify that all of {source, result} have same type}}
  %u = "tile.softplus"(%t) : (tensor<4xf32>) -> tensor<8xf32>
  tile.return
}

// -----

tile.kernel @silu_f16(%h: f16) {
  %t = tile.full %h : !tile.tile<4 x f16>
  // expected-error @+1 {{'tile.silu' op operand #0 must be ranked tensor of 32-bit float values}}
  %u = tile.silu %t : !tile.tile<4 x f16>
  tile.return
}

// -----

tile.kernel @f64_tile(%s: f32) {
  %t = tile.full %s : tensor<64xf32>
  // expected-error @+1 {{'tile.exp2' op result #0 must be ranked tensor of 32-bit float values}}
  %e = "tile.exp2"(%t) : (tensor<64xf32>) -> tensor<64xf64>
  tile.return
}

// -----

tile.kernel @f8_tile(%s: f32) {
  %t = tile.full %s : tensor<64xf32>
  // expected-error @+1 {{'tile.convert' op result #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or tf32 type or 1-bit signless integer or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or element-type parameter values}}
  %e = tile.convert %t : tensor<64xf32> -> tensor<64xf8E4M3FN>
  tile.return
}

// -----

tile.kernel @unsigned_tile(%s: f32) {
  %t = tile.full %s : tensor<64xf32>
  // expected-error @+1 {{'tile.convert' op result #0 must be ranked tensor of}}
  %e = tile.convert %t : tensor<64xf32> -> tensor<64xui32>
  tile.return
}

//===----------------------------------------------------------------------===//
// Broadcasting float ops (tile.addf, tile.subf, tile.mulf, tile.divf)
//===----------------------------------------------------------------------===//

// -----

tile.kernel @broadcasting_element_type(%s: f32, %h: bf16) {
  %t = tile.full %s : tensor<64x32xf32>
  // expected-error @+1 {{'tile.mulf' op the second operand holds 'bf16' elements but the result 'f32'}}
  %m = tile.mulf %t, %h : tensor<64x32xf32>, bf16 -> tensor<64x32xf32>
  tile.return
}

// -----

tile.kernel @broadcasting_rank(%s: f32) {
  %t = tile.full %s : tensor<4x64x32xf32>
  // expected-error @+1 {{'tile.addf' op the first operand (4x64x32) has more dimensions than the result (64x32)}}
  %a = tile.addf %t, %s : tensor<4x64x32xf32>, f32 -> tensor<64x32xf32>
  tile.return
}

// -----

tile.kernel @broadcasting_extent(%s: f32) {
  %t = tile.full %s : tensor<64x32xf32>
  %col = tile.full %s : tensor<64xf32>
  // expected-error @+1 {{'tile.subf' op the second operand is 64: aligned with the last dimensions of the result (64x32), its dimension 0 must be 1 or 32, not 64}}
  %d = tile.subf %t, %col : tensor<64x32xf32>, tensor<64xf32> -> tensor<64x32xf32>
  tile.return
}

// -----

tile.kernel @broadcasting_parameters(%s: f32) attributes {params = {M = 64 : i64, N = 64 : i64}} {
  %t = tile.full %s : tensor<?x?xf32, #tile.dims<[M, N]>>
  %col = tile.full %s : tensor<?xf32, #tile.dims<[M]>>
  // Two parameters are not taken to be equal, whatever their values.
  // expected-error @+1 {{'tile.divf' op the second operand is M: aligned with the last dimensions of the result (MxN), its dimension 0 must be 1 or N, not M}}
  %d = tile.divf %t, %col : tensor<?x?xf32, #tile.dims<[M, N]>>, tensor<?xf32, #tile.dims<[M]>> -> tensor<?x?xf32, #tile.dims<[M, N]>>
  tile.return
}

// -----

tile.kernel @broadcasting_integer(%k: i32) {
  %t = tile.full %k : tensor<64xi32>
  // expected-error @+1 {{'tile.addf' op operand #0 must be}}
  %a = tile.addf %t, %t : tensor<64xi32>, tensor<64xi32> -> tensor<64xi32>
  tile.return
}

// -----

// Element-type parameters.

// expected-error @+1 {{type parameter "XT" is 'f64': an element type is f32, f16, bf16, tf32, i1, i8, i16, i32 or i64}}
tile.kernel @type_param_default_f64() attributes {params = {XT = f64}} {
  tile.return
}

// -----

// expected-error @+1 {{element type 'YT' is not a type: kernel @type_param_undeclared_in_signature declares no type parameter 'YT'}}
tile.kernel @type_param_undeclared_in_signature(%x: !tile.view<2, YT>) attributes {params = {XT = bf16}} {
  tile.return
}

// -----

tile.kernel @type_param_undeclared(%s: f32) attributes {params = {XT = bf16}} {
  // expected-error @+2 {{element type 'YT' is not a type: kernel @type_param_undeclared declares no type parameter 'YT'}}
  %t = tile.full %s : !tile.tile<4 x f32>
  %u = tile.convert %t : !tile.tile<4 x f32> -> !tile.tile<4 x YT>
  tile.return
}

// -----

tile.kernel @extent_param_as_type(%s: f32) attributes {params = {BLOCK = 16 : i64}} {
  %t = tile.full %s : !tile.tile<4 x f32>
  // expected-error @+1 {{'BLOCK' is an extent parameter of kernel @extent_param_as_type, not an element type: declare it as 'BLOCK : type = f32'}}
  %u = tile.convert %t : !tile.tile<4 x f32> -> !tile.tile<4 x BLOCK>
  tile.return
}

// -----

tile.kernel @type_param_as_extent(%s: f32) attributes {params = {XT = bf16}} {
  // expected-error @+1 {{tile shape uses type parameter 'XT' as an extent; extents are numbers or extent parameters}}
  %t = tile.full %s : !tile.tile<XT x f32>
  tile.return
}

// -----

tile.kernel @type_param_as_param_value() attributes {params = {XT = bf16}} {
  // expected-error @+1 {{'tile.param' op 'XT' is a type parameter; tile.param reads extent parameters, which are numbers}}
  %x = tile.param "XT"
  tile.return
}

// -----

tile.kernel @type_param_arith(%x: !tile.view<1, XT>) attributes {params = {XT = bf16}} {
  %t = tile.load %x[0] : !tile.view<1, XT> -> !tile.tile<4 x XT>
  // expected-error @+1 {{'arith.addf' op operand #0 must be floating-point-like}}
  %u = arith.addf %t, %t : !tile.tile<4 x XT>
  tile.return
}

// -----

tile.kernel @conditional_load_float(%x: !tile.view<1, f32>, %c: f32) {
  // expected-error @+1 {{'tile.load' op operand #1 must be signless integer or index, but got 'f32'}}
  %t = tile.load %x[0] if %c : !tile.view<1, f32>, f32 -> !tile.tile<4 x f32>
  tile.return
}

// -----

tile.kernel @addi_element_mismatch(%i: i32, %j: i16) {
  %t = tile.full %i : !tile.tile<4 x i32>
  // expected-error @+1 {{'tile.addi' op the second operand holds 'i16' elements but the result 'i32'}}
  %u = tile.addi %t, %j : !tile.tile<4 x i32>, i16 -> !tile.tile<4 x i32>
  tile.return
}

// -----

tile.kernel @andi_shape_mismatch(%b: i1) {
  %t = tile.full %b : !tile.tile<4 x 8 x i1>
  %u = tile.full %b : !tile.tile<4 x i1>
  // expected-error @+1 {{'tile.andi' op the second operand is 4: aligned with the last dimensions of the result (4x8), its dimension 0 must be 1 or 8, not 4}}
  %v = tile.andi %t, %u : !tile.tile<4 x 8 x i1>, !tile.tile<4 x i1> -> !tile.tile<4 x 8 x i1>
  tile.return
}

// -----

tile.kernel @cmpi_element_mismatch(%i: i32, %j: i64) {
  %t = tile.full %i : !tile.tile<4 x i32>
  // expected-error @+1 {{'tile.cmpi' op compares operands of one element type, not 'i32' and 'i64'}}
  %u = tile.cmpi eq, %t, %j : !tile.tile<4 x i32>, i64 -> !tile.tile<4 x i1>
  tile.return
}

// -----

tile.kernel @cmpi_shape_mismatch(%i: i32) {
  %t = tile.full %i : !tile.tile<4 x 8 x i32>
  // expected-error @+1 {{'tile.cmpi' op the first operand is 4x8: aligned with the last dimensions of the result (8x4), its dimension 0 must be 1 or 8, not 4}}
  %u = tile.cmpi eq, %t, %i : !tile.tile<4 x 8 x i32>, i32 -> !tile.tile<8 x 4 x i1>
  tile.return
}

// -----

tile.kernel @cmpi_bad_predicate(%i: i32) {
  // expected-error @+1 {{'slx' is not a predicate of the comparison}}
  %u = tile.cmpi slx, %i, %i : i32, i32 -> !tile.tile<4 x i1>
  tile.return
}

// -----

tile.kernel @cmpi_predicate_out_of_range(%i: i32) {
  // expected-error @+1 {{'tile.cmpi' op predicate 99 : i64 is not one of the comparison's}}
  %u = "tile.cmpi"(%i, %i) {predicate = 99 : i64} : (i32, i32) -> tensor<4xi1>
  tile.return
}

// -----

tile.kernel @cmpf_integer_operands(%i: i32) {
  // expected-error @+1 {{'tile.cmpf' op operand #0 must be}}
  %u = tile.cmpf oeq, %i, %i : i32, i32 -> !tile.tile<4 x i1>
  tile.return
}

// -----

tile.kernel @maximumf_element_mismatch(%f: f32, %h: f16) {
  %t = tile.full %f : !tile.tile<4 x f32>
  // expected-error @+1 {{'tile.maximumf' op the second operand holds 'f16' elements but the result 'f32'}}
  %u = tile.maximumf %t, %h : !tile.tile<4 x f32>, f16 -> !tile.tile<4 x f32>
  tile.return
}

// -----

tile.kernel @clamp_low_element_type(%f: f32, %h: f16) {
  %t = tile.full %f : !tile.tile<4 x f32>
  // expected-error @+1 {{'tile.clamp' op the low operand holds 'f16' elements but the result 'f32'}}
  %u = tile.clamp %t, %h, %f : !tile.tile<4 x f32>, f16, f32
  tile.return
}

// -----

tile.kernel @clamp_high_shape(%f: f32) {
  %t = tile.full %f : !tile.tile<4 x 8 x f32>
  %h = tile.full %f : !tile.tile<4 x f32>
  // expected-error @+1 {{'tile.clamp' op the high operand is 4: aligned with the last dimensions of the result (4x8), its dimension 0 must be 1 or 8, not 4}}
  %u = tile.clamp %t, %f, %h : !tile.tile<4 x 8 x f32>, f32, !tile.tile<4 x f32>
  tile.return
}

// -----

tile.kernel @pad_dim(%f: f32, %n: index) {
  %t = tile.full %f : !tile.tile<4 x 8 x f32>
  // expected-error @+1 {{'tile.pad' op axis 2 is not a dimension of a 4x8 f32 tile}}
  %u = tile.pad %t dim 2 past %n at %n : !tile.tile<4 x 8 x f32>
  tile.return
}

// -----

tile.kernel @pad_integer_nan(%i: i32, %n: index) {
  %t = tile.full %i : !tile.tile<4 x i32>
  // expected-error @+1 {{'tile.pad' op padding = nan needs a float tile; integer tiles pad with zero}}
  %u = tile.pad %t dim 0 past %n at %n padding = nan : !tile.tile<4 x i32>
  tile.return
}

// -----

tile.kernel @delinearize_no_extent(%x: index) {
  // expected-error @+1 {{'tile.delinearize' op needs at least one extent to split by}}
  %a = "tile.delinearize"(%x) : (index) -> index
  tile.return
}

// -----

tile.kernel @delinearize_result_count(%x: index, %n: index) {
  // expected-error @+1 {{'tile.delinearize' op gives one coordinate per extent and the outer one: 2 results, not 3}}
  %a, %b, %c = "tile.delinearize"(%x, %n) : (index, index) -> (index, index, index)
  tile.return
}

// -----

tile.kernel @conditional_store_float(%x: !tile.view<1, f32>, %c: f32) {
  %t = tile.full %c : !tile.tile<4 x f32>
  // expected-error @+1 {{'tile.store' op operand #2 must be signless integer or index, but got 'f32'}}
  tile.store %t, %x[0] if %c : !tile.tile<4 x f32>, !tile.view<1, f32>, f32
}

// -----

tile.kernel @delinearize_tiled_operands(%x: index, %n: index) {
  // expected-error @+1 {{'tile.delinearize' op has 1 extent operands, but `tiled` marks extents of 2}}
  %a, %b = "tile.delinearize"(%x, %n) <{tiled = array<i1: true>}> : (index, index) -> (index, index)
  tile.return
}

// -----

tile.kernel @linearize_coordinate_count(%x: index, %n: index) {
  // expected-error @+1 {{'tile.linearize' op takes one coordinate per extent and the outer one: 3 coordinates, not 2}}
  %a = tile.linearize %x, %x by %n, tiles(%n, %n)
  tile.return
}

// -----

tile.kernel @linearize_no_extent(%x: index) {
  // expected-error @+1 {{'tile.linearize' op needs at least one extent to combine by}}
  %a = "tile.linearize"(%x) <{operandSegmentSizes = array<i32: 1, 0>}> : (index) -> index
  tile.return
}

// -----

tile.kernel @tri_rank(%x: index) {
  // expected-error @+1 {{'tile.tri' op makes a tile of a matrix's mask: the result must be a 2-D tile, not a 8 i1 tile}}
  %m = tile.tri at %x, %x : !tile.tile<8 x i1>
  tile.return
}

// -----

tile.kernel @for_form(%n: index) {
  // expected-error @+1 {{expected 'range(%n)' or 'tiles(%extent, %size)', not 'upto'}}
  tile.for %k in upto(%n) {
  }
  tile.return
}

// -----

tile.kernel @for_yield_type(%n: index, %f: f32) {
  %zero = tile.full 0.0 : !tile.tile<4 x f32>
  %r = tile.for %k in range(%n) iter_args(%acc = %zero) -> (!tile.tile<4 x f32>) {
    // expected-error @+1 {{'tile.yield' op yields the next value of each iter_args entry, of its type ('tensor<4xf32>'), not ('f32')}}
    tile.yield %f : f32
  }
  tile.return
}

// -----

tile.kernel @for_iter_args_types(%n: index) {
  %zero = tile.full 0.0 : !tile.tile<4 x f32>
  // expected-error @+1 {{iter_args has 1 values but 2 types}}
  %r = tile.for %k in range(%n) iter_args(%acc = %zero) -> (!tile.tile<4 x f32>, !tile.tile<4 x f32>) {
    tile.yield %acc : !tile.tile<4 x f32>
  }
  tile.return
}

// -----

tile.kernel @where_scalar_condition_type(%c: i32, %f: f32) {
  %t = tile.full %f : !tile.tile<4 x f32>
  // expected-error @+1 {{'tile.where' op operand #0 must be ranked tensor of 1-bit signless integer values or 1-bit signless integer, but got 'i32'}}
  %w = tile.where %c, %t, %t : i32, !tile.tile<4 x f32>
  tile.return
}

// -----

tile.kernel @yield_outside_for(%f: f32) {
  // expected-error @+1 {{'tile.yield' op expects parent op 'tile.for'}}
  tile.yield %f : f32
}
