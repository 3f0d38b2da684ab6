"""_capi.tensors_forward, the call tilec.mamba2.forward makes, against
_capi.forward on describe()d descriptors: on CPU and meta tensors the C
ABI's checks run before the driver, so both must end in the same status and
message for every argument the validation looks at."""

import sys

import pytest
import torch

from tilec import _capi
from tilec.errors import Mamba2Error

from test_capi_validation import REACHED_DRIVER, Call

ORDER = ("x", "dt", "A", "B", "C", "D", "initial_state", "y", "final_state")


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


def change(name, f):
    return lambda t: {**t, name: f(t[name])}


CHANGES = {
    "valid": lambda t: t,
    "no initial or final state": lambda t: {**t, "initial_state": None,
                                            "final_state": None},
    "x int32 (no tilec dtype)": change("x", lambda v: v.to(torch.int32)),
    "dt float16": change("dt", lambda v: v.half()),
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
                  "C broadcast over dstate", "B transposed strides"}


@pytest.mark.parametrize("what", list(CHANGES))
def test_same_outcome_as_described_descriptors(what, cpu_generator):
    call = Call(generator=cpu_generator)
    tensors = CHANGES[what](call.tensors)
    old, new = both(call, [tensors[name] for name in ORDER])
    assert new == old
    assert (old[0] in REACHED_DRIVER) == (what in REACHES_DRIVER), old


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
