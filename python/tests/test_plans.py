"""The per-form call plans (tilec._plans) and the kept workspaces
(tilec._workspaces), without a GPU.

The plans are checked on what they hand the C ABI: with the package
pointed at the C ABI stub (bench/mamba2_abi_stub.c, built as
build/lib/libtilec_mamba2_abi_stub.so; the tests skip without it) and its
CUDA calls replaced as bench/python_host_cost_stub.py does, every call
succeeds, so the descriptors a plan packed, with the data pointers it wrote
for this call, can be read back and compared with the call's own tensors:
a plan reused for new tensors of its form, and a new plan for each changed
shape, dtype, strides or option. The errors are checked against the real
library (the C ABI checks shapes and dtypes before the driver)."""

import ctypes
import math
import os

import pytest
import torch

from tilec import _capi, _cuda_context, _plans, _workspaces, mamba2
from tilec.errors import Mamba2ArgumentError, Status

# TILEC_MAMBA2_ABI_STUB, else the checkout's build tree.
STUB = os.environ.get("TILEC_MAMBA2_ABI_STUB") or os.path.join(
    os.path.dirname(__file__), "..", "..", "build", "lib",
    "libtilec_mamba2_abi_stub.so")


def cpu_calls(monkeypatch):
    """The package's CUDA-only calls made to accept CPU tensors; fresh
    caches."""
    monkeypatch.setattr(_cuda_context, "DEVICE_TYPE", "cpu")
    monkeypatch.setattr(_cuda_context, "ensure_current", lambda ordinal: None)
    monkeypatch.setattr(_cuda_context, "current_stream", lambda ordinal: 0)
    monkeypatch.setattr(_cuda_context, "capturing", lambda: False)
    monkeypatch.setattr(mamba2, "HAS_OP", True)
    # The Python implementation, also where the C++ op is registered.
    monkeypatch.setattr(mamba2, "_NATIVE_FORWARD", None)
    monkeypatch.setattr(mamba2, "_NATIVE_DECODE", None)
    monkeypatch.setattr(mamba2, "_call_plans", {})
    monkeypatch.setattr(mamba2, "_run_plans", {})
    monkeypatch.setattr(mamba2, "_step_plans", {})
    monkeypatch.setattr(mamba2, "_decode_plans", {})
    monkeypatch.setattr(_workspaces, "_buffers", {})


@pytest.fixture
def stub(monkeypatch):
    if not os.path.exists(STUB):
        pytest.skip(f"{STUB} is not built (ninja tilec_mamba2_abi_stub)")
    cpu_calls(monkeypatch)
    monkeypatch.setattr(_capi, "_bound", _capi._bind(ctypes.CDLL(STUB)))


@pytest.fixture
def library(monkeypatch):
    """The real library, its checks reached with CPU tensors."""
    cpu_calls(monkeypatch)
    monkeypatch.setattr(mamba2, "_prepared", {None})  # prepare needs a GPU


def forward_inputs(generator, batch=2, seqlen=100, heads=4, headdim=32,
                   groups=2, dstate=16, dtype=torch.bfloat16):
    g = generator
    return dict(
        x=torch.randn(batch, seqlen, heads, headdim, generator=g).to(dtype),
        dt=torch.rand(batch, seqlen, heads, generator=g),
        A=-torch.rand(heads, generator=g),
        B=torch.randn(batch, seqlen, groups, dstate, generator=g).to(dtype),
        C=torch.randn(batch, seqlen, groups, dstate, generator=g).to(dtype),
        D=torch.randn(heads, generator=g))


def read_descriptor(address):
    """(data, dtype, shape, strides) of the tilec_mamba2_tensor at
    `address`, or None for a null one."""
    if not address:
        return None
    t = _capi._Tensor.from_address(address)
    return (t.data or 0, t.dtype, tuple(t.shape[i] for i in range(t.rank)),
            tuple(t.strides[i] for i in range(t.rank)))


