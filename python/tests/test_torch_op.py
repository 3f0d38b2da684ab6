"""The C++ torch op (python/torch_op, tilec_torch_op.so): its schemas
against the Python registrations', the errors it raises in the package's
words, the loader's refusals; on the GPU (with TILEC_MAMBA2_OP_REGISTRATION
cpp, the default once the op is built) its results against the Python
implementation's (the same C ABI and kernels: the same bits, and the f64
recurrence's bound) and its refusals against the Python path's.

The tests that need the op are skipped (reported as skipped) where it is
not built (python3 python/torch_op/build.py) or where this process
registered the ops from Python (TILEC_MAMBA2_OP_REGISTRATION=custom_op or
library: the two cannot both define tilec::*). On the build machine (torch
1.13, no CUDA) the op loads, registers its schemas and refuses CPU tensors
as the Python layer does; nothing reaches the C ABI's driver part."""

import math

import pytest
import torch

from conftest import HAS_GPU
from reference import (random_cu_seqlens, random_inputs, recurrence,
                       relative_error)
from test_gpu import BOUND, run_op
from test_state_update import inputs as step_inputs
from tilec import _torch_op, mamba2
from tilec.errors import Mamba2ArgumentError, Mamba2Error, Status


def _why_not_loaded():
    """None when the C++ op is loaded in this process (loading it here
    where the package did not), else why not."""
    if mamba2.OP_REGISTRATION == "cpp":
        return None
    if mamba2.HAS_OP:
        return (f"the ops are registered from Python here "
                f"({mamba2.OP_REGISTRATION}); {mamba2.TORCH_OP_NOTE}")
    path, note = _torch_op.load()
    return None if path else note


_WHY = _why_not_loaded()
requires_torch_op = pytest.mark.skipif(
    _WHY is not None, reason=f"needs the C++ op: {_WHY}")
requires_cpp_on_gpu = pytest.mark.skipif(
    not HAS_GPU or mamba2.OP_REGISTRATION != "cpp",
    reason="needs a CUDA GPU and TILEC_MAMBA2_OP_REGISTRATION=cpp (the C++ "
    f"op built; here {mamba2.OP_REGISTRATION}: {mamba2.TORCH_OP_NOTE})")

FORWARD = "mamba2_chunk_scan_combined"
DECODE = "mamba2_selective_state_update"


def forward_args(t, chunk, **options):
    """The op's 19 arguments for inputs `t` (random_inputs' dict)."""
    o = dict(return_final_states=False, z=None, dt_bias=None,
             dt_softplus=False, dt_limit_low=0.0, dt_limit_high=math.inf,
             y_f32=False, return_chunk_states=False, seq_idx=None,
             cu_seqlens=None, return_varlen_states=False)
    o.update(options)
    return (t["x"], t["dt"], t["A"], t["B"], t["C"], chunk, t.get("D"),
            t.get("initial_states"), o["return_final_states"], o["z"],
            o["dt_bias"], o["dt_softplus"], o["dt_limit_low"],
            o["dt_limit_high"], o["y_f32"], o["return_chunk_states"],
            o["seq_idx"], o["cu_seqlens"], o["return_varlen_states"])


def decode_args(t, indices=None):
    return (t["state"], t["x"], t["dt"], t["A"], t["B"], t["C"], t["D"],
            t["z"], t["dt_bias"], True, indices, -1)


def raised(call, *args):
    """The exception call(*args) raises."""
    with pytest.raises(Exception) as caught:
        call(*args)
    return caught.value


# Without the op: the error translation and the loader.

