"""Finding and loading libtilec_mamba2.so.

The places tried, in order (the first that exists is loaded):

1. ``$TILEC_MAMBA2_LIBRARY``: the path of the library file. When it is set,
   nothing else is tried, so a wrong path is an error, not a silent fallback.
2. A copy inside the package: ``tilec/lib/libtilec_mamba2.so``.
3. An install prefix: ``<sys.prefix>/lib`` (a virtual environment or conda
   prefix where ``cmake --install`` put it) and ``/usr/local/lib``.
4. The build tree of a checkout, when the package is used from ``python/``
   of one: ``<checkout>/build/lib``.
5. The dynamic loader's own search (``LD_LIBRARY_PATH``, ``ldconfig``'s
   cache) by the bare file name.
"""

import ctypes
import os
import sys
import threading

LIBRARY_NAME = "libtilec_mamba2.so"
LIBRARY_ENV = "TILEC_MAMBA2_LIBRARY"


class LibraryNotFoundError(OSError):
    """libtilec_mamba2.so could not be loaded; the message lists every place
    that was tried."""


def candidate_paths():
    """The files tried before the dynamic loader's search, in order."""
    package = os.path.dirname(os.path.abspath(__file__))
    checkout = os.path.dirname(os.path.dirname(package))
    return [
        os.path.join(package, "lib", LIBRARY_NAME),
        os.path.join(sys.prefix, "lib", LIBRARY_NAME),
        os.path.join("/usr/local/lib", LIBRARY_NAME),
        os.path.join(checkout, "build", "lib", LIBRARY_NAME),
    ]


def _load():
    explicit = os.environ.get(LIBRARY_ENV)
    if explicit:
        try:
            return ctypes.CDLL(explicit)
        except OSError as error:
            raise LibraryNotFoundError(
                f"{LIBRARY_ENV}={explicit} cannot be loaded: {error}") from None
    tried = []
    for path in candidate_paths():
        if not os.path.exists(path):
            tried.append(f"{path} (no such file)")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as error:
            tried.append(f"{path} ({error})")
    try:
        return ctypes.CDLL(LIBRARY_NAME)
    except OSError as error:
        tried.append(f"{LIBRARY_NAME} through the dynamic loader ({error})")
    raise LibraryNotFoundError(
        f"{LIBRARY_NAME} not found; set {LIBRARY_ENV} to its path. Tried:\n  "
        + "\n  ".join(tried))


_library = None
_lock = threading.Lock()


def library():
    """The loaded library (loaded once, on first use)."""
    global _library
    with _lock:
        if _library is None:
            _library = _load()
        return _library
