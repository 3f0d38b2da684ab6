// RUN: tile-opt %s -split-input-file -verify-diagnostics
// Reproducers of the fuzzing campaign (issue 11) that the verifier rejects:
// attributes of the wrong kind, names PTX cannot carry, math functions with
// no GPU code, tiles too large for the registers or empty.

// c03: num_warps / occupancy that are not integers used to crash the
// verifier (the attribute was dropped and then read as null).
// expected-error @+1 {{'tile.kernel' op attribute 'num_warps' failed to satisfy constraint: 32-bit signless integer attribute}}
tile.kernel @warps_unit() attributes {num_warps = unit} {
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op attribute 'num_warps' failed to satisfy constraint: 32-bit signless integer attribute}}
tile.kernel @warps_string() attributes {num_warps = "4"} {
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op attribute 'num_warps' failed to satisfy constraint: 32-bit signless integer attribute}}
tile.kernel @warps_float() attributes {num_warps = 4.0} {
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op attribute 'num_warps' failed to satisfy constraint: 32-bit signless integer attribute}}
tile.kernel @warps_array() attributes {num_warps = [4]} {
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op attribute 'occupancy' failed to satisfy constraint: 32-bit signless integer attribute}}
tile.kernel @occupancy_unit() attributes {occupancy = unit} {
  tile.return
}

// -----

// s09: params that are not a dictionary used to be dropped silently.
// expected-error @+1 {{'tile.kernel' op attribute 'params' failed to satisfy constraint: dictionary of named attribute values}}
tile.kernel @params_array() attributes {params = [1]} {
  tile.return
}

// -----

// c06: names with characters PTX does not allow crashed the backend ("Symbol
// name with unsupported characters"); s06: names it allows in LLVM but
// ptxas rejects were compiled.
// expected-error @+1 {{'tile.kernel' op name 'a-b' is not a PTX and C++ identifier: use letters, digits and '_', not starting with a digit}}
tile.kernel @"a-b"() {
  tile.return
}

// -----

// expected-error @+1 {{name 'a b' is not a PTX and C++ identifier}}
tile.kernel @"a b"() {
  tile.return
}

// -----

// expected-error @+1 {{name 'a@b' is not a PTX and C++ identifier}}
tile.kernel @"a@b"() {
  tile.return
}

// -----

// expected-error @+1 {{name 'a,b/c%d' is not a PTX and C++ identifier}}
tile.kernel @"a,b/c%d"() {
  tile.return
}

// -----

// expected-error @+1 {{is not a PTX and C++ identifier}}
tile.kernel @"größe"() {
  tile.return
}

// -----

// expected-error @+1 {{name 'a.b' is not a PTX and C++ identifier}}
tile.kernel @a.b() {
  tile.return
}

// -----

// expected-error @+1 {{name '_' is not a PTX and C++ identifier}}
tile.kernel @_() {
  tile.return
}

// -----

// expected-error @+1 {{name '1abc' is not a PTX and C++ identifier}}
tile.kernel @"1abc"() {
  tile.return
}

// -----

// c02: math functions docs/semantics.md does not define have no GPU code
// (the NVPTX backend has no libcall for them).
tile.kernel @tan(%x: !tile.view<1, f32>, %y: !tile.view<1, f32>) {
  %i = tile.block_id x
  %t = tile.load %x[%i] : !tile.view<1, f32> -> tensor<128xf32>
  // expected-error @+1 {{'math.tan' op is not supported in tile kernels (see docs/semantics.md for the math functions they may use)}}
  %r = math.tan %t : tensor<128xf32>
  tile.store %r, %y[%i] : tensor<128xf32>, !tile.view<1, f32>
  tile.return
}

// -----

tile.kernel @asin(%s: f32) {
  // expected-error @+1 {{'math.asin' op is not supported in tile kernels}}
  %r = math.asin %s : f32
  tile.return
}

// -----

tile.kernel @acos(%s: f32) {
  // expected-error @+1 {{'math.acos' op is not supported in tile kernels}}
  %r = math.acos %s : f32
  tile.return
}

