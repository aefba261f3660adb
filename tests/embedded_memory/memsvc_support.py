"""Helpers for the memory-service tests: a deterministic embedder, service factories, MCP sessions."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import numpy as np

from embedded_memory.embedders import unit_rows
from embedded_memory.service import MemoryService
from embedded_memory.settings import ServiceSettings
from embedded_memory.store import Store

DIM = 64


class FakeEmbedder:
    """Hashed bag of words: texts sharing words are close; deterministic and instant."""

    name = "fake"

    def __init__(self, model_id: str = "fake-v1"):
        self.model_id = model_id
        self.calls: list[list[str]] = []
        self.fail = False

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        if self.fail:
            raise RuntimeError("fake embedder is down")
        rows = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                rows[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % DIM] += 1.0
            rows[i, 0] += 0.01  # never a zero vector
        return unit_rows(rows)

    def close(self) -> None:
        pass


def open_service(db: Path | str, embedder: Any = "fake", **overrides: Any) -> MemoryService:
    """An in-process service (call `await svc.start()` inside a running loop)."""
    settings = ServiceSettings(db_path=str(db), port=0, embedder="static", **overrides)
    if embedder == "fake":
        embedder = FakeEmbedder()
    if embedder is None:
        settings = ServiceSettings(db_path=str(db), port=0, embedder="none", **{"alpha": 0.0, **overrides})
    return MemoryService(settings, Store(db), embedder)


async def new_memory(svc: MemoryService, title: str = "m1") -> tuple[str, str]:
    vaults = {v["title"]: v["vaultId"] for v in svc.list_vaults()}
    vault_id = vaults.get("tests") or svc.create_vault("tests")["vaultId"]
    return vault_id, svc.create_memory(vault_id, title, "NOTES")["memoryId"]


@asynccontextmanager
async def mcp_session(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[Any]:
    """An initialised MCP ClientSession; open and close it in the same task.

    No `headers`: Mycelian's local development key, as MemoryClient.connect sends."""
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    from benchmarker.memory.client import auth_headers

    http = create_mcp_http_client(headers=auth_headers() if headers is None else headers, timeout=httpx.Timeout(60.0, read=300.0))
    async with http, streamable_http_client(url, http_client=http) as (read, write, _), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: Any, tool: str, **args: Any) -> tuple[bool, str]:
    """(is_error, text) of one tool call; asserts the result is exactly one text content."""
    result = await session.call_tool(tool, args)
    assert len(result.content) == 1 and result.content[0].type == "text", result.content
    return bool(result.isError), result.content[0].text


async def ok(session: Any, tool: str, **args: Any) -> Any:
    """A successful call's result, parsed as JSON when it is JSON."""
    is_error, text = await call(session, tool, **args)
    assert not is_error, f"{tool} failed: {text}"
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


async def err(session: Any, tool: str, **args: Any) -> str:
    is_error, text = await call(session, tool, **args)
    assert is_error, f"{tool} should have failed, returned: {text[:200]}"
    return text
