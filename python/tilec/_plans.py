"""What every call of one form needs, built at its first call and kept.

A form is what the Python layer and the C ABI's validation look at apart
from the data: each tensor's dtype, shape, strides and device (tensor_key),
and the scalar arguments. A plan holds, for one form, the C call packed
once (descriptors, shape and stride arrays, options: _capi.ForwardCall or
StateUpdateCall), the outputs' shapes and dtypes and the workspace size;
per call it allocates the outputs, writes the data pointers into the packed
call and makes it. The C ABI still checks every call in full (the pointers'
alignment and memory, and again the shapes it was packed with), so a plan
saves the Python work, not the library's checks.

The packed calls of a plan are a pool: a call takes one (or packs a new one
when another thread holds them all) and puts it back after the C call,
which reads it with the GIL released.
"""

import torch

from . import _capi, _cuda_context, _workspaces

# The most plans of each kind kept; past it the cache starts afresh (a
# model has a few forms; a loop over ever new shapes should not grow it
# without bound).
PLANS_LIMIT = 256


def tensor_key(t):
    """The part of a form that tensor `t` (or None) gives."""
    return None if t is None else (t.dtype, t.shape, t.stride(),
                                   t.get_device())


def forward_key(x, dt, A, B, C, D, initial_states, z, dt_bias, seq_idx,
                cu_seqlens):
    """The tensor_key of a forward's tensors, in one tuple: written out (no
    call per tensor) since it is most of a call's Python time; raises
    AttributeError for an argument that is not a tensor."""
    return (x.dtype, x.shape, x.stride(), x.get_device(),
            dt.dtype, dt.shape, dt.stride(), dt.get_device(),
            A.dtype, A.shape, A.stride(), A.get_device(),
            B.dtype, B.shape, B.stride(), B.get_device(),
            C.dtype, C.shape, C.stride(), C.get_device(),
            None if D is None else (D.dtype, D.shape, D.stride(),
                                    D.get_device()),
            None if initial_states is None else tensor_key(initial_states),
            None if z is None else tensor_key(z),
            None if dt_bias is None else tensor_key(dt_bias),
            None if seq_idx is None else tensor_key(seq_idx),
            None if cu_seqlens is None else tensor_key(cu_seqlens))


def decode_key(state, x, dt, A, B, C, D, z, dt_bias, indices):
    """As forward_key, for the decode step's tensors."""
    return (state.dtype, state.shape, state.stride(), state.get_device(),
            x.dtype, x.shape, x.stride(), x.get_device(),
            dt.dtype, dt.shape, dt.stride(), dt.get_device(),
            A.dtype, A.shape, A.stride(), A.get_device(),
            B.dtype, B.shape, B.stride(), B.get_device(),
            C.dtype, C.shape, C.stride(), C.get_device(),
            None if D is None else (D.dtype, D.shape, D.stride(),
                                    D.get_device()),
            None if z is None else (z.dtype, z.shape, z.stride(),
                                    z.get_device()),
            None if dt_bias is None else (dt_bias.dtype, dt_bias.shape,
                                          dt_bias.stride(),
                                          dt_bias.get_device()),
            None if indices is None else tensor_key(indices))


def remember(plans, key, plan):
    if len(plans) >= PLANS_LIMIT:
        plans.clear()
    plans[key] = plan


def layout(t):
    """A meta tensor of t's dtype, shape and strides (or None): what a
    packed call is made from, holding no memory."""
    if t is None:
        return None
    return torch.empty_strided(t.shape, t.stride(), dtype=t.dtype,
                               device="meta")


# (device, heads) -> a zero D, which the kernels only read. Never emptied:
# a dropped one could be handed out again by the allocator while a kernel
# on another stream still reads it; a model has few head counts.
_zeros = {}


def zero_d(device, heads, capturing):
    """D = 0 for a call without D. Outside graph capture it is made once per
    device and size: nothing writes it. During capture a new one is made
    (its fill is captured, so the tensor holds zeros only once replayed)."""
    if capturing:
        return torch.zeros(heads, dtype=torch.float32, device=device)
    key = (device, heads)
    D = _zeros.get(key)
    if D is None:
        D = _zeros[key] = torch.zeros(heads, dtype=torch.float32,
                                      device=device)
    return D


# The forward's tensors in the C ABI's order (_capi.tensors_forward): the
# data word of each is ForwardCall.data_word(index).
_X, _DT, _A, _B, _C, _D, _INIT, _Y, _FINAL, _Z, _DT_BIAS, _STATES, \
    _SEQ_IDX, _CU_SEQLENS, _VARLEN = range(15)
_WORDS_PER_TENSOR = _capi.ForwardCall.data_word(1)


def write_data(words, tensors):
    """Writes each tensor's data pointer into its descriptor in a packed
    call's array (`tensors` in the call's order, as data_word numbers them;
    None for an absent one, whose descriptor keeps its null pointer)."""
    word = 0
    for t in tensors:
        if t is not None:
            words[word] = t.data_ptr()
        word += _WORDS_PER_TENSOR


