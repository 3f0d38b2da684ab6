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
