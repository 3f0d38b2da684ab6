"""The README's Python example runs as written (on a GPU, torch >= 2.4)."""

import os
import re

from conftest import requires_gpu, requires_op

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "README.md")


def python_blocks():
    with open(README) as f:
        text = f.read()
    section = text.split("## Python / PyTorch", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_readme_has_one_python_example():
    blocks = python_blocks()
    assert len(blocks) == 1 and "chunk_scan_combined(" in blocks[0]


@requires_gpu
@requires_op
def test_readme_example_runs():
    exec(compile(python_blocks()[0], README, "exec"), {})
