#!/usr/bin/env python3
"""The Python package's own host time per call, without a GPU.

    TILEC_MAMBA2_LIBRARY=build/lib/libtilec_mamba2_abi_stub.so \\
      PYTHONPATH=python python3 bench/python_host_cost_stub.py [--profile]

(ninja -C build tilec_mamba2_abi_stub builds the stub.)

What it times: tilec.mamba2.chunk_scan_combined, tilec.mamba2.forward (the
custom op's implementation, what the dispatcher calls) and
tilec.mamba2.selective_state_update on CPU tensors of
bench/python_host_cost.py's shapes, with everything the package does per
call except the library's own work and torch's CUDA calls:

- the C ABI is libtilec_mamba2_abi_stub.so (bench/mamba2_abi_stub.c):
  the same functions and signatures, each returning success at once, so
  the ctypes call is timed but not the library's validation and launches
  (bench/mamba2_host_cost times those: 3-5 us on the H200's host);
- the package's CUDA-only calls are replaced, through the names it looks
  them up by, with stand-ins of similar or lower cost: the device type it
  accepts becomes "cpu", the current stream is 0, no stream is capturing,
  and making the context current is one ctypes call into the stub; y and
  the workspace come from torch's CPU allocator (torch.empty on CPU, about
  the cost of the CUDA caching allocator's host side).

So the figures are a floor of the Python side; the H200 adds the library
(3-5 us), the driver (the graph launch, 1.3-2 us), and the difference
between torch's CUDA and CPU allocation and dispatch. Median over --batches
batches of --calls calls (and the fastest batch); --profile prints a cProfile of --calls calls of
each entry.
"""

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
import types

import torch

from python_host_cost import CHUNK, DECODE_SHAPES, SHAPES


def install_stand_ins():
    """The package's CUDA-only calls, replaced where it looks them up."""
    library = os.environ.get("TILEC_MAMBA2_LIBRARY", "")
    if "abi_stub" not in os.path.basename(library):
        sys.exit("python_host_cost_stub: set TILEC_MAMBA2_LIBRARY to "
                 "libtilec_mamba2_abi_stub.so (bench/mamba2_abi_stub.c)")
    from tilec import _capi, _cuda_context, mamba2
    stub = _capi._lib()
    if not hasattr(torch, "compiler"):
        torch.compiler = types.SimpleNamespace(is_compiling=lambda: False)
    mamba2.HAS_OP = True
    # One ctypes call, as cuCtxGetCurrent is.
    ensure_current = lambda ordinal: stub.tilec_mamba2_prepare()  # noqa
    if hasattr(_cuda_context, "DEVICE_TYPE"):
        _cuda_context.DEVICE_TYPE = "cpu"
        _cuda_context.ensure_current = ensure_current
        _cuda_context.current_stream = lambda ordinal: 0
        _cuda_context.capturing = lambda: False
    else:  # the package before the per-call plans (main at 4603b53)
        torch.cuda.is_current_stream_capturing = lambda: False
        _cuda_context.ensure_current = ensure_current
        mamba2._raw_stream = lambda index: 0
        mamba2._eager = lambda device, x: True
        mamba2._check_devices = mamba2._check_same_device


def forward_tensors(shape):
    batch, seqlen, heads, headdim, groups, dstate = shape
    return dict(
        x=torch.randn(batch, seqlen, heads, headdim).bfloat16(),
        dt=torch.rand(batch, seqlen, heads) * 0.1,
        A=-torch.rand(heads),
        B=torch.randn(batch, seqlen, groups, dstate).bfloat16(),
        C=torch.randn(batch, seqlen, groups, dstate).bfloat16(),
        D=torch.randn(heads))


def decode_tensors(shape):
    batch, heads, groups, headdim, dstate = shape
    return dict(
        state=torch.randn(batch, heads, headdim, dstate),
        x=torch.randn(batch, heads, headdim).bfloat16(),
        dt=torch.randn(batch, heads) - 2, A=-torch.rand(heads),
        B=torch.randn(batch, groups, dstate).bfloat16(),
        C=torch.randn(batch, groups, dstate).bfloat16(),
        D=torch.randn(heads), z=torch.randn(batch, heads, headdim).bfloat16(),
        dt_bias=torch.randn(heads))


def per_call_us(fn, calls, batches):
    """(median, min) us per call over the batches: on a shared machine the
    minimum is the closer measure of the code's own cost."""
    fn()
    times = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times), min(times)


def entries():
    """(name, shape, callable) of every timed call."""
    from tilec import mamba2
    # The smallest shape only: on the CPU a large y costs torch's allocator
    # a fresh mapping per call, which the CUDA caching allocator does not.
    for shape in SHAPES[:1]:
        t = forward_tensors(shape)

        def op(t=t):
            return mamba2.chunk_scan_combined(t["x"], t["dt"], t["A"], t["B"],
                                              t["C"], CHUNK, D=t["D"])

        def implementation(t=t):
            return mamba2.forward(t["x"], t["dt"], t["A"], t["B"], t["C"],
                                  CHUNK, t["D"])
        yield "chunk_scan_combined", shape, op
        yield "forward (the op's implementation)", shape, implementation
    for shape in DECODE_SHAPES:
        t = decode_tensors(shape)

        def step(t=t):
            return mamba2.selective_state_update(
                t["state"], t["x"], t["dt"], t["A"], t["B"], t["C"],
                D=t["D"], z=t["z"], dt_bias=t["dt_bias"], dt_softplus=True)
        yield "selective_state_update", shape, step


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    install_stand_ins()
    print(f"torch {torch.__version__}, Python {sys.version.split()[0]}; "
          f"median of {args.batches} x {args.calls} calls")
    for name, shape, fn in entries():
        median, least = per_call_us(fn, args.calls, args.batches)
        print(f"{name} {shape}: median {median:.2f} us, min {least:.2f} us")
        if args.profile:
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(args.calls):
                fn()
            profile.disable()
            pstats.Stats(profile).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
