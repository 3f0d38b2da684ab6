"""The Mamba-2 forward pass for PyTorch: a drop-in for mamba_ssm's
``mamba_chunk_scan_combined`` (forward only).

    from tilec.mamba2 import chunk_scan_combined
    y = chunk_scan_combined(x, dt, A, B, C, chunk_size, D=D)

Errors: Mamba2ArgumentError, Mamba2Error, TorchVersionError (re-exported
here from tilec.errors).

``chunk_scan_combined`` is a PyTorch custom op (``tilec::mamba2_chunk_scan_combined``,
torch >= 2.4) with a fake implementation, so it runs under torch.compile
without a graph break and inside torch.cuda.graph capture. The op is the
C++ one of python/torch_op when it is built (OP_REGISTRATION "cpp"; an
eager call goes straight to it), else registered from Python, and then an
eager call on plain CUDA tensors skips the dispatcher and runs the
implementation directly (_eager). ``selective_state_update`` (the decode
step) is built the same way. See python/README.md for what they accept.
"""

import math
import os
import re
import warnings
from typing import List, Optional

import torch

from . import _capi, _cuda_context, _plans, _torch_op, _workspaces
from .errors import (Mamba2ArgumentError, Mamba2Error, Status,
                     TorchVersionError, error_for)

MIN_TORCH_FOR_OP = (2, 4)
OP_NAME = "tilec::mamba2_chunk_scan_combined"
# The op's schema (the library registration's; custom_op infers the same
# from _op's annotations; python/torch_op/Mamba2Ops.cpp defines it too).
FORWARD_SCHEMA = (
    "mamba2_chunk_scan_combined(Tensor x, Tensor dt, Tensor A, Tensor B, "
    "Tensor C, SymInt chunk_size, Tensor? D, Tensor? initial_states, "
    "bool return_final_states, Tensor? z, Tensor? dt_bias, "
    "bool dt_softplus, float dt_limit_low, float dt_limit_high, "
    "bool y_f32, bool return_chunk_states, Tensor? seq_idx, "
    "Tensor? cu_seqlens, bool return_varlen_states, "
    "bool bf16_states=False) -> Tensor[]")

__all__ = ["chunk_scan_combined", "forward", "release_workspaces",
           "Mamba2ArgumentError", "Mamba2Error", "TorchVersionError",
           "MIN_TORCH_FOR_OP", "HAS_OP", "OP_REGISTRATION", "TORCH_OP_NOTE"]


def _torch_version():
    match = re.match(r"(\d+)\.(\d+)", torch.__version__)
    return (int(match.group(1)), int(match.group(2)))


HAS_OP = (_torch_version() >= MIN_TORCH_FOR_OP
          and hasattr(torch.library, "custom_op"))

# Whether torch.compile is tracing (torch.compiler.is_compiling: the same
# function, which the tracer evaluates to True); False for a torch without it.
_compiling = getattr(getattr(torch, "compiler", None), "is_compiling",
                     lambda: False)


def problem_sizes(x, B):
    """(batch, seqlen, heads, headdim, groups, dstate) as mamba_ssm reads
    them, from x (batch, seqlen, heads, headdim) and B (batch, seqlen,
    groups, dstate). When x or B has another rank, the sizes it would give
    are ones (and groups is 1), so that the problem stays valid and the C
    ABI reports that tensor's rank rather than a problem made of the wrong
    dimensions."""
    if x.dim() != 4:
        return 1, 1, 1, 1, 1, (B.shape[3] if B.dim() == 4 else 1)
    batch, seqlen, heads, headdim = x.shape
    groups, dstate = B.shape[2:] if B.dim() == 4 else (1, 1)
    return batch, seqlen, heads, headdim, groups, dstate


def _check_chunk(chunk_size):
    """An int the C ABI's int64_t can hold (ctypes would wrap it)."""
    if not -2**63 <= chunk_size < 2**63:
        raise _capi.error(Status.UNSUPPORTED_CHUNK,
                          f"chunk_size {chunk_size} does not fit in 64 bits")


def _tensor_arguments(x, dt, A, B, C, D, initial_states, z=None,
                      dt_bias=None, seq_idx=None, cu_seqlens=None):
    """(name, tensor) of every tensor given, in the C ABI's order."""
    named = [("x", x), ("dt", dt), ("A", A), ("B", B), ("C", C)]
    return named + [(name, t) for name, t in (("D", D),
                                              ("initial_states",
                                               initial_states),
                                              ("dt_bias", dt_bias),
                                              ("z", z),
                                              ("seq_idx", seq_idx),
                                              ("cu_seqlens", cu_seqlens))
                    if t is not None]


def _check_same_device(named):
    """Every tensor on one device (the C ABI cannot tell another device's
    memory from its own). Checked before the op is dispatched too: with a
    meta tensor among the arguments the dispatcher would run the fake
    implementation, which cannot see the mix."""
    device = named[0][1].device
    elsewhere = [f"{name} on {t.device}" for name, t in named
                 if t.device != device]
    if elsewhere:
        raise _capi.error(
            Status.NOT_DEVICE_POINTER,
            f"{named[0][0]} is on {device} but " + ", ".join(elsewhere)
            + ": every tensor must be on the same CUDA device")
    return device


def _check_devices(named):
    """Every tensor on one CUDA device (the C ABI needs device memory)."""
    device = _check_same_device(named)
    if device.type != _cuda_context.DEVICE_TYPE:
        raise _capi.error(
            Status.NOT_DEVICE_POINTER,
            ", ".join(name for name, _ in named) + f" are on {device}: "
            "tilec's Mamba-2 forward needs CUDA tensors")
    return device


_prepared = set()  # devices whose context has every kernel loaded
_workspace_bytes = {}  # problem sizes -> tilec_mamba2_workspace_size
_SIZES_LIMIT = 1024  # problems remembered before that cache starts afresh


def _workspace_size(problem, sizes):
    """tilec_mamba2_workspace_size, remembered per problem: it depends on
    the sizes only. Raises Mamba2Error for an invalid problem."""
    size = _workspace_bytes.get(sizes)
    if size is None:
        size = _capi.workspace_size(problem)
        if len(_workspace_bytes) >= _SIZES_LIMIT:
            _workspace_bytes.clear()
        _workspace_bytes[sizes] = size
    return size


_INPUT_DTYPES = (torch.bfloat16, torch.float16, torch.float32)


def _y_dtype(x, y_f32):
    """y's dtype: f32 on request, else x's (bf16, f16 or f32, which the
    kernel stores directly; for an x of another dtype, which the library
    rejects, f32)."""
    return (x.dtype if x.dtype in _INPUT_DTYPES and not y_f32
            else torch.float32)


