"""ctypes bindings of the C ABI in "tilec/Mamba2/tilec_mamba2.h".

Works with any torch (1.13 included) and on a machine without a GPU: the C
ABI checks its arguments before it uses the CUDA driver, so descriptors of
CPU tensors reach its validation. Every failing call raises the exception
of tilec.errors.error_for, carrying tilec_mamba2_status_name and
tilec_mamba2_last_error.
"""

import ctypes
import struct
import sys

import torch

from . import _loader
from .errors import Status, error_for

MAX_RANK = 8  # TILEC_MAMBA2_MAX_RANK

# tilec_mamba2_dtype
F32, F16, BF16, I32 = 0, 1, 2, 3
# The value passed for a torch dtype the C ABI has no name for: the C ABI
# rejects it with INVALID_DTYPE, and the Python message names the dtype.
UNKNOWN_DTYPE = -1

_DTYPES = {torch.float32: F32, torch.float16: F16, torch.bfloat16: BF16,
           torch.int32: I32}


class Problem(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in (
        "batch", "seqlen", "heads", "groups", "headdim", "dstate", "chunk")]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64))]


class Descriptor:
    """A tilec_mamba2_tensor and the arrays it points to.

    The fields are plain attributes so that tests can describe what torch
    cannot produce (negative strides, misaligned or null pointers, odd
    ranks or dtype values); ``strides=None`` means row-major."""

    def __init__(self, data, dtype, shape, strides, note=""):
        self.data = data
        self.dtype = dtype
        self.shape = list(shape)  # None: a null shape array
        self.strides = None if strides is None else list(strides)
        self.rank = len(self.shape)
        self.note = note  # added to an error message, e.g. the torch dtype

    def as_struct(self):
        """The C struct; it points into arrays that this object keeps alive
        until its next as_struct."""
        self._arrays = [None if values is None else
                        (ctypes.c_int64 * max(len(values), 1))(*values)
                        for values in (self.shape, self.strides)]
        shape, strides = (None if array is None else ctypes.cast(
            array, ctypes.POINTER(ctypes.c_int64)) for array in self._arrays)
        return _Tensor(self.data, self.dtype, self.rank, shape, strides)


class Options(ctypes.Structure):
    """tilec_mamba2_options (version 4): mamba_ssm's options of
    tilec_mamba2_forward_with_options (z, dt_bias, chunk_states, seq_idx,
    cu_seqlens and varlen_states are descriptors, all in device memory;
    state_dtype a dtype code: F32, or BF16 for bf16 states between
    chunks; reserved must be 0)."""
    _fields_ = [("size", ctypes.c_size_t),
                ("z", ctypes.POINTER(_Tensor)),
                ("dt_bias", ctypes.POINTER(_Tensor)),
                ("chunk_states", ctypes.POINTER(_Tensor)),
                ("dt_softplus", ctypes.c_int32),
                ("dt_limit", ctypes.c_int32),
                ("dt_min", ctypes.c_float),
                ("dt_max", ctypes.c_float),
                ("seq_idx", ctypes.POINTER(_Tensor)),
                ("cu_seqlens", ctypes.POINTER(_Tensor)),
                ("varlen_states", ctypes.POINTER(_Tensor)),
                ("state_dtype", ctypes.c_int32),
                ("reserved", ctypes.c_int32)]


def describe(name, tensor):
    """The descriptor of a torch tensor (any device; a meta tensor has a
    null data pointer). Strides are torch's, in elements."""
    dtype = _DTYPES.get(tensor.dtype, UNKNOWN_DTYPE)
    note = "" if dtype != UNKNOWN_DTYPE else f"{name} is {tensor.dtype}"
    data = 0 if tensor.device.type == "meta" else tensor.data_ptr()
    return Descriptor(data, dtype, tensor.shape, tensor.stride(), note)


# tensors_forward packs the nine tilec_mamba2_tensor structs and their shape
# and stride arrays into one int64 array: a struct is four words (data;
# dtype and rank, two int32; the shape pointer; the strides pointer).
_WORDS_PER_TENSOR = 4
_TENSOR_NAMES = ("x", "dt", "A", "B", "C", "D", "initial_states", "y",
                 "final_states", "z", "dt_bias", "chunk_states", "seq_idx",
                 "cu_seqlens", "varlen_states")
