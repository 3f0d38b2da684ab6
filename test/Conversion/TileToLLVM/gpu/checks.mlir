// Kernels whose results check.cpp compares with references on a GPU (see
// run.sh): the index math, fragments and exchanges of convert-tile-to-llvm.

// c += a @ b, bf16, 64x32 by 32x48 on 4 warps (several tiles per warp).
tile.kernel @mma_bf16(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                      %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<64x32xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<32x48xbf16>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<64x48xf32>
  %d = tile.mma %ta, %tb, %tc : tensor<64x32xbf16>, tensor<32x48xbf16>, tensor<64x48xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x48xf32>, !tile.view<2, f32>
  tile.return
}

// c += tf32(a) @ tf32(b), 20x12 by 12x6: padded to the instruction shape.
tile.kernel @mma_tf32(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>,
                      %c: !tile.view<2, f32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<20x12xf32>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<12x6xf32>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<20x6xf32>
  %xa = tile.convert %ta : tensor<20x12xf32> -> tensor<20x12xtf32>
  %xb = tile.convert %tb : tensor<12x6xf32> -> tensor<12x6xtf32>
  %d = tile.mma %xa, %xb, %tc : tensor<20x12xtf32>, tensor<12x6xtf32>, tensor<20x6xf32>
  tile.store %d, %c[%c0, %c0] : tensor<20x6xf32>, !tile.view<2, f32>
  tile.return
}

// c += a @ b in f32, 8x5 by 5x8.
tile.kernel @mma_f32(%a: !tile.view<2, f32>, %b: !tile.view<2, f32>,
                     %c: !tile.view<2, f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, f32> -> tensor<8x5xf32>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, f32> -> tensor<5x8xf32>
  %tc = tile.load %c[%c0, %c0] : !tile.view<2, f32> -> tensor<8x8xf32>
  %d = tile.mma %ta, %tb, %tc : tensor<8x5xf32>, tensor<5x8xf32>, tensor<8x8xf32>
  tile.store %d, %c[%c0, %c0] : tensor<8x8xf32>, !tile.view<2, f32>
  tile.return
}

// Program (i, j) reads tile (i, j) of x (a ragged 2-D view, 16x8 tiles)
// transposed through order = [1, 0] and stores it as tile (j, i) of y, so
// y = x^T; s[16 i + r, j] = max of row r of the tile (neg_inf padding); z is
// the cumsum down the columns of each tile.
tile.kernel @load_scan(%x: !tile.view<2, f32>, %y: !tile.view<2, f32>,
                       %z: !tile.view<2, f32>, %s: !tile.view<2, f32>)
    attributes {num_warps = 2 : i32} {
  %i = tile.block_id x
  %j = tile.block_id y
  %t = tile.load %x[%i, %j] order = [1, 0] : !tile.view<2, f32> -> tensor<8x16xf32>
  tile.store %t, %y[%j, %i] : tensor<8x16xf32>, !tile.view<2, f32>
  %u = tile.load %x[%i, %j] padding = neg_inf : !tile.view<2, f32> -> tensor<16x8xf32>
  %m = tile.reduce max %u axis = 1 : tensor<16x8xf32> -> tensor<16xf32>
  %m2 = tile.reshape %m : tensor<16xf32> -> tensor<16x1xf32>
  tile.store %m2, %s[%i, %j] : tensor<16x1xf32>, !tile.view<2, f32>
  %v = tile.load %x[%i, %j] : !tile.view<2, f32> -> tensor<16x8xf32>
  %c = tile.cumsum %v axis = 0 : tensor<16x8xf32>
  tile.store %c, %z[%i, %j] : tensor<16x8xf32>, !tile.view<2, f32>
  tile.return
}