def described(t):
    return (t.data_ptr(), _capi._DTYPES[t.dtype], tuple(t.shape), t.stride())


def sent_forward(plan):
    """What the plan's packed call hands the C ABI: {name: descriptor} of
    the present tensors, the options' flags, the workspace and its size."""
    args = plan._calls[-1]._args
    names = [name for name, _ in _capi._ForwardArgs._fields_[1:10]]
    sent = {name: read_descriptor(getattr(args, name)) for name in names}
    options = _capi.Options.from_address(args.options)
    for name in ("z", "dt_bias", "chunk_states", "seq_idx", "cu_seqlens",
                 "varlen_states"):
        pointer = getattr(options, name)
        sent[name] = read_descriptor(
            ctypes.cast(pointer, ctypes.c_void_p).value if pointer else 0)
    flags = (options.dt_softplus, options.dt_limit, options.dt_min,
             options.dt_max)
    return ({k: v for k, v in sent.items() if v is not None}, flags,
            args.workspace, args.workspace_bytes)


def only_plan(plans):
    assert len(plans) == 1, plans
    return next(iter(plans.values()))


def test_one_plan_per_form_with_each_calls_pointers(stub, cpu_generator):
    first = forward_inputs(cpu_generator)
    y1 = mamba2.chunk_scan_combined(*(first[k] for k in "x dt A B C".split()),
                                    64, D=first["D"])
    plan = only_plan(mamba2._call_plans)
    second = forward_inputs(cpu_generator)
    y2 = mamba2.chunk_scan_combined(*(second[k] for k in "x dt A B C".split()),
                                    64, D=second["D"])
    assert only_plan(mamba2._call_plans) is plan
    sent, flags, workspace, workspace_bytes = sent_forward(plan)
    assert sent == {"x": described(second["x"]), "dt": described(second["dt"]),
                    "A": described(second["A"]), "B": described(second["B"]),
                    "C": described(second["C"]), "D": described(second["D"]),
                    "y": described(y2)}
    assert y2.shape == y1.shape and y2.dtype == torch.bfloat16
    assert y2.data_ptr() != y1.data_ptr()  # y1 is still alive: a new y
    # The default dt_limit (0, inf) is a clamp; no softplus.
    assert flags == (0, 1, 0.0, math.inf)
    # The workspace kept for (device, stream), not part of any result.
    kept = _workspaces.kept()
    assert list(kept) == [(None, 0)] and kept[(None, 0)] == workspace_bytes
    buffer = _workspaces._buffers[(None, 0)][0]
    assert workspace == buffer.data_ptr()
    for result in (y1, y2):
        start, end = result.data_ptr(), result.data_ptr() + 2 * result.numel()
        assert end <= workspace or start >= workspace + workspace_bytes


CHANGES = {
    "shape": lambda t: forward_inputs(torch.Generator().manual_seed(1),
                                      seqlen=64),
    "dtype": lambda t: {**t, **{k: t[k].half() for k in "xBC"}},
    "strides": lambda t: {**t, "x": t["x"].transpose(0, 1).contiguous()
                          .transpose(0, 1)},
    "D per channel": lambda t: {**t, "D": torch.randn(4, 32)},
}


@pytest.mark.parametrize("what", list(CHANGES))
def test_a_changed_form_gets_its_own_plan(what, stub, cpu_generator):
    t = forward_inputs(cpu_generator)
    mamba2.chunk_scan_combined(*(t[k] for k in "x dt A B C".split()), 64,
                               D=t["D"])
    plan = only_plan(mamba2._call_plans)
    changed = CHANGES[what](t)
    y = mamba2.chunk_scan_combined(*(changed[k] for k in "x dt A B C".split()),
                                   64, D=changed["D"])
    assert len(mamba2._call_plans) == 2
    new = [p for p in mamba2._call_plans.values() if p is not plan][0]
    sent, _, _, _ = sent_forward(new)
    assert sent == {**{k: described(changed[k]) for k in "x dt A B C D".split()},
                    "y": described(y)}
    # The first form's plan still sends its own layout.
    mamba2.chunk_scan_combined(*(t[k] for k in "x dt A B C".split()), 64,
                               D=t["D"])
    assert sent_forward(plan)[0]["x"] == described(t["x"])


