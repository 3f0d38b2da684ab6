"""The chunked f64 reference of bench/compare_mamba_ssm.py equals the
step-by-step recurrence (to f64 rounding), on CPU: several blocks, a
ragged last chunk, groups shared by several heads, with D."""

import importlib.util
import os

import pytest
import torch

from reference import random_inputs, recurrence, relative_error

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "bench", "compare_mamba_ssm.py")


def load_bench():
    spec = importlib.util.spec_from_file_location("compare_mamba_ssm", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("shape, chunk, block_chunks", [
    ((2, 300, 4, 16, 2, 8), 64, 2),     # blocks of 128 tokens, 44 ragged
    ((1, 256, 2, 8, 1, 4), 128, 1),
    ((1, 70, 3, 5, 3, 6), 64, 4),       # one block, ragged
])
def test_chunked_reference_is_the_recurrence(shape, chunk, block_chunks,
                                             cpu_generator):
    t = random_inputs(*shape, "cpu", cpu_generator)
    y, final = load_bench().reference(t["x"], t["dt"], t["A"], t["B"],
                                      t["C"], t["D"], chunk, block_chunks)
    y_ref, final_ref = recurrence(**t)
    assert relative_error(y, y_ref) < 1e-12
    assert relative_error(final, final_ref) < 1e-12
