"""tilec.mamba2 on the GPU: numerics against the f64 recurrence, the
statuses only a GPU machine can produce, contexts, streams, torch.compile
and CUDA graphs. Skipped (reported as skipped) without a GPU or, for the
op, without torch >= 2.4.

Error bound: the inputs are bf16/f32 values that the reference uses
exactly, so the error is the kernels' own: tf32 products (2^-11 relative
rounding per operand), B * dt * decay rounded to bf16 as mamba_ssm does
(2^-9), and y rounded to bf16 at the end (2^-9 relative, about 1.1e-3
norm-wise). Measured errors are about 2e-3 for y in bf16 and 2e-4 for the
f32 final states (docs/mamba2-gpu.md); 1e-2 leaves a margin of 5 and
still catches any wrong term (a missing chunk state or D x is O(1))."""

import ctypes
import importlib
import os
import subprocess
import sys
import threading

import pytest
import torch

from conftest import PYTHON_IMPLEMENTATION, requires_gpu, requires_op
from reference import (random_cu_seqlens, random_inputs, random_seq_idx,
                       recurrence, relative_error, transform_dt,
                       varlen_states)
from test_capi_validation import Call
from tilec import _capi, _cuda_context, _plans, mamba2
from tilec.errors import Mamba2ArgumentError, Mamba2Error, Status

pytestmark = requires_gpu

BOUND = 1e-2

# (batch, seqlen, heads, headdim, groups, dstate, chunk, initial_states)
SHAPES = [
    (2, 200, 4, 32, 1, 16, 64, False),
    (1, 300, 4, 64, 2, 64, 128, True),
    (2, 600, 8, 64, 2, 64, 256, True),   # ragged last chunk
    (1, 77, 2, 40, 1, 24, 128, False),   # sizes no multiple of the tiles
    (2, 1024, 8, 64, 1, 128, 128, True),
]


def shape_id(shape):
    return "b{}_l{}_h{}_p{}_g{}_n{}_c{}{}".format(
        *shape[:7], "_init" if shape[7] else "")


def make(shape, generator):
    *sizes, chunk, with_init = shape
    return random_inputs(*sizes, "cuda", generator, with_init), chunk


def check(y, final, inputs):
    y_ref, final_ref = recurrence(**inputs)
    assert torch.isfinite(y).all() and torch.isfinite(final).all()
    assert relative_error(y, y_ref) <= BOUND
    assert relative_error(final, final_ref) <= BOUND


def run_op(inputs, chunk, **options):
    inputs = dict(inputs)
    return mamba2.chunk_scan_combined(
        inputs.pop("x"), inputs.pop("dt"), inputs.pop("A"), inputs.pop("B"),
        inputs.pop("C"), chunk, **inputs, **options)


def expect_argument_error(inputs, chunk, status, words, **options):
    """run_op refuses the inputs: Mamba2ArgumentError of `status`, with
    `words` in its message."""
    with pytest.raises(Mamba2ArgumentError) as caught:
        run_op(inputs, chunk, **options)
    assert caught.value.status == status, str(caught.value)
    assert words in caught.value.message


def mamba_ssm_module(name):
    """mamba_ssm.ops.triton.<name> from the baselines folder that
    TILEC_MAMBA_SSM_PATH names; skips the test when it is not set."""
    path = os.environ.get("TILEC_MAMBA_SSM_PATH")
    if not path:
        pytest.skip("TILEC_MAMBA_SSM_PATH (the baselines folder holding "
                    "mamba_ssm/) is not set")
    sys.path.insert(0, path)
    return importlib.import_module(f"mamba_ssm.ops.triton.{name}")


def run_mamba_ssm(inputs, chunk, **options):
    """mamba_ssm's mamba_chunk_scan_combined on the inputs run_op takes."""
    combined = mamba_ssm_module("ssd_combined").mamba_chunk_scan_combined
    inputs = dict(inputs)
    return combined(
        inputs.pop("x"), inputs.pop("dt"), inputs.pop("A"), inputs.pop("B"),
        inputs.pop("C"), chunk, **inputs, **options)


def check_against_mamba_ssm(inputs, chunk):
    """y and the final states of the op and of mamba_ssm on the same
    tensors: the same shapes and dtypes, both y within BOUND of the f64
    recurrence, and of each other."""
    ours = run_op(inputs, chunk, return_final_states=True)
    theirs = run_mamba_ssm(inputs, chunk, return_final_states=True)
    assert len(ours) == len(theirs) == 2
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape and a.dtype == b.dtype
    y_ref, _ = recurrence(**inputs)
    assert relative_error(theirs[0], y_ref) <= BOUND
    assert relative_error(ours[0], y_ref) <= BOUND
    assert relative_error(ours[0], theirs[0]) <= BOUND
    assert relative_error(ours[1], theirs[1]) <= BOUND


@requires_op
@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
def test_matches_the_f64_recurrence(shape, cuda_generator):
    inputs, chunk = make(shape, cuda_generator)
    y, final = run_op(inputs, chunk, return_final_states=True)
    assert y.dtype == torch.bfloat16 and y.shape == inputs["x"].shape
    assert final.dtype == torch.float32
    assert final.shape == (shape[0], shape[2], shape[3], shape[5])
    check(y, final, inputs)


@requires_op
def test_without_D_and_final_states(cuda_generator):
    inputs, chunk = make(SHAPES[1], cuda_generator)
    del inputs["D"]
    y = run_op(inputs, chunk)
    assert isinstance(y, torch.Tensor)
    y_ref, _ = recurrence(**inputs)
    assert relative_error(y, y_ref) <= BOUND


