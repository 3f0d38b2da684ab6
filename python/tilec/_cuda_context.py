"""Making a device's primary CUDA context current on the calling thread,
and the current stream and its capture state as the C ABI needs them.

The C ABI enqueues work in the calling thread's current context (driver
API). PyTorch uses the runtime API, which makes the primary context current
lazily, per thread, and may skip cudaSetDevice when the device number is
already the thread's: a thread can hold CUDA tensors and still have no
current context (a fresh process before its first kernel, a thread that
torch never used), or have another context current. So before each call
this asks the driver for the current context and, unless it is the
device's primary context (the one PyTorch allocates in), makes that one
current; the primary context is retained once, for the life of the
process.
"""

import ctypes
import threading

import torch

_CUDA_SUCCESS = 0

_driver = None
_primary = {}  # device ordinal -> retained primary CUcontext
_lock = threading.Lock()


def _load_driver():
    global _driver
    if _driver is None:
        driver = ctypes.CDLL("libcuda.so.1")
        for name, argtypes in {
                "cuInit": [ctypes.c_uint],
                "cuCtxGetCurrent": [ctypes.POINTER(ctypes.c_void_p)],
                "cuCtxSetCurrent": [ctypes.c_void_p],
                "cuDeviceGet": [ctypes.POINTER(ctypes.c_int), ctypes.c_int],
                "cuDevicePrimaryCtxRetain": [
                    ctypes.POINTER(ctypes.c_void_p), ctypes.c_int]}.items():
            function = getattr(driver, name)
            function.restype = ctypes.c_int
            function.argtypes = argtypes
        _driver = driver
        _call("cuInit", 0)
    return _driver


def _call(name, *args):
    result = getattr(_driver, name)(*args)
    if result != _CUDA_SUCCESS:
        raise RuntimeError(f"tilec: {name} failed with CUresult {result}")


def _primary_context(ordinal):
    with _lock:
        _load_driver()
        context = _primary.get(ordinal)
        if context is None:
            device = ctypes.c_int()
            _call("cuDeviceGet", ctypes.byref(device), ordinal)
            context = ctypes.c_void_p()
            _call("cuDevicePrimaryCtxRetain", ctypes.byref(context), device)
            _primary[ordinal] = context
        return context


_local = threading.local()  # .query: this thread's cuCtxGetCurrent argument


def _current_query():
    """(the c_void_p cuCtxGetCurrent writes, a reference to it) of this
    thread, made once per thread."""
    current = ctypes.c_void_p()
    _local.query = query = (current, ctypes.byref(current))
    return query


def ensure_current(ordinal):
    """Makes device `ordinal`'s primary context current on this thread.
    After the first call of a device, one cuCtxGetCurrent and no lock (a
    dict read is atomic): the current context can change between calls
    (PyTorch or the caller may switch it), so it is asked every time."""
    context = _primary.get(ordinal)
    if context is None:
        context = _primary_context(ordinal)
    query = getattr(_local, "query", None) or _current_query()
    result = _driver.cuCtxGetCurrent(query[1])
    if result != _CUDA_SUCCESS:
        raise RuntimeError(
            f"tilec: cuCtxGetCurrent failed with CUresult {result}")
    if query[0].value != context.value:
        _call("cuCtxSetCurrent", context)


def _stream_object_handle(ordinal):
    return torch.cuda.current_stream(ordinal).cuda_stream


# The CUstream of device `ordinal`'s current stream, as an int: the raw
# handle where torch has the accessor (its CUDA builds), which skips making
# a torch.cuda.Stream object per call.
current_stream = (getattr(torch._C, "_cuda_getCurrentRawStream", None)
                  or _stream_object_handle)

# Whether the current stream is being captured into a CUDA graph:
# torch.cuda.is_current_stream_capturing without its Python frame where torch
# has the binding.
capturing = (getattr(torch._C, "_cuda_isCurrentStreamCapturing", None)
             or torch.cuda.is_current_stream_capturing)

# The device type the package's tensors must be on.
# bench/python_host_cost_stub.py sets it to "cpu", and replaces
# ensure_current, current_stream and capturing, to time the package on a
# machine without a GPU.
DEVICE_TYPE = "cuda"