def test_errors_of_the_op_become_the_package_exceptions():
    error = mamba2._native_error(RuntimeError(
        "[tilec_mamba2 3] TILEC_MAMBA2_ERROR_INVALID_DTYPE: x is f64 (x is "
        "torch.float64)"))
    assert isinstance(error, Mamba2ArgumentError)
    assert error.status == Status.INVALID_DTYPE
    assert error.message == "x is f64 (x is torch.float64)"
    assert str(error) == ("TILEC_MAMBA2_ERROR_INVALID_DTYPE: x is f64 (x is "
                          "torch.float64)")
    launch = mamba2._native_error(RuntimeError(
        "[tilec_mamba2 14] TILEC_MAMBA2_ERROR_LAUNCH_FAILURE: no"))
    assert type(launch) is Mamba2Error and launch.status == 14
    unsupported = mamba2._native_error(RuntimeError(
        "[tilec_mamba2 not implemented] indices on the CPU in a capture"))
    assert type(unsupported) is NotImplementedError
    assert str(unsupported) == "indices on the CPU in a capture"
    assert mamba2._native_error(RuntimeError("expected a Tensor")) is None


def test_a_named_op_file_that_is_missing_is_an_error(monkeypatch, tmp_path):
    missing = tmp_path / "tilec_torch_op.so"
    monkeypatch.setenv(_torch_op.PATH_ENV, str(missing))
    with pytest.raises(_torch_op.TorchOpError) as caught:
        _torch_op.load()
    assert str(missing) in str(caught.value)


def test_no_op_built_says_how_to_build_it(monkeypatch, tmp_path):
    monkeypatch.delenv(_torch_op.PATH_ENV, raising=False)
    monkeypatch.setattr(_torch_op, "candidate_paths",
                        lambda: [str(tmp_path / "none.so")])
    path, note = _torch_op.load()
    assert path is None
    assert "python/torch_op/build.py" in note and "none.so" in note


# With the op, any torch.

@requires_torch_op
def test_schemas_are_the_python_registrations():
    for name, schema in ((FORWARD, mamba2.FORWARD_SCHEMA),
                         (DECODE, mamba2.DECODE_SCHEMA)):
        op = getattr(torch.ops.tilec, name).default
        assert str(op._schema) == "tilec::" + schema


@requires_torch_op
def test_cpu_tensors_are_refused_as_the_python_layer_does(cpu_generator):
    t = random_inputs(1, 64, 4, 16, 1, 16, "cpu", cpu_generator, True)
    error = raised(mamba2._call_native,
                   getattr(torch.ops.tilec, FORWARD), *forward_args(t, 64))
    want = raised(mamba2._check_devices, mamba2._tensor_arguments(
        t["x"], t["dt"], t["A"], t["B"], t["C"], t["D"],
        t["initial_states"]))
    assert isinstance(error, Mamba2ArgumentError)
    assert error.status == Status.NOT_DEVICE_POINTER
    assert str(error) == str(want)


@requires_torch_op
def test_decode_cpu_tensors_are_refused_as_the_python_layer_does(
        cpu_generator):
    t = step_inputs(2, 4, 2, 16, 32, generator=cpu_generator)
    error = raised(mamba2._call_native, getattr(torch.ops.tilec, DECODE),
                   *decode_args(t))
    want = raised(mamba2._check_devices, [
        (name, t[name]) for name in ("state", "x", "dt", "A", "B", "C", "D",
                                     "z", "dt_bias")])
    assert isinstance(error, Mamba2ArgumentError)
    assert str(error) == str(want)


@requires_torch_op
def test_varlen_states_need_cu_seqlens(cpu_generator):
    t = random_inputs(1, 64, 4, 16, 1, 16, "cpu", cpu_generator)
    error = raised(mamba2._call_native, getattr(torch.ops.tilec, FORWARD),
                   *forward_args(t, 64, return_varlen_states=True))
    assert isinstance(error, Mamba2ArgumentError)
    assert error.status == Status.INVALID_ARGUMENT
    assert "return_varlen_states=True needs cu_seqlens" in error.message


@requires_torch_op
def test_release_workspaces_with_none_kept():
    assert torch.ops.tilec.mamba2_release_workspaces() is None


# On the GPU, through chunk_scan_combined with the C++ op registered.