@requires_op
def test_without_D_captured_then_eager(cuda_generator):
    # A zero D: made anew inside graph capture (its fill is captured), kept
    # per device and head count outside it. Six heads: no other test calls
    # without D at that count, so the capture comes first.
    shape = (1, 130, 6, 32, 1, 16, 64, False)
    static, chunk = make(shape, cuda_generator)
    key = (static["x"].device, 6)
    # The Python implementation's zeros can be looked at; the C++ op's
    # (python/torch_op/Workspaces.cpp, the same rule) only through results.
    kept = _plans._zeros if PYTHON_IMPLEMENTATION else None
    assert kept is None or key not in kept
    run_op(static, chunk)  # with D: loads the kernels outside the capture
    del static["D"]
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = run_op(static, chunk)
    assert kept is None or key not in kept
    for _ in range(2):
        fresh, _ = make(shape, cuda_generator)
        del fresh["D"]
        for k, v in fresh.items():
            static[k].copy_(v)
        graph.replay()
        torch.cuda.synchronize()
        eager = run_op(fresh, chunk)
        assert kept is None or key in kept
        assert torch.equal(y, eager)
        y_ref, _ = recurrence(**fresh)
        assert relative_error(eager, y_ref) <= BOUND


@requires_op
def test_strided_inputs(cuda_generator):
    inputs, chunk = make(SHAPES[1], cuda_generator)
    x = inputs["x"]
    # x with heads and headdim swapped in memory, B a slice of a wider one.
    strided_x = x.transpose(2, 3).contiguous().transpose(2, 3)
    wide_B = torch.zeros(*inputs["B"].shape[:3], 2 * inputs["B"].shape[3],
                         dtype=torch.bfloat16, device="cuda")
    wide_B[..., ::2] = inputs["B"]
    strided = dict(inputs, x=strided_x, B=wide_B[..., ::2])
    assert not strided["x"].is_contiguous()
    assert not strided["B"].is_contiguous()
    y, final = run_op(strided, chunk, return_final_states=True)
    check(y, final, inputs)