// Data movement on an 8x8 tile of x: o[0] = permute, o[1] = broadcast of
// row 3, o[2..3] = extract of rows 2k..2k+1 (k = 2) twice, o[4] = exp2.
tile.kernel @movement(%x: !tile.view<2, f32>, %o: !tile.view<3, f32>)
    attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<8x8xf32>
  %p = tile.permute %t [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %p3 = tile.reshape %p : tensor<8x8xf32> -> tensor<1x8x8xf32>
  tile.store %p3, %o[%c0, %c0, %c0] : tensor<1x8x8xf32>, !tile.view<3, f32>
  %row = tile.extract %t[%c3, %c0] : tensor<8x8xf32> -> tensor<1x8xf32>
  %b = tile.broadcast %row : tensor<1x8xf32> -> tensor<8x8xf32>
  %b3 = tile.reshape %b : tensor<8x8xf32> -> tensor<1x8x8xf32>
  tile.store %b3, %o[%c1, %c0, %c0] : tensor<1x8x8xf32>, !tile.view<3, f32>
  %e = tile.extract %t[%c2, %c0] : tensor<8x8xf32> -> tensor<2x8xf32>
  %e3 = tile.reshape %e : tensor<2x8xf32> -> tensor<1x2x8xf32>
  tile.store %e3, %o[%c2, %c0, %c0] : tensor<1x2x8xf32>, !tile.view<3, f32>
  %x2 = tile.exp2 %t : tensor<8x8xf32>
  %x3 = tile.reshape %x2 : tensor<8x8xf32> -> tensor<1x8x8xf32>
  tile.store %x3, %o[%c4, %c0, %c0] : tensor<1x8x8xf32>, !tile.view<3, f32>
  tile.return
}

// Narrow types: o[0] = f16(x) @ f16(x) (mma.sync f16), o[1] = bf16 cumsum
// along rows, o[2] = where(broadcast of row 2 of x > 0, x, -x) (an i1 tile
// through shared memory); r = bf16 sum down the columns; n = saturating
// f32 -> i32 of x * 1e10.
tile.kernel @narrow(%x: !tile.view<2, f32>, %o: !tile.view<3, f32>,
                    %r: !tile.view<1, f32>, %n: !tile.view<2, i32>)
    attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %big = arith.constant 1.0e10 : f32
  %t = tile.load %x[%c0, %c0] : !tile.view<2, f32> -> tensor<16x16xf32>
  %h = tile.convert %t : tensor<16x16xf32> -> tensor<16x16xf16>
  %z = tile.full %zero : tensor<16x16xf32>
  %d = tile.mma %h, %h, %z : tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>
  %d3 = tile.reshape %d : tensor<16x16xf32> -> tensor<1x16x16xf32>
  tile.store %d3, %o[%c0, %c0, %c0] : tensor<1x16x16xf32>, !tile.view<3, f32>
  %b = tile.convert %t : tensor<16x16xf32> -> tensor<16x16xbf16>
  %cs = tile.cumsum %b axis = 1 : tensor<16x16xbf16>
  %csf = tile.convert %cs : tensor<16x16xbf16> -> tensor<16x16xf32>
  %cs3 = tile.reshape %csf : tensor<16x16xf32> -> tensor<1x16x16xf32>
  tile.store %cs3, %o[%c1, %c0, %c0] : tensor<1x16x16xf32>, !tile.view<3, f32>
  %p = arith.cmpf ogt, %t, %z : tensor<16x16xf32>
  %row = tile.extract %p[%c2, %c0] : tensor<16x16xi1> -> tensor<1x16xi1>
  %mask = tile.broadcast %row : tensor<1x16xi1> -> tensor<16x16xi1>
  %neg = arith.negf %t : tensor<16x16xf32>
  %w = tile.where %mask, %t, %neg : tensor<16x16xi1>, tensor<16x16xf32>
  %w3 = tile.reshape %w : tensor<16x16xf32> -> tensor<1x16x16xf32>
  tile.store %w3, %o[%c2, %c0, %c0] : tensor<1x16x16xf32>, !tile.view<3, f32>
  %sum = tile.reduce sum %b axis = 0 : tensor<16x16xbf16> -> tensor<16xbf16>
  %sumf = tile.convert %sum : tensor<16xbf16> -> tensor<16xf32>
  tile.store %sumf, %r[%c0] : tensor<16xf32>, !tile.view<1, f32>
  %bigs = tile.full %big : tensor<16x16xf32>
  %scaled = arith.mulf %t, %bigs : tensor<16x16xf32>
  %i = tile.convert %scaled : tensor<16x16xf32> -> tensor<16x16xi32>
  tile.store %i, %n[%c0, %c0] : tensor<16x16xi32>, !tile.view<2, i32>
  tile.return
}
