"""Fixtures for the agent tests (helpers that need a running loop live in support.py)."""

from __future__ import annotations

import pytest

from embedded_memory.launcher import EmbeddedMemoryService
from embedded_memory.settings import ServiceSettings
from tests.fakes.mcp_memory import FakeMemoryServer


@pytest.fixture
def memory_server():
    with FakeMemoryServer() as server:
        yield server


@pytest.fixture
def embedded(tmp_path):
    """The project's embedded memory service (keyword search only, so it starts in a second)."""
    settings = ServiceSettings(port=0, db_path=str(tmp_path / "memory.sqlite"), embedder="none", alpha=0.0)
    with EmbeddedMemoryService(settings, log_path=tmp_path / "service.log") as svc:
        yield svc
