#!/bin/sh
# Builds the GPU checks here (tile-opt, mlir-translate, llc, ptxas, g++) into
# $1 (default /tmp/tile-gpu-checks); run
#   "$1/check $1/checks.cubin $1/chunk_cumsum.cubin $1/fwd_pass_state.cubin \
#     $1/compute_out.cubin"
# on a GPU.
# Last run: all checks pass on an H200 (driver 580), 2026-11-30, including
# kernels/mamba2/chunk_cumsum.mlir bit for bit and fwd_pass_state (ragged
# sizes, several state tiles, groups) and compute_out (several row, column,
# head-dim and state tiles) within tf32 rounding.
set -e
here=$(dirname "$0")
out=${1:-/tmp/tile-gpu-checks}
bin=${TILE_OPT:-tile-opt}
llvm=${LLVM_BIN:-/usr/lib/llvm-22/bin}
cuda=${CUDA_ROOT:-/usr/local/cuda}
mkdir -p "$out"
"$bin" "$here/checks.mlir" --tile-to-llvm="sm=90" -o "$out/checks.llvm.mlir"
"$llvm/mlir-translate" --mlir-to-llvmir "$out/checks.llvm.mlir" -o "$out/checks.ll"
"$llvm/llc" -march=nvptx64 -mcpu=sm_90 -mattr=+ptx80 "$out/checks.ll" -o "$out/checks.ptx"
"$cuda/bin/ptxas" -arch=sm_90 "$out/checks.ptx" -o "$out/checks.cubin"
"$bin" "$here/../../../../kernels/mamba2/chunk_cumsum.mlir" \
  --tile-bind-params="params=CHUNK=64,BLOCK_H=8" --tile-to-llvm="sm=90" |
  "$llvm/mlir-translate" --mlir-to-llvmir -o "$out/chunk_cumsum.ll"
"$llvm/llc" -march=nvptx64 -mcpu=sm_90 -mattr=+ptx80 "$out/chunk_cumsum.ll" -o "$out/chunk_cumsum.ptx"
"$cuda/bin/ptxas" -arch=sm_90 "$out/chunk_cumsum.ptx" -o "$out/chunk_cumsum.cubin"
"$bin" "$here/../../../../kernels/mamba2/fwd_pass_state.mlir" \
  --tile-bind-params="params=CHUNK=64,BLOCK_P=32,BLOCK_N=16,BLOCK_K=32" \
  --tile-to-llvm="sm=90" |
  "$llvm/mlir-translate" --mlir-to-llvmir -o "$out/fwd_pass_state.ll"
"$llvm/llc" -march=nvptx64 -mcpu=sm_90 -mattr=+ptx80 "$out/fwd_pass_state.ll" -o "$out/fwd_pass_state.ptx"
"$cuda/bin/ptxas" -arch=sm_90 "$out/fwd_pass_state.ptx" -o "$out/fwd_pass_state.cubin"
"$bin" "$here/../../../../kernels/mamba2/compute_out.mlir" \
  --tile-bind-params="params=CHUNK=64,BLOCK_M=32,BLOCK_K=32,BLOCK_P=32,BLOCK_N=16" \
  --tile-to-llvm="sm=90" |
  "$llvm/mlir-translate" --mlir-to-llvmir -o "$out/compute_out.ll"
"$llvm/llc" -march=nvptx64 -mcpu=sm_90 -mattr=+ptx80 "$out/compute_out.ll" -o "$out/compute_out.ptx"
"$cuda/bin/ptxas" -arch=sm_90 "$out/compute_out.ptx" -o "$out/compute_out.cubin"
g++ -O1 -std=c++17 -I"$cuda/include" "$here/check.cpp" -L"$cuda/lib64/stubs" \
  -lcuda -static-libstdc++ -static-libgcc -o "$out/check"
