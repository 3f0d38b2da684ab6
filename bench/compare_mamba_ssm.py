#!/usr/bin/env python3
"""tilec against mamba_ssm, on the same tensors, in one run.

    python3 bench/compare_mamba_ssm.py PATH_TO_BASELINES [--state-dtype T]

PATH_TO_BASELINES is the folder holding mamba_ssm/ (shared/baselines,
carried to the GPU machine, never part of this repository). tilec is found
through python/ of this checkout (libtilec_mamba2.so as python/README.md
says: TILEC_MAMBA2_LIBRARY or build/lib/).

For each shape (batch, seqlen, heads, headdim, groups, dstate), chunk 128,
x/B/C bf16, dt/A/D f32, both entry points are called as a user calls them
(mamba_chunk_scan_combined(x, dt, A, B, C, 128, D=D) and
tilec.mamba2.chunk_scan_combined with the same arguments; y in bf16) and it
prints:

- the GPU time of each: one call captured in a CUDA graph, the graph
  replayed many times, each replay timed with CUDA events; the median;
- their ratio (tilec / mamba_ssm);
- each one's norm-wise relative error against an f64 reference computed on
  the GPU by the chunked (SSD) form of the recurrence, in blocks of tokens
  that carry the state (exact algebra, no low precision anywhere;
  python/tests/test_bench_reference.py checks it against the step-by-step
  recurrence);
- the floors, from rates measured in this run: the bytes a pass must move
  (x, dt, A, B, C, D read once, y written once in bf16) over the measured
  device-to-device copy bandwidth, and the matmul flops of the chunked
  algorithm (C B^T per group and chunk, (C B^T . decay) X, the chunk states
  and C h per head and chunk, dense L x L blocks) over the measured bf16
  matmul rate;
- the host time of one eager call of each (median over many calls, the
  GPU idle before each; nothing synchronizes inside the timed region).

--state-dtype bf16 (or f32) passes state_dtype=torch.bfloat16 (float32)
to both entries: the states between chunks in that dtype in both
libraries (tilec's bf16-state kernels; docs/mamba2.md, "State dtype").
Without it neither gets the argument: mamba_ssm's default stores them in
C's dtype (bf16), tilec's keeps f32.

The compact table comes last.
"""

import argparse
import math
import os
import statistics
import sys
import time

import torch

SHAPES = [(4, 1024, 8, 64, 1, 128), (4, 4096, 8, 64, 1, 128),
          (4, 16384, 8, 64, 1, 128), (4, 65536, 8, 64, 1, 128),
          (4, 16384, 8, 64, 1, 64)]
CHUNK = 128


def log(*parts):
    print(*parts, flush=True)