def test_options_are_part_of_the_form(stub, cpu_generator):
    t = forward_inputs(cpu_generator)
    args = [t[k] for k in "x dt A B C".split()]
    z = torch.randn(t["x"].shape, generator=cpu_generator).bfloat16()
    bias = torch.randn(4, generator=cpu_generator)
    mamba2.chunk_scan_combined(*args, 64, D=t["D"])
    y, final = mamba2.chunk_scan_combined(
        *args, 64, D=t["D"], z=z, dt_bias=bias, dt_softplus=True,
        dt_limit=(0.1, 2.0), return_final_states=True,
        y_dtype=torch.float32)
    mamba2.chunk_scan_combined(*args, 64)  # no D: the kept zero D
    assert len(mamba2._call_plans) == 3
    plans = list(mamba2._call_plans.values())
    sent, flags, _, _ = sent_forward(plans[1])
    assert sent["z"] == described(z) and sent["dt_bias"] == described(bias)
    assert sent["y"] == described(y) and y.dtype == torch.float32
    assert sent["final_state"] == described(final)
    assert final.shape == (2, 4, 32, 16)
    assert flags == (1, 1, pytest.approx(0.1), 2.0)
    sent, _, _, _ = sent_forward(plans[2])
    zero = _plans._zeros[(torch.device("cpu"), 4)]
    assert sent["D"] == described(zero) and not zero.any()


def test_the_op_implementation_has_plans_too(stub, cpu_generator):
    t = forward_inputs(cpu_generator)
    args = [t[k] for k in "x dt A B C".split()]
    for _ in range(2):
        outputs = mamba2.forward(*args, 64, t["D"])
    plan = only_plan(mamba2._run_plans)
    # y alone: the outputs not asked for are not made.
    assert len(outputs) == 1
    assert sent_forward(plan)[0]["y"] == described(outputs[0])


def test_bad_scalars_are_refused_after_a_good_call(stub, cpu_generator):
    # A form's plan is found by equality: 64.0 == 64 and 1 == True, which
    # must still be refused as a fresh call refuses them.
    t = forward_inputs(cpu_generator)
    args = [t[k] for k in "x dt A B C".split()]
    mamba2.chunk_scan_combined(*args, 64, D=t["D"])
    with pytest.raises(TypeError, match="chunk_size must be an int"):
        mamba2.chunk_scan_combined(*args, 64.0, D=t["D"])
    with pytest.raises(TypeError, match="dt_softplus must be a bool"):
        mamba2.chunk_scan_combined(*args, 64, D=t["D"], dt_softplus=0)
    with pytest.raises(TypeError, match="return_final_states must be a bool"):
        mamba2.chunk_scan_combined(*args, 64, D=t["D"],
                                   return_final_states=0)
    with pytest.raises(TypeError, match="dt_limit must be a pair"):
        mamba2.chunk_scan_combined(*args, 64, D=t["D"], dt_limit=[0.0])
    with pytest.raises(TypeError, match="D must be a torch.Tensor"):
        mamba2.chunk_scan_combined(*args, 64, D=[1.0] * 4)


def test_failing_calls_leave_no_plan(library, cpu_generator):
    t = forward_inputs(cpu_generator)
    args = [t[k] for k in "x dt A B C".split()]
    bad = [args[0], args[1][:, :-1]] + args[2:]
    for _ in range(2):  # the same error each time: nothing was remembered
        with pytest.raises(Mamba2ArgumentError) as caught:
            mamba2.chunk_scan_combined(*bad, 64, D=t["D"])
        assert caught.value.status == Status.INVALID_SHAPE
        assert "dt" in caught.value.message
    # A valid call on host memory gets to the driver, and fails there.
    with pytest.raises(mamba2.Mamba2Error):
        mamba2.chunk_scan_combined(*args, 64, D=t["D"])
    assert not mamba2._call_plans and not mamba2._run_plans