assert (ctypes.sizeof(_Tensor) == 8 * _WORDS_PER_TENSOR
        and _Tensor.dtype.offset == 8 and _Tensor.rank.offset == 12
        and _Tensor.shape.offset == 16 and _Tensor.strides.offset == 24)
# The options struct after the tensors' structs, packed on its own: size, z,
# dt_bias, chunk_states (four words), two int32 and two floats, seq_idx,
# cu_seqlens, varlen_states, the state dtype and reserved (two int32, no
# padding).
_OPTIONS = struct.Struct("<qqqqiiffqqqii")
_OPTIONS_WORDS = _OPTIONS.size // 8
assert (ctypes.sizeof(Options) == _OPTIONS.size and _OPTIONS.size % 8 == 0
        and Options.dt_softplus.offset == 32 and Options.dt_min.offset == 40
        and Options.seq_idx.offset == 48
        and Options.varlen_states.offset == 64
        and Options.state_dtype.offset == 72
        and Options.reserved.offset == 76)


_PACKERS = {}  # number of words -> struct.Struct("<n>q")


def _packer(words):
    packer = _PACKERS.get(words)
    if packer is None:
        packer = _PACKERS[words] = struct.Struct(f"{words}q")
    return packer


def _dtype_and_rank(dtype, rank):
    """The second word of a struct: the two int32 in memory order."""
    if sys.byteorder == "little":
        low, high = dtype, rank
    else:
        low, high = rank, dtype
    word = (low & 0xFFFFFFFF) | (high & 0xFFFFFFFF) << 32
    return word - (1 << 64) if word >= 1 << 63 else word


def _bind(library):
    c_int, c_size_p = ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)
    tensor_p = ctypes.POINTER(_Tensor)
    prototypes = {
        "tilec_mamba2_status_name": (ctypes.c_char_p, [c_int]),
        "tilec_mamba2_last_error": (ctypes.c_char_p, []),
        "tilec_mamba2_workspace_size": (
            c_int, [ctypes.POINTER(Problem), c_size_p]),
        "tilec_mamba2_prepare": (c_int, []),
        "tilec_mamba2_forward": (
            c_int, [ctypes.POINTER(Problem)] + [tensor_p] * 9
            + [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]),
        "tilec_mamba2_forward_with_options": (
            c_int, [ctypes.POINTER(Problem)] + [tensor_p] * 9
            + [ctypes.POINTER(Options), ctypes.c_void_p, ctypes.c_size_t,
               ctypes.c_void_p]),
    }
    for name, (restype, argtypes) in prototypes.items():
        function = getattr(library, name)
        function.restype = restype
        function.argtypes = argtypes
    # tilec_mamba2_forward again, taking the descriptors as addresses
    # (tensors_forward's packed structs).
    packed = library["tilec_mamba2_forward"]
    packed.restype = c_int
    packed.argtypes = ([ctypes.c_void_p] * 10
                       + [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p])
    library.tilec_mamba2_forward_packed = packed
    with_options = library["tilec_mamba2_forward_with_options"]
    with_options.restype = c_int
    with_options.argtypes = ([ctypes.c_void_p] * 11
                             + [ctypes.c_void_p, ctypes.c_size_t,
                                ctypes.c_void_p])
    library.tilec_mamba2_forward_with_options_packed = with_options
    # The same calls with their arguments in one struct (one argument for
    # ctypes to convert instead of fourteen).
    for name in ("tilec_mamba2_forward_call",
                 "tilec_mamba2_state_update_call"):
        function = getattr(library, name)
        function.restype = c_int
        function.argtypes = [ctypes.c_void_p]
    # The decode step, its descriptors as addresses too.
    update = library.tilec_mamba2_state_update
    update.restype = c_int
    update.argtypes = ([ctypes.c_void_p] * 10 + [ctypes.c_int32,
                       ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p,
                       ctypes.c_void_p])
    return library


_bound = None


def _lib():
    global _bound
    if _bound is None:
        _bound = _bind(_loader.library())
    return _bound


