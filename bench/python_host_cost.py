#!/usr/bin/env python3
"""Host time of one tilec Mamba-2 forward call from Python.

    PYTHONPATH=python TILEC_MAMBA2_LIBRARY=... python3 bench/python_host_cost.py

For each shape (bench/compare_mamba_ssm.py's and a small one), chunk 128,
x/B/C bf16, dt/A/D f32:

- loop: batches of --calls calls of tilec.mamba2.chunk_scan_combined (an
  eager call on CUDA tensors runs the implementation without the
  dispatcher) with no synchronization inside a batch (the device is
  synchronized between batches, outside the timed loop, so that the launch
  queue never fills); µs per call, median over --batches batches. Also the
  same loop through the dispatcher (torch.ops.tilec.mamba2_chunk_scan_combined,
  the path torch.compile takes) and calling tilec.mamba2.forward.
- idle: one call after torch.cuda.synchronize(), median (the measure of
  compare_mamba_ssm.py's host column), then the steps of an eager call
  through its plan in one call after a synchronize, a timestamp after
  each: a step that waits for the GPU takes longer as the problem grows.

The registration measured is tilec.mamba2's (TILEC_MAMBA2_OP_REGISTRATION):
cpp, the C++ op of python/torch_op, when it is built (then the op loop and
the dispatcher column both run the C++ op, and forward() the Python
implementation over ctypes); custom_op or library to measure the Python
registrations (torch.library.custom_op, torch.library.Library: the
dispatcher column is the one that changes). A first line times torch's
own calls on this host (a torch.ops call, an allocation); with
TILEC_TORCH_OP_PROFILE=1 the C++ op prints, at exit, the median, 90th
percentile and mean time of each stage of its calls
(python/torch_op/Profile.h). "one call" is the median of
the op loop's calls timed one by one (and of the dispatcher loop's): a
call that waits for the GPU (a full launch queue) raises the loop's mean,
not that median. A line "TABLE registration shape loop one-call dispatcher
idle dispatcher-one-call" per row is for scripts/torch-op-gpu-check.
"""

import argparse
import math
import statistics
import sys
import time

import torch

SHAPES = [(1, 256, 4, 64, 1, 64), (4, 1024, 8, 64, 1, 128),
          (4, 4096, 8, 64, 1, 128), (4, 16384, 8, 64, 1, 128),
          (4, 65536, 8, 64, 1, 128), (4, 16384, 8, 64, 1, 64)]
CHUNK = 128


def loop_us(fn, calls, batches):
    """Median µs per call over batches of `calls` unsynchronized calls."""
    return loop_timing(fn, calls, batches)[0]


def loop_timing(fn, calls, batches):
    """(median over the batches of µs per call, median µs of one call) for
    batches of `calls` unsynchronized calls. The second times each call on
    its own (a clock read between calls): a call that waits for the GPU (a
    full launch queue) is one slow call there, where it raises the whole
    batch's mean."""
    fn()
    torch.cuda.synchronize()
    per_call, single = [], []
    clock = time.perf_counter
    for _ in range(batches):
        start = last = clock()
        for _ in range(calls):
            fn()
            now = clock()
            single.append(now - last)
            last = now
        per_call.append((last - start) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(per_call), statistics.median(single) * 1e6


def idle_us(fn, reps):
    """Median µs of one call, the GPU idle before each."""
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e6)
    torch.cuda.synchronize()
    return statistics.median(times)


