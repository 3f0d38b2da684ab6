"""The forward's workspace, kept from one call to the next per device and
stream.

The kernels of a call use the workspace only while they run, in stream
order: a later call on the same stream starts after them, so it can reuse
the same buffer; a call on another stream could run at the same time, so
each (device, stream) pair has its own buffer. A buffer grows (is replaced
by a larger one) when a call needs more; the old one goes back to torch's
caching allocator, which hands it out again only on the stream it was
allocated on (that stream), in stream order. Nothing returned to the caller
is ever part of a workspace.

During CUDA graph capture a call takes a fresh buffer from torch (the
graph's private pool keeps it for the replays): a cached one could be
grown and freed, or used by an eager call, while the graph still uses it.

A stream's handle identifies its buffer: torch's streams live as long as
the process; a caller that destroys a stream of its own (e.g. behind a
torch.cuda.ExternalStream) while a call on it may still run, and then gets
the same handle for a new stream, must call release() in between.
"""

import threading

import torch

_buffers = {}  # (device ordinal, CUstream) -> (uint8 tensor, its bytes, address)
_lock = threading.Lock()


def get(device, ordinal, stream, nbytes, capturing):
    """The address of a workspace of at least `nbytes` for a call on
    `stream` of device `ordinal` (`device`, a torch.device), and the tensor
    that owns it (keep it until the call is enqueued)."""
    if capturing:
        buffer = torch.empty(nbytes, dtype=torch.uint8, device=device)
        return buffer.data_ptr(), buffer
    entry = _buffers.get((ordinal, stream))
    if entry is None or entry[1] < nbytes:
        entry = _grow((ordinal, stream), device, nbytes)
    return entry[2], entry[0]


def _grow(key, device, nbytes):
    with _lock:
        entry = _buffers.get(key)
        if entry is None or entry[1] < nbytes:
            buffer = torch.empty(nbytes, dtype=torch.uint8, device=device)
            entry = _buffers[key] = (buffer, nbytes, buffer.data_ptr())
        return entry


def release():
    """Drops every kept workspace (torch's allocator gets them back, in
    stream order). The next call of each stream allocates anew."""
    with _lock:
        _buffers.clear()


def kept():
    """{(device ordinal, CUstream): bytes} of the workspaces kept now."""
    with _lock:
        return {key: entry[1] for key, entry in _buffers.items()}