def status_name(status):
    """tilec_mamba2_status_name, e.g. "TILEC_MAMBA2_ERROR_UNALIGNED"."""
    return _lib().tilec_mamba2_status_name(int(status)).decode()


def last_error():
    """tilec_mamba2_last_error of the calling thread."""
    return _lib().tilec_mamba2_last_error().decode()


def error(status, message):
    """The exception for `status` with a message of the Python layer."""
    return error_for(status, status_name(status), message)


def _check(status, notes=()):
    if status != Status.SUCCESS:
        message = last_error()
        extra = "; ".join(note for note in notes if note)
        raise error(status, f"{message} ({extra})" if extra else message)


def workspace_size(problem):
    """tilec_mamba2_workspace_size: bytes of workspace `problem` needs."""
    size = ctypes.c_size_t()
    _check(_lib().tilec_mamba2_workspace_size(ctypes.byref(problem),
                                              ctypes.byref(size)))
    return size.value


def prepare():
    """tilec_mamba2_prepare: loads every kernel into the current context."""
    _check(_lib().tilec_mamba2_prepare())


def forward(problem, x, dt, A, B, C, D, initial_state, y, final_state,
            workspace=None, workspace_bytes=0, stream=None):
    """tilec_mamba2_forward. The tensors are Descriptors, None for a null
    descriptor (initial_state and final_state absent); `problem` a Problem
    or None; `workspace` a data pointer (int) or None; `stream` a CUstream
    as an int or None (the legacy default stream)."""
    descriptors = [x, dt, A, B, C, D, initial_state, y, final_state]
    structs = [None if d is None else ctypes.byref(d.as_struct())
               for d in descriptors]
    status = _lib().tilec_mamba2_forward(
        None if problem is None else ctypes.byref(problem), *structs,
        workspace, workspace_bytes, stream)
    _check(status, [d.note for d in descriptors if d is not None])


def forward_with_options(problem, x, dt, A, B, C, D, initial_state, y,
                         final_state, options, workspace=None,
                         workspace_bytes=0, stream=None, z=None,
                         dt_bias=None, chunk_states=None, seq_idx=None,
                         cu_seqlens=None, varlen_states=None):
    """tilec_mamba2_forward_with_options. As forward(), with `options` an
    Options (or None) whose z, dt_bias, chunk_states, seq_idx, cu_seqlens
    and varlen_states are set from the descriptors of those names (None: a
    null pointer)."""
    descriptors = [x, dt, A, B, C, D, initial_state, y, final_state]
    structs = [None if d is None else ctypes.byref(d.as_struct())
               for d in descriptors]
    keep = []
    if options is not None:
        for field, d in (("z", z), ("dt_bias", dt_bias),
                         ("chunk_states", chunk_states),
                         ("seq_idx", seq_idx), ("cu_seqlens", cu_seqlens),
                         ("varlen_states", varlen_states)):
            if d is None:
                setattr(options, field, None)
            else:
                keep.append(d.as_struct())
                setattr(options, field, ctypes.pointer(keep[-1]))
    status = _lib().tilec_mamba2_forward_with_options(
        None if problem is None else ctypes.byref(problem), *structs,
        None if options is None else ctypes.byref(options), workspace,
        workspace_bytes, stream)
    _check(status, [d.note for d in descriptors
                    + [z, dt_bias, chunk_states, seq_idx, cu_seqlens,
                       varlen_states]
                    if d is not None])


_WORDS = {}  # (torch dtype, rank) -> the struct's dtype-and-rank word


def _dtype_rank_word(dtype, rank):
    word = _WORDS.get((dtype, rank))
    if word is None:
        word = _WORDS[(dtype, rank)] = _dtype_and_rank(
            _DTYPES.get(dtype, UNKNOWN_DTYPE), rank)
    return word