# (options of random_inputs, options of the call)
OPTION_SETS = [
    (dict(), dict()),
    (dict(), dict(return_final_states=True, y_dtype=torch.float32)),
    (dict(z=True, dt_bias=True, dt_softplus=True, d_per_channel=True),
     dict(dt_limit=(0.01, 0.05), return_final_states=True,
          return_chunk_states=True)),
]


@requires_cpp_on_gpu
@pytest.mark.parametrize("options", OPTION_SETS, ids=["plain", "f32_final",
                                                      "every_option"])
def test_op_gives_the_python_implementations_bits(options, cuda_generator):
    made, call = options
    t = random_inputs(2, 300, 4, 64, 2, 32, "cuda", cuda_generator, True,
                      **made)
    got = run_op(t, 128, **call)
    got = got if isinstance(got, tuple) else (got,)
    low, high = call.get("dt_limit", (0.0, math.inf))
    want = mamba2._unpacked(mamba2.forward(
        t["x"], t["dt"], t["A"], t["B"], t["C"], 128, t["D"],
        t["initial_states"], call.get("return_final_states", False),
        t.get("z"), t.get("dt_bias"), t.get("dt_softplus", False), low, high,
        call.get("y_dtype") is torch.float32,
        call.get("return_chunk_states", False)),
        call.get("return_final_states", False),
        call.get("return_chunk_states", False), False)
    torch.cuda.synchronize()
    y_ref, final_ref = recurrence(**t, dt_limit=(low, high))
    assert relative_error(got[0], y_ref) <= BOUND
    assert got[0].dtype == want[0].dtype and torch.equal(got[0], want[0])
    if call.get("return_final_states"):
        assert torch.equal(got[1], want[1])
        assert relative_error(got[1], final_ref) <= BOUND
    if call.get("return_chunk_states"):
        assert torch.equal(got[-1], want[2])


@requires_cpp_on_gpu
def test_op_with_packed_sequences(cuda_generator):
    t = random_inputs(1, 512, 4, 32, 1, 16, "cuda", cuda_generator)
    cu, seq_idx = random_cu_seqlens(512, 128, "cuda", cuda_generator)
    got = mamba2.chunk_scan_combined(
        t["x"], t["dt"], t["A"], t["B"], t["C"], 128, D=t["D"],
        seq_idx=seq_idx, cu_seqlens=cu, return_varlen_states=True)
    want = mamba2.forward(t["x"], t["dt"], t["A"], t["B"], t["C"], 128,
                          t["D"], None, False, None, None, False, 0.0,
                          math.inf, False, False, seq_idx, cu, True)
    assert len(want) == 2  # y and the varlen states
    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])


@requires_cpp_on_gpu
def test_decode_op_gives_the_python_implementations_bits(cuda_generator):
    t = step_inputs(3, 8, 2, 64, 128, state_rows=5, device="cuda",
                    generator=cuda_generator)
    indices = torch.tensor([4, -1, 0], device="cuda")
    state = t["state"].clone()
    y = mamba2.selective_state_update(
        state, t["x"], t["dt"], t["A"], t["B"], t["C"], D=t["D"], z=t["z"],
        dt_bias=t["dt_bias"], dt_softplus=True, state_batch_indices=indices)
    want_state = t["state"].clone()
    want = mamba2.state_update(want_state, t["x"], t["dt"], t["A"], t["B"],
                               t["C"], t["D"], t["z"], t["dt_bias"], True,
                               indices, -1)
    torch.cuda.synchronize()
    assert torch.equal(y, want) and torch.equal(state, want_state)
    assert not torch.equal(state, t["state"])  # rows 4 and 0 were updated
    assert torch.equal(state[1:4], t["state"][1:4])


def _forward_error(t, chunk, python):
    """The exception chunk_scan_combined (the C++ op) or, with `python`,
    the Python implementation raises for inputs `t`."""
    if python:
        return raised(mamba2.forward, *forward_args(t, chunk))
    return raised(lambda: mamba2.chunk_scan_combined(
        t["x"], t["dt"], t["A"], t["B"], t["C"], chunk, D=t["D"]))


