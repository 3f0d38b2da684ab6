// C = A B for A (M x K) and B (K x N) in bf16, row-major or strided, with
// f32 accumulation: @gemm stores C in f32, @gemm_bf16 rounds it to bf16.
// Any M, N and K: tiles that cross an edge read zeros outside A and B (which
// add nothing to the sums) and store only the elements inside C.
//
// Grid: (ceil(M / BLOCK_M), ceil(N / BLOCK_N)); program (x, y) is number
// x + y ceil(M / BLOCK_M) in launch order, and computes the tile of C that
// comes at that place when the tiles are walked GROUP_M rows of tiles at a
// time, down a group's rows, then across its columns (the last group has
// the rows that are left). The programs that run at the same time then
// share GROUP_M rows of A and a band of columns of B, which stay in L2,
// instead of every row of A and a few columns of B (the order x-fastest
// launching gives: A is read again from DRAM for every few columns).
// Each program walks K in BLOCK_K steps with the accumulator carried by the
// scf.for. The loads of each step carry `latency = 3`: the compiler may
// issue them up to three steps ahead (a three-stage pipeline), as they do not
// depend on the accumulator. OCC is the CTAs per multiprocessor whose
// registers ptxas must leave room for; WARPS the warps of a CTA (each warp
// computes a block of the tile: 64 x 64 at 128 x 128 with 4 warps or
// 256 x 128 with 8).
//
//   tilec gemm.mlir -D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=32

!A = !tile.tile<BLOCK_M x BLOCK_K x bf16>
!B = !tile.tile<BLOCK_K x BLOCK_N x bf16>
!Acc = !tile.tile<BLOCK_M x BLOCK_N x f32>

tile.kernel @gemm<BLOCK_M = 128, BLOCK_N = 128, BLOCK_K = 32, GROUP_M = 16,
                  OCC = 1, WARPS = 8>(
    %a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>, %c: !tile.view<2, f32>)
    warps WARPS occupancy OCC {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x, %y = tile.block_id x, y
  %m, %k = tile.dim %a[0, 1] : !tile.view<2, bf16>
  %n = tile.dim %b[1] : !tile.view<2, bf16>
  %blockM, %blockN, %blockK, %groupM =
      tile.param "BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M"
  %numM = arith.ceildivui %m, %blockM : index
  %numN = arith.ceildivui %n, %blockN : index
  %yM = arith.muli %y, %numM : index
  %pid = arith.addi %x, %yM : index
  %perGroup = arith.muli %groupM, %numN : index
  %group = arith.divui %pid, %perGroup : index
  %firstM = arith.muli %group, %groupM : index
  %rowsLeft = arith.subi %numM, %firstM : index
  %rows = arith.minui %rowsLeft, %groupM : index
  %inGroup = arith.remui %pid, %perGroup : index
  %di = arith.remui %inGroup, %rows : index
  %i = arith.addi %firstM, %di : index
  %j = arith.divui %inGroup, %rows : index
  %numK = arith.ceildivui %k, %blockK : index
  %zero = tile.full 0.0 : !Acc
  %acc = scf.for %kk = %c0 to %numK step %c1 iter_args(%sum = %zero) -> !Acc {
    %ta = tile.load %a[%i, %kk] latency = 3 : !tile.view<2, bf16> -> !A
    %tb = tile.load %b[%kk, %j] latency = 3 : !tile.view<2, bf16> -> !B
    %next = tile.mma %ta, %tb, %sum : !A, !B, !Acc
    scf.yield %next : !Acc
  }
  tile.store %acc, %c[%i, %j] : !Acc, !tile.view<2, f32>
  tile.return
}

tile.kernel @gemm_bf16<BLOCK_M = 128, BLOCK_N = 128, BLOCK_K = 32,
                       GROUP_M = 16, OCC = 1, WARPS = 8>(
    %a: !tile.view<2, bf16>, %b: !tile.view<2, bf16>, %c: !tile.view<2, bf16>)
    warps WARPS occupancy OCC {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x, %y = tile.block_id x, y
  %m, %k = tile.dim %a[0, 1] : !tile.view<2, bf16>
  %n = tile.dim %b[1] : !tile.view<2, bf16>
  %blockM, %blockN, %blockK, %groupM =
      tile.param "BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M"
  %numM = arith.ceildivui %m, %blockM : index
  %numN = arith.ceildivui %n, %blockN : index
  %yM = arith.muli %y, %numM : index
  %pid = arith.addi %x, %yM : index
  %perGroup = arith.muli %groupM, %numN : index
  %group = arith.divui %pid, %perGroup : index
  %firstM = arith.muli %group, %groupM : index
  %rowsLeft = arith.subi %numM, %firstM : index
  %rows = arith.minui %rowsLeft, %groupM : index
  %inGroup = arith.remui %pid, %perGroup : index
  %di = arith.remui %inGroup, %rows : index
  %i = arith.addi %firstM, %di : index
  %j = arith.divui %inGroup, %rows : index
  %numK = arith.ceildivui %k, %blockK : index
  %zero = tile.full 0.0 : !Acc
  %acc = scf.for %kk = %c0 to %numK step %c1 iter_args(%sum = %zero) -> !Acc {
    %ta = tile.load %a[%i, %kk] latency = 3 : !tile.view<2, bf16> -> !A
    %tb = tile.load %b[%kk, %j] latency = 3 : !tile.view<2, bf16> -> !B
    %next = tile.mma %ta, %tb, %sum : !A, !B, !Acc
    scf.yield %next : !Acc
  }
  // Rounded to nearest even once, after the whole sum.
  %out = tile.convert %acc : !Acc -> !tile.tile<BLOCK_M x BLOCK_N x bf16>
  tile.store %out, %c[%i, %j]
      : !tile.tile<BLOCK_M x BLOCK_N x bf16>, !tile.view<2, bf16>
  tile.return
}