def _pack(tensors, reserve=0):
    """The tilec_mamba2_tensor structs of `tensors` (None for an absent one)
    and their shape and stride arrays, in one int64 array: returns the
    array (keep it alive for the call) and the address of each struct (None
    for an absent tensor). `reserve` words after the structs are left zero
    for the caller (at address base + 8 * 4 * len(tensors)). One
    struct.pack_into, several times cheaper than ctypes' item-wise slice
    assignment; each tensor's shape and strides are read once (each read
    costs a few hundred ns)."""
    count = len(tensors)
    extents = []
    ranks = []
    for t in tensors:
        if t is None:
            ranks.append(-1)
            continue
        shape = t.shape
        extents += shape
        extents += t.stride()
        ranks.append(len(shape))
    total = _WORDS_PER_TENSOR * count + reserve + len(extents)
    array = (ctypes.c_int64 * total)()
    base = ctypes.addressof(array)
    offset = base + 8 * (_WORDS_PER_TENSOR * count + reserve)
    words = []
    pointers = []
    for i, t in enumerate(tensors):
        rank = ranks[i]
        if rank < 0:
            words += (0, 0, 0, 0)
            pointers.append(None)
            continue
        words += (0 if t.is_meta else t.data_ptr(),
                  _dtype_rank_word(t.dtype, rank), offset, offset + 8 * rank)
        offset += 16 * rank
        pointers.append(base + 8 * _WORDS_PER_TENSOR * i)
    words += (0,) * reserve
    _packer(total).pack_into(array, 0, *words, *extents)
    return array, pointers


def _dtype_notes(names, tensors):
    return [f"{names[i]} is {t.dtype}" for i, t in enumerate(tensors)
            if t is not None and t.dtype not in _DTYPES]


class _ForwardArgs(ctypes.Structure):
    """tilec_mamba2_forward_args."""
    _fields_ = ([(name, ctypes.c_void_p) for name in (
        "problem", "x", "dt", "A", "B", "C", "D", "initial_state", "y",
        "final_state", "options", "workspace")]
        + [("workspace_bytes", ctypes.c_size_t), ("stream", ctypes.c_void_p)])


class ForwardCall:
    """A tilec_mamba2_forward_with_options call on torch tensors, packed once
    and made any number of times through tilec_mamba2_forward_call: the
    descriptors, the options struct and the arguments struct in one array
    (as _pack makes them). `array[data_word(i)]` is the data pointer of
    tensor i (in tensors_forward's order), which the caller may set anew
    before each call; shapes, strides, dtypes and options stay as packed.
    Not to be shared between threads without a lock: a call reads the
    array while the GIL is released."""

    __slots__ = ("array", "_problem", "_args", "_address", "_function",
                 "_notes")

    def __init__(self, problem, tensors, dt_softplus=False, dt_limit=None,
                 state_dtype=F32):
        tensors = list(tensors) + [None] * (len(_TENSOR_NAMES) - len(tensors))
        words = ctypes.sizeof(_ForwardArgs) // 8
        array, pointers = _pack(tensors, reserve=_OPTIONS_WORDS + words)
        base = ctypes.addressof(array)
        options = base + 8 * _WORDS_PER_TENSOR * len(tensors)
        low, high = (0.0, 0.0) if dt_limit is None else dt_limit
        _OPTIONS.pack_into(array, options - base, _OPTIONS.size,
                           pointers[9] or 0, pointers[10] or 0,
                           pointers[11] or 0, 1 if dt_softplus else 0,
                           0 if dt_limit is None else 1, low, high,
                           pointers[12] or 0, pointers[13] or 0,
                           pointers[14] or 0, state_dtype, 0)
        self.array = array
        # A copy: a Problem the caller changes later leaves the call as
        # packed.
        self._problem = None if problem is None else Problem(
            *(getattr(problem, name) for name, _ in Problem._fields_))
        self._address = options + _OPTIONS.size
        self._args = _ForwardArgs.from_buffer(array, self._address - base)
        self._args.problem = (None if problem is None
                              else ctypes.addressof(self._problem))
        for name, pointer in zip(_ForwardArgs._fields_[1:10], pointers):
            setattr(self._args, name[0], pointer)
        self._args.options = options
        self._function = _lib().tilec_mamba2_forward_call
        self._notes = _dtype_notes(_TENSOR_NAMES, tensors)

    @staticmethod
    def data_word(index):
        """The array index of tensor `index`'s data pointer."""
        return _WORDS_PER_TENSOR * index

    def __call__(self, workspace=None, workspace_bytes=0, stream=None):
        args = self._args
        args.workspace = workspace
        args.workspace_bytes = workspace_bytes
        args.stream = stream
        status = self._function(self._address)
        if status != Status.SUCCESS:
            _check(status, self._notes)


