"""Style is the tool's, not the reviewer's: ruff's lint and format checks over the whole tree, with the
rules in pyproject.toml. Running them in the suite makes the README's test command (and so CI) fail
on a finding, the same on a laptop as in CI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "check", [["check", "--no-cache"], ["format", "--check", "--no-cache"]], ids=["lint", "format"]
)
def test_ruff_passes(check):
    # ruff ships as a module beside its binary: the suite's own interpreter finds the pinned one.
    result = subprocess.run(
        [sys.executable, "-m", "ruff", *check, "."], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
