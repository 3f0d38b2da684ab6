"""The Mamba-2 forward pass for PyTorch: a drop-in for mamba_ssm's
``mamba_chunk_scan_combined`` (forward only).

    from tilec.mamba2 import chunk_scan_combined
    y = chunk_scan_combined(x, dt, A, B, C, chunk_size, D=D)

Errors: Mamba2ArgumentError, Mamba2Error, TorchVersionError (re-exported
here from tilec.errors).

``chunk_scan_combined`` is a PyTorch custom op (``tilec::mamba2_chunk_scan_combined``,
torch >= 2.4) with a fake implementation, so it runs under torch.compile
without a graph break and inside torch.cuda.graph capture; an eager call on
plain CUDA tensors skips the dispatcher and runs the implementation
directly (_eager). ``selective_state_update`` (the decode step) is built the
same way. See python/README.md for what they accept.
"""

import ctypes
import math
import re
from typing import Optional, Tuple

import torch

from . import _capi, _cuda_context
from .errors import Mamba2ArgumentError, Mamba2Error, Status, TorchVersionError

MIN_TORCH_FOR_OP = (2, 4)
OP_NAME = "tilec::mamba2_chunk_scan_combined"

__all__ = ["chunk_scan_combined", "forward", "Mamba2ArgumentError",
           "Mamba2Error", "TorchVersionError", "MIN_TORCH_FOR_OP", "HAS_OP"]


def _torch_version():
    match = re.match(r"(\d+)\.(\d+)", torch.__version__)
    return (int(match.group(1)), int(match.group(2)))


HAS_OP = (_torch_version() >= MIN_TORCH_FOR_OP
          and hasattr(torch.library, "custom_op"))


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
    if device.type != "cuda":
        raise _capi.error(
            Status.NOT_DEVICE_POINTER,
            ", ".join(name for name, _ in named) + f" are on {device}: "
            "tilec's Mamba-2 forward needs CUDA tensors")
    return device


_prepared = set()  # devices whose context has every kernel loaded
# (device, heads) -> a zero D, which the kernels only read. Never emptied:
# a dropped one could be handed out again by the allocator while a kernel
# on another stream still reads it; a model has few head counts.
_zeros = {}
_workspace_bytes = {}  # problem sizes -> tilec_mamba2_workspace_size
_SIZES_LIMIT = 1024  # problems remembered before that cache starts afresh


def _zero_d(device, heads):
    """D = 0 for a call without D. Outside graph capture it is made once per
    device and size: nothing writes it. During capture a new one is made
    (its fill is captured, so the tensor holds zeros only once replayed)."""
    if torch.cuda.is_current_stream_capturing():
        return torch.zeros(heads, dtype=torch.float32, device=device)
    key = (device, heads)
    D = _zeros.get(key)
    if D is None:
        D = _zeros[key] = torch.zeros(heads, dtype=torch.float32,
                                      device=device)
    return D


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


_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _current_stream(device):
    """The CUstream of the device's current stream, as an int: the raw
    handle where torch has the accessor (its CUDA builds), which skips
    making a torch.cuda.Stream object per call."""
    if _raw_stream is not None:
        return _raw_stream(device.index)
    return torch.cuda.current_stream(device).cuda_stream


