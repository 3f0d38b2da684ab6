// REQUIRES: ptxas
// Lowered and assembled here; run on a GPU against the interpreter through
// test/gpu/cases.txt.
// RUN: tilec %s --emit=cubin --target=sm_80 -o %t.sm80.cubin
// RUN: tilec %s --emit=cubin --target=sm_90 -o %t.sm90.cubin
// RUN: tilec %s --emit=ptx --target=sm_80 | FileCheck %s
// CHECK-LABEL: .entry transpose(
// CHECK-DAG: ld.global.b16
// CHECK-DAG: st.shared.b16
// CHECK-DAG: bar.sync{{.*}}0;
// CHECK-DAG: ld.shared.b16
// CHECK-DAG: st.global.b16

// out[j, i] = in[i, j]: a transposed load (order) and a transposed store.
// Grid (ceil(M/32), ceil(N/16)); `out` is N x M.
tile.kernel @transpose(%in: !tile.view<2, bf16>, %out: !tile.view<2, bf16>,
                       %out2: !tile.view<2, bf16>) {
  %i = tile.block_id x
  %j = tile.block_id y
  %t = tile.load %in[%j, %i] order = [1, 0] : !tile.view<2, bf16> -> tensor<32x16xbf16>
  %u = tile.permute %t [1, 0] : tensor<32x16xbf16> -> tensor<16x32xbf16>
  tile.store %u, %out[%i, %j] order = [1, 0] : tensor<16x32xbf16>, !tile.view<2, bf16>
  tile.store %t, %out2[%i, %j] : tensor<32x16xbf16>, !tile.view<2, bf16>
  tile.return
}