def _prepare(device):
    """Makes the device's context current and, at its first call, loads
    every kernel into it."""
    _cuda_context.ensure_current(device.index)
    if device.index not in _prepared:
        _capi.prepare()
        _prepared.add(device.index)


# The form of a _run call (_run_key) -> its ForwardPlan; filled by calls
# that succeeded.
_run_plans = {}


def _run_key(x, dt, A, B, C, chunk_size, D, initial_states,
             return_final_states, z, dt_bias, dt_softplus, dt_limit_low,
             dt_limit_high, y_f32, return_chunk_states, seq_idx, cu_seqlens,
             return_varlen_states, bf16_states):
    """What a _run call's plan depends on (its tensors' tensor_key and its
    scalars; chunk_size's type too: a float equal to an int is refused)."""
    return (_plans.forward_key(x, dt, A, B, C, D, initial_states, z, dt_bias,
                               seq_idx, cu_seqlens),
            type(chunk_size), chunk_size, return_final_states, dt_softplus,
            dt_limit_low, dt_limit_high, y_f32, return_chunk_states,
            return_varlen_states, bf16_states)


def _run(device, x, dt, A, B, C, chunk_size, D, initial_states,
         return_final_states, z=None, dt_bias=None, dt_softplus=False,
         dt_limit_low=-math.inf, dt_limit_high=math.inf, y_f32=False,
         return_chunk_states=False, seq_idx=None, cu_seqlens=None,
         return_varlen_states=False, bf16_states=False):
    """tilec_mamba2_forward_with_options on the current stream of the
    tensors' device, in its context made current, through the plan of the
    call's form (built at the form's first call, when `device` is None
    after checking that every tensor is on one CUDA device, cu_seqlens
    too; a given `device` says the caller checked). Returns ((y in x's
    dtype, or f32 with y_f32; the final states or None; the states
    entering each chunk or None; the states at the end of each sequence of
    cu_seqlens or None), the plan). dt is clamped to [dt_limit_low,
    dt_limit_high] (infinite bounds clamp nothing). bf16_states: the states
    between chunks in bf16 (the library's state dtype; the chunk states
    returned are those, bf16), else f32. torch's current device
    is not changed: every allocation names the device and the C ABI runs
    in the context made current."""
    arguments = (x, dt, A, B, C, chunk_size, D, initial_states,
                 return_final_states, z, dt_bias, dt_softplus, dt_limit_low,
                 dt_limit_high, y_f32, return_chunk_states, seq_idx,
                 cu_seqlens, return_varlen_states, bf16_states)
    key = _run_key(*arguments)
    plan = _run_plans.get(key)
    if plan is not None:
        return plan.run(x, dt, A, B, C, D, initial_states, z, dt_bias,
                        seq_idx, cu_seqlens), plan
    if device is None:
        device = _check_devices(_tensor_arguments(
            x, dt, A, B, C, D, initial_states, z, dt_bias, seq_idx,
            cu_seqlens))
    plan = _new_plan(device, *arguments)
    result = plan.run(x, dt, A, B, C, D, initial_states, z, dt_bias, seq_idx,
                      cu_seqlens)
    _plans.remember(_run_plans, key, plan)
    return result, plan


