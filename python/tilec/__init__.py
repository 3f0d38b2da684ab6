"""tilec: Python bindings of tilec's libraries.

``tilec.mamba2.chunk_scan_combined`` is the Mamba-2 forward pass, a drop-in
for mamba_ssm's ``mamba_chunk_scan_combined`` (forward). The package is
pure Python over the C ABI of libtilec_mamba2.so (ctypes); see
python/README.md for how the library is found.
"""

from .errors import (Mamba2ArgumentError, Mamba2Error, Status,
                     TorchVersionError)
from ._loader import LibraryNotFoundError

__version__ = "0.1.0"

__all__ = ["LibraryNotFoundError", "Mamba2ArgumentError", "Mamba2Error",
           "Status", "TorchVersionError"]