def _run(device, x, dt, A, B, C, chunk_size, D, initial_states,
         return_final_states, z=None, dt_bias=None, dt_softplus=False,
         dt_limit_low=-math.inf, dt_limit_high=math.inf, y_f32=False,
         return_chunk_states=False, seq_idx=None, cu_seqlens=None,
         return_varlen_states=False):
    """tilec_mamba2_forward_with_options on tensors already known to be on
    `device`, a CUDA device (cu_seqlens too): makes its
    context current and calls the C ABI on its current stream with a
    workspace from the torch allocator. Returns (y in x's dtype, or f32
    with y_f32; the final states or None; the states entering each chunk
    or None; the states at the end of each sequence of cu_seqlens or
    None). dt is clamped to
    [dt_limit_low, dt_limit_high] (infinite bounds clamp nothing). torch's
    current device is not changed: every allocation names the device and
    the C ABI runs in the context made current."""
    _check_chunk(chunk_size)
    batch, seqlen, heads, headdim, groups, dstate = problem_sizes(x, B)
    sizes = (batch, seqlen, heads, groups, headdim, dstate, chunk_size)
    problem = _capi.Problem(*sizes)
    _cuda_context.ensure_current(device.index)
    if device.index not in _prepared:
        _capi.prepare()
        _prepared.add(device.index)
    if D is None:
        D = _zero_d(device, heads)
    y = torch.empty((batch, seqlen, heads, headdim), dtype=_y_dtype(x, y_f32),
                    device=device)
    final = (torch.empty((batch, heads, headdim, dstate), dtype=torch.float32,
                         device=device) if return_final_states else None)
    states = None
    if return_chunk_states:
        nchunks = -(-seqlen // chunk_size) if chunk_size > 0 else 1
        states = torch.empty((batch, nchunks, heads, headdim, dstate),
                             dtype=torch.float32, device=device)
    varlen = None
    if return_varlen_states:
        varlen = torch.empty((_num_sequences(cu_seqlens), heads, headdim,
                              dstate), dtype=torch.float32, device=device)
    tensors = [x, dt, A, B, C, D, initial_states, y, final, z, dt_bias,
               states, seq_idx, cu_seqlens, varlen]
    limit = (None if dt_limit_low == -math.inf and dt_limit_high == math.inf
             else (dt_limit_low, dt_limit_high))
    options = dict(dt_softplus=dt_softplus, dt_limit=limit)
    stream = _current_stream(device)
    try:
        workspace_bytes = _workspace_size(problem, sizes)
    except Mamba2Error:
        # The problem is invalid: the forward reports it, or whatever its
        # documented order finds first, without touching memory.
        _capi.tensors_forward(problem, tensors, stream=stream, **options)
        raise
    workspace = torch.empty(workspace_bytes, dtype=torch.uint8, device=device)
    _capi.tensors_forward(problem, tensors, workspace=workspace.data_ptr(),
                          workspace_bytes=workspace_bytes, stream=stream,
                          **options)
    return y, final, states, varlen


def _num_sequences(cu_seqlens):
    """The sequences cu_seqlens (nseq + 1) gives; 0 for a tensor of another
    rank (the C ABI reports its shape)."""
    return cu_seqlens.shape[0] - 1 if cu_seqlens.dim() == 1 else 0


def forward(x, dt, A, B, C, chunk_size, D=None, initial_states=None,
            return_final_states=False, z=None, dt_bias=None,
            dt_softplus=False, dt_limit_low=-math.inf, dt_limit_high=math.inf,
            y_f32=False, return_chunk_states=False, seq_idx=None,
            cu_seqlens=None, return_varlen_states=False):
    """The op's implementation: checks the devices, makes the device's
    context current, and calls tilec_mamba2_forward_with_options on the
    current stream with a workspace from the torch allocator. Returns (y in
    x's dtype, or f32 with y_f32; final states in f32; the states entering
    each chunk (batch, nchunks, heads, headdim, dstate) f32; the states at
    the end of each sequence (nseq, heads, headdim, dstate) f32), the last
    three empty f32 tensors when not asked for. cu_seqlens is on x's
    device, like every tensor. dt is clamped to [dt_limit_low,
    dt_limit_high] (infinite bounds clamp nothing). Works with any torch;
    chunk_scan_combined is the public entry."""
    device = _check_devices(_tensor_arguments(
        x, dt, A, B, C, D, initial_states, z, dt_bias, seq_idx, cu_seqlens))
    y, final, states, varlen = _run(
        device, x, dt, A, B, C, chunk_size, D, initial_states,
        return_final_states, z, dt_bias, dt_softplus, dt_limit_low,
        dt_limit_high, y_f32, return_chunk_states, seq_idx, cu_seqlens,
        return_varlen_states)
    # One empty tensor per absent output: a custom op's outputs may not
    # alias each other.
    def empty():
        return torch.empty((0,), dtype=torch.float32, device=device)
    return (y, empty() if final is None else final,
            empty() if states is None else states,
            empty() if varlen is None else varlen)

def _eager(device, x):
    """Whether a call can skip the dispatcher and run the implementation
    directly: plain CUDA tensors (not a FakeTensor or another subclass,
    which need the op's fake) outside torch.compile's tracing, which must
    see the op. The dispatcher costs a custom op tens of microseconds per
    call (pytorch/pytorch issues 139500, 177109); what it would add here is
    nothing an eager call needs (no autograd formula, no other backend)."""
    return (not torch.compiler.is_compiling() and device.type == "cuda"
            and type(x) is torch.Tensor)


def _fake(x, dt, A, B, C, chunk_size, D=None, initial_states=None,
          return_final_states=False, z=None, dt_bias=None, dt_softplus=False,
          dt_limit_low=-math.inf, dt_limit_high=math.inf, y_f32=False,
          return_chunk_states=False, seq_idx=None, cu_seqlens=None,
          return_varlen_states=False):
    batch, seqlen, heads, headdim, _, dstate = problem_sizes(x, B)
    y = x.new_empty((batch, seqlen, heads, headdim),
                    dtype=_y_dtype(x, y_f32))
    final = x.new_empty(
        (batch, heads, headdim, dstate) if return_final_states else (0,),
        dtype=torch.float32)
    nchunks = -(-seqlen // chunk_size) if chunk_size > 0 else 1
    states = x.new_empty(
        (batch, nchunks, heads, headdim, dstate) if return_chunk_states
        else (0,), dtype=torch.float32)
    varlen = x.new_empty(
        (_num_sequences(cu_seqlens), heads, headdim, dstate)
        if return_varlen_states else (0,), dtype=torch.float32)
    return y, final, states, varlen


if HAS_OP:
    @torch.library.custom_op(OP_NAME, mutates_args=())
    def _op(x: torch.Tensor, dt: torch.Tensor, A: torch.Tensor,
            B: torch.Tensor, C: torch.Tensor, chunk_size: int,
            D: Optional[torch.Tensor], initial_states: Optional[torch.Tensor],
            return_final_states: bool, z: Optional[torch.Tensor],
            dt_bias: Optional[torch.Tensor], dt_softplus: bool,
            dt_limit_low: float, dt_limit_high: float, y_f32: bool,
            return_chunk_states: bool, seq_idx: Optional[torch.Tensor],
            cu_seqlens: Optional[torch.Tensor], return_varlen_states: bool
            ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor,
                       torch.Tensor]:
        return forward(x, dt, A, B, C, chunk_size, D, initial_states,
                       return_final_states, z, dt_bias, dt_softplus,
                       dt_limit_low, dt_limit_high, y_f32,
                       return_chunk_states, seq_idx, cu_seqlens,
                       return_varlen_states)

    @_op.register_fake
    def _(x, dt, A, B, C, chunk_size, D, initial_states, return_final_states,
          z, dt_bias, dt_softplus, dt_limit_low, dt_limit_high, y_f32,
          return_chunk_states, seq_idx, cu_seqlens, return_varlen_states):
        return _fake(x, dt, A, B, C, chunk_size, D, initial_states,
                     return_final_states, z, dt_bias, dt_softplus,
                     dt_limit_low, dt_limit_high, y_f32, return_chunk_states,
                     seq_idx, cu_seqlens, return_varlen_states)


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
# f32.
_STATE_DTYPES = (None, torch.float32, torch.bfloat16, torch.float16)


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
    if x.dim() == 4 and not torch.compiler.is_compiling():
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


def chunk_scan_combined(x, dt, A, B, C, chunk_size, D=None, z=None,
                        dt_bias=None, initial_states=None, seq_idx=None,
                        cu_seqlens=None, dt_softplus=False,
                        dt_limit=(0.0, float("inf")),
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
    (rounded to state_dtype when that is torch.bfloat16 or torch.float16;
    the kernels keep every state in f32 whatever it is), after them: (y, varlen_states) or (y, final_states, varlen_states), as
    mamba_ssm does. return_chunk_states=True (tilec's) appends the states
    entering each chunk, (batch, nchunks, heads, headdim, dstate) f32
    (mamba_ssm's internal `states`, what a backward pass needs).

    Raises TypeError for an argument of the wrong Python type,
    NotImplementedError naming an option tilec does not implement,
    Mamba2ArgumentError (a Mamba2Error and a ValueError) naming the
    tensor and the rule for a bad tensor, Mamba2Error for a failure of the
    driver or the launch, TorchVersionError below torch 2.4."""
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
    if cu_seqlens is not None:
        cu_seqlens = _device_offsets(cu_seqlens, device, x)
    if _eager(device, x):
        y, final_states, chunk_states, varlen_states = _run(
            device, x, dt, A, B, C, chunk_size, D, initial_states,
            return_final_states, z, dt_bias, dt_softplus, low, high,
            y_dtype == torch.float32, return_chunk_states, seq_idx,
            cu_seqlens, return_varlen_states)
    else:
        y, final_states, chunk_states, varlen_states = (
            torch.ops.tilec.mamba2_chunk_scan_combined(
                x, dt, A, B, C, chunk_size, D, initial_states,
                return_final_states, z, dt_bias, dt_softplus, low, high,
                y_dtype == torch.float32, return_chunk_states, seq_idx,
                cu_seqlens, return_varlen_states))
    if state_dtype not in (None, torch.float32):
        # The kernels carry the states in f32 whatever state_dtype is (so y
        # and the final states are at least as accurate as mamba_ssm's);
        # the returned ones are rounded once, to nearest even.
        varlen_states = varlen_states.to(state_dtype)
        chunk_states = chunk_states.to(state_dtype)
    result = (y,) + ((final_states,) if return_final_states else ()) + (
        (varlen_states,) if return_varlen_states else ()) + (
        (chunk_states,) if return_chunk_states else ())
    return result if len(result) > 1 else y


# The decode step: mamba_ssm's selective_state_update.

DECODE_OP_NAME = "tilec::mamba2_selective_state_update"
__all__ += ["selective_state_update", "state_update", "DECODE_OP_NAME"]

_WIDENED = (torch.bfloat16, torch.float16)  # converted to f32 exactly


def _per_head(name, t, heads_only):
    """mamba_ssm passes A (nheads, dim, dstate), dt (batch, nheads, dim) and
    dt_bias (nheads, dim) expanded from one value per head (stride 0 over
    the trailing dimensions, its "tie_hdim" case): their per-head view.
    `heads_only` is the rank of the per-head form; other strides are not
    supported (the kernels take one value per head)."""
    if t is None or t.dim() <= heads_only:
        return t
    trailing = range(heads_only, t.dim())
    if any(t.stride(d) != 0 and t.shape[d] != 1 for d in trailing):
        raise _unsupported_decode(
            f"{name} of shape {tuple(t.shape)} with strides {t.stride()}",
            f"{name} must hold one value per head: mamba_ssm's Mamba-2 "
            "expands it with stride 0 over headdim (and dstate)")
    return t[(slice(None),) * heads_only + (0,) * (t.dim() - heads_only)]


def _unsupported_decode(argument, why):
    return NotImplementedError(
        f"tilec.mamba2.selective_state_update: {argument} is not supported "
        f"({why})")


def _as_f32(t):
    return t.float() if t is not None and t.dtype in _WIDENED else t


def state_update(state, x, dt, A, B, C, D=None, z=None, dt_bias=None,
                 dt_softplus=False, state_batch_indices=None, pad_slot_id=-1):
    """The decode op's implementation (any torch): updates `state` in place
    and returns y (batch, heads, headdim) in x's dtype. The arguments are
    in the kernels' forms (dt (batch, heads), A and dt_bias (heads), D
    (heads) or (heads, headdim), state f32, bf16 or f16, x/z/B/C bf16 or
    f16);
    the C ABI checks everything else. The kernel reads state_batch_indices on the device
    (docs/mamba2.md): a CUDA int64 tensor is passed as it is (another
    integer dtype is converted on the device), so nothing waits for the
    stream and the call can be captured in a CUDA graph."""
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
                and torch.cuda.is_current_stream_capturing()):
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
    _cuda_context.ensure_current(device.index)
    if device.index not in _prepared:
        _capi.prepare()
        _prepared.add(device.index)
    y = torch.empty((batch, heads, headdim), dtype=x.dtype, device=device)
    _capi.state_update(
        problem, [state, x, dt, A, B, C, D, z, dt_bias, y],
        dt_softplus=dt_softplus,
        state_indices=None if indices is None else indices.data_ptr(),
        pad_slot_id=pad_slot_id, stream=_current_stream(device))
    return y


if HAS_OP:
    @torch.library.custom_op(DECODE_OP_NAME, mutates_args=("state",))
    def _decode_op(state: torch.Tensor, x: torch.Tensor, dt: torch.Tensor,
                   A: torch.Tensor, B: torch.Tensor, C: torch.Tensor,
                   D: Optional[torch.Tensor], z: Optional[torch.Tensor],
                   dt_bias: Optional[torch.Tensor], dt_softplus: bool,
                   state_batch_indices: Optional[torch.Tensor],
                   pad_slot_id: int) -> torch.Tensor:
        return state_update(state, x, dt, A, B, C, D, z, dt_bias, dt_softplus,
                            state_batch_indices, pad_slot_id)

    @_decode_op.register_fake
    def _(state, x, dt, A, B, C, D, z, dt_bias, dt_softplus,
          state_batch_indices, pad_slot_id):
        return x.new_empty(x.shape)


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
    if state.dim() == 3:
        raise _unsupported_decode(
            "the form without a heads dimension (Mamba-1's)",
            "pass state (batch, nheads, headdim, dstate)")
    dt = _as_f32(_per_head("dt", dt, 2))
    A = _as_f32(_per_head("A", A, 1))
    dt_bias = _as_f32(_per_head("dt_bias", dt_bias, 1))
    D = _as_f32(D)
    if not HAS_OP:
        raise TorchVersionError(
            "tilec.mamba2.selective_state_update is a torch.library."
            f"custom_op and needs torch >= {MIN_TORCH_FOR_OP[0]}."
            f"{MIN_TORCH_FOR_OP[1]}; this is torch {torch.__version__}")
    if _eager(state.device, state):
        return state_update(state, x, dt, A, B, C, D, z, dt_bias,
                            bool(dt_softplus), state_batch_indices,
                            int(pad_slot_id))
    return torch.ops.tilec.mamba2_selective_state_update(
        state, x, dt, A, B, C, D, z, dt_bias, bool(dt_softplus),
        state_batch_indices, int(pad_slot_id))