def _new_plan(device, x, dt, A, B, C, chunk_size, D, initial_states,
              return_final_states, z, dt_bias, dt_softplus, dt_limit_low,
              dt_limit_high, y_f32, return_chunk_states, seq_idx, cu_seqlens,
              return_varlen_states, bf16_states):
    """The ForwardPlan of a _run call on `device`. Raises what the C ABI
    reports for an invalid problem."""
    _check_chunk(chunk_size)
    batch, seqlen, heads, headdim, groups, dstate = problem_sizes(x, B)
    sizes = (batch, seqlen, heads, groups, headdim, dstate, chunk_size)
    problem = _capi.Problem(*sizes)
    _prepare(device)
    d_given = D is not None
    if D is None:
        D = _plans.zero_d(device, heads, _cuda_context.capturing())
    f32 = torch.float32
    state_dtype = _capi.BF16 if bf16_states else _capi.F32
    nchunks = -(-seqlen // chunk_size) if chunk_size > 0 else 1
    outputs = (
        ((batch, seqlen, heads, headdim), _y_dtype(x, y_f32)),
        ((batch, heads, headdim, dstate), f32) if return_final_states
        else None,
        ((batch, nchunks, heads, headdim, dstate),
         torch.bfloat16 if bf16_states else f32)
        if return_chunk_states else None,
        ((_num_sequences(cu_seqlens), heads, headdim, dstate), f32)
        if return_varlen_states else None)
    limit = (None if dt_limit_low == -math.inf and dt_limit_high == math.inf
             else (dt_limit_low, dt_limit_high))
    try:
        workspace_bytes = _workspace_size(problem, sizes)
    except Mamba2Error:
        # The problem is invalid: the forward reports it, or whatever its
        # documented order finds first, without touching memory.
        y, final, states, varlen = (
            None if spec is None else torch.empty(spec[0], dtype=spec[1],
                                                  device=device)
            for spec in outputs)
        _capi.tensors_forward(
            problem, [x, dt, A, B, C, D, initial_states, y, final, z,
                      dt_bias, states, seq_idx, cu_seqlens, varlen],
            stream=_cuda_context.current_stream(device.index),
            dt_softplus=dt_softplus, dt_limit=limit, state_dtype=state_dtype)
        raise
    inputs = [x, dt, A, B, C, D, initial_states, None, None, z, dt_bias, None,
              seq_idx, cu_seqlens, None]
    return _plans.ForwardPlan(device, problem, inputs, outputs, dt_softplus,
                              limit, workspace_bytes, heads, d_given,
                              state_dtype)


def release_workspaces():
    """Gives the workspaces kept per device and stream (one per stream that
    ran a forward, as large as its largest problem) back to torch's
    allocator, in stream order; the next call of each stream allocates
    anew. Needed only to free that memory, or after destroying a stream of
    one's own (torch.cuda.ExternalStream) on which calls may still run,
    before a new stream can get its handle. With the C++ op, its own kept
    workspaces too."""
    _workspaces.release()
    if OP_REGISTRATION == "cpp":
        torch.ops.tilec.mamba2_release_workspaces()


def _num_sequences(cu_seqlens):
    """The sequences cu_seqlens (nseq + 1) gives; 0 for a tensor of another
    rank (the C ABI reports its shape)."""
    return cu_seqlens.shape[0] - 1 if cu_seqlens.dim() == 1 else 0


def forward(x, dt, A, B, C, chunk_size, D=None, initial_states=None,
            return_final_states=False, z=None, dt_bias=None,
            dt_softplus=False, dt_limit_low=-math.inf, dt_limit_high=math.inf,
            y_f32=False, return_chunk_states=False, seq_idx=None,
            cu_seqlens=None, return_varlen_states=False, bf16_states=False):
    """The op's implementation: checks the devices (at the first call of
    the call's form), makes the device's context current, and calls
    tilec_mamba2_forward_with_options on the current stream with the
    stream's workspace (tilec._workspaces), through the plan of the call's
    form (tilec._plans). Returns the outputs asked for, in a list (the
    op's Tensor[]: an output not asked for is not made, which saves its
    allocation, a few microseconds each): y in x's dtype, or f32 with
    y_f32; then with return_final_states the final states in f32; with
    return_chunk_states the states entering each chunk (batch, nchunks,
    heads, headdim, dstate) f32 (bf16 with bf16_states: the states between
    chunks are then stored in bf16); with return_varlen_states the states at
    the end of each sequence (nseq, heads, headdim, dstate) f32
    (_unpacked reads it). cu_seqlens is on x's device, like every tensor.
    dt is clamped to [dt_limit_low, dt_limit_high] (infinite bounds clamp
    nothing). Works with any torch; chunk_scan_combined is the public
    entry."""
    (y, final, states, varlen), _ = _run(
        None, x, dt, A, B, C, chunk_size, D, initial_states,
        return_final_states, z, dt_bias, dt_softplus, dt_limit_low,
        dt_limit_high, y_f32, return_chunk_states, seq_idx, cu_seqlens,
        return_varlen_states, bf16_states)
    return [t for t in (y, final, states, varlen) if t is not None]


def _unpacked(outputs, return_final_states, return_chunk_states,
              return_varlen_states):
    """(y, final states, chunk states, varlen states) from the op's list of
    the outputs asked for, None for the others."""
    final = outputs[1] if return_final_states else None
    k = 1 + return_final_states
    states = outputs[k] if return_chunk_states else None
    k += return_chunk_states
    varlen = outputs[k] if return_varlen_states else None
    return outputs[0], final, states, varlen


def _eager(device, x):
    """Whether a call can skip the dispatcher and run the implementation
    directly: plain CUDA tensors (not a FakeTensor or another subclass,
    which need the op's fake) outside torch.compile's tracing, which must
    see the op. The dispatcher costs a custom op tens of microseconds per
    call (pytorch/pytorch issues 139500, 177109); what it would add here is
    nothing an eager call needs (no autograd formula, no other backend)."""
    return (not _compiling()
            and device.type == _cuda_context.DEVICE_TYPE
            and type(x) is torch.Tensor)


def _fake(x, dt, A, B, C, chunk_size, D=None, initial_states=None,
          return_final_states=False, z=None, dt_bias=None, dt_softplus=False,
          dt_limit_low=-math.inf, dt_limit_high=math.inf, y_f32=False,
          return_chunk_states=False, seq_idx=None, cu_seqlens=None,
          return_varlen_states=False, bf16_states=False):
    # Tensors on several devices are refused here too: a meta tensor among
    # CUDA ones makes the dispatcher pick this fake for a real call
    # (cu_seqlens gives only its length: chunk_scan_combined's checks, as
    # before the dispatch).
    _check_same_device(_tensor_arguments(x, dt, A, B, C, D, initial_states, z,
                                         dt_bias, seq_idx))
    batch, seqlen, heads, headdim, _, dstate = problem_sizes(x, B)
    outputs = [x.new_empty((batch, seqlen, heads, headdim),
                           dtype=_y_dtype(x, y_f32))]
    f32 = torch.float32
    if return_final_states:
        outputs.append(x.new_empty((batch, heads, headdim, dstate),
                                   dtype=f32))
    if return_chunk_states:
        nchunks = -(-seqlen // chunk_size) if chunk_size > 0 else 1
        outputs.append(x.new_empty((batch, nchunks, heads, headdim, dstate),
                                   dtype=torch.bfloat16 if bf16_states
                                   else f32))
    if return_varlen_states:
        outputs.append(x.new_empty(
            (_num_sequences(cu_seqlens), heads, headdim, dstate), dtype=f32))
    return outputs


# How the two ops are registered, read at import from
# TILEC_MAMBA2_OP_REGISTRATION: "cpp" (the C++ op of python/torch_op,
# tilec._torch_op: schemas, kernels and checks in C++ over the C ABI, the
# fake kernels registered here with torch.library.register_fake), "custom_op"
# (torch.library.custom_op) or "library" (torch.library.Library.define, the
# implementation at CompositeExplicitAutograd and torch.library.register_fake:
# the same schema and fake, without custom_op's Python kernels at the
# Autograd and ADInplaceOrView keys, which a dispatched call runs before the
# implementation). Unset: "cpp" when the C++ op is found, else "custom_op"
# (TORCH_OP_NOTE says why). None has an autograd formula.
# bench/python_host_cost.py prints which one it measured.
_REGISTRATIONS = ("cpp", "custom_op", "library")
OP_REGISTRATION = os.environ.get("TILEC_MAMBA2_OP_REGISTRATION", "")
if OP_REGISTRATION not in _REGISTRATIONS + ("",):
    raise ValueError(f"TILEC_MAMBA2_OP_REGISTRATION is {OP_REGISTRATION!r}; "
                     "it must be cpp, custom_op or library")
TORCH_OP_NOTE = ""
if OP_REGISTRATION == "cpp" and not HAS_OP:
    raise TorchVersionError(
        "TILEC_MAMBA2_OP_REGISTRATION=cpp: the C++ op's fake kernels need "
        f"torch >= {MIN_TORCH_FOR_OP[0]}.{MIN_TORCH_FOR_OP[1]}; this is torch "
        f"{torch.__version__}")
if HAS_OP and OP_REGISTRATION in ("", "cpp"):
    try:
        _path, TORCH_OP_NOTE = _torch_op.load()
    except _torch_op.TorchOpError as error:
        if OP_REGISTRATION == "cpp" or os.environ.get(_torch_op.PATH_ENV):
            raise
        _path, TORCH_OP_NOTE = None, str(error)
        warnings.warn(f"tilec.mamba2: {error}; the ops are registered from "
                      "Python (custom_op) instead")
    if _path is None and OP_REGISTRATION == "cpp":
        raise _torch_op.TorchOpError(
            f"TILEC_MAMBA2_OP_REGISTRATION=cpp but there is {TORCH_OP_NOTE}")
    OP_REGISTRATION = "custom_op" if _path is None else "cpp"
elif not OP_REGISTRATION:
    OP_REGISTRATION = "custom_op"
    TORCH_OP_NOTE = (f"torch {torch.__version__} is older than "
                     f"{MIN_TORCH_FOR_OP[0]}.{MIN_TORCH_FOR_OP[1]}")
_LIBRARY = (torch.library.Library("tilec", "FRAGMENT")
            if HAS_OP and OP_REGISTRATION in ("library", "cpp") else None)


def _bound(overload):
    """The C++ callable of an OpOverload (its __call__ without the Python
    frame), or the OpOverload where torch keeps it elsewhere."""
    return getattr(overload, "_op", overload)


# The C++ op's forward, called by chunk_scan_combined's eager calls; None
# for the Python registrations.
_NATIVE_FORWARD = None
if OP_REGISTRATION == "cpp":
    torch.library.register_fake(OP_NAME, _fake, lib=_LIBRARY)
    _NATIVE_FORWARD = _bound(torch.ops.tilec.mamba2_chunk_scan_combined.default)
elif _LIBRARY is not None:
    _LIBRARY.define(FORWARD_SCHEMA)
    _LIBRARY.impl("mamba2_chunk_scan_combined", forward,
                  "CompositeExplicitAutograd")
    torch.library.register_fake(OP_NAME, _fake, lib=_LIBRARY)
elif HAS_OP:
    @torch.library.custom_op(OP_NAME, mutates_args=())
    def _op(x: torch.Tensor, dt: torch.Tensor, A: torch.Tensor,
            B: torch.Tensor, C: torch.Tensor, chunk_size: int,
            D: Optional[torch.Tensor], initial_states: Optional[torch.Tensor],
            return_final_states: bool, z: Optional[torch.Tensor],
            dt_bias: Optional[torch.Tensor], dt_softplus: bool,
            dt_limit_low: float, dt_limit_high: float, y_f32: bool,
            return_chunk_states: bool, seq_idx: Optional[torch.Tensor],
            cu_seqlens: Optional[torch.Tensor], return_varlen_states: bool,
            bf16_states: bool = False) -> List[torch.Tensor]:
        return forward(x, dt, A, B, C, chunk_size, D, initial_states,
                       return_final_states, z, dt_bias, dt_softplus,
                       dt_limit_low, dt_limit_high, y_f32,
                       return_chunk_states, seq_idx, cu_seqlens,
                       return_varlen_states, bf16_states)

    @_op.register_fake
    def _(x, dt, A, B, C, chunk_size, D, initial_states, return_final_states,
          z, dt_bias, dt_softplus, dt_limit_low, dt_limit_high, y_f32,
          return_chunk_states, seq_idx, cu_seqlens, return_varlen_states,
          bf16_states=False):
        return _fake(x, dt, A, B, C, chunk_size, D, initial_states,
                     return_final_states, z, dt_bias, dt_softplus,
                     dt_limit_low, dt_limit_high, y_f32, return_chunk_states,
                     seq_idx, cu_seqlens, return_varlen_states, bf16_states)


# The smallest magnitude that rounds to infinity in f32 (f32's largest
# finite value plus half its last unit; the tie rounds to infinity).
_F32_OVERFLOW = 2.0 ** 128 - 2.0 ** 103


def _dt_limit(dt_limit):
    """(low, high) as floats the C ABI packing can round to the f32 values the
    kernel compares with: a bound beyond f32's range becomes infinite, as it
    would in mamba_ssm's Triton kernel; the library checks low <= high. Plain
    float arithmetic only: torch.compile traces this function, and a ctypes
    call in it would break the graph."""
    try:
        low, high = dt_limit
        low, high = float(low), float(high)
    except (TypeError, ValueError):
        raise TypeError("tilec.mamba2.chunk_scan_combined: dt_limit must be "
                        f"a pair of numbers, not {dt_limit!r}") from None
    return tuple(math.copysign(math.inf, v) if abs(v) >= _F32_OVERFLOW else v
                 for v in (low, high))


def _unsupported(argument, why):
    return NotImplementedError(
        f"tilec.mamba2.chunk_scan_combined: {argument} is not supported "
        f"yet ({why})")


# state_dtype: the dtype of the varlen and chunk states returned (mamba_ssm's
# dtype of the states it materializes between chunks); None keeps tilec's
# f32. torch.bfloat16 with a bf16 x also stores the states between chunks
# in bf16, as mamba_ssm does (the library's bf16 state dtype: _bf16_states);
# with another x, and for torch.float16, the kernels keep them in f32 and
# the states returned are rounded once.
_STATE_DTYPES = (None, torch.float32, torch.bfloat16, torch.float16)


def _bf16_states(state_dtype, x):
    """Whether the kernels store the states between chunks in bf16: asked
    for (state_dtype=torch.bfloat16) with a bf16 x, the one x the library
    has bf16-state kernels for."""
    return state_dtype is torch.bfloat16 and x.dtype is torch.bfloat16


def _check_arguments(x, dt, A, B, C, chunk_size, D, z, dt_bias,
                     initial_states, seq_idx, cu_seqlens, dt_softplus,
                     dt_limit, return_final_states, return_varlen_states,
                     state_dtype, y_dtype=None, return_chunk_states=False):
    """What the C ABI cannot express or check: the arguments' Python types
    and the options of mamba_ssm that tilec does not implement."""
    for name, value in (("x", x), ("dt", dt), ("A", A), ("B", B), ("C", C)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"tilec.mamba2.chunk_scan_combined: {name} must "
                            f"be a torch.Tensor, not {type(value).__name__}")
    for name, value in (("D", D), ("initial_states", initial_states),
                        ("z", z), ("dt_bias", dt_bias),
                        ("seq_idx", seq_idx), ("cu_seqlens", cu_seqlens)):
        if value is not None and not isinstance(value, torch.Tensor):
            raise TypeError(f"tilec.mamba2.chunk_scan_combined: {name} must "
                            f"be a torch.Tensor or None, not "
                            f"{type(value).__name__}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int):
        raise TypeError(f"tilec.mamba2.chunk_scan_combined: chunk_size must "
                        f"be an int, not {type(chunk_size).__name__}")
    _check_chunk(chunk_size)
    if not isinstance(dt_softplus, bool):
        raise TypeError("tilec.mamba2.chunk_scan_combined: dt_softplus must "
                        f"be a bool, not {type(dt_softplus).__name__}")
    _dt_limit(dt_limit)
    if y_dtype not in (None, torch.float32, torch.bfloat16):
        raise _unsupported(f"y_dtype={y_dtype}",
                           "y is x's dtype (None) or torch.float32")
    if state_dtype not in _STATE_DTYPES:
        raise _unsupported(f"state_dtype={state_dtype}",
                           "the states are returned in f32 (None, "
                           "torch.float32), bf16 or f16")
    for name, value in (("return_final_states", return_final_states),
                        ("return_varlen_states", return_varlen_states),
                        ("return_chunk_states", return_chunk_states)):
        if not isinstance(value, bool):
            raise TypeError(f"tilec.mamba2.chunk_scan_combined: {name} must "
                            "be a bool")
    if return_varlen_states and cu_seqlens is None:
        raise _capi.error(
            Status.INVALID_ARGUMENT,
            "return_varlen_states=True needs cu_seqlens (the states at the "
            "end of each sequence it gives), as in mamba_ssm")


def _device_offsets(cu_seqlens, device, x):
    """cu_seqlens on x's device, where the kernel reads it: a tensor there as
    it is (nothing waits for the stream; the call can be captured in a CUDA
    graph), a CPU one checked here (its values are on the host: no wait)
    and copied without waiting, which is refused during graph capture. On
    the device the kernel checks the offsets itself and gives NaN states
    for the sequences of bad ones (docs/mamba2.md)."""
    if cu_seqlens.device == device:
        return cu_seqlens
    if cu_seqlens.device.type != "cpu":
        raise _capi.error(
            Status.NOT_DEVICE_POINTER,
            f"cu_seqlens is on {cu_seqlens.device} but x is on {device}: "
            "pass it on x's device or on the CPU")
    if torch.cuda.is_current_stream_capturing():
        raise _unsupported(
            "cu_seqlens on the CPU during CUDA graph capture",
            f"the kernel reads the offsets on the device: pass them on "
            f"{device}")
    # Not for an x of another rank (the library reports x first), nor while
    # torch.compile traces (reading the values would break the graph).
    if x.dim() == 4 and not _compiling():
        _check_host_offsets(cu_seqlens, x.shape[1])
    return cu_seqlens.to(device, non_blocking=True)


def _check_host_offsets(cu_seqlens, seqlen):
    """0 = cu[0] < cu[1] < ... < cu[nseq] = seqlen for offsets of the form
    the library takes (it reports the others), in the library's words."""
    if (cu_seqlens.dim() != 1 or cu_seqlens.dtype != torch.int32
            or cu_seqlens.shape[0] < 2):
        return
    offsets = cu_seqlens.tolist()
    if offsets[0] != 0:
        raise _capi.error(
            Status.INVALID_ARGUMENT,
            f"cu seqlens starts at {offsets[0]}; the first offset must be 0")
    for s in range(1, len(offsets)):
        if offsets[s] <= offsets[s - 1]:
            raise _capi.error(
                Status.INVALID_ARGUMENT,
                f"cu seqlens is not increasing: offset {s} is {offsets[s]} "
                f"after {offsets[s - 1]} (every sequence needs one step or "
                "more)")
    if offsets[-1] != seqlen:
        raise _capi.error(
            Status.INVALID_ARGUMENT,
            f"cu seqlens ends at {offsets[-1]}; the last offset must be "
            f"seqlen ({seqlen})")


_F32 = torch.float32
_DEFAULT_DT_LIMIT = (0.0, math.inf)  # chunk_scan_combined's default
_DEFAULT_BOUNDS = _DEFAULT_DT_LIMIT  # its _dt_limit


def chunk_scan_combined(x, dt, A, B, C, chunk_size, D=None, z=None,
                        dt_bias=None, initial_states=None, seq_idx=None,
                        cu_seqlens=None, dt_softplus=False,
                        dt_limit=_DEFAULT_DT_LIMIT,
                        return_final_states=False, return_varlen_states=False,
                        state_dtype=None, y_dtype=None,
                        return_chunk_states=False):
    """mamba_ssm's mamba_chunk_scan_combined, forward only.

    x (batch, seqlen, heads, headdim) bf16, f16 or f32; dt (batch,
    seqlen, heads) f32, bf16 or f16; A (heads,) f32; B, C (batch, seqlen,
    groups, dstate) in x's dtype; D (heads,) or (heads, headdim) f32 or
    None; z (batch, seqlen, heads, headdim) in x's dtype or None: y <- y *
    silu(z) after D; dt_bias (heads,) f32 or None;
    dt_softplus: dt <- softplus(dt + dt_bias) (mamba_ssm's, threshold 20);
    dt_limit (low, high): dt clamped after bias and softplus (default (0,
    inf), as mamba_ssm: negative steps become 0); initial_states (batch,
    heads, headdim, dstate) f32 or None; seq_idx (batch, seqlen) int32 or
    None: packed sequences (mamba_ssm's), non-decreasing along each row,
    which is the caller's contract as in mamba_ssm (it is on the GPU and
    not read back to check), no state or output mixing two sequences, the
    initial state sequence 0's; cu_seqlens (nseq + 1,) int32 or None:
    the same sequences as offsets into one packed row (batch 1), 0 =
    cu[0] < ... < cu[nseq] = seqlen, with seq_idx consistent with it
    (seq_idx = s on the steps of sequence s), on x's device (read there by
    the kernel: nothing waits for the stream and the call can be captured
    in a CUDA graph; offsets that break these rules give NaN varlen states
    for the sequences concerned) or on the CPU (checked, then copied
    without waiting; refused during graph capture). Any strides.
    Returns y (batch, seqlen, heads, headdim) in x's dtype, stored by the
    kernel in that dtype (y_dtype=torch.float32, a tilec extension,
    returns the f32 result instead); with return_final_states=True the
    tuple (y, final_states) with final_states (batch, heads, headdim,
    dstate) f32; with return_varlen_states=True (needs cu_seqlens) the
    states at the end of each sequence, (nseq, heads, headdim, dstate) f32
    (rounded to state_dtype when that is torch.bfloat16 or torch.float16),
    after them: (y, varlen_states) or (y, final_states, varlen_states), as
    mamba_ssm does. return_chunk_states=True (tilec's) appends the states
    entering each chunk, (batch, nchunks, heads, headdim, dstate) f32
    (mamba_ssm's internal `states`, what a backward pass needs).

    Raises TypeError for an argument of the wrong Python type,
    NotImplementedError naming an option tilec does not implement,
    Mamba2ArgumentError (a Mamba2Error and a ValueError) naming the
    tensor and the rule for a bad tensor, Mamba2Error for a failure of the
    driver or the launch, TorchVersionError below torch 2.4."""
    if _NATIVE_FORWARD is not None:
        y, final_states, chunk_states, varlen_states = _native_call(
            x, dt, A, B, C, chunk_size, D, z, dt_bias, initial_states,
            seq_idx, cu_seqlens, dt_softplus, dt_limit, return_final_states,
            return_varlen_states, state_dtype, y_dtype, return_chunk_states)
        if not (return_final_states or return_varlen_states
                or return_chunk_states):
            return y
        return _returned(y, final_states, chunk_states, varlen_states,
                         return_final_states, return_varlen_states,
                         return_chunk_states, state_dtype)
    # An eager call of a form seen before: its plan (what the checks below
    # and the C ABI's validation of that form found) and the C call.
    key = plan = None
    if (not _compiling() and type(x) is torch.Tensor
            and type(chunk_size) is int and type(dt_softplus) is bool
            and type(return_final_states) is bool
            and type(return_varlen_states) is bool
            and type(return_chunk_states) is bool):
        try:
            key = (_plans.forward_key(x, dt, A, B, C, D, initial_states, z,
                                      dt_bias, seq_idx, cu_seqlens),
                   chunk_size, dt_softplus, dt_limit, return_final_states,
                   return_varlen_states, state_dtype, y_dtype,
                   return_chunk_states)
            plan = _call_plans.get(key)
        except (AttributeError, TypeError):  # not tensors, unhashable
            key = None
    if plan is not None:
        y, final_states, chunk_states, varlen_states = plan.run(
            x, dt, A, B, C, D, initial_states, z, dt_bias, seq_idx,
            cu_seqlens)
    else:
        y, final_states, chunk_states, varlen_states = _checked_call(
            key, x, dt, A, B, C, chunk_size, D, z, dt_bias, initial_states,
            seq_idx, cu_seqlens, dt_softplus, dt_limit, return_final_states,
            return_varlen_states, state_dtype, y_dtype, return_chunk_states)
    return _returned(y, final_states, chunk_states, varlen_states,
                     return_final_states, return_varlen_states,
                     return_chunk_states, state_dtype)


def _returned(y, final_states, chunk_states, varlen_states,
              return_final_states, return_varlen_states, return_chunk_states,
              state_dtype):
    """chunk_scan_combined's result from the four outputs (None for one not
    asked for)."""
    if state_dtype is not None and state_dtype is not torch.float32:
        # The varlen states (f32 from the kernels) and the chunk states
        # returned are rounded once, to nearest even: the chunk states are
        # in state_dtype already where the kernels stored bf16 states
        # (_bf16_states), else f32. The final states stay f32, as mamba_ssm
        # returns them.
        if return_varlen_states:
            varlen_states = varlen_states.to(state_dtype)
        if return_chunk_states:
            chunk_states = chunk_states.to(state_dtype)
    if not (return_final_states or return_varlen_states
            or return_chunk_states):
        return y
    return (y,) + ((final_states,) if return_final_states else ()) + (
        (varlen_states,) if return_varlen_states else ()) + (
        (chunk_states,) if return_chunk_states else ())


_NATIVE_ERROR = re.compile(
    r"\[tilec_mamba2 (?:(\d+)\] (\w+): |not implemented\] )(.*)", re.S)


def _native_error(error):
    """The tilec exception of a RuntimeError that the C++ op raised for a
    failed check or call (python/torch_op/Errors.h): tilec.errors.error_for
    for a message "[tilec_mamba2 <status>] <name>: ...", NotImplementedError
    for "[tilec_mamba2 not implemented] ..."; None for another error."""
    match = _NATIVE_ERROR.search(str(error))
    if match is None:
        return None
    status, name, message = match.groups()
    if status is None:
        return NotImplementedError(message)
    return error_for(int(status), name, message)


def _call_native(op, *args):
    """op(*args), a RuntimeError of the C++ op raised as tilec's exception
    (not while torch.compile traces: it traces the op alone)."""
    if _compiling():
        return op(*args)
    try:
        return op(*args)
    except RuntimeError as error:
        native = _native_error(error)
        if native is None:
            raise
        raise native from None


def _native_call(x, dt, A, B, C, chunk_size, D, z, dt_bias, initial_states,
                 seq_idx, cu_seqlens, dt_softplus, dt_limit,
                 return_final_states, return_varlen_states, state_dtype,
                 y_dtype, return_chunk_states):
    """chunk_scan_combined through the C++ op: (y, final states, chunk
    states, varlen states), None for those not asked for. An eager call
    whose scalars
    have the op's types and whose cu_seqlens, if any, is on x's device goes
    straight to the op, which checks the rest (the C ABI's validation, the
    devices, in the order _checked_call would); anything else, and a call
    the op refuses for a reason of its schema (an argument of another
    Python type), takes _checked_call, whose checks name the argument."""
    if (not _compiling() and type(x) is torch.Tensor
            and type(chunk_size) is int and type(dt_softplus) is bool
            and type(return_final_states) is bool
            and type(return_varlen_states) is bool
            and type(return_chunk_states) is bool
            and (y_dtype is None or y_dtype is _F32)
            and state_dtype in _STATE_DTYPES
            and (cu_seqlens is None or (type(cu_seqlens) is torch.Tensor
                                        and cu_seqlens.device == x.device))):
        low, high = (_DEFAULT_BOUNDS if dt_limit is _DEFAULT_DT_LIMIT
                     else _dt_limit(dt_limit))
        try:
            outputs = _NATIVE_FORWARD(
                x, dt, A, B, C, chunk_size, D, initial_states,
                return_final_states, z, dt_bias, dt_softplus, low, high,
                y_dtype is _F32, return_chunk_states, seq_idx, cu_seqlens,
                return_varlen_states, _bf16_states(state_dtype, x))
        except Exception as error:  # e.g. an int beyond 64 bits: checked below
            native = _native_error(error)
            if native is not None:
                raise native from None
        else:
            return _unpacked(outputs, return_final_states,
                             return_chunk_states, return_varlen_states)
    return _checked_call(None, x, dt, A, B, C, chunk_size, D, z, dt_bias,
                         initial_states, seq_idx, cu_seqlens, dt_softplus,
                         dt_limit, return_final_states, return_varlen_states,
                         state_dtype, y_dtype, return_chunk_states)


# The form of a chunk_scan_combined call -> the ForwardPlan that ran it
# eagerly; filled by calls that succeeded, with cu_seqlens, if any, on x's
# device (a CPU one is checked and copied on every call).
_call_plans = {}


def _checked_call(key, x, dt, A, B, C, chunk_size, D, z, dt_bias,
                  initial_states, seq_idx, cu_seqlens, dt_softplus, dt_limit,
                  return_final_states, return_varlen_states, state_dtype,
                  y_dtype, return_chunk_states):
    """chunk_scan_combined's call with every check: eagerly (remembering
    the plan under `key`, when not None) or through the op. Returns y and
    the three states (None when not asked for)."""
    _check_arguments(x, dt, A, B, C, chunk_size, D, z, dt_bias,
                     initial_states, seq_idx, cu_seqlens, dt_softplus,
                     dt_limit, return_final_states, return_varlen_states,
                     state_dtype, y_dtype, return_chunk_states)
    device = _check_same_device(_tensor_arguments(
        x, dt, A, B, C, D, initial_states, z, dt_bias, seq_idx))
    low, high = _dt_limit(dt_limit)
    if not HAS_OP:
        raise TorchVersionError(
            "tilec.mamba2.chunk_scan_combined is a torch.library.custom_op "
            f"and needs torch >= {MIN_TORCH_FOR_OP[0]}.{MIN_TORCH_FOR_OP[1]}"
            f"; this is torch {torch.__version__}")
    offsets = cu_seqlens
    if cu_seqlens is not None:
        offsets = _device_offsets(cu_seqlens, device, x)
    y_f32 = y_dtype == torch.float32
    bf16_states = _bf16_states(state_dtype, x)
    if _NATIVE_FORWARD is not None or not _eager(device, x):
        return _unpacked(_call_native(
            torch.ops.tilec.mamba2_chunk_scan_combined, x, dt, A, B, C,
            chunk_size, D, initial_states, return_final_states, z, dt_bias,
            dt_softplus, low, high, y_f32, return_chunk_states, seq_idx,
            offsets, return_varlen_states, bf16_states), return_final_states,
            return_chunk_states, return_varlen_states)
    result, plan = _run(device, x, dt, A, B, C, chunk_size, D,
                        initial_states, return_final_states, z, dt_bias,
                        dt_softplus, low, high, y_f32, return_chunk_states,
                        seq_idx, offsets, return_varlen_states, bf16_states)
    if key is not None and offsets is cu_seqlens:
        _plans.remember(_call_plans, key, plan)
    return result


# The decode step: mamba_ssm's selective_state_update.

DECODE_OP_NAME = "tilec::mamba2_selective_state_update"
DECODE_SCHEMA = (
    "mamba2_selective_state_update(Tensor(a0!) state, Tensor x, "
    "Tensor dt, Tensor A, Tensor B, Tensor C, Tensor? D, Tensor? z, "
    "Tensor? dt_bias, bool dt_softplus, Tensor? state_batch_indices, "
    "SymInt pad_slot_id) -> Tensor")
__all__ += ["selective_state_update", "state_update", "DECODE_OP_NAME"]

_WIDENED = (torch.bfloat16, torch.float16)  # converted to f32 exactly


def _per_head_index(name, t, heads_only):
    """mamba_ssm passes A (nheads, dim, dstate), dt (batch, nheads, dim) and
    dt_bias (nheads, dim) expanded from one value per head (stride 0 over
    the trailing dimensions, its "tie_hdim" case): the index of their
    per-head view, None for a tensor in that form already. `heads_only` is
    the rank of the per-head form; other strides are not supported (the
    kernels take one value per head)."""
    if t is None or t.dim() <= heads_only:
        return None
    trailing = range(heads_only, t.dim())
    if any(t.stride(d) != 0 and t.shape[d] != 1 for d in trailing):
        raise _unsupported_decode(
            f"{name} of shape {tuple(t.shape)} with strides {t.stride()}",
            f"{name} must hold one value per head: mamba_ssm's Mamba-2 "
            "expands it with stride 0 over headdim (and dstate)")
    return (slice(None),) * heads_only + (0,) * (t.dim() - heads_only)


def _kernel_forms(dt, A, D, dt_bias):
    """dt, A, D and dt_bias in the kernels' forms (per head, f32: bf16 and
    f16 widened exactly), and the widening a DecodePlan repeats per call
    (position, index) for those converted."""
    forms, widen = [], []
    for position, (name, t, heads_only) in enumerate(
            (("dt", dt, 2), ("A", A, 1), ("D", D, None),
             ("dt_bias", dt_bias, 1))):
        index = (None if heads_only is None
                 else _per_head_index(name, t, heads_only))
        form = t if index is None else t[index]
        if form is not None and form.dtype in _WIDENED:
            widen.append((position, index))
            form = form.float()
        forms.append(form)
    return forms, tuple(widen)


def _unsupported_decode(argument, why):
    return NotImplementedError(
        f"tilec.mamba2.selective_state_update: {argument} is not supported "
        f"({why})")


# The form of a state_update call (_plans.decode_key) -> its DecodePlan, and the
# same for selective_state_update's arguments before their conversion to the
# kernels' forms; filled by calls that succeeded with no indices or int64
# ones on the device (others are converted on every call).
_decode_plans = {}
_step_plans = {}


def state_update(state, x, dt, A, B, C, D=None, z=None, dt_bias=None,
                 dt_softplus=False, state_batch_indices=None, pad_slot_id=-1):
    """The decode op's implementation (any torch): updates `state` in place
    and returns y (batch, heads, headdim) in x's dtype. The arguments are
    in the kernels' forms (dt (batch, heads), A and dt_bias (heads), D
    (heads) or (heads, headdim), state f32, bf16 or f16, x/z/B/C bf16 or
    f16); the C ABI checks everything else. The kernel reads
    state_batch_indices on the device (docs/mamba2.md): a CUDA int64
    tensor is passed as it is (another integer dtype is converted on the
    device), so nothing waits for the stream and the call can be captured
    in a CUDA graph. Through the plan of the call's form, built at its
    first call."""
    key = _plans.decode_key(state, x, dt, A, B, C, D, z, dt_bias,
                      state_batch_indices)
    plan = _decode_plans.get(key)
    if plan is not None:
        return plan.run(state, x, dt, A, B, C, D, z, dt_bias, dt_softplus,
                        state_batch_indices, pad_slot_id)
    plan, indices = _new_decode_plan(state, x, dt, A, B, C, D, z, dt_bias,
                                     state_batch_indices, ())
    y = plan.run(state, x, dt, A, B, C, D, z, dt_bias, dt_softplus, indices,
                 pad_slot_id)
    if indices is state_batch_indices:
        _plans.remember(_decode_plans, key, plan)
    return y


def _new_decode_plan(state, x, dt, A, B, C, D, z, dt_bias,
                     state_batch_indices, widen):
    """The DecodePlan of a call whose dt, A, D, dt_bias are in the kernels'
    forms, and its indices as the kernel reads them (int64 on the device;
    the caller's tensor when it is so already)."""
    named = [("state", state), ("x", x), ("dt", dt), ("A", A), ("B", B),
             ("C", C)] + [(n, t) for n, t in (("D", D), ("z", z),
                                              ("dt_bias", dt_bias))
                          if t is not None]
    device = _check_devices(named)
    batch, heads, headdim = x.shape if x.dim() == 3 else (1, 1, 1)
    groups, dstate = B.shape[1:] if B.dim() == 3 else (1, 1)
    state_rows = state.shape[0] if state.dim() == 4 else batch
    indices = None
    if state_batch_indices is not None:
        if (state_batch_indices.device != device
                and _cuda_context.capturing()):
            raise _unsupported_decode(
                f"state_batch_indices on {state_batch_indices.device} during "
                "CUDA graph capture",
                f"the kernel reads them on the device: pass them on {device}")
        if state_batch_indices.shape != (batch,):
            raise _capi.error(
                Status.INVALID_SHAPE,
                f"state_batch_indices has shape "
                f"{tuple(state_batch_indices.shape)}; the batch needs "
                f"({batch},)")
        indices = state_batch_indices.to(device, torch.int64).contiguous()
    problem = _capi.DecodeProblem(batch, heads, groups, headdim, dstate,
                                  state_rows)
    _prepare(device)
    plan = _plans.DecodePlan(device, problem,
                             [state, x, dt, A, B, C, D, z, dt_bias], widen,
                             (batch, heads, headdim))
    return plan, indices


def _decode_fake(state, x, dt, A, B, C, D, z, dt_bias, dt_softplus,
                 state_batch_indices, pad_slot_id):
    # As _fake: a meta tensor among CUDA ones is refused, not faked.
    _check_same_device([(n, t) for n, t in (
        ("state", state), ("x", x), ("dt", dt), ("A", A), ("B", B), ("C", C),
        ("D", D), ("z", z), ("dt_bias", dt_bias)) if t is not None])
    return x.new_empty(x.shape)


# The C++ op's decode step, called by selective_state_update's eager calls
# of arguments in the kernels' forms; None for the Python registrations.
_NATIVE_DECODE = None
if OP_REGISTRATION == "cpp":
    torch.library.register_fake(DECODE_OP_NAME, _decode_fake, lib=_LIBRARY)
    _NATIVE_DECODE = _bound(
        torch.ops.tilec.mamba2_selective_state_update.default)
elif _LIBRARY is not None:
    _LIBRARY.define(DECODE_SCHEMA)
    _LIBRARY.impl("mamba2_selective_state_update", state_update,
                  "CompositeExplicitAutograd")
    torch.library.register_fake(DECODE_OP_NAME, _decode_fake, lib=_LIBRARY)
elif HAS_OP:
    @torch.library.custom_op(DECODE_OP_NAME, mutates_args=("state",))
    def _decode_op(state: torch.Tensor, x: torch.Tensor, dt: torch.Tensor,
                   A: torch.Tensor, B: torch.Tensor, C: torch.Tensor,
                   D: Optional[torch.Tensor], z: Optional[torch.Tensor],
                   dt_bias: Optional[torch.Tensor], dt_softplus: bool,
                   state_batch_indices: Optional[torch.Tensor],
                   pad_slot_id: int) -> torch.Tensor:
        return state_update(state, x, dt, A, B, C, D, z, dt_bias, dt_softplus,
                            state_batch_indices, pad_slot_id)

    _decode_op.register_fake(_decode_fake)


def selective_state_update(state, x, dt, A, B, C, D=None, z=None,
                           dt_bias=None, dt_softplus=False,
                           state_batch_indices=None, pad_slot_id=-1):
    """mamba_ssm's selective_state_update (the heads form): one token of
    each sequence, `state` updated in place; returns y, shaped like x, in
    x's dtype.

    state (batch or cache slots, nheads, headdim, dstate) f32, bf16 or f16
    (computed in f32, the new state rounded once to its dtype); x and z
    (batch, nheads, headdim) bf16 or f16; dt (batch, nheads) or mamba_ssm's
    (batch, nheads, headdim) expanded from one value per head; A (nheads,)
    or (nheads, headdim, dstate) expanded likewise; B, C (batch, ngroups,
    dstate) in x's dtype; D (nheads,) or (nheads, headdim); dt_bias
    (nheads,) or (nheads, headdim) expanded; dt, A, D, dt_bias f32 (bf16 and f16 are
    widened exactly). dt_softplus applies softplus(dt + dt_bias) as
    mamba_ssm does. state_batch_indices (batch,) picks each entry's state
    row; an entry equal to pad_slot_id (vLLM's PAD_SLOT_ID, -1) is skipped:
    its state is not touched and its y is computed from a zero state, and
    so is an entry outside [0, state.shape[0]). The kernel reads the
    indices on the device: nothing waits for the stream, and the call can
    be captured in a CUDA graph (with the indices on the GPU).

    Raises NotImplementedError for mamba_ssm's forms tilec does not
    implement (no heads dimension, dt or A varying along headdim),
    Mamba2ArgumentError naming the tensor and rule for a bad tensor,
    Mamba2Error for a driver or launch failure, TorchVersionError below
    torch 2.4."""
    if _NATIVE_DECODE is not None and not _compiling():
        # Arguments in the kernels' forms go straight to the C++ op.
        try:
            direct = (state.dim() == 4 and dt.dim() == 2 and A.dim() == 1
                      and dt.dtype not in _WIDENED
                      and A.dtype not in _WIDENED
                      and (D is None or D.dtype not in _WIDENED)
                      and (dt_bias is None or (dt_bias.dim() == 1 and
                                               dt_bias.dtype not in _WIDENED)))
        except AttributeError:  # not tensors: the checks below say so
            direct = False
        if direct:
            return _call_native(_NATIVE_DECODE, state, x, dt, A, B, C, D, z,
                                dt_bias, bool(dt_softplus),
                                state_batch_indices, int(pad_slot_id))
    elif not _compiling() and type(state) is torch.Tensor:
        # An eager call of a form seen before: its plan and the C call.
        try:
            plan = _step_plans.get(_plans.decode_key(
                state, x, dt, A, B, C, D, z, dt_bias, state_batch_indices))
        except (AttributeError, TypeError):  # not tensors
            plan = None
        if plan is not None:
            return plan.run(state, x, dt, A, B, C, D, z, dt_bias,
                            bool(dt_softplus), state_batch_indices,
                            int(pad_slot_id))
    if state.dim() == 3:
        raise _unsupported_decode(
            "the form without a heads dimension (Mamba-1's)",
            "pass state (batch, nheads, headdim, dstate)")
    (dt_k, A_k, D_k, bias_k), widen = _kernel_forms(dt, A, D, dt_bias)
    if not HAS_OP:
        raise TorchVersionError(
            "tilec.mamba2.selective_state_update is a torch.library."
            f"custom_op and needs torch >= {MIN_TORCH_FOR_OP[0]}."
            f"{MIN_TORCH_FOR_OP[1]}; this is torch {torch.__version__}")
    if _NATIVE_DECODE is not None or not _eager(state.device, state):
        return _call_native(
            torch.ops.tilec.mamba2_selective_state_update, state, x, dt_k,
            A_k, B, C, D_k, z, bias_k, bool(dt_softplus), state_batch_indices,
            int(pad_slot_id))
    plan, indices = _new_decode_plan(state, x, dt_k, A_k, B, C, D_k, z,
                                     bias_k, state_batch_indices, widen)
    y = plan.run(state, x, dt, A, B, C, D, z, dt_bias, bool(dt_softplus),
                 indices, int(pad_slot_id))
    if indices is state_batch_indices:
        _plans.remember(_step_plans, _plans.decode_key(
            state, x, dt, A, B, C, D, z, dt_bias, state_batch_indices), plan)
    return y