def steps_us(t, reps):
    """The steps of an eager call through its plan (tilec._plans), one call
    at a time with the GPU idle before the call and a timestamp after each
    step (nothing synchronizes between steps): the median µs of each. A
    step that waits for the kernels enqueued before it takes as long as
    they run."""
    from tilec import _capi, _cuda_context, _workspaces
    from tilec.mamba2 import problem_sizes
    x, dt, A, B, C, D = (t[k] for k in ("x", "dt", "A", "B", "C", "D"))
    batch, seqlen, heads, headdim, groups, dstate = problem_sizes(x, B)
    problem = _capi.Problem(batch, seqlen, heads, groups, headdim, dstate,
                            CHUNK)
    workspace_bytes = _capi.workspace_size(problem)
    device, index = x.device, x.device.index
    call = _capi.ForwardCall(problem, [x, dt, A, B, C, D, None,
                                       torch.empty_like(x), None])
    state = {}

    def stream():
        state["stream"] = _cuda_context.current_stream(index)
        state["capturing"] = _cuda_context.capturing()

    def allocate():
        state["y"] = torch.empty_like(x)  # x's dtype, as compute_out stores y

    def workspace():
        state["workspace"] = _workspaces.get(device, index, state["stream"],
                                             workspace_bytes,
                                             state["capturing"])

    def pointers():
        words = call.array
        for i, tensor in enumerate((x, dt, A, B, C, D)):
            words[4 * i] = tensor.data_ptr()
        words[28] = state["y"].data_ptr()

    def launch():
        call(state["workspace"][0], workspace_bytes, state["stream"])

    steps = [("ensure_current", lambda: _cuda_context.ensure_current(index)),
             ("stream and capture state", stream),
             ("allocate y", allocate),
             ("kept workspace", workspace),
             ("data pointers", pointers),
             ("C ABI call", launch),
             ("free y", state.clear)]
    times = {name: [] for name, _ in steps}
    for _ in range(reps):
        torch.cuda.synchronize()
        last = time.perf_counter()
        for name, step in steps:
            step()
            now = time.perf_counter()
            times[name].append((now - last) * 1e6)
            last = now
    torch.cuda.synchronize()
    return {name: statistics.median(ts) for name, ts in times.items()}


def calibrate(registration, args):
    """What torch itself costs on this host, beside the op's figures: a
    torch.ops call of no argument (the C++ op's release_workspaces; it
    keeps no workspace yet), and a CUDA allocation from Python."""
    x = torch.empty(16, device="cuda")
    probes = [("torch.empty_like(a CUDA tensor)", lambda: torch.empty_like(x)),
              ("torch.empty(0, device=cuda)",
               lambda: torch.empty(0, device="cuda"))]
    if registration == "cpp":
        probes.insert(0, ("torch.ops call of no argument",
                          torch.ops.tilec.mamba2_release_workspaces))
    print("torch on this host: " + ", ".join(
        f"{name} {loop_us(fn, args.calls, args.batches):.2f} us"
        for name, fn in probes))


