// A product given the wgmma layouts (tilegpu-assign-layouts sm=90) cannot
// be lowered for another target.
// RUN: tile-opt %s --tilegpu-assign-layouts="sm=90" --convert-tile-to-llvm="sm=80" --verify-diagnostics

tile.kernel @wgmma_for_sm80(%a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>,
                            %c: !tile.view<2, f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %zero = tile.full %f0 : tensor<64x64xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<2, bf16> -> tensor<64x16xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<2, bf16> -> tensor<16x64xbf16>
  // expected-error @+1 {{has the wgmma layouts of sm_90a (tilegpu-assign-layouts sm=90) but is lowered for sm=80}}
  %d = tile.mma %ta, %tb, %zero : tensor<64x16xbf16>, tensor<16x64xbf16>, tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<2, f32>
  tile.return
}
