"""Fixtures for the memory-service tests: an in-process service with a fast deterministic embedder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:  # `tests.embedded_memory.memsvc_support` must be importable
    sys.path.insert(0, ROOT)

from tests.embedded_memory.memsvc_support import open_service  # noqa: E402


@pytest.fixture
async def svc(tmp_path):
    """A MemoryService on a fresh database, FakeEmbedder vectors, no HTTP."""
    service = open_service(tmp_path / "memory.sqlite")
    await service.start()
    yield service
    await service.close()