def _bad_forward_inputs(generator):
    """(name, inputs, chunk) of calls the library refuses."""
    def fresh():
        return random_inputs(2, 128, 4, 32, 2, 16, "cuda", generator)
    cases = []
    t = fresh()
    t["A"] = t["A"].double()
    cases.append(("A_f64", t, 64))
    t = fresh()
    t["B"] = t["B"][:, :, :1]
    cases.append(("B_shape", t, 64))
    cases.append(("chunk_100", fresh(), 100))
    t = fresh()
    t["B"], t["C"] = (torch.cat([v, v[:, :, :1]], 2) for v in (t["B"],
                                                              t["C"]))
    cases.append(("groups_3_of_4_heads", t, 64))
    t = fresh()
    t["dt"] = t["dt"].cpu()
    cases.append(("dt_on_the_cpu", t, 64))
    t = fresh()
    t["x"] = t["x"].half()
    cases.append(("B_not_x_dtype", t, 64))
    t = fresh()
    # The dispatcher would pick the fake for a meta tensor among CUDA ones.
    t["D"] = t["D"].to("meta")
    cases.append(("D_on_meta", t, 64))
    return cases


@requires_cpp_on_gpu
def test_op_refuses_what_the_python_path_refuses(cuda_generator):
    for name, t, chunk in _bad_forward_inputs(cuda_generator):
        got = _forward_error(t, chunk, python=False)
        want = _forward_error(t, chunk, python=True)
        assert type(got) is type(want), (name, got, want)
        assert isinstance(got, Mamba2ArgumentError), (name, got)
        assert (got.status, str(got)) == (want.status, str(want)), name


@requires_cpp_on_gpu
def test_decode_op_refuses_what_the_python_path_refuses(cuda_generator):
    def fresh():
        return step_inputs(2, 4, 2, 16, 32, device="cuda",
                           generator=cuda_generator)
    cases = []
    t = fresh()
    t["x"] = t["x"].double()
    cases.append(("x_f64", t, None))
    t = fresh()
    t["B"] = t["B"][:, :1]
    cases.append(("B_shape", t, None))
    cases.append(("indices_shape", fresh(),
                  torch.zeros(3, dtype=torch.int64, device="cuda")))
    for name, t, indices in cases:
        got = raised(mamba2.selective_state_update, t["state"], t["x"],
                     t["dt"], t["A"], t["B"], t["C"], t["D"], t["z"],
                     t["dt_bias"], True, indices)
        want = raised(mamba2.state_update, *decode_args(t, indices))
        assert type(got) is type(want), (name, got, want)
        assert (got.status, str(got)) == (want.status, str(want)), name


@requires_cpp_on_gpu
def test_eager_calls_run_the_cpp_op(cuda_generator):
    # A dispatch mode sees every op the dispatcher runs: with the C++ op,
    # an eager call is one op call (no Python implementation behind it).
    from torch.utils._python_dispatch import TorchDispatchMode

    class Seen(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.names = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.names.append(str(func))
            return func(*args, **(kwargs or {}))

    t = random_inputs(1, 64, 4, 32, 1, 16, "cuda", cuda_generator)
    mamba2.chunk_scan_combined(t["x"], t["dt"], t["A"], t["B"], t["C"], 64)
    with Seen() as seen:
        mamba2.chunk_scan_combined(t["x"], t["dt"], t["A"], t["B"], t["C"],
                                   64, D=t["D"])
    assert seen.names == ["tilec.mamba2_chunk_scan_combined.default"]
    s = step_inputs(2, 4, 2, 16, 32, device="cuda", generator=cuda_generator)
    with Seen() as seen:
        mamba2.selective_state_update(s["state"], s["x"], s["dt"], s["A"],
                                      s["B"], s["C"], D=s["D"])
    assert seen.names == ["tilec.mamba2_selective_state_update.default"]
