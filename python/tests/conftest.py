"""Shared fixtures: a fresh seed per test (printed; TILEC_TEST_SEED repeats
it) and the markers that skip GPU tests, reported as skipped, where there
is no GPU or no torch with torch.library.custom_op."""

import os
import random

import pytest
import torch

from tilec import mamba2

HAS_GPU = torch.cuda.is_available()

requires_gpu = pytest.mark.skipif(not HAS_GPU, reason="needs a CUDA GPU")
_MIN = "{}.{}".format(*mamba2.MIN_TORCH_FOR_OP)
requires_op = pytest.mark.skipif(
    not mamba2.HAS_OP, reason=f"needs torch >= {_MIN} (torch.library."
    f"custom_op); this is torch {torch.__version__}")
# Whether eager calls run the package's Python implementation (its plans and
# kept workspaces can be looked at), not the C++ op (python/torch_op).
PYTHON_IMPLEMENTATION = mamba2.OP_REGISTRATION != "cpp"
requires_python_implementation = pytest.mark.skipif(
    not PYTHON_IMPLEMENTATION, reason="eager calls run the C++ op here "
    "(TILEC_MAMBA2_OP_REGISTRATION=cpp): no Python implementation to look at")


@pytest.fixture
def seed():
    value = int(os.environ.get("TILEC_TEST_SEED", random.randrange(2**31)))
    print(f"TILEC_TEST_SEED={value}")
    return value


@pytest.fixture
def cpu_generator(seed):
    return torch.Generator().manual_seed(seed)


@pytest.fixture
def cuda_generator(seed):
    return torch.Generator(device="cuda").manual_seed(seed)