def test_capi_writes_poisoned_outputs(cuda_generator):
    inputs, chunk = make(SHAPES[1], cuda_generator)
    batch, seqlen, heads, headdim = inputs["x"].shape
    dstate = inputs["B"].shape[3]
    y = torch.full((batch, seqlen, heads, headdim), float("nan"),
                   device="cuda")
    final = torch.full((batch, heads, headdim, dstate), float("nan"),
                       device="cuda")
    problem = _capi.Problem(batch, seqlen, heads, inputs["B"].shape[2],
                            headdim, dstate, chunk)
    size = _capi.workspace_size(problem)
    workspace = torch.empty(size, dtype=torch.uint8, device="cuda")
    _cuda_context.ensure_current(torch.cuda.current_device())
    d = {k: _capi.describe(k, v) for k, v in inputs.items()}
    _capi.forward(problem, d["x"], d["dt"], d["A"], d["B"], d["C"], d["D"],
                  d["initial_states"], _capi.describe("y", y),
                  _capi.describe("final_states", final),
                  workspace=workspace.data_ptr(), workspace_bytes=size,
                  stream=torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    check(y, final, inputs)


@requires_op
def test_first_call_of_a_fresh_process(tmp_path, seed):
    # Nothing but moving the inputs to the GPU happens before the call.
    out = tmp_path / "result.pt"
    code = f"""
import sys, torch
sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
from reference import random_inputs
inputs = random_inputs(2, 300, 4, 64, 2, 64, "cpu",
                       torch.Generator().manual_seed({seed}), True)
inputs = {{k: v.cuda() for k, v in inputs.items()}}
import tilec.mamba2
args = dict(inputs)
y, final = tilec.mamba2.chunk_scan_combined(
    args.pop("x"), args.pop("dt"), args.pop("A"), args.pop("B"),
    args.pop("C"), 128, **args, return_final_states=True)
torch.save(dict(inputs=inputs, y=y, final=final), {str(out)!r})
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = torch.load(out)
    check(result["y"], result["final"], result["inputs"])


@requires_op
def test_call_from_a_thread_without_context(cuda_generator):
    inputs, chunk = make(SHAPES[0], cuda_generator)
    results = {}

    def work():
        try:
            results["out"] = run_op(inputs, chunk, return_final_states=True)
            torch.cuda.synchronize()
        except Exception as error:  # handed to the test's thread
            results["error"] = error

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert "error" not in results, results.get("error")
    check(*results["out"], inputs)


@requires_op
def test_runs_on_the_current_stream(cuda_generator):
    # The inputs are written on a side stream after a long sleep; a call
    # that ran on any other stream would read the NaNs they held before.
    inputs, chunk = make(SHAPES[4], cuda_generator)
    staged = {k: torch.full_like(v, float("nan")) for k, v in inputs.items()}
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)  # cycles: about 0.1 s
        for k, v in inputs.items():
            staged[k].copy_(v)
        y, final = run_op(staged, chunk, return_final_states=True)
    side.synchronize()
    check(y, final, inputs)


@requires_op
def test_torch_compile_without_graph_breaks(cuda_generator):
    inputs, chunk = make(SHAPES[1], cuda_generator)

    def block(x, dt, A, B, C, D, initial_states):
        y, final = mamba2.chunk_scan_combined(
            x * 2, dt, A, B, C, chunk, D=D, initial_states=initial_states,
            return_final_states=True)
        return y.float() + 1.0, final * 0.5

    args = [inputs[k] for k in ("x", "dt", "A", "B", "C", "D",
                                "initial_states")]
    torch._dynamo.reset()
    explanation = torch._dynamo.explain(block)(*args)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    assert explanation.graph_count == 1
    torch._dynamo.reset()
    compiled = torch.compile(block, fullgraph=True)
    expected = block(*args)
    actual = compiled(*args)
    for a, e in zip(actual, expected):
        assert torch.equal(a, e)


@requires_op
def test_torch_compile_without_final_states(cuda_generator):
    # The op returns y alone here (its Tensor[] holds the outputs asked
    # for only).
    inputs, chunk = make(SHAPES[0], cuda_generator)

    def block(x, dt, A, B, C, D):
        return mamba2.chunk_scan_combined(x, dt, A, B, C, chunk, D=D)

    args = [inputs[k] for k in ("x", "dt", "A", "B", "C", "D")]
    torch._dynamo.reset()
    compiled = torch.compile(block, fullgraph=True)
    assert torch.equal(compiled(*args), block(*args))


@requires_op
def test_opcheck(cuda_generator):
    inputs, chunk = make(SHAPES[0], cuda_generator)
    args = (inputs["x"], inputs["dt"], inputs["A"], inputs["B"], inputs["C"],
            chunk, inputs["D"], None, True, None, None, False, 0.0,
            float("inf"), False, True, None, None, False)
    torch.library.opcheck(torch.ops.tilec.mamba2_chunk_scan_combined.default,
                          args)


@requires_op
def test_cuda_graph_capture_and_replay(cuda_generator):
    static, chunk = make(SHAPES[4], cuda_generator)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up: loads the kernels
        run_op(static, chunk, return_final_states=True)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y, final = run_op(static, chunk, return_final_states=True)
    for _ in range(3):
        fresh, _ = make(SHAPES[4], cuda_generator)
        for k, v in fresh.items():
            static[k].copy_(v)
        graph.replay()
        torch.cuda.synchronize()
        eager_y, eager_final = run_op(fresh, chunk, return_final_states=True)
        assert torch.equal(y, eager_y) and torch.equal(final, eager_final)
        check(y, final, fresh)


@requires_op
@pytest.mark.parametrize("change, status, words", [
    (dict(x=lambda t: t.double()), Status.INVALID_DTYPE, "x is "
     "torch.float64"),
    (dict(dt=lambda t: t.double()), Status.INVALID_DTYPE, "dt"),
    (dict(initial_states=lambda t: t.bfloat16()), Status.INVALID_DTYPE,
     "initial state"),
    (dict(dt=lambda t: t[:, :-1]), Status.INVALID_SHAPE, "dt"),
    (dict(C=lambda t: t[..., :-1]), Status.INVALID_SHAPE, "C"),
    (dict(A=lambda t: t[None]), Status.INVALID_SHAPE, "A (heads) has rank 2"),
    (dict(x=lambda t: t[0]), Status.INVALID_SHAPE, "x (batch, seqlen, "
     "heads, headdim) has rank 3"),
    (dict(dt=lambda t: t.cpu()), Status.NOT_DEVICE_POINTER, "dt on cpu"),
    (dict(chunk=lambda c: 100), Status.UNSUPPORTED_CHUNK, "chunk is 100"),
    (dict(chunk=lambda c: 2**64 + 128), Status.UNSUPPORTED_CHUNK,
     "does not fit in 64 bits"),
])
def test_bad_input_through_the_op(change, status, words, cuda_generator):
    inputs, chunk = make(SHAPES[1], cuda_generator)
    for k, f in change.items():
        if k == "chunk":
            chunk = f(chunk)
        else:
            inputs[k] = f(inputs[k])
    expect_argument_error(inputs, chunk, status, words)


@requires_op
def test_groups_not_dividing_heads_through_the_op(cuda_generator):
    inputs = random_inputs(1, 64, 6, 32, 4, 16, "cuda", cuda_generator)
    expect_argument_error(inputs, 64, Status.GROUPS_DO_NOT_DIVIDE_HEADS,
                          "must be a multiple of groups")


def test_host_pointers_with_a_context_are_not_device_pointers(
        cpu_generator):
    _cuda_context.ensure_current(torch.cuda.current_device())
    call = Call(generator=cpu_generator)
    error = call.expect(Status.NOT_DEVICE_POINTER)
    assert isinstance(error, ValueError)


def test_thread_without_context_gets_no_context(cuda_generator):
    call = Call()
    for name, t in call.tensors.items():
        call.tensors[name] = t.cuda()
        call.descriptors[name] = _capi.describe(name, call.tensors[name])
    call.workspace = torch.empty(call.workspace_bytes, dtype=torch.uint8,
                                 device="cuda")
    call.workspace_ptr = call.workspace.data_ptr()
    torch.cuda.synchronize()
    caught = {}

    def work():
        try:
            call.run()
        except Mamba2Error as error:
            caught["error"] = error

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert "error" in caught, "the call without a context did not fail"
    assert caught["error"].status == Status.NO_CONTEXT, caught
    assert not isinstance(caught["error"], ValueError)


def test_no_device():
    code = ("import sys; sys.path.insert(0, sys.argv[1]);"
            "from test_capi_validation import Call;"
            "from tilec.errors import Mamba2Error\n"
            "try:\n    Call().run()\n"
            "except Mamba2Error as e:\n    print(e.status_name)\n")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([sys.executable, "-c", code, here], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "TILEC_MAMBA2_ERROR_NO_DEVICE"


def test_out_of_memory_for_the_workspace():
    # B and C broadcast (stride 0) over dstate 2^35: tiny buffers, and a
    # workspace of 2^35 f32 chunk states, chunk-local states and a final
    # state, which no device has (the library allocates it: no workspace is
    # passed). At 2^36 state_passing's grid would pass the driver's limit
    # and the call would fail its grid check first.
    dstate = 2**35
    problem = _capi.Problem(1, 64, 1, 1, 1, dstate, 64)
    x = torch.zeros(1, 64, 1, 1, dtype=torch.bfloat16, device="cuda")
    dt = torch.zeros(1, 64, 1, device="cuda")
    A = torch.zeros(1, device="cuda")
    bc = torch.zeros(1, 1, 1, 1, dtype=torch.bfloat16,
                     device="cuda").expand(1, 64, 1, dstate)
    y = torch.zeros(1, 64, 1, 1, device="cuda")
    _cuda_context.ensure_current(torch.cuda.current_device())
    d = _capi.describe
    with pytest.raises(Mamba2Error) as caught:
        _capi.forward(problem, d("x", x), d("dt", dt), d("A", A),
                      d("B", bc), d("C", bc), d("D", A), None, d("y", y),
                      None, stream=torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    assert caught.value.status == Status.OUT_OF_MEMORY, str(caught.value)
    assert "cuMemAllocAsync" in caught.value.message


def test_stream_of_another_context_fails_to_launch(cuda_generator):
    # Everything torch allocates is made first, in the primary context;
    # only the stream belongs to the other context.
    inputs, chunk = make(SHAPES[0], cuda_generator)
    batch, seqlen, heads, headdim = inputs["x"].shape
    problem = _capi.Problem(batch, seqlen, heads, 1, headdim, 16, chunk)
    size = _capi.workspace_size(problem)
    workspace = torch.empty(size, dtype=torch.uint8, device="cuda")
    y = torch.empty(inputs["x"].shape, device="cuda")
    d = {k: _capi.describe(k, v) for k, v in inputs.items()}
    torch.cuda.synchronize()
    driver = ctypes.CDLL("libcuda.so.1")
    device, context = ctypes.c_int(), ctypes.c_void_p()
    stream = ctypes.c_void_p()
    assert driver.cuDeviceGet(ctypes.byref(device),
                              torch.cuda.current_device()) == 0
    # cuCtxCreate_v4(ctx, params, flags, device) makes the new context
    # current; the stream is created in it.
    assert driver.cuCtxCreate_v4(ctypes.byref(context), None, 0, device) == 0
    try:
        assert driver.cuStreamCreate(ctypes.byref(stream), 1) == 0
        _cuda_context.ensure_current(torch.cuda.current_device())
        with pytest.raises(Mamba2Error) as caught:
            _capi.forward(problem, d["x"], d["dt"], d["A"], d["B"], d["C"],
                          d["D"], None, _capi.describe("y", y), None,
                          workspace=workspace.data_ptr(),
                          workspace_bytes=size, stream=stream.value)
        assert caught.value.status == Status.LAUNCH_FAILURE, str(caught.value)
        assert "chunk_cumsum" in caught.value.message
    finally:
        if stream.value:
            driver.cuStreamDestroy_v2(stream)
        driver.cuCtxDestroy_v2(context)
        _cuda_context.ensure_current(torch.cuda.current_device())


# mamba_ssm's options. Each case draws the inputs its options need
# (reference.random_inputs) and passes them on as they are.
BOUND_F32 = 2e-3  # a y in f32: the kernels' tf32 roundings (2e-4 measured)
LIMIT = (2e-3, 0.08)  # clamps about 1% of the steps up and 20% down
FEATURES = {
    "dt_bias_softplus_limit": (dict(dt_bias=True, dt_softplus=True), LIMIT),
    "dt_bias": (dict(dt_bias=True), None),
    "dt_softplus": (dict(dt_softplus=True), None),
    "d_per_channel": (dict(d_per_channel=True), None),
    "z": (dict(z=True), None),
    "z_d_per_channel": (dict(z=True, d_per_channel=True), None),
    "dt_bf16": (dict(dt_bias=True, dt_softplus=True,
                     dt_dtype=torch.bfloat16), LIMIT),
    "dt_f16": (dict(dt_dtype=torch.float16), None),
    "all": (dict(z=True, d_per_channel=True, dt_bias=True, dt_softplus=True),
            LIMIT),
}


def make_with(shape, generator, feature):
    """Inputs with the options of FEATURES[feature] (None: none)."""
    *sizes, chunk, with_init = shape
    flags, limit = FEATURES[feature] if feature is not None else ({}, None)
    inputs = random_inputs(*sizes, "cuda", generator, with_init, **flags)
    if limit is not None:
        inputs["dt_limit"] = limit
    return inputs, chunk


@requires_op
@pytest.mark.parametrize("y_dtype", [None, torch.float32])
@pytest.mark.parametrize("feature", list(FEATURES))
@pytest.mark.parametrize("shape", [SHAPES[1], SHAPES[2]], ids=shape_id)
def test_options_match_the_f64_recurrence(shape, feature, y_dtype,
                                          cuda_generator):
    inputs, chunk = make_with(shape, cuda_generator, feature)
    y, final = run_op(inputs, chunk, return_final_states=True,
                      y_dtype=y_dtype)
    assert y.dtype == (y_dtype or torch.bfloat16)
    y_ref, final_ref = recurrence(**inputs)
    assert torch.isfinite(y).all() and torch.isfinite(final).all()
    assert relative_error(y, y_ref) <= (BOUND_F32 if y_dtype else BOUND)
    assert relative_error(final, final_ref) <= BOUND_F32


def chunk_states_reference(inputs, chunk):
    """The state entering each chunk: the recurrence's final state over
    the chunk's prefix (the initial state, or zero, for chunk 0)."""
    batch, seqlen, heads, headdim = inputs["x"].shape
    dstate = inputs["B"].shape[3]
    states = []
    for start in range(0, seqlen, chunk):
        if start == 0:
            init = inputs.get("initial_states")
            states.append(torch.zeros(batch, heads, headdim, dstate,
                                      dtype=torch.float64, device="cuda")
                          if init is None else init.to(torch.float64))
            continue
        prefix = {k: (v[:, :start] if k in ("x", "dt", "B", "C", "z")
                      else v) for k, v in inputs.items()}
        states.append(recurrence(**prefix)[1])
    return torch.stack(states, dim=1)


@requires_op
@pytest.mark.parametrize("feature", ["dt_bias_softplus_limit", "all"])
def test_chunk_states_on_request(feature, cuda_generator):
    inputs, chunk = make_with(SHAPES[2], cuda_generator, feature)
    y, final, states = run_op(inputs, chunk, return_final_states=True,
                              return_chunk_states=True)
    assert states.dtype == torch.float32
    assert states.shape == (2, 3, 8, 64, 64)
    assert relative_error(states, chunk_states_reference(inputs, chunk)) \
        <= BOUND_F32
    # Asking for them changes nothing else.
    y2, final2 = run_op(inputs, chunk, return_final_states=True)
    assert torch.equal(y, y2) and torch.equal(final, final2)


@requires_op
def test_dt_limit_clamps_at_both_ends(cuda_generator):
    inputs, _ = make_with(SHAPES[2], cuda_generator, "all")
    free = transform_dt(inputs["dt"], inputs["dt_bias"], True,
                        (-float("inf"), float("inf")))
    assert (free < LIMIT[0]).float().mean() > 0.002
    assert (free > LIMIT[1]).float().mean() > 0.05


@requires_op
def test_bf16_y_is_the_f32_y_rounded(cuda_generator):
    # One kernel, one f32 result, then the store: bit for bit.
    inputs, chunk = make_with(SHAPES[2], cuda_generator, "all")
    y16 = run_op(inputs, chunk)
    y32 = run_op(inputs, chunk, y_dtype=torch.float32)
    assert y16.dtype == torch.bfloat16 and y32.dtype == torch.float32
    assert torch.equal(y16, y32.to(torch.bfloat16))


@requires_op
@pytest.mark.parametrize("feature", [None] + list(FEATURES))
def test_options_against_mamba_ssm(feature, cuda_generator):
    for shape in (SHAPES[1], SHAPES[4]):
        check_against_mamba_ssm(*make_with(shape, cuda_generator, feature))


@requires_op
@pytest.mark.parametrize("change, status, words", [
    (dict(z=lambda t: t.float()), Status.INVALID_DTYPE,
     "z (batch, seqlen, heads, headdim) is f32; only x's dtype (bf16) is "
     "supported"),
    (dict(z=lambda t: t[:, :-1]), Status.INVALID_SHAPE, "z (batch"),
    (dict(z=lambda t: t.cpu()), Status.NOT_DEVICE_POINTER, "z on cpu"),
    (dict(dt_bias=lambda t: t.half()), Status.INVALID_DTYPE,
     "dt bias (heads) is f16"),
    (dict(dt_bias=lambda t: t[:-1]), Status.INVALID_SHAPE,
     "dt bias (heads) has shape (7)"),
    (dict(dt_bias=lambda t: t.cpu()), Status.NOT_DEVICE_POINTER,
     "dt_bias on cpu"),
    (dict(D=lambda t: t[:, :-1]), Status.INVALID_SHAPE,
     "D (heads, headdim) has shape (8, 63)"),
    (dict(dt_limit=lambda t: (0.5, 0.25)), Status.INVALID_ARGUMENT,
     "dt limit"),
])
def test_bad_option_through_the_op(change, status, words, cuda_generator):
    inputs, chunk = make_with(SHAPES[2], cuda_generator, "all")
    for k, f in change.items():
        inputs[k] = f(inputs[k])
    expect_argument_error(inputs, chunk, status, words)


@requires_op
def test_cuda_graph_with_every_option(cuda_generator):
    # The options' tensors are static inputs of the graph like the others;
    # replays on fresh values match eager calls bit for bit.
    shape = SHAPES[2]
    static, chunk = make_with(shape, cuda_generator, "all")
    tensors = {k: v for k, v in static.items() if isinstance(v, torch.Tensor)}
    run_op(static, chunk, return_final_states=True)  # loads the kernels
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y, final = run_op(static, chunk, return_final_states=True)
    for _ in range(2):
        fresh, _ = make_with(shape, cuda_generator, "all")
        for k in tensors:
            static[k].copy_(fresh[k])
        graph.replay()
        torch.cuda.synchronize()
        eager_y, eager_final = run_op(fresh, chunk, return_final_states=True)
        assert torch.equal(y, eager_y) and torch.equal(final, eager_final)
        y_ref, _ = recurrence(**fresh)
        assert relative_error(y, y_ref) <= BOUND


# Packed sequences (seq_idx): boundaries at a chunk edge and at random steps
# (reference.random_seq_idx), odd rows starting at sequence 1.
def make_packed(shape, generator, feature=None):
    *sizes, chunk, with_init = shape
    if feature is None:
        inputs = random_inputs(*sizes, "cuda", generator, with_init)
    else:
        inputs, _ = make_with(shape, generator, feature)
    batch, seqlen = sizes[0], sizes[1]
    inputs["seq_idx"] = random_seq_idx(batch, seqlen, chunk, "cuda",
                                       generator)
    return inputs, chunk


@requires_op
@pytest.mark.parametrize("feature", [None, "all"])
@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
def test_seq_idx_matches_the_f64_recurrence(shape, feature, cuda_generator):
    inputs, chunk = make_packed(shape, cuda_generator, feature)
    y, final = run_op(inputs, chunk, return_final_states=True,
                      y_dtype=torch.float32)
    y_ref, final_ref = recurrence(**inputs)
    assert torch.isfinite(y).all() and torch.isfinite(final).all()
    assert relative_error(y, y_ref) <= BOUND_F32
    assert relative_error(final, final_ref) <= BOUND_F32
    # The boundaries matter on these inputs: without them the recurrence
    # is far away.
    no_packing = {k: v for k, v in inputs.items() if k != "seq_idx"}
    assert relative_error(y, recurrence(**no_packing)[0]) > 10 * BOUND_F32


@requires_op
def test_seq_idx_of_one_sequence_is_no_seq_idx(cuda_generator):
    inputs, chunk = make_with(SHAPES[2], cuda_generator, "all")
    y, final = run_op(inputs, chunk, return_final_states=True)
    zeros = torch.zeros(inputs["x"].shape[:2], dtype=torch.int32,
                        device="cuda")
    y0, final0 = run_op(dict(inputs, seq_idx=zeros), chunk,
                        return_final_states=True)
    assert torch.equal(y, y0) and torch.equal(final, final0)


@requires_op
@pytest.mark.parametrize("feature", [None, "all"])
def test_seq_idx_against_mamba_ssm(feature, cuda_generator):
    for shape in (SHAPES[1], SHAPES[2], SHAPES[4]):
        check_against_mamba_ssm(*make_packed(shape, cuda_generator, feature))


@requires_op
@pytest.mark.parametrize("change, status, words", [
    (lambda t: t.float(), Status.INVALID_DTYPE,
     "seq idx (batch, seqlen) is f32; only i32 is supported"),
    (lambda t: t.long(), Status.INVALID_DTYPE, "seq_idx is torch.int64"),
    (lambda t: t[:, :-1], Status.INVALID_SHAPE,
     "seq idx (batch, seqlen) has shape (2, 599)"),
    (lambda t: t[None], Status.INVALID_SHAPE, "rank 3, not 2"),
    (lambda t: t.cpu(), Status.NOT_DEVICE_POINTER, "seq_idx on cpu"),
])
def test_bad_seq_idx_through_the_op(change, status, words, cuda_generator):
    inputs, chunk = make_packed(SHAPES[2], cuda_generator)
    inputs["seq_idx"] = change(inputs["seq_idx"])
    expect_argument_error(inputs, chunk, status, words)


@requires_op
def test_cuda_graph_with_seq_idx(cuda_generator):
    static, chunk = make_packed(SHAPES[2], cuda_generator, "all")
    run_op(static, chunk, return_final_states=True)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y, final = run_op(static, chunk, return_final_states=True)
    fresh, _ = make_packed(SHAPES[2], cuda_generator, "all")
    for k, v in static.items():
        if isinstance(v, torch.Tensor):
            v.copy_(fresh[k])
    graph.replay()
    torch.cuda.synchronize()
    eager_y, eager_final = run_op(fresh, chunk, return_final_states=True)
    assert torch.equal(y, eager_y) and torch.equal(final, eager_final)


# Sequences given by offsets (cu_seqlens) with the state at the end of each
# (return_varlen_states): one packed row, boundaries at a chunk edge and at
# random steps (reference.random_cu_seqlens).
VARLEN_SHAPES = [(1,) + shape[1:] for shape in SHAPES]


def make_varlen(shape, generator, feature=None, offsets_device="cuda"):
    inputs, chunk = make_packed(shape, generator, feature)
    inputs["cu_seqlens"], inputs["seq_idx"] = random_cu_seqlens(
        shape[1], chunk, "cuda", generator)
    inputs["cu_seqlens"] = inputs["cu_seqlens"].to(offsets_device)
    return inputs, chunk


@requires_op
@pytest.mark.parametrize("offsets_device", ["cuda", "cpu"])
@pytest.mark.parametrize("feature", [None, "all"])
@pytest.mark.parametrize("shape", VARLEN_SHAPES, ids=shape_id)
def test_varlen_states_match_the_f64_recurrence(shape, feature,
                                                offsets_device,
                                                cuda_generator):
    inputs, chunk = make_varlen(shape, cuda_generator, feature,
                                offsets_device)
    y, final, varlen = run_op(inputs, chunk, return_final_states=True,
                              return_varlen_states=True,
                              y_dtype=torch.float32)
    nseq = inputs["cu_seqlens"].shape[0] - 1
    assert varlen.shape == (nseq,) + final.shape[1:]
    assert varlen.dtype == torch.float32 and varlen.device == y.device
    # The recurrence takes the packing from seq_idx alone.
    y_ref, final_ref = recurrence(
        **{k: v for k, v in inputs.items() if k != "cu_seqlens"})
    varlen_ref = varlen_states(**inputs)
    assert torch.isfinite(varlen).all()
    assert relative_error(y, y_ref) <= BOUND_F32
    assert relative_error(final, final_ref) <= BOUND_F32
    assert relative_error(varlen, varlen_ref) <= BOUND_F32
    # The last sequence's state is the final state.
    assert relative_error(varlen[-1], final_ref[0]) <= BOUND_F32
    # Each sequence's own: shifted by one they are far away.
    if nseq > 1:
        assert relative_error(varlen[1:], varlen_ref[:-1]) > 10 * BOUND_F32


@requires_op
@pytest.mark.parametrize("feature", [None, "all"])
def test_varlen_states_against_mamba_ssm(feature, cuda_generator):
    # Without an initial state: mamba_ssm drops it from sequence 0's varlen
    # state when that sequence ends inside the first chunk (tilec keeps it).
    for shape in (VARLEN_SHAPES[1], VARLEN_SHAPES[2], VARLEN_SHAPES[4]):
        inputs, chunk = make_varlen(shape[:7] + (False,), cuda_generator,
                                    feature)
        ours = run_op(inputs, chunk, return_final_states=True,
                      return_varlen_states=True)
        theirs = run_mamba_ssm(inputs, chunk, return_final_states=True,
                               return_varlen_states=True)
        assert len(ours) == len(theirs) == 3
        # y and the final states in mamba_ssm's dtypes; the varlen states
        # stay f32 in tilec (mamba_ssm rounds them to C's dtype).
        for a, b in zip(ours[:2], theirs[:2]):
            assert a.shape == b.shape and a.dtype == b.dtype
        assert ours[2].shape == theirs[2].shape
        assert ours[2].dtype == torch.float32
        varlen_ref = varlen_states(**inputs)
        assert relative_error(theirs[2], varlen_ref) <= BOUND
        assert relative_error(ours[2], varlen_ref) <= BOUND_F32
        assert relative_error(ours[2], theirs[2]) <= BOUND
        assert relative_error(ours[0], theirs[0]) <= BOUND


# state_dtype=torch.float16: the kernels keep the states in f32; the varlen
# and chunk states come back rounded to it (mamba_ssm materializes its
# states in it).
@requires_op
def test_varlen_state_dtype_rounds_the_returned_states(cuda_generator):
    state_dtype = torch.float16
    inputs, chunk = make_varlen(VARLEN_SHAPES[1], cuda_generator, "all")
    options = dict(return_final_states=True, return_varlen_states=True,
                   return_chunk_states=True)
    y32, final32, varlen32, chunks32 = run_op(inputs, chunk, **options)
    y, final, varlen, chunks = run_op(inputs, chunk, **options,
                                      state_dtype=state_dtype)
    # y and the final states (f32, as in mamba_ssm) do not change.
    assert torch.equal(y, y32) and torch.equal(final, final32)
    assert final.dtype == torch.float32
    assert varlen.dtype == chunks.dtype == state_dtype
    assert torch.equal(varlen, varlen32.to(state_dtype))
    assert torch.equal(chunks, chunks32.to(state_dtype))
    # One rounding of 2^-11 relative on top.
    assert relative_error(varlen, varlen_states(**inputs)) <= BOUND


# state_dtype=torch.bfloat16 with a bf16 x: the kernels store the states
# between chunks in bf16, as mamba_ssm does (docs/mamba2.md, "State dtype"):
# the same f32 recurrence, so the chunk states are the f32 run's rounded to
# nearest even and the final states do not change; y and the varlen states
# read the rounded states (one rounding of 2^-8 relative of the state's
# part: well within BOUND of the f32 run's and of the f64 reference).
@requires_op
def test_bf16_state_dtype_stores_bf16_states(cuda_generator):
    inputs, chunk = make_varlen(VARLEN_SHAPES[1], cuda_generator, "all")
    assert inputs["x"].dtype == torch.bfloat16
    options = dict(return_final_states=True, return_varlen_states=True,
                   return_chunk_states=True, y_dtype=torch.float32)
    y32, final32, varlen32, chunks32 = run_op(inputs, chunk, **options)
    y, final, varlen, chunks = run_op(inputs, chunk, **options,
                                      state_dtype=torch.bfloat16)
    assert torch.equal(final, final32) and final.dtype == torch.float32
    assert varlen.dtype == chunks.dtype == torch.bfloat16
    assert torch.equal(chunks, chunks32.to(torch.bfloat16))
    assert not torch.equal(y, y32)  # the kernels read the bf16 states
    assert relative_error(y, y32) <= BOUND
    assert relative_error(varlen.float(), varlen32) <= BOUND
    assert relative_error(varlen, varlen_states(**inputs)) <= BOUND


@requires_op
@pytest.mark.parametrize("state_dtype", [torch.bfloat16, torch.float32])
def test_varlen_state_dtype_against_mamba_ssm(state_dtype, cuda_generator):
    # Without an initial state (see test_varlen_states_against_mamba_ssm).
    inputs, chunk = make_varlen(VARLEN_SHAPES[1][:7] + (False,),
                                cuda_generator, "all")
    ours = run_op(inputs, chunk, return_varlen_states=True,
                  state_dtype=state_dtype)
    theirs = run_mamba_ssm(inputs, chunk, return_varlen_states=True,
                           state_dtype=state_dtype)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape and a.dtype == b.dtype
    assert relative_error(ours[0], theirs[0]) <= BOUND
    assert relative_error(ours[1], theirs[1]) <= BOUND
    assert relative_error(ours[1], varlen_states(**inputs)) <= BOUND


# The chunk states (tilec's return_chunk_states) are mamba_ssm's internal
# `states`, the state entering each chunk, which its forward returns.
@requires_op
@pytest.mark.parametrize("feature", [None, "all"])
def test_chunk_states_against_mamba_ssm(feature, cuda_generator):
    combined = mamba_ssm_module("ssd_combined")
    inputs, chunk = make_with(SHAPES[2], cuda_generator, feature)
    _, states = run_op(inputs, chunk, return_chunk_states=True)
    args = dict(inputs)
    theirs = combined._mamba_chunk_scan_combined_fwd(
        args.pop("x"), args.pop("dt"), args.pop("A"), args.pop("B"),
        args.pop("C"), chunk, **args, state_dtype=torch.float32)
    assert theirs[4].shape == states.shape
    assert relative_error(states, theirs[4]) <= BOUND
    assert relative_error(states, chunk_states_reference(inputs, chunk)) \
        <= BOUND_F32


def _swap_two_offsets(t):
    t = t.clone()
    t[1], t[2] = t[2].clone(), t[1].clone()
    return t


def _relabel_last_step(inputs):
    inputs["seq_idx"][0, -1] += 1


# Rules on the descriptors, wherever cu_seqlens is.
@requires_op
@pytest.mark.parametrize("offsets_device", ["cuda", "cpu"])
@pytest.mark.parametrize("change, status, words", [
    (lambda i: i.update(cu_seqlens=i["cu_seqlens"].long()),
     Status.INVALID_DTYPE, "cu_seqlens is torch.int64"),
    (lambda i: i.update(cu_seqlens=i["cu_seqlens"][None]),
     Status.INVALID_SHAPE, "cu seqlens (nseq + 1) has rank 2, not 1"),
    (lambda i: i.pop("seq_idx"), Status.INVALID_ARGUMENT,
     "cu seqlens: needs seq idx"),
])
def test_bad_cu_seqlens_descriptor_through_the_op(change, status, words,
                                                  offsets_device,
                                                  cuda_generator):
    inputs, chunk = make_varlen(VARLEN_SHAPES[2], cuda_generator,
                                offsets_device=offsets_device)
    change(inputs)
    expect_argument_error(inputs, chunk, status, words,
                          return_varlen_states=True)


# Values on the CPU: checked on the host before the copy to the device.
@requires_op
@pytest.mark.parametrize("change, words", [
    (lambda i: i.update(cu_seqlens=_swap_two_offsets(i["cu_seqlens"])),
     "cu seqlens is not increasing"),
    (lambda i: i.update(cu_seqlens=i["cu_seqlens"][:-1]),
     "the last offset must be seqlen"),
])
def test_bad_cpu_cu_seqlens_values_through_the_op(change, words,
                                                  cuda_generator):
    inputs, chunk = make_varlen(VARLEN_SHAPES[2], cuda_generator,
                                offsets_device="cpu")
    change(inputs)
    expect_argument_error(inputs, chunk, Status.INVALID_ARGUMENT, words,
                          return_varlen_states=True)


def _shorten_last_offset(inputs):
    inputs["cu_seqlens"][-1] -= 1


def _start_at_one(inputs):
    inputs["cu_seqlens"][0] = 1


# Values on the GPU: not read on the host (no wait for the stream); the
# kernel gives NaN states for the sequences they concern, the others as
# with good offsets.
@requires_op
@pytest.mark.parametrize("change, bad", [
    (_shorten_last_offset, [-1]),
    (_start_at_one, [0]),
    (_relabel_last_step, [-1]),
    (lambda i: i.update(cu_seqlens=_swap_two_offsets(i["cu_seqlens"])),
     [0, 1, 2]),
])
def test_bad_cuda_cu_seqlens_values_give_nan_varlen_states(change, bad,
                                                           cuda_generator):
    inputs, chunk = make_varlen(VARLEN_SHAPES[2], cuda_generator)
    _, good = run_op(inputs, chunk, return_varlen_states=True)
    change(inputs)
    _, got = run_op(inputs, chunk, return_varlen_states=True)
    nseq = good.shape[0]
    bad = {s % nseq for s in bad}
    for s in range(nseq):
        if s in bad:
            assert torch.isnan(got[s]).all(), f"sequence {s}"
        else:
            assert torch.equal(got[s], good[s]), f"sequence {s}"


@requires_op
def test_cu_seqlens_needs_one_row(cuda_generator):
    inputs, chunk = make_packed(SHAPES[2], cuda_generator)
    inputs["cu_seqlens"] = torch.tensor([0, 600], dtype=torch.int32)
    expect_argument_error(inputs, chunk, Status.INVALID_ARGUMENT,
                          "one row (batch 1)", return_varlen_states=True)


def _offsets(boundaries, seqlen):
    """(cu_seqlens, seq_idx) on the GPU for sequences starting at 0 and at
    `boundaries`."""
    cu = torch.tensor([0] + boundaries + [seqlen], dtype=torch.int32)
    seq_idx = torch.repeat_interleave(
        torch.arange(len(boundaries) + 1, dtype=torch.int32),
        (cu[1:] - cu[:-1]).long())
    return cu.cuda(), seq_idx[None].cuda()


@requires_op
def test_cuda_graph_with_varlen_states(cuda_generator):
    # cu_seqlens on the GPU: the capture reads nothing on the host, and each
    # replay reads the offsets of the moment.
    static, chunk = make_varlen(VARLEN_SHAPES[2], cuda_generator, "all")
    seqlen = static["x"].shape[1]
    static["cu_seqlens"], static["seq_idx"] = _offsets([1, 256, 257], seqlen)
    run_op(static, chunk, return_varlen_states=True)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y, varlen = run_op(static, chunk, return_varlen_states=True)
    for boundaries in ([100, 101, 599], [255, 256, 512]):
        fresh, _ = make_with(VARLEN_SHAPES[2], cuda_generator, "all")
        fresh["cu_seqlens"], fresh["seq_idx"] = _offsets(boundaries, seqlen)
        for k, v in fresh.items():
            if isinstance(v, torch.Tensor):
                static[k].copy_(v)
        graph.replay()
        torch.cuda.synchronize()
        eager_y, eager_varlen = run_op(static, chunk,
                                       return_varlen_states=True)
        assert torch.equal(y, eager_y) and torch.equal(varlen, eager_varlen)
        assert relative_error(varlen, varlen_states(**static)) <= BOUND_F32
    # cu_seqlens on the CPU would be a copy, which capture cannot take.
    on_cpu = dict(static, cu_seqlens=static["cu_seqlens"].cpu())
    refused = None
    with torch.cuda.graph(torch.cuda.CUDAGraph()):
        try:
            run_op(on_cpu, chunk, return_varlen_states=True)
        except NotImplementedError as error:
            refused = error
    assert refused is not None and "graph capture" in str(refused)


# Every dtype combination: x, B, C, z in bf16, f16 or f32, dt in f32, bf16
# or f16, y in x's dtype or f32, against the recurrence on the same
# (rounded) inputs. y in bf16 gets BOUND (its rounding, 2^-9 relative), in
# f16 or f32 BOUND_F32 (f16 rounds to 2^-12).
@requires_op
@pytest.mark.parametrize("y_dtype", [None, torch.float32])
@pytest.mark.parametrize("dt_dtype",
                         [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("x_dtype",
                         [torch.bfloat16, torch.float16, torch.float32])
def test_dtypes_match_the_f64_recurrence(x_dtype, dt_dtype, y_dtype,
                                         cuda_generator):
    *sizes, chunk, with_init = SHAPES[2]
    inputs = random_inputs(*sizes, "cuda", cuda_generator, with_init,
                           z=True, dt_bias=True, dt_softplus=True,
                           d_per_channel=True, dt_dtype=dt_dtype,
                           x_dtype=x_dtype)
    y, final = run_op(inputs, chunk, return_final_states=True,
                      y_dtype=y_dtype)
    assert y.dtype == (y_dtype or x_dtype)
    y_ref, final_ref = recurrence(**inputs)
    assert torch.isfinite(y).all() and torch.isfinite(final).all()
    bf16_y = y.dtype == torch.bfloat16
    assert relative_error(y, y_ref) <= (BOUND if bf16_y else BOUND_F32)
    assert relative_error(final, final_ref) <= BOUND_F32


@requires_op
@pytest.mark.parametrize("x_dtype", [torch.float16, torch.float32])
def test_dtypes_against_mamba_ssm(x_dtype, cuda_generator):
    *sizes, chunk, with_init = SHAPES[1]
    inputs = random_inputs(*sizes, "cuda", cuda_generator, with_init,
                           z=True, x_dtype=x_dtype)
    check_against_mamba_ssm(inputs, chunk)


@requires_op
def test_b_in_another_dtype_than_x_through_the_op(cuda_generator):
    inputs, chunk = make(SHAPES[0], cuda_generator)
    inputs["B"] = inputs["B"].half()
    expect_argument_error(inputs, chunk, Status.INVALID_DTYPE,
                          "only x's dtype (bf16) is supported")
