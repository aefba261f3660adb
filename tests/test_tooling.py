"""The package passes ruff with the project's own configuration (`[tool.ruff]` in pyproject.toml).

mypy is slower (about a minute cold): `make lint` runs it, and `make test` runs `lint` before pytest.
Skipped where ruff is not installed (it comes with the `dev` extra).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed (pip install -e '.[dev]')")
def test_ruff_finds_nothing_in_the_package():
    # --no-cache: parallel test workers and other checkouts never share a cache; the config is found
    # from the repository's pyproject.toml, so a user-level ruff config changes nothing.
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
                           "benchmarker"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