def test_plans_of_two_threads_do_not_share_a_packed_call(stub,
                                                        cpu_generator):
    # A packed call in use is taken out of the plan's pool: a second one
    # is packed for whoever calls meanwhile.
    t = forward_inputs(cpu_generator)
    args = [t[k] for k in "x dt A B C".split()]
    mamba2.chunk_scan_combined(*args, 64, D=t["D"])
    plan = only_plan(mamba2._call_plans)
    held = plan._calls.pop()
    y = mamba2.chunk_scan_combined(*args, 64, D=t["D"])
    assert len(plan._calls) == 1 and plan._calls[0] is not held
    assert sent_forward(plan)[0]["y"] == described(y)


def decode_inputs(generator, batch=3, heads=4, groups=2, headdim=8,
                  dstate=16):
    g = generator
    return dict(
        state=torch.randn(batch, heads, headdim, dstate, generator=g),
        x=torch.randn(batch, heads, headdim, generator=g).bfloat16(),
        dt=torch.randn(batch, heads, generator=g),
        A=-torch.rand(heads, generator=g),
        B=torch.randn(batch, groups, dstate, generator=g).bfloat16(),
        C=torch.randn(batch, groups, dstate, generator=g).bfloat16())


def sent_decode(plan):
    args = plan._calls[-1]._args
    return {name: read_descriptor(getattr(args, name))
            for name, _ in _capi._StateUpdateArgs._fields_[1:10]
            if getattr(args, name)} | {"y": read_descriptor(args.y)}


def test_decode_plan_per_form_with_each_calls_pointers(stub, cpu_generator):
    for _ in range(2):
        t = decode_inputs(cpu_generator)
        y = mamba2.selective_state_update(*t.values())
    plan = only_plan(mamba2._step_plans)
    assert sent_decode(plan) == {**{k: described(v) for k, v in t.items()},
                                 "y": described(y)}
    # mamba_ssm's forms: dt expanded in bf16 (widened per call), A expanded
    # (passed at its address).
    t = decode_inputs(cpu_generator)
    dt = t["dt"].bfloat16()[:, :, None].expand(3, 4, 8)
    A = t["A"][:, None, None].expand(4, 8, 16)
    for _ in range(2):
        y = mamba2.selective_state_update(t["state"], t["x"], dt, A, t["B"],
                                          t["C"])
    assert len(mamba2._step_plans) == 2
    plan = [p for p in mamba2._step_plans.values()][1]
    sent = sent_decode(plan)
    assert sent["A"] == (A.data_ptr(), _capi.F32, (4,), (1,))
    assert sent["dt"][1:] == (_capi.F32, (3, 4), (4, 1))
    assert sent["dt"][0] != dt.data_ptr()  # this call's widened copy


def test_workspaces_per_stream_grow_and_release(monkeypatch):
    monkeypatch.setattr(_workspaces, "_buffers", {})
    cpu = torch.device("cpu")
    a, owner_a = _workspaces.get(cpu, 0, 11, 1000, False)
    b, owner_b = _workspaces.get(cpu, 0, 22, 1000, False)
    assert a != b  # another stream: another buffer
    assert _workspaces.get(cpu, 0, 11, 800, False)[0] == a  # reused
    grown, owner = _workspaces.get(cpu, 0, 11, 5000, False)
    assert owner.numel() == 5000 and owner is not owner_a
    assert _workspaces.kept() == {(0, 11): 5000, (0, 22): 1000}
    # During capture: a fresh buffer each call, none kept.
    first, _ = _workspaces.get(cpu, 0, 33, 100, True)
    second, keep = _workspaces.get(cpu, 0, 33, 100, True)
    assert (0, 33) not in _workspaces.kept() and keep.numel() == 100
    _workspaces.release()
    assert _workspaces.kept() == {}