def table(registration, shape, loop, single, dispatcher, idle,
          dispatcher_single):
    """A line for scripts/torch-op-gpu-check's table: registration, shape
    and the µs of the op loop, one call in it, the dispatcher loop, one
    idle call and one call in the dispatcher loop."""
    print(f"TABLE {registration} {','.join(map(str, shape))} {loop:.1f} "
          f"{single:.1f} {dispatcher:.1f} {idle:.1f} {dispatcher_single:.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=32)
    parser.add_argument("--batches", type=int, default=15)
    parser.add_argument("--reps", type=int, default=50)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("python_host_cost: needs a CUDA GPU")
        sys.exit(77)
    from tilec.mamba2 import (OP_REGISTRATION, TORCH_OP_NOTE,
                              chunk_scan_combined, forward)
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, "
          f"ops registered with {OP_REGISTRATION}"
          + (f" ({TORCH_OP_NOTE})" if TORCH_OP_NOTE else ""))
    calibrate(OP_REGISTRATION, args)
    generator = torch.Generator(device="cuda").manual_seed(0)
    for shape in SHAPES:
        batch, seqlen, heads, headdim, groups, dstate = shape
        t = dict(
            x=torch.randn(batch, seqlen, heads, headdim, device="cuda",
                          generator=generator).bfloat16(),
            dt=torch.rand(batch, seqlen, heads, device="cuda",
                          generator=generator) * 0.1,
            A=-torch.rand(heads, device="cuda", generator=generator),
            B=torch.randn(batch, seqlen, groups, dstate, device="cuda",
                          generator=generator).bfloat16(),
            C=torch.randn(batch, seqlen, groups, dstate, device="cuda",
                          generator=generator).bfloat16(),
            D=torch.randn(heads, device="cuda", generator=generator))

        def op():
            return chunk_scan_combined(t["x"], t["dt"], t["A"], t["B"],
                                       t["C"], CHUNK, D=t["D"])

        def direct():
            return forward(t["x"], t["dt"], t["A"], t["B"], t["C"], CHUNK,
                           t["D"])

        def dispatched():
            return torch.ops.tilec.mamba2_chunk_scan_combined(
                t["x"], t["dt"], t["A"], t["B"], t["C"], CHUNK, t["D"], None,
                False, None, None, False, -math.inf, math.inf, False, False,
                None, None, False)

        op_loop, op_single = loop_timing(op, args.calls, args.batches)
        dispatcher, dispatcher_single = loop_timing(dispatched, args.calls,
                                                    args.batches)
        direct_loop = loop_us(direct, args.calls, args.batches)
        idle = idle_us(op, args.reps)
        print(f"{shape}: op loop {op_loop:.1f} us (one call {op_single:.1f}"
              f" us), through the dispatcher {dispatcher:.1f} us (one call "
              f"{dispatcher_single:.1f} us), forward() loop "
              f"{direct_loop:.1f} us, op idle {idle:.1f} us")
        table(OP_REGISTRATION, shape, op_loop, op_single, dispatcher, idle,
              dispatcher_single)
        steps = steps_us(t, args.reps)
        print("   steps of one call, GPU idle before it: " + ", ".join(
            f"{name} {us:.1f} us" for name, us in steps.items()))
        del t
        torch.cuda.empty_cache()
    decode(args, generator)


# The decode step: (batch, heads, groups, headdim, dstate), Mamba-2 2.7B's
# layer at batch 1 and 16, every option on.
DECODE_SHAPES = [(1, 80, 1, 64, 128), (16, 80, 1, 64, 128)]


def decode(args, generator):
    from tilec.mamba2 import OP_REGISTRATION, selective_state_update
    for batch, heads, groups, headdim, dstate in DECODE_SHAPES:
        def randn(*shape):
            return torch.randn(*shape, device="cuda", generator=generator)
        state = randn(batch, heads, headdim, dstate)
        x, z = (randn(batch, heads, headdim).bfloat16() for _ in range(2))
        dt = randn(batch, heads) - 2
        A = -torch.rand(heads, device="cuda", generator=generator)
        B, C = (randn(batch, groups, dstate).bfloat16() for _ in range(2))
        D, dt_bias = randn(heads), randn(heads)

        def step():
            return selective_state_update(state, x, dt, A, B, C, D=D, z=z,
                                          dt_bias=dt_bias, dt_softplus=True)

        def dispatched():
            return torch.ops.tilec.mamba2_selective_state_update(
                state, x, dt, A, B, C, D, z, dt_bias, True, None, -1)

        step_loop, step_single = loop_timing(step, args.calls, args.batches)
        dispatcher, dispatcher_single = loop_timing(dispatched, args.calls,
                                                    args.batches)
        idle = idle_us(step, args.reps)
        shape = (batch, heads, groups, headdim, dstate)
        print(f"decode {shape}: selective_state_update loop {step_loop:.1f}"
              f" us (one call {step_single:.1f} us), through the dispatcher "
              f"{dispatcher:.1f} us (one call {dispatcher_single:.1f} us), "
              f"idle {idle:.1f} us")
        table(OP_REGISTRATION, ("decode",) + shape, step_loop, step_single,
              dispatcher, idle, dispatcher_single)


if __name__ == "__main__":
    main()
