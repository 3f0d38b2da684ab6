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
F32, F16, BF16 = 0, 1, 2
# The value passed for a torch dtype the C ABI has no name for: the C ABI
# rejects it with INVALID_DTYPE, and the Python message names the dtype.
UNKNOWN_DTYPE = -1

_DTYPES = {torch.float32: F32, torch.float16: F16, torch.bfloat16: BF16}


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
                 "final_states")
assert (ctypes.sizeof(_Tensor) == 8 * _WORDS_PER_TENSOR
        and _Tensor.dtype.offset == 8 and _Tensor.rank.offset == 12
        and _Tensor.shape.offset == 16 and _Tensor.strides.offset == 24)


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


def tensors_forward(problem, tensors, workspace=None, workspace_bytes=0,
                    stream=None):
    """tilec_mamba2_forward on torch tensors: `tensors` holds x, dt, A, B, C,
    D, initial_state, y, final_state in that order, None for an absent
    initial or final state. The same call as forward() on their
    describe()d descriptors, with the descriptors built in one array, which
    costs the host a few microseconds rather than tens."""
    given = [(i, t) for i, t in enumerate(tensors) if t is not None]
    words = [0] * (_WORDS_PER_TENSOR * len(tensors))
    extents = []
    for _, t in given:
        extents += t.shape
        extents += t.stride()
    total = len(words) + len(extents)
    array = (ctypes.c_int64 * total)()
    base = ctypes.addressof(array)
    offset = len(words)
    pointers = [None] * len(tensors)
    for i, t in given:
        rank = len(t.shape)
        w = _WORDS_PER_TENSOR * i
        words[w] = 0 if t.is_meta else t.data_ptr()
        words[w + 1] = _dtype_and_rank(
            _DTYPES.get(t.dtype, UNKNOWN_DTYPE), rank)
        words[w + 2] = base + 8 * offset
        words[w + 3] = base + 8 * (offset + rank)
        offset += 2 * rank
        pointers[i] = base + 8 * w
    # One struct.pack_into, several times cheaper than ctypes' item-wise
    # slice assignment.
    _packer(total).pack_into(array, 0, *words, *extents)
    status = _lib().tilec_mamba2_forward_packed(
        None if problem is None else ctypes.addressof(problem), *pointers,
        workspace, workspace_bytes, stream)
    if status != Status.SUCCESS:
        _check(status, [f"{_TENSOR_NAMES[i]} is {t.dtype}" for i, t in given
                        if t.dtype not in _DTYPES])