class ForwardPlan:
    """One form of tilec_mamba2_forward_with_options call.

    `inputs` are the call's 15 tensors in the C ABI's order with None for
    the outputs and the absent inputs (D given as the tensor the call will
    pass: a zero one when the caller has none, `d_given` False), `outputs`
    the (shape, dtype) of y, final states, chunk states and varlen states
    (None for one not asked for), `state_dtype` the dtype code of the
    states between chunks (_capi.F32 or _capi.BF16: the chunk states'
    dtype)."""

    __slots__ = ("device", "ordinal", "_problem", "_layouts",
                 "_options", "_y", "_y_like_x", "_final", "_states", "_varlen",
                 "_heads", "_d_given", "workspace_bytes",
                 "_calls")

    def __init__(self, device, problem, inputs, outputs, dt_softplus,
                 dt_limit, workspace_bytes, heads, d_given,
                 state_dtype=_capi.F32):
        self.device = device
        self.ordinal = device.index
        self._problem = problem
        self._options = (dt_softplus, dt_limit, state_dtype)
        self._y, self._final, self._states, self._varlen = outputs
        layouts = [layout(t) for t in inputs]
        x = layouts[_X]
        # empty_like(x) makes y in one call that parses no shape (about half
        # the host time of torch.empty); for a contiguous x of y's dtype it
        # is the tensor torch.empty would make, and its layout is the same
        # on every call of the form (x's strides are part of it).
        self._y_like_x = inputs[_X].is_contiguous() and self._y[1] == x.dtype
        layouts[_Y] = (torch.empty_like(x) if self._y_like_x else
                       torch.empty(self._y[0], dtype=self._y[1],
                                   device="meta"))
        for index, spec in ((_FINAL, self._final), (_STATES, self._states),
                            (_VARLEN, self._varlen)):
            if spec is not None:
                layouts[index] = torch.empty(spec[0], dtype=spec[1],
                                             device="meta")
        self._layouts = layouts
        self._heads = heads
        self._d_given = d_given
        self.workspace_bytes = workspace_bytes
        self._calls = [self._pack()]

    def _pack(self):
        dt_softplus, dt_limit, state_dtype = self._options
        return _capi.ForwardCall(self._problem, self._layouts, dt_softplus,
                                 dt_limit, state_dtype)

    def run(self, x, dt, A, B, C, D, initial_states, z, dt_bias, seq_idx,
            cu_seqlens):
        """Allocates the outputs and enqueues the forward on the current
        stream: (y, final states or None, chunk states or None, varlen
        states or None). Raises what the C ABI reports."""
        device, ordinal = self.device, self.ordinal
        _cuda_context.ensure_current(ordinal)
        stream = _cuda_context.current_stream(ordinal)
        capturing = _cuda_context.capturing()
        if self._y_like_x:
            y = torch.empty_like(x)
        else:
            y = torch.empty(self._y[0], dtype=self._y[1], device=device)
        final = states = varlen = None
        if self._final is not None:
            final = torch.empty(self._final[0], dtype=self._final[1],
                                device=device)
        if self._states is not None:
            states = torch.empty(self._states[0], dtype=self._states[1],
                                 device=device)
        if self._varlen is not None:
            varlen = torch.empty(self._varlen[0], dtype=self._varlen[1],
                                 device=device)
        if not self._d_given:
            D = zero_d(device, self._heads, capturing)
        workspace, owner = _workspaces.get(device, ordinal, stream,
                                           self.workspace_bytes, capturing)
        calls = self._calls
        call = calls.pop() if calls else self._pack()
        try:
            write_data(call.array, (x, dt, A, B, C, D, initial_states, y,
                                    final, z, dt_bias, states, seq_idx,
                                    cu_seqlens, varlen))
            call(workspace, self.workspace_bytes, stream)
        finally:
            calls.append(call)
        del owner  # the workspace is enqueued: its buffer may be replaced
        return y, final, states, varlen



class DecodePlan:
    """One form of tilec_mamba2_state_update call.

    `layouts` are the call's state, x, dt, A, B, C, D, z, dt_bias (None for
    an absent D, z or dt_bias) as the kernels take them, `widen` the
    (position among dt, A, D, dt_bias; index or None) of each that a call
    must first convert to f32 (its caller's tensor, indexed so, .float());
    the others are passed at their caller's tensor's address (a per-head
    view indexed at 0 starts there too)."""

    __slots__ = ("device", "ordinal", "_problem", "_layouts", "_widen",
                 "_y_shape", "_y_like_x", "_calls")

    def __init__(self, device, problem, layouts, widen, y_shape):
        self.device = device
        self.ordinal = device.index
        self._problem = problem
        x = layouts[1]
        # y is x's dtype and, for an x of the problem's rank, x's shape.
        self._y_shape = y_shape
        self._y_like_x = x.is_contiguous() and x.shape == y_shape
        self._layouts = [layout(t) for t in layouts] + [
            torch.empty_like(layout(x)) if self._y_like_x else
            torch.empty(y_shape, dtype=x.dtype, device="meta")]
        self._widen = widen
        self._calls = [self._pack()]

    def _pack(self):
        return _capi.StateUpdateCall(self._problem, self._layouts)

    def run(self, state, x, dt, A, B, C, D, z, dt_bias, dt_softplus,
            indices, pad_slot_id):
        """Allocates y and enqueues the step on the current stream; `indices`
        is None or an int64 tensor on the device. Returns y."""
        ordinal = self.ordinal
        _cuda_context.ensure_current(ordinal)
        stream = _cuda_context.current_stream(ordinal)
        if self._y_like_x:
            y = torch.empty_like(x)
        else:
            y = torch.empty(self._y_shape, dtype=x.dtype, device=self.device)
        if self._widen:
            per_head = [dt, A, D, dt_bias]
            for position, index in self._widen:
                t = per_head[position]
                per_head[position] = (t if index is None else t[index]).float()
            dt, A, D, dt_bias = per_head
        calls = self._calls
        call = calls.pop() if calls else self._pack()
        try:
            write_data(call.array, (state, x, dt, A, B, C, D, z, dt_bias, y))
            call(dt_softplus,
                 None if indices is None else indices.data_ptr(),
                 pad_slot_id, stream)
        finally:
            calls.append(call)
        return y
