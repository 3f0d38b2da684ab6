"""The decode step (tilec.mamba2.selective_state_update): the C ABI's
argument checks through ctypes on CPU tensors (no GPU needed), mamba_ssm's
expanded argument forms, and on a GPU the op against the f64 recurrence for
1000 steps, each option, state indices with padding (read on the device,
also under graph capture), graph capture and torch.compile. GPU tests are
skipped (reported as skipped) without a GPU."""

import pytest
import torch

from conftest import (requires_gpu, requires_op,
                      requires_python_implementation)
from tilec import _capi, mamba2
from tilec.errors import Mamba2Error, Status

REACHED_DRIVER = {Status.NO_DRIVER, Status.NO_DEVICE, Status.NO_CONTEXT,
                  Status.NOT_DEVICE_POINTER}
BF16, F32 = torch.bfloat16, torch.float32


def inputs(batch, heads, groups, headdim, dstate, state_rows=None,
           device="cpu", generator=None):
    """Random inputs of one step in the kernels' forms, every option on;
    dt is softplus's pre-activation."""
    g, rows = generator, state_rows or batch

    def randn(*shape):
        return torch.randn(*shape, generator=g, device=device)

    return dict(
        state=randn(rows, heads, headdim, dstate),
        x=randn(batch, heads, headdim).to(BF16),
        dt=randn(batch, heads) - 2,
        A=-torch.exp(torch.rand(heads, generator=g, device=device) * 2.7),
        B=randn(batch, groups, dstate).to(BF16),
        C=randn(batch, groups, dstate).to(BF16),
        D=torch.rand(heads, headdim, generator=g, device=device) + 0.5,
        z=randn(batch, heads, headdim).to(BF16),
        dt_bias=torch.rand(heads, generator=g, device=device) - 0.5)


