"""Fixtures for the agent tests (helpers that need a running loop live in support.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# `tests.fakes` must be importable; pyproject has no pytest `pythonpath`, so add the repo root.
ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.fakes.mcp_memory import FakeMemoryServer  # noqa: E402


@pytest.fixture
def memory_server():
    with FakeMemoryServer() as server:
        yield server