def reference(x, dt, A, B, C, D, chunk, block_chunks=64):
    """y in f64: the SSD chunked form of the Mamba-2 recurrence, evaluated
    in f64 on the inputs' device, block_chunks chunks at a time with the
    state carried between blocks. Returns (y, final state)."""
    f64 = torch.float64
    batch, seqlen, heads, headdim = x.shape
    groups, dstate = B.shape[2], B.shape[3]
    per_group = heads // groups
    state = torch.zeros(batch, heads, headdim, dstate, dtype=f64,
                        device=x.device)
    y = torch.empty(batch, seqlen, heads, headdim, dtype=f64, device=x.device)
    block = block_chunks * chunk
    for start in range(0, seqlen, block):
        stop = min(start + block, seqlen)
        n = stop - start
        padded = -(-n // chunk) * chunk
        nchunks = padded // chunk

        def take(t):
            # Zero padding: dt = 0 there, so padded steps add nothing and
            # do not decay the state.
            t = t[:, start:stop].to(f64)
            if padded != n:
                pad = t.new_zeros((batch, padded - n) + t.shape[2:])
                t = torch.cat([t, pad], dim=1)
            return t.reshape((batch, nchunks, chunk) + t.shape[2:])

        xs, dts = take(x), take(dt)                     # (b,c,l,h,p) (b,c,l,h)
        Bs = take(B).repeat_interleave(per_group, dim=3)  # (b,c,l,h,n)
        Cs = take(C).repeat_interleave(per_group, dim=3)
        cum = torch.cumsum(dts * A.to(f64), dim=2)      # (b,c,l,h)
        cum_h = cum.permute(0, 1, 3, 2)                 # (b,c,h,l)
        causal = torch.ones(chunk, chunk, dtype=torch.bool,
                            device=x.device).tril()
        decay = torch.exp((cum_h[..., :, None] - cum_h[..., None, :])
                          .masked_fill(~causal, -math.inf))  # (b,c,h,l,s)
        scores = torch.einsum("bclhn,bcshn->bchls", Cs, Bs) * decay
        scores = scores * dts.permute(0, 1, 3, 2)[:, :, :, None, :]
        y_block = torch.einsum("bchls,bcshp->bclhp", scores, xs)
        to_end = torch.exp(cum[:, :, -1:, :] - cum) * dts     # (b,c,l,h)
        local = torch.einsum("bclh,bclhp,bclhn->bchpn", to_end, xs, Bs)
        chunk_decay = torch.exp(cum[:, :, -1, :])              # (b,c,h)
        entering = []
        for c in range(nchunks):
            entering.append(state)
            state = chunk_decay[:, c, :, None, None] * state + local[:, c]
        entering = torch.stack(entering, dim=1)                # (b,c,h,p,n)
        y_block = y_block + torch.einsum("bclhn,bchpn,bclh->bclhp", Cs,
                                         entering, torch.exp(cum))
        y_block = y_block.reshape(batch, padded, heads, headdim)[:, :n]
        y[:, start:stop] = y_block + D.to(f64)[None, None, :, None] * \
            x[:, start:stop].to(f64)
    return y, state


def relative_error(actual, expected):
    return ((actual.double() - expected).norm() / expected.norm()).item()


def median_event_ms(fn, reps):
    """Median GPU time of fn() over reps runs, each between two events."""
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def graph_of(fn):
    """fn() captured in a CUDA graph after warm-up calls on a side stream
    (which autotune mamba_ssm's Triton kernels and load tilec's)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn()
    return graph, out


def host_us(fn, reps=50):
    """Median host time of one eager call, the GPU idle before each."""
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    torch.cuda.synchronize()
    return 1e6 * statistics.median(times)


def copy_bandwidth():
    """Bytes per second of a device-to-device copy (read + write)."""
    n = 1 << 30
    src = torch.empty(n, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = median_event_ms(lambda: dst.copy_(src), 20)
    return 2 * n / (ms * 1e-3)


def matmul_rate():
    """bf16 flops per second of an 8192^3 matmul."""
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    ms = median_event_ms(lambda: a @ b, 10)
    return 2 * n**3 / (ms * 1e-3)


def floors(shape, bandwidth, rate):
    batch, seqlen, heads, headdim, groups, dstate = shape
    tokens = batch * seqlen
    bytes_moved = (tokens * heads * headdim * 2 * 2      # x read, y written
                   + tokens * heads * 4                  # dt
                   + 2 * tokens * groups * dstate * 2    # B, C
                   + 2 * heads * 4)                      # A, D
    L = CHUNK
    chunks = batch * -(-seqlen // L)
    flops = chunks * (groups * 2 * L * L * dstate
                      + heads * (2 * L * L * headdim
                                 + 2 * 2 * L * headdim * dstate))
    return 1e3 * bytes_moved / bandwidth, 1e3 * flops / rate


def inputs(shape, generator):
    batch, seqlen, heads, headdim, groups, dstate = shape

    def uniform(size, low, high):
        return low + (high - low) * torch.rand(size, generator=generator,
                                               device="cuda")

    def normal(size):
        return torch.randn(size, generator=generator, device="cuda")

    return dict(x=normal((batch, seqlen, heads, headdim)).bfloat16(),
                dt=uniform((batch, seqlen, heads), 1e-3, 1e-1),
                A=uniform((heads,), -1.0, -0.01),
                B=normal((batch, seqlen, groups, dstate)).bfloat16(),
                C=normal((batch, seqlen, groups, dstate)).bfloat16(),
                D=normal((heads,)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("baselines", help="the folder holding mamba_ssm/")
    parser.add_argument("--reps", type=int, default=100,
                        help="graph replays timed per entry and shape")
    parser.add_argument("--state-dtype", choices=("bf16", "f32"),
                        help="state_dtype of both entries (default: "
                        "neither gets one)")
    args = parser.parse_args()
    options = ({} if args.state_dtype is None else dict(
        state_dtype={"bf16": torch.bfloat16,
                     "f32": torch.float32}[args.state_dtype]))
    if not torch.cuda.is_available():
        sys.exit("compare_mamba_ssm: needs a CUDA GPU")
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(os.path.dirname(here), "python"))
    sys.path.insert(0, os.path.abspath(args.baselines))
    from mamba_ssm.ops.triton.ssd_combined import mamba_chunk_scan_combined
    from tilec.mamba2 import chunk_scan_combined

    entries = {"mamba_ssm": mamba_chunk_scan_combined,
               "tilec": chunk_scan_combined}
    log(f"torch {torch.__version__}, {torch.cuda.get_device_name()}; "
        f"state_dtype {args.state_dtype or 'not given'}")
    bandwidth, rate = copy_bandwidth(), matmul_rate()
    log(f"measured: copy {bandwidth / 1e9:.0f} GB/s, "
        f"bf16 matmul {rate / 1e12:.0f} TFLOP/s")
    generator = torch.Generator(device="cuda").manual_seed(0)
    rows = []
    for shape in SHAPES:
        t = inputs(shape, generator)
        y_ref, _ = reference(t["x"], t["dt"], t["A"], t["B"], t["C"],
                             t["D"], CHUNK)
        row = dict(shape=shape)
        for name, entry in entries.items():
            def call(entry=entry):
                return entry(t["x"], t["dt"], t["A"], t["B"], t["C"], CHUNK,
                             D=t["D"], **options)
            graph, y = graph_of(call)
            graph.replay()
            torch.cuda.synchronize()
            row[name] = dict(ms=median_event_ms(graph.replay, args.reps),
                             error=relative_error(y, y_ref),
                             host_us=host_us(call))
            del graph, y
            log(f"{shape} {name}: {row[name]['ms']:.4f} ms, "
                f"error {row[name]['error']:.2e}, "
                f"host {row[name]['host_us']:.1f} us")
        row["floor_bytes"], row["floor_flops"] = floors(shape, bandwidth,
                                                        rate)
        rows.append(row)
        del t, y_ref
        torch.cuda.empty_cache()

    log("")
    log(f"chunk {CHUNK}; x/B/C bf16, dt/A/D f32; y bf16. GPU times: CUDA "
        f"graph replay, median of {args.reps}; errors: norm-wise vs f64; "
        f"floors: bytes / {bandwidth / 1e9:.0f} GB/s, "
        f"flops / {rate / 1e12:.0f} TFLOP/s; host: one eager call, median")
    header = ("| (batch, seqlen, heads, headdim, groups, dstate) "
              "| mamba_ssm ms | tilec ms | tilec/mamba_ssm "
              "| err mamba_ssm | err tilec | floor bytes ms | floor flops ms "
              "| host mamba_ssm us | host tilec us |")
    log(header)
    log("|" + "|".join("---" for _ in range(header.count("|") - 1)) + "|")
    for row in rows:
        m, c = row["mamba_ssm"], row["tilec"]
        log(f"| {row['shape']} | {m['ms']:.4f} | {c['ms']:.4f} "
            f"| {c['ms'] / m['ms']:.2f} | {m['error']:.1e} | {c['error']:.1e} "
            f"| {row['floor_bytes']:.4f} | {row['floor_flops']:.4f} "
            f"| {m['host_us']:.0f} | {c['host_us']:.0f} |")


if __name__ == "__main__":
    main()
