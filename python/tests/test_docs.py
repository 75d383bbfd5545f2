"""The Python examples of README.md and docs/python.md run as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def example(path: str, heading: str) -> str:
    """The first ```python block after ``heading`` in ``path``."""
    text = (REPO / path).read_text(encoding="utf-8")
    start = text.index(heading)
    match = re.compile(r"```python\n(.*?)```", re.S).search(text, start)
    assert match is not None, f"no python example after {heading!r} in {path}"
    return match.group(1)


@pytest.mark.parametrize(
    ("path", "heading", "printed"),
    [
        ("README.md", "### From Python", "9\n"),
        ("docs/python.md", "# ptc from Python", "9 1\n"),
        ("python/README.md", "# ptc", "9\n"),
    ],
)
def test_the_example_runs(path: str, heading: str, printed: str) -> None:
    code = example(path, heading)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == printed