// -----

tile.kernel @sinh(%s: f32) {
  // expected-error @+1 {{'math.sinh' op is not supported in tile kernels}}
  %r = math.sinh %s : f32
  tile.return
}

// -----

tile.kernel @cosh(%s: f32) {
  // expected-error @+1 {{'math.cosh' op is not supported in tile kernels}}
  %r = math.cosh %s : f32
  tile.return
}

// -----

// c04: a tile of 2^40 elements made LLVM abort ("SmallVector unable to
// grow"); now its registers are counted (without overflow) first.
tile.kernel @giant(%y: !tile.view<1, f32>, %s: f32) {
  %i = tile.block_id x
  // expected-error @+1 {{a 1099511627776 f32 tile needs 8589934592 registers per thread with num_warps = 4, more than the 255 a thread of a program of 128 threads has: use smaller tiles or more warps}}
  %t = tile.full %s : tensor<1099511627776xf32>
  tile.store %t, %y[%i] : tensor<1099511627776xf32>, !tile.view<1, f32>
  tile.return
}

// -----

// c05: a 4096x4096 f32 load grew the compiler's memory without bound.
tile.kernel @big_load(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>) {
  %i = tile.block_id x
  // expected-error @+1 {{a 4096x4096 f32 tile needs 131072 registers per thread with num_warps = 4, more than the 255 a thread of a program of 128 threads has}}
  %t = tile.load %x[%i, %i] : !tile.view<2, f32> -> tensor<4096x4096xf32>
  tile.store %t, %y[%i, %i] : tensor<4096x4096xf32>, !tile.view<2, f32>
  tile.return
}

// -----

// With 32 warps a thread has 65536 / 1024 = 64 registers: a 256x256 f32
// tile fits exactly, one more row does not.
tile.kernel @at_the_limit(%x: !tile.view<2, f32>) attributes {num_warps = 32 : i32} {
  %i = tile.block_id x
  %t = tile.load %x[%i, %i] : !tile.view<2, f32> -> tensor<256x256xf32>
  // expected-error @+1 {{a 257x256 f32 tile needs 65 registers per thread with num_warps = 32, more than the 64 a thread of a program of 1024 threads has}}
  %u = tile.load %x[%i, %i] : !tile.view<2, f32> -> tensor<257x256xf32>
  tile.return
}

// -----

// s02: 2^32 x 2^32 elements counted 0 in wrapping arithmetic, so a reshape
// of an empty tile verified. Tiles may not be empty now ...
tile.kernel @reshape_empty(%y: !tile.view<2, f32>, %s: f32) {
  %i = tile.block_id x
  // expected-error @+1 {{tile extents must be positive, not 0 f32 tile}}
  %z = tile.full %s : tensor<0xf32>
  tile.return
}

// -----

// ... and counts that overflow match no tile: 274177 x 67280421310721 is
// 2^64 + 1, which wraps to 1.
tile.kernel @reshape_count_wraps(%s: f32) {
  %z = tile.full %s : tensor<1xf32>
  // expected-error @+1 {{'tile.reshape' op a 1 tile cannot have as many elements as a 274177x67280421310721 tile}}
  %t = tile.reshape %z : tensor<1xf32> -> tensor<274177x67280421310721xf32>
  tile.return
}

// -----

// s08: an f32 mma with K = 0 reached the lowering and failed there with an
// internal error; its empty operands are rejected.
tile.kernel @mma_k0(%c: !tile.view<2, f32>, %s: f32) {
  %i = tile.block_id x
  // expected-error @+1 {{tile extents must be positive, not 64x0 f32 tile}}
  %a = tile.full %s : tensor<64x0xf32>
  %b = tile.full %s : tensor<0x32xf32>
  %acc = tile.full %s : tensor<64x32xf32>
  %d = tile.mma %a, %b, %acc : tensor<64x0xf32>, tensor<0x32xf32>, tensor<64x32xf32>
  tile.store %d, %c[%i, %i] : tensor<64x32xf32>, !tile.view<2, f32>
  tile.return
}
