// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt.
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cubin --target=sm_90 -o %t.sm90.cubin

// The math functions without a PTX instruction, which the GPU computes with
// libdevice (docs/codegen.md) and the interpreter with the host C library:
// row k of o is function k of x (and y), in the domain each is defined on.
tile.kernel @libdevice_math(%xv: !tile.view<1, f32>, %yv: !tile.view<1, f32>,
                            %o: !tile.view<2, f32>) {
  %i = tile.block_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %half = arith.constant dense<0.5> : tensor<128xf32>
  %x = tile.load %xv[%i] : !tile.view<1, f32> -> tensor<128xf32>
  %y = tile.load %yv[%i] : !tile.view<1, f32> -> tensor<128xf32>
  %ax = math.absf %x : tensor<128xf32>
  %pos = arith.addf %ax, %half : tensor<128xf32>
  %sin = math.sin %x : tensor<128xf32>
  %cos = math.cos %x : tensor<128xf32>
  %tanh = math.tanh %x : tensor<128xf32>
  %erf = math.erf %x : tensor<128xf32>
  %atan = math.atan %x : tensor<128xf32>
  %atan2 = math.atan2 %x, %y : tensor<128xf32>
  %expm1 = math.expm1 %x : tensor<128xf32>
  %log1p = math.log1p %ax : tensor<128xf32>
  %log10 = math.log10 %pos : tensor<128xf32>
  %powf = math.powf %pos, %y : tensor<128xf32>
  %r0 = tile.reshape %sin : tensor<128xf32> -> tensor<1x128xf32>
  tile.store %r0, %o[%c0, %i] : tensor<1x128xf32>, !tile.view<2, f32>
  %r1 = tile.reshape %cos : tensor<128xf32> -> tensor<1x128xf32>
  tile.store %r1, %o[%c1, %i] : tensor<1x128xf32>, !tile.view<2, f32>
  %r2 = tile.reshape %tanh : tensor<128xf32> -> tensor<1x128xf32>
  tile.store %r2, %o[%c2, %i] : tensor<1x128xf32>, !tile.view<2, f32>
  %r3 = tile.reshape %erf : tensor<128xf32> -> tensor<1x128xf32>
  tile.store %r3, %o[%c3, %i] : tensor<1x128xf32>, !tile.view<2, f32>
  %r4 = tile.reshape %atan : tensor<128xf32> -> tensor<1x128xf32>
  tile.store %r4, %o[%c4, %i] : tensor<1x128xf32>, !tile.view<2, f32>
  %r5 = tile.reshape %atan2 : tensor<128xf32> -> tensor<1x128xf32>
  tile.store %r5, %o[%c5, %i] : tensor<1x128xf32>, !tile.view<2, f32>
  %r6 = tile.reshape %expm1 : tensor<128xf32> -> tensor<1x128xf32>
  tile.store %r6, %o[%c6, %i] : tensor<1x128xf32>, !tile.view<2, f32>
  %r7 = tile.reshape %log1p : tensor<128xf32> -> tensor<1x128xf32>
  tile.store %r7, %o[%c7, %i] : tensor<1x128xf32>, !tile.view<2, f32>
  %r8 = tile.reshape %log10 : tensor<128xf32> -> tensor<1x128xf32>
  tile.store %r8, %o[%c8, %i] : tensor<1x128xf32>, !tile.view<2, f32>
  %r9 = tile.reshape %powf : tensor<128xf32> -> tensor<1x128xf32>
  tile.store %r9, %o[%c9, %i] : tensor<1x128xf32>, !tile.view<2, f32>
  tile.return
}