def tensors_forward(problem, tensors, workspace=None, workspace_bytes=0,
                    stream=None, dt_softplus=False, dt_limit=None,
                    state_dtype=F32):
    """tilec_mamba2_forward_with_options on torch tensors: `tensors` holds
    x, dt, A, B, C, D, initial_state, y, final_state, z, dt_bias,
    chunk_states, seq_idx, cu_seqlens, varlen_states in that
    order, None for an absent optional one (those after final_state may be
    left off); dt_limit is (low, high) or None (no clamp); state_dtype the
    dtype code of the states between chunks (F32, or BF16; chunk_states in
    it). The same call as
    forward_with_options() on their describe()d descriptors, with the
    descriptors and the options struct built in one array (ForwardCall),
    which costs the host a few microseconds rather than tens."""
    ForwardCall(problem, tensors, dt_softplus, dt_limit, state_dtype)(
        workspace, workspace_bytes, stream)


# The decode step (tilec_mamba2_state_update).

class DecodeProblem(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in (
        "batch", "heads", "groups", "headdim", "dstate", "state_rows")]


_STATE_UPDATE_NAMES = ("state", "x", "dt", "A", "B", "C", "D", "z",
                       "dt_bias", "y")


class _StateUpdateArgs(ctypes.Structure):
    """tilec_mamba2_state_update_args."""
    _fields_ = ([(name, ctypes.c_void_p) for name in (
        "problem", "state", "x", "dt", "A", "B", "C", "D", "z", "dt_bias")]
        + [("dt_softplus", ctypes.c_int32),
           ("state_indices", ctypes.c_void_p),
           ("pad_slot_id", ctypes.c_int64), ("y", ctypes.c_void_p),
           ("stream", ctypes.c_void_p)])


class StateUpdateCall:
    """A tilec_mamba2_state_update call on torch tensors, packed once and
    made any number of times through tilec_mamba2_state_update_call, as
    ForwardCall: `array[data_word(i)]` is the data pointer of tensor i
    (state, x, dt, A, B, C, D, z, dt_bias, y); the flags, indices and
    stream are given per call. Not to be shared between threads without a
    lock."""

    __slots__ = ("array", "_problem", "_args", "_address", "_function",
                 "_notes")

    def __init__(self, problem, tensors):
        words = ctypes.sizeof(_StateUpdateArgs) // 8
        array, pointers = _pack(tensors, reserve=words)
        self.array = array
        self._problem = None if problem is None else DecodeProblem(
            *(getattr(problem, name) for name, _ in DecodeProblem._fields_))
        offset = 8 * _WORDS_PER_TENSOR * len(tensors)
        self._address = ctypes.addressof(array) + offset
        self._args = _StateUpdateArgs.from_buffer(array, offset)
        self._args.problem = (None if problem is None
                              else ctypes.addressof(self._problem))
        for name, pointer in zip(_STATE_UPDATE_NAMES, pointers):
            setattr(self._args, name, pointer)
        self._function = _lib().tilec_mamba2_state_update_call
        self._notes = _dtype_notes(_STATE_UPDATE_NAMES, tensors)

    data_word = ForwardCall.data_word

    def __call__(self, dt_softplus=False, state_indices=None, pad_slot_id=-1,
                 stream=None):
        args = self._args
        args.dt_softplus = 1 if dt_softplus else 0
        args.state_indices = state_indices
        args.pad_slot_id = pad_slot_id
        args.stream = stream
        status = self._function(self._address)
        if status != Status.SUCCESS:
            _check(status, self._notes)


def state_update(problem, tensors, dt_softplus=False, state_indices=None,
                 pad_slot_id=-1, stream=None):
    """tilec_mamba2_state_update on torch tensors: `tensors` holds state, x,
    dt, A, B, C, D, z, dt_bias, y in that order (None for an absent D, z or
    dt_bias); `problem` a DecodeProblem or None; `state_indices` the
    address of `batch` int64 in device memory, or None; `stream` a CUstream
    as an int or None."""
    StateUpdateCall(problem, tensors)(dt_softplus, state_indices, pad_slot_id,
                                      stream)