def recurrence(state, x, dt, A, B, C, D=None, z=None, dt_bias=None,
               dt_softplus=False, state_batch_indices=None, pad_slot_id=-1):
    """One step in f64: returns (new state rows, y); `state` is not
    touched."""
    f64 = torch.float64
    state = state.to(f64).clone()
    heads, groups = x.shape[1], B.shape[1]
    dt = dt.to(f64) + (0 if dt_bias is None else dt_bias.to(f64))
    if dt_softplus:
        dt = torch.where(dt <= 20, torch.log1p(torch.exp(dt)), dt)
    decay = torch.exp(A.to(f64) * dt)  # (batch, heads)
    Bh = B.to(f64).repeat_interleave(heads // groups, dim=1)
    Ch = C.to(f64).repeat_interleave(heads // groups, dim=1)
    rows = (torch.arange(x.shape[0]) if state_batch_indices is None
            else state_batch_indices.cpu().long())
    y = torch.empty(x.shape, dtype=f64, device=x.device)
    for b, row in enumerate(rows.tolist()):
        h = (torch.zeros_like(state[0]) if row == pad_slot_id
             else state[row])
        h = (decay[b, :, None, None] * h + dt[b, :, None, None]
             * x[b].to(f64)[:, :, None] * Bh[b][:, None, :])
        out = (h * Ch[b][:, None, :]).sum(-1)
        if D is not None:
            Dh = D.to(f64) if D.dim() == 2 else D.to(f64)[:, None]
            out = out + Dh * x[b].to(f64)
        if z is not None:
            zb = z[b].to(f64)
            out = out * zb * torch.sigmoid(zb)
        y[b] = out
        if row != pad_slot_id:
            state[row] = h
    return state, y


# The C ABI on CPU tensors.

class Call:
    def __init__(self, generator):
        self.t = inputs(3, 4, 2, 8, 16, state_rows=5, generator=generator)
        self.t["y"] = torch.full((3, 4, 8), float("nan"), dtype=BF16)
        self.indices = torch.tensor([4, 0, -1], dtype=torch.int64)
        self.problem = _capi.DecodeProblem(3, 4, 2, 8, 16, 5)

    def run(self):
        t = self.t
        _capi.state_update(
            self.problem, [t["state"], t["x"], t["dt"], t["A"], t["B"],
                           t["C"], t["D"], t["z"], t["dt_bias"], t["y"]],
            dt_softplus=True, state_indices=self.indices.data_ptr())

    def expect(self, status, *words):
        before = self.t["state"].clone()
        with pytest.raises(Mamba2Error) as caught:
            self.run()
        assert caught.value.status == status, str(caught.value)
        for word in words:
            assert word in caught.value.message, caught.value.message
        assert torch.equal(self.t["state"], before)
        assert torch.isnan(self.t["y"].float()).all() or self.t["y"] is self.t["z"]


@pytest.fixture
def call(cpu_generator):
    return Call(cpu_generator)


def test_valid_call_reaches_the_driver(call):
    with pytest.raises(Mamba2Error) as caught:
        call.run()
    assert caught.value.status in REACHED_DRIVER, str(caught.value)


@pytest.mark.parametrize("dtype", [BF16, torch.float16])
def test_half_state_reaches_the_driver(call, dtype):
    call.t["state"] = call.t["state"].to(dtype)
    test_valid_call_reaches_the_driver(call)


def test_state_dtype(call):
    call.t["state"] = call.t["state"].to(torch.int32)
    call.expect(Status.INVALID_DTYPE, "state (stateRows, heads, headdim, "
                "dstate) is i32; only f32, bf16 and f16 are supported")


def test_x_dtype_unknown_to_the_c_abi(call):
    call.t["x"] = call.t["x"].to(torch.float64)
    call.expect(Status.INVALID_DTYPE, "x is torch.float64")


def test_B_shape(call):
    call.t["B"] = call.t["B"][:, :1]
    call.expect(Status.INVALID_SHAPE, "B (batch, groups, dstate) has shape "
                "(3, 1, 16)")


def test_indices_are_not_read_on_the_host(call):
    # The kernel reads the indices on the device: an index outside the
    # state (a padding entry there) is no host error, and the host pointer
    # is refused where the driver says it is not device memory.
    call.indices[1] = 5
    with pytest.raises(Mamba2Error) as caught:
        call.run()
    assert caught.value.status in REACHED_DRIVER, str(caught.value)


def test_y_aliasing_z(call):
    call.t["y"] = call.t["z"]
    call.expect(Status.INVALID_ARGUMENT, "y overlaps z")


def test_written_state_with_stride_zero(call):
    call.t["state"] = call.t["state"][:, :, :1].expand(5, 4, 8, 16)
    call.expect(Status.INVALID_STRIDE, "stride 0 in dimension 2")


# mamba_ssm's argument forms (no GPU needed up to the op).

def test_expanded_per_head_forms_are_views():
    dt = torch.rand(3, 4)
    expanded = dt[:, :, None].expand(3, 4, 8)
    A = -torch.rand(4)
    A_expanded = A[:, None, None].expand(4, 8, 16)
    (dt_k, A_k, D_k, bias_k), widen = mamba2._kernel_forms(
        expanded, A_expanded, None, None)
    assert torch.equal(dt_k, dt) and torch.equal(A_k, A)
    # The views start where the expanded tensors do (a plan passes those).
    assert dt_k.data_ptr() == expanded.data_ptr()
    assert A_k.data_ptr() == A_expanded.data_ptr()
    assert D_k is None and bias_k is None and widen == ()
    forms, widen = mamba2._kernel_forms(dt, A, None, A)
    assert forms[0] is dt and forms[1] is A and forms[3] is A
    assert widen == ()


def test_half_precision_forms_are_widened():
    dt = torch.rand(3, 4).bfloat16()
    expanded = dt[:, :, None].expand(3, 4, 8)
    D = torch.randn(4, 8).half()
    (dt_k, A_k, D_k, _), widen = mamba2._kernel_forms(
        expanded, -torch.rand(4), D, None)
    assert dt_k.dtype == torch.float32 and torch.equal(dt_k, dt.float())
    assert D_k.dtype == torch.float32 and torch.equal(D_k, D.float())
    assert A_k.dtype == torch.float32
    # What a DecodePlan repeats per call: dt indexed then widened, D widened.
    assert widen == (((0, (slice(None), slice(None), 0))), (2, None))


def test_values_along_headdim_are_refused():
    with pytest.raises(NotImplementedError, match="dt of shape"):
        mamba2._kernel_forms(torch.rand(3, 4, 8), -torch.rand(4), None, None)


def test_mamba1_form_is_refused():
    with pytest.raises(NotImplementedError, match="without a heads"):
        mamba2.selective_state_update(
            torch.zeros(2, 8, 16), torch.zeros(2, 8), torch.zeros(2, 8),
            torch.zeros(8, 16), torch.zeros(2, 16), torch.zeros(2, 16))


# On the GPU.

def check(state, y, want_state, want_y):
    """The state within 16 f32 roundings of each step's magnitudes is what
    the C++ tests bound; here, norm-wise over 1000 steps, 1e-5 relative
    (measured errors are about 1e-7); y is bf16: 2^-7 relative, with an
    absolute floor of 2^-7 times its mean magnitude for cancellations."""
    scale = want_state.abs().max().item()
    assert (state.double() - want_state).abs().max().item() <= 1e-5 * scale
    floor = 2**-7 * want_y.abs().mean().item()
    error = (y.double() - want_y).abs()
    assert (error <= 2**-7 * want_y.abs() + floor).all(), error.max()


@requires_gpu
@requires_op
def test_thousand_steps_with_every_option(cuda_generator):
    t = inputs(4, 8, 2, 64, 128, state_rows=9, device="cuda",
               generator=cuda_generator)
    indices = torch.tensor([7, 0, -1, 3], device="cuda")
    state = t["state"]
    want = state.double()
    for step in range(1000):
        if step:
            fresh = inputs(4, 8, 2, 64, 128, device="cuda",
                           generator=cuda_generator)
            for name in ("x", "dt", "B", "C", "z"):
                t[name] = fresh[name]
        args = dict(D=t["D"], z=t["z"], dt_bias=t["dt_bias"], dt_softplus=True,
                    state_batch_indices=indices)
        want, want_y = recurrence(want, t["x"], t["dt"], t["A"], t["B"],
                                  t["C"], **args)
        y = mamba2.selective_state_update(state, t["x"], t["dt"], t["A"],
                                          t["B"], t["C"], **args)
    check(state, y, want, want_y)
    # Row 1, 2, 4, ... were never picked: their bits are the initial ones.
    untouched = [r for r in range(9) if r not in (7, 0, 3)]
    assert torch.equal(state[untouched].double(), want[untouched])


def _in_dtype(t, x_dtype):
    for name in ("x", "B", "C", "z"):
        t[name] = t[name].to(x_dtype)
    return t


@requires_gpu
@requires_op
@pytest.mark.parametrize("state_dtype, x_dtype", [
    (BF16, BF16), (torch.float16, BF16), (torch.float32, torch.float16),
    (torch.float16, torch.float16)])
def test_state_and_x_dtypes_steps(state_dtype, x_dtype, cuda_generator):
    # mamba_ssm's inference cache in the model's dtype, x, B, C, z in bf16 or
    # f16 (y in x's). The kernel computes in f32 and rounds the stored state
    # once per step (2^-8 relative for bf16, 2^-11 for f16); over 20 steps
    # of these decays (0.8 or less per step) the error stays within a few
    # roundings of the largest element.
    #
    # y's bound, derived per element: each stored state element carries the
    # rounding of its own value at every step (at most unit * |h|), decayed
    # by the steps after it, so |error of h[n]| <= e[n] with
    # e_t = decay_t * e_{t-1} + unit * |h_t| (e_0 = 0: the initial state is
    # exact in state_dtype), tracked below in f64. y = silu(z) * (sum_n C[n]
    # h[n] + D x) then inherits at most |silu(z)| * sum_n |C[n]| e[n], plus
    # its own rounding to x's dtype (x_unit * |y|, or x's smallest normal
    # below it) and the kernel's f32
    # arithmetic (2^-16 of |silu(z)| * sum_n |C[n]| |h[n]|, far above f32's
    # 2^-24 per operation over 20 steps and 128 terms). An error relative
    # to |y| alone is not a bound: |y| can cancel to near 0 where
    # sum |C| |h| does not (a seed did). Factor 2 for the roundings of the
    # f32 results the bound ignores (the decay, softplus). With an f32 state
    # the bound is y's own rounding and 2^-16 of the terms: a wrong term of
    # y fails there whatever the bf16 cases allow.
    t = _in_dtype(inputs(4, 8, 2, 64, 128, device="cuda",
                         generator=cuda_generator), x_dtype)
    state = t["state"].to(state_dtype)
    want = state.double()
    unit = {BF16: 2**-8, torch.float16: 2**-11, torch.float32: 2**-24}[
        state_dtype]
    x_unit = {BF16: 2**-8, torch.float16: 2**-11}[x_dtype]
    carried = torch.zeros_like(want)  # e: the state error's bound
    for step in range(20):
        if step:
            fresh = _in_dtype(inputs(4, 8, 2, 64, 128, device="cuda",
                                     generator=cuda_generator), x_dtype)
            for name in ("x", "dt", "B", "C", "z"):
                t[name] = fresh[name]
        args = dict(D=t["D"], z=t["z"], dt_bias=t["dt_bias"], dt_softplus=True)
        want, want_y = recurrence(want, t["x"], t["dt"], t["A"], t["B"],
                                  t["C"], **args)
        y = mamba2.selective_state_update(state, t["x"], t["dt"], t["A"],
                                          t["B"], t["C"], **args)
        decay = _decay(t["dt"], t["dt_bias"], t["A"])
        carried = decay[:, :, None, None] * carried + unit * want.abs()
    assert state.dtype == state_dtype and y.dtype == x_dtype
    scale = want.abs().max().item()
    assert (state.double() - want).abs().max().item() <= 4 * unit * scale
    heads, groups = t["x"].shape[1], t["C"].shape[1]
    C_abs = t["C"].double().abs().repeat_interleave(heads // groups, dim=1)
    zd = t["z"].double()
    gate = (zd * torch.sigmoid(zd)).abs()
    carried_y = gate * (carried * C_abs[:, :, None, :]).sum(-1)
    terms_y = gate * (want.abs() * C_abs[:, :, None, :]).sum(-1)
    # Below x's smallest normal (f16's 6.1e-5; z near -10 gates y there),
    # its rounding is absolute: subnormal spacing, or the value if flushed.
    tiny = torch.finfo(x_dtype).tiny
    bound = 2 * (carried_y + x_unit * want_y.abs() + 2**-16 * terms_y) + tiny
    error = (y.double() - want_y).abs()
    assert (error <= bound).all(), (error - bound).max()


def _decay(dt, dt_bias, A):
    """exp(A * softplus(dt + dt_bias)) in f64, (batch, heads)."""
    v = dt.double() + dt_bias.double()
    v = torch.where(v <= 20, torch.log1p(torch.exp(v)), v)
    return torch.exp(A.double() * v)


@requires_gpu
@requires_op
@pytest.mark.parametrize("option", ["none", "D_per_head", "D_per_channel",
                                    "z", "dt_bias", "dt_softplus", "indices"])
def test_each_option(option, cuda_generator):
    t = inputs(3, 4, 2, 24, 40, state_rows=6, device="cuda",
               generator=cuda_generator)
    args = {}
    if option == "D_per_head":
        args["D"] = t["D"][:, 0].contiguous()
    elif option == "D_per_channel":
        args["D"] = t["D"]
    elif option == "z":
        args["z"] = t["z"]
    elif option == "dt_bias":
        args["dt_bias"] = t["dt_bias"].abs()
        t["dt"] = t["dt"].abs() * 0.05
    elif option == "dt_softplus":
        args["dt_softplus"] = True
    elif option == "indices":
        args["state_batch_indices"] = torch.tensor([5, 1, 2],
                                                   dtype=torch.int32)
    if option not in ("dt_softplus", "dt_bias"):
        t["dt"] = t["dt"].abs() * 0.05
    state = (t["state"] if option == "indices"
             else t["state"][:3].contiguous())
    want, want_y = recurrence(state, t["x"], t["dt"], t["A"], t["B"], t["C"],
                              **args)
    y = mamba2.selective_state_update(state, t["x"], t["dt"], t["A"], t["B"],
                                      t["C"], **args)
    assert y.dtype == BF16 and y.shape == t["x"].shape
    check(state, y, want, want_y)


@requires_gpu
@requires_op
def test_mamba_ssm_forms(cuda_generator):
    # dt (batch, nheads, dim), A (nheads, dim, dstate) and dt_bias (nheads,
    # dim) expanded from one value per head, dt in bf16: as Mamba2.step
    # passes them.
    t = inputs(2, 4, 1, 16, 32, device="cuda", generator=cuda_generator)
    dt = t["dt"].to(BF16)[:, :, None].expand(2, 4, 16)
    A = t["A"][:, None, None].expand(4, 16, 32)
    dt_bias = t["dt_bias"][:, None].expand(4, 16)
    state = t["state"].clone()
    y = mamba2.selective_state_update(state, t["x"], dt, A, t["B"], t["C"],
                                      D=t["D"], z=t["z"], dt_bias=dt_bias,
                                      dt_softplus=True)
    want, want_y = recurrence(t["state"], t["x"], t["dt"].to(BF16), t["A"],
                              t["B"], t["C"], D=t["D"], z=t["z"],
                              dt_bias=t["dt_bias"], dt_softplus=True)
    check(state, y, want, want_y)


@requires_gpu
@requires_op
def test_graph_capture_and_torch_compile(cuda_generator):
    t = inputs(2, 4, 2, 32, 64, device="cuda", generator=cuda_generator)
    args = (t["x"], t["dt"], t["A"], t["B"], t["C"])
    kwargs = dict(D=t["D"], z=t["z"], dt_bias=t["dt_bias"], dt_softplus=True)
    want, want_y = recurrence(t["state"], *args, **kwargs)

    state = t["state"].clone()
    mamba2.selective_state_update(state.clone(), *args, **kwargs)  # loads
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = mamba2.selective_state_update(state, *args, **kwargs)
    state.copy_(t["state"])
    graph.replay()
    torch.cuda.synchronize()
    check(state, y, want, want_y)

    def step(state, x, dt, A, B, C):
        return mamba2.selective_state_update(state, x, dt, A, B, C,
                                             **kwargs).float() * 2

    torch._dynamo.reset()
    compiled = torch.compile(step, fullgraph=True)
    state = t["state"].clone()
    y2 = compiled(state, *args)
    torch.cuda.synchronize()
    check(state, (y2 / 2).to(BF16), want, want_y)


@requires_gpu
@requires_op
def test_indices_outside_the_state_are_padding(cuda_generator):
    # Read on the device, an index outside [0, state_rows) (5, -7) or the
    # padding slot (3) has the padding entry's defined result: y from a
    # zero state, no state row read or written.
    t = inputs(4, 4, 2, 24, 40, state_rows=5, device="cuda",
               generator=cuda_generator)
    t["dt"] = t["dt"].abs() * 0.05
    indices = torch.tensor([5, 1, -7, 3], device="cuda")
    state = t["state"].clone()
    args = (t["x"], t["dt"], t["A"], t["B"], t["C"])
    y = mamba2.selective_state_update(state, *args, D=t["D"],
                                      state_batch_indices=indices,
                                      pad_slot_id=3)
    padded = torch.tensor([3, 1, 3, 3], device="cuda")
    want, want_y = recurrence(t["state"], *args, D=t["D"],
                              state_batch_indices=padded, pad_slot_id=3)
    check(state, y, want, want_y)
    assert torch.equal(state[[0, 2, 3, 4]], t["state"][[0, 2, 3, 4]])


@requires_gpu
@requires_op
def test_device_indices_under_graph_capture(cuda_generator):
    # The indices stay on the device: capturable, and a replay after
    # changing them in place picks the new rows (nothing was read at
    # capture time).
    t = inputs(3, 4, 2, 32, 64, state_rows=6, device="cuda",
               generator=cuda_generator)
    args = (t["x"], t["dt"], t["A"], t["B"], t["C"])
    kwargs = dict(D=t["D"], z=t["z"], dt_bias=t["dt_bias"], dt_softplus=True)
    indices = torch.tensor([4, 0, -1], device="cuda")
    state = t["state"].clone()
    mamba2.selective_state_update(state.clone(), *args, **kwargs,
                                  state_batch_indices=indices)  # loads
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = mamba2.selective_state_update(state, *args, **kwargs,
                                          state_batch_indices=indices)
    for rows in ([4, 0, -1], [2, -1, 5]):
        indices.copy_(torch.tensor(rows))
        state.copy_(t["state"])
        graph.replay()
        torch.cuda.synchronize()
        want, want_y = recurrence(t["state"], *args, **kwargs,
                                  state_batch_indices=indices)
        check(state, y, want, want_y)


@requires_gpu
@requires_op
def test_opcheck(cuda_generator):
    t = inputs(2, 4, 2, 16, 32, device="cuda", generator=cuda_generator)
    args = (t["state"], t["x"], t["dt"], t["A"], t["B"], t["C"], t["D"],
            t["z"], t["dt_bias"], True, None, -1)
    torch.library.opcheck(
        torch.ops.tilec.mamba2_selective_state_update.default, args)


@requires_gpu
@requires_op
@requires_python_implementation
def test_eager_calls_skip_the_dispatcher(cuda_generator):
    # A dispatch mode sees every op the dispatcher runs: the eager entry
    # points run their implementation directly, the op only when asked.
    from torch.utils._python_dispatch import TorchDispatchMode

    class Seen(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.names = set()

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.names.add(str(func))
            return func(*args, **(kwargs or {}))

    t = inputs(2, 4, 2, 16, 32, device="cuda", generator=cuda_generator)
    args = (t["state"], t["x"], t["dt"], t["A"], t["B"], t["C"])
    mamba2.selective_state_update(*args)  # loads the kernels
    with Seen() as seen:
        mamba2.selective_state_update(*args)
    assert not any("tilec" in name for name in seen.names), seen.names
    with Seen() as seen:
        torch.ops.tilec.mamba2_selective_state_update(
            *args, None, None, None, False, None, -1)
    assert any("mamba2_selective_state_update" in n for n in seen.names)
