"""_capi.tensors_forward, the call tilec.mamba2.forward makes, against
_capi.forward on describe()d descriptors (and _capi.forward_with_options
for mamba_ssm's options): on CPU and meta tensors the C ABI's checks run
before the driver, so both must end in the same status and message for
every argument the validation looks at."""

import ctypes
import sys

import pytest
import torch

from tilec import _capi
from tilec.errors import Mamba2Error

from test_capi_validation import REACHED_DRIVER, Call

ORDER = ("x", "dt", "A", "B", "C", "D", "initial_state", "y", "final_state")
OPTION_TENSORS = ("z", "dt_bias", "chunk_states")


def outcome(run):
    """(status, message) of a call that must fail (no driver or device
    here, or a bad argument)."""
    with pytest.raises(Mamba2Error) as caught:
        run()
    return caught.value.status, caught.value.message


def both(call, tensors):
    described = [None if t is None else _capi.describe(name, t)
                 for name, t in zip(ORDER, tensors)]
    old = outcome(lambda: _capi.forward(
        call.problem, *described, workspace=call.workspace_ptr,
        workspace_bytes=call.workspace_bytes))
    new = outcome(lambda: _capi.tensors_forward(
        call.problem, tensors, workspace=call.workspace_ptr,
        workspace_bytes=call.workspace_bytes))
    return old, new


def both_with_options(call, tensors, dt_softplus, dt_limit):
    """As both(), through tilec_mamba2_forward_with_options: tensors has
    the ORDER tensors then z and dt_bias."""
    named = list(zip(ORDER + OPTION_TENSORS, tensors))
    described = [None if t is None else _capi.describe(name, t)
                 for name, t in named]
    options = _capi.Options(ctypes.sizeof(_capi.Options), None, None, None,
                            int(dt_softplus), int(dt_limit is not None),
                            *(dt_limit or (0.0, 0.0)))
    old = outcome(lambda: _capi.forward_with_options(
        call.problem, *described[:9], options, workspace=call.workspace_ptr,
        workspace_bytes=call.workspace_bytes, z=described[9],
        dt_bias=described[10], chunk_states=described[11]))
    new = outcome(lambda: _capi.tensors_forward(
        call.problem, tensors, workspace=call.workspace_ptr,
        workspace_bytes=call.workspace_bytes, dt_softplus=dt_softplus,
        dt_limit=dt_limit))
    return old, new


def change(name, f):
    return lambda t: {**t, name: f(t[name])}


CHANGES = {
    "valid": lambda t: t,
    "no initial or final state": lambda t: {**t, "initial_state": None,
                                            "final_state": None},
    "x int32 (no tilec dtype)": change("x", lambda v: v.to(torch.int32)),
    "dt float16": change("dt", lambda v: v.half()),
    "A float16": change("A", lambda v: v.half()),
    "x of rank 3": change("x", lambda v: v[0]),
    "dt too short": change("dt", lambda v: v[:, :-1]),
    "B transposed strides": change("B", lambda v: v.transpose(0, 1)
                                   .contiguous().transpose(0, 1)),
    "C broadcast over dstate": change("C", lambda v: v[..., :1]
                                      .expand(v.shape)),
    "y broadcast (an output)": change("y", lambda v: v[:, :1].expand(v.shape)),
    "D meta (null data)": change("D", lambda v: torch.empty(
        v.shape, dtype=v.dtype, device="meta")),
    "final state of rank 0": change("final_state", lambda v: v[0, 0, 0, 0]),
}


# The changes that break no rule, so that the call gets to the driver step.
REACHES_DRIVER = {"valid", "no initial or final state",
                  "C broadcast over dstate", "B transposed strides",
                  "dt float16"}


@pytest.mark.parametrize("what", list(CHANGES))
def test_same_outcome_as_described_descriptors(what, cpu_generator):
    call = Call(generator=cpu_generator)
    tensors = CHANGES[what](call.tensors)
    old, new = both(call, [tensors[name] for name in ORDER])
    assert new == old
    assert (old[0] in REACHED_DRIVER) == (what in REACHES_DRIVER), old


def with_options(t):
    batch, seqlen, heads, headdim = t["x"].shape
    dstate = t["B"].shape[3]
    return {**t, "z": torch.randn(batch, seqlen, heads, headdim)
            .to(torch.bfloat16), "dt_bias": torch.randn(heads),
            "D": torch.randn(heads, headdim), "y": t["y"].to(torch.bfloat16),
            "chunk_states": torch.empty(batch, 2, heads, headdim, dstate)}


OPTION_CHANGES = {
    "every option": (with_options, True, (0.0, float("inf"))),
    "no option": (lambda t: t, False, None),
    "z float32": (lambda t: change("z", lambda v: v.float())(with_options(t)),
                  False, None),
    "z of rank 3": (lambda t: change("z", lambda v: v[0])(with_options(t)),
                    False, None),
    "dt_bias too long": (lambda t: change("dt_bias", lambda v: torch.zeros(
        v.shape[0] + 1))(with_options(t)), True, None),
    "dt_bias meta (null data)": (lambda t: change("dt_bias", lambda v: v.to(
        "meta"))(with_options(t)), True, None),
    "D per channel too wide": (lambda t: change("D", lambda v: torch.zeros(
        v.shape[0], v.shape[1] + 1))(with_options(t)), False, None),
    "dt_limit not an interval": (with_options, True, (1.0, 0.5)),
    "dt_limit NaN": (with_options, False, (float("nan"), 1.0)),
    "y float16": (lambda t: change("y", lambda v: v.half())(with_options(t)),
                  False, None),
    "chunk_states one chunk short": (lambda t: change(
        "chunk_states", lambda v: v[:, :1])(with_options(t)), False, None),
    "chunk_states broadcast": (lambda t: change(
        "chunk_states", lambda v: v[:, :1].expand(v.shape))(with_options(t)),
        False, None),
}
OPTIONS_REACH_DRIVER = {"every option", "no option"}


@pytest.mark.parametrize("what", list(OPTION_CHANGES))
def test_options_same_outcome_as_described_descriptors(what, cpu_generator):
    call = Call(generator=cpu_generator)
    make, softplus, limit = OPTION_CHANGES[what]
    tensors = make(call.tensors)
    old, new = both_with_options(
        call, [tensors.get(name) for name in ORDER + OPTION_TENSORS],
        softplus, limit)
    assert new == old
    assert (old[0] in REACHED_DRIVER) == (what in OPTIONS_REACH_DRIVER), old


def test_null_problem(cpu_generator):
    call = Call(generator=cpu_generator)
    tensors = [call.tensors[name] for name in ORDER]
    status, message = outcome(lambda: _capi.tensors_forward(None, tensors))
    assert "problem" in message and status != 0


def test_dtype_and_rank_word():
    # dtype in the low int32 on a little-endian machine, -1 kept as such.
    word = _capi._dtype_and_rank(-1, 4)
    if sys.byteorder == "little":
        assert word & 0xFFFFFFFF == 0xFFFFFFFF and word >> 32 == 4
    assert _capi._dtype_and_rank(2, 0) in (2, 2 << 32)
