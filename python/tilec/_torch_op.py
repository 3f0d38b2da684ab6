"""Finding and loading the C++ torch op (python/torch_op, built by
python/torch_op/build.py): tilec_torch_op.so, which defines and implements
tilec::mamba2_chunk_scan_combined and tilec::mamba2_selective_state_update
in C++ over the C ABI.

The places tried, in order (the first that exists is loaded):

1. ``$TILEC_MAMBA2_TORCH_OP``: the path of the file. When it is set,
   nothing else is tried, and a file that does not load is an error.
2. A copy inside the package: ``tilec/lib/tilec_torch_op.so``.
3. The build tree of a checkout, when the package is used from ``python/``
   of one: ``<checkout>/build/torch_op/tilec_torch_op.so`` (build.py's
   default output).

libtilec_mamba2.so is loaded first (tilec._loader): the op links it by its
soname, so the dynamic loader uses that already loaded copy.
"""

import os

import torch

from . import _loader

FILE_NAME = "tilec_torch_op.so"
PATH_ENV = "TILEC_MAMBA2_TORCH_OP"


class TorchOpError(OSError):
    """The C++ op was asked for ($TILEC_MAMBA2_TORCH_OP or
    TILEC_MAMBA2_OP_REGISTRATION=cpp) and cannot be loaded."""


def candidate_paths():
    """The files tried, in order, when $TILEC_MAMBA2_TORCH_OP is not set."""
    package = os.path.dirname(os.path.abspath(__file__))
    checkout = os.path.dirname(os.path.dirname(package))
    return [os.path.join(package, "lib", FILE_NAME),
            os.path.join(checkout, "build", "torch_op", FILE_NAME)]


def load():
    """Loads the op: (its path, "") or, when there is none, (None, why).
    Raises TorchOpError when $TILEC_MAMBA2_TORCH_OP names a file that does
    not load, or a file found does not load."""
    explicit = os.environ.get(PATH_ENV)
    if explicit:
        paths = [explicit]
    else:
        paths = [p for p in candidate_paths() if os.path.exists(p)]
        if not paths:
            return None, ("no C++ op (" + ", ".join(candidate_paths())
                          + " do not exist; build it with python3 "
                          f"python/torch_op/build.py or set {PATH_ENV})")
    try:
        _loader.library()
        torch.ops.load_library(paths[0])
    except (OSError, RuntimeError) as error:
        raise TorchOpError(f"{paths[0]} cannot be loaded: {error}") from None
    return paths[0], ""
