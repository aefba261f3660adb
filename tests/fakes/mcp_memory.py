"""A tiny in-memory MCP memory server with Mycelian's tool contract (DESIGN.md section 4).

Good enough for client and agent tests: the 13 tool names, Mycelian's argument names, JSON
result shapes and `isError` on failures, over real MCP streamable HTTP at `/mcp`. Writes are
applied at once (no queue), search is a plain word-overlap score. The embedded service in
`embedded_memory/` is the real reference backend; this one stays small on purpose.

    with FakeMemoryServer() as server:
        server.url                 # http://127.0.0.1:PORT/mcp
        server.state.entries       # memory_id -> [entry dict], for assertions
        server.calls               # [(tool, args)] in arrival order
"""

from __future__ import annotations

import json
import logging
import re
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from mcp.server.fastmcp import FastMCP

from tests.fakes import FakeServer, ThreadedUvicorn

# The MCP SDK logs a traceback when a client closes its standalone SSE stream at session end.
logging.getLogger("mcp.server.streamable_http").setLevel(logging.CRITICAL)

PLACEHOLDER_CONTEXT = "This is the default context for a new memory. Replace it with put_context."

DEFAULT_PROMPTS = {
    "version": "fake-1",
    "context_summary_rules": "CONTEXT RULES: keep the context under 5000 characters; sections facts, "
                             "preferences, decisions, topics, entities, timeline.",
    "templates": {
        "entry_capture_prompt": "ENTRY CAPTURE: call add_entry once per message.",
        "summary_prompt": "SUMMARY: <=512 characters, past tense, keep names, numbers, ISO dates.",
        "context_prompt": "CONTEXT: after await_consistency, put_context every 6 messages and at session end.",
    },
}


@dataclass
class FakeMemoryState:
    vaults: dict[str, dict[str, Any]] = field(default_factory=dict)
    memories: dict[str, dict[str, Any]] = field(default_factory=dict)
    entries: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    contexts: dict[str, list[str]] = field(default_factory=dict)
    clock: datetime = field(default_factory=lambda: datetime(2025, 1, 1, tzinfo=timezone.utc))

    def tick(self) -> str:
        # Strictly increasing server timestamps, so `before` cursors are unambiguous.
        self.clock += timedelta(milliseconds=1)
        return self.clock.isoformat().replace("+00:00", "Z")


class ToolFailure(Exception):
    """Raised inside a tool: FastMCP turns it into an isError result with this text."""


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}


def build_fake_memory_mcp(state: FakeMemoryState, calls: list[tuple[str, dict[str, Any]]], *,
                          empty_prompts: bool = False, search_returns: int = 0,
                          search_fault: Callable[[str, int], str | None] | None = None) -> FastMCP:
    """The FastMCP app; `calls` receives (tool, args) for every call. `search_returns` > 0: search ignores its
    top_k and returns up to that many hits (a server handing its reader more than it was asked for). `search_fault`
    (query, top_k) -> "fail" (the search raises, as an HTTP 503 would), "empty" (no hits) or None (a normal search)."""
    mcp = FastMCP("fake-mycelian", host="127.0.0.1", log_level="WARNING")
    lock = threading.Lock()

    def log(tool: str, **args: Any) -> None:
        calls.append((tool, {k: v for k, v in args.items() if v is not None}))

    def memory(vault_id: str, memory_id: str) -> dict[str, Any]:
        mem = state.memories.get(memory_id)
        if mem is None or mem["vaultId"] != vault_id:
            raise ToolFailure(f"memory {memory_id} not found in vault {vault_id}")
        return mem

    @mcp.tool(structured_output=False)
    def create_vault(title: str, description: str = "") -> str:
        """Create a vault."""
        log("create_vault", title=title, description=description)
        with lock:
            if any(v["title"] == title for v in state.vaults.values()):
                raise ToolFailure(f"vault with title {title!r} already exists")
            vault = {"vaultId": str(uuid.uuid4()), "title": title}
            state.vaults[vault["vaultId"]] = vault
        return json.dumps(vault)

    @mcp.tool(structured_output=False)
    def list_vaults() -> str:
        """List vaults."""
        log("list_vaults")
        return json.dumps(list(state.vaults.values()))

    @mcp.tool(structured_output=False)
    def list_memories(vault_id: str) -> str:
        """List memories in a vault."""
        log("list_memories", vault_id=vault_id)
        return json.dumps([{"memoryId": m["memoryId"], "title": m["title"]}
                           for m in state.memories.values() if m["vaultId"] == vault_id])

    @mcp.tool(structured_output=False)
    def create_memory_in_vault(vault_id: str, title: str, memory_type: str, description: str = "") -> str:
        """Create a memory in a vault."""
        log("create_memory_in_vault", vault_id=vault_id, title=title, memory_type=memory_type)
        with lock:
            if vault_id not in state.vaults:
                raise ToolFailure(f"vault {vault_id} not found")
            if any(m["title"] == title and m["vaultId"] == vault_id for m in state.memories.values()):
                raise ToolFailure(f"memory with title {title!r} already exists")
            mem = {"memoryId": str(uuid.uuid4()), "vaultId": vault_id, "title": title,
                   "memoryType": memory_type, "description": description, "creationTime": state.tick()}
            state.memories[mem["memoryId"]] = mem
            state.entries[mem["memoryId"]] = []
            state.contexts[mem["memoryId"]] = [PLACEHOLDER_CONTEXT]
        return json.dumps(mem)

    @mcp.tool(structured_output=False)
    def get_memory(vault_id: str, memory_id: str) -> str:
        """Get a memory."""
        log("get_memory", vault_id=vault_id, memory_id=memory_id)
        return json.dumps(memory(vault_id, memory_id))

    @mcp.tool(structured_output=False)
    def add_entry(vault_id: str, memory_id: str, raw_entry: str, summary: str,
                  tags: dict[str, Any] | None = None) -> str:
        """Add an entry (raw text + summary) to a memory."""
        log("add_entry", vault_id=vault_id, memory_id=memory_id, raw_entry=raw_entry, summary=summary, tags=tags)
        memory(vault_id, memory_id)
        with lock:
            state.entries[memory_id].append({
                "entryId": str(uuid.uuid4()), "memoryId": memory_id, "vaultId": vault_id,
                "creationTime": state.tick(), "rawEntry": raw_entry, "summary": summary, "tags": tags or {}})
        return "enqueued"

    @mcp.tool(structured_output=False)
    def list_entries(vault_id: str, memory_id: str, limit: int = 25, before: str | None = None,
                     after: str | None = None) -> str:
        """List entries, newest first; page with `before`."""
        log("list_entries", vault_id=vault_id, memory_id=memory_id, limit=limit, before=before, after=after)
        memory(vault_id, memory_id)
        if not 1 <= limit <= 50:
            raise ToolFailure("limit must be between 1 and 50")
        rows = sorted(state.entries[memory_id], key=lambda e: e["creationTime"], reverse=True)
        if before:
            rows = [e for e in rows if e["creationTime"] < before]
        if after:
            rows = [e for e in rows if e["creationTime"] > after]
        page = rows[:limit]
        return json.dumps({"entries": page, "count": len(page), "applied_limit": limit,
                           "next_before": page[-1]["creationTime"] if page else None,
                           "next_after": page[0]["creationTime"] if page else None})

    @mcp.tool(structured_output=False)
    def get_entry(vault_id: str, memory_id: str, entry_id: str) -> str:
        """Get one entry."""
        log("get_entry", vault_id=vault_id, memory_id=memory_id, entry_id=entry_id)
        memory(vault_id, memory_id)
        for entry in state.entries[memory_id]:
            if entry["entryId"] == entry_id:
                return json.dumps(entry)
        raise ToolFailure(f"entry {entry_id} not found")

    @mcp.tool(structured_output=False)
    def put_context(vault_id: str, memory_id: str, content: str) -> str:
        """Replace the memory's context document."""
        log("put_context", vault_id=vault_id, memory_id=memory_id, content=content)
        memory(vault_id, memory_id)
        state.contexts[memory_id].append(content)
        return "enqueued"

    @mcp.tool(structured_output=False)
    def get_context(vault_id: str, memory_id: str) -> str:
        """The latest context document."""
        log("get_context", vault_id=vault_id, memory_id=memory_id)
        memory(vault_id, memory_id)
        return state.contexts[memory_id][-1]

    @mcp.tool(structured_output=False)
    def await_consistency(memory_id: str) -> str:
        """Wait until the memory's writes are visible."""
        log("await_consistency", memory_id=memory_id)
        if memory_id not in state.memories:
            raise ToolFailure(f"memory {memory_id} not found")
        return "consistent"

    @mcp.tool(structured_output=False)
    def search_memories(memory_id: str, query: str, top_k: int = 10, alpha: float | None = None) -> str:
        """Hybrid search (here: word overlap) over a memory's entries."""
        log("search_memories", memory_id=memory_id, query=query, top_k=top_k, alpha=alpha)
        if memory_id not in state.memories:
            raise ToolFailure(f"memory {memory_id} not found")
        fault = search_fault(query, top_k) if search_fault else None  # a broken server, on the test's say
        if fault == "fail":
            raise ToolFailure("HTTP 503 from the memory server: search backend unavailable")
        q = _words(query) if fault != "empty" else set()
        scored = []
        for entry in state.entries[memory_id]:
            overlap = len(q & _words(entry["rawEntry"] + " " + entry["summary"]))
            if overlap:
                scored.append({**entry, "score": overlap / max(1, len(q))})
        scored.sort(key=lambda e: -e["score"])
        ctx = state.contexts[memory_id][-1]
        shown = scored[:search_returns or top_k]
        return json.dumps({"entries": shown, "count": len(shown), "latestContext": ctx,
                           "contextTimestamp": state.clock.isoformat(), "bestContext": ctx,
                           "bestContextTimestamp": state.clock.isoformat(), "bestContextScore": 0.0})

    @mcp.tool(structured_output=False)
    def get_default_prompts(memory_type: str) -> str:
        """Mycelian's default prompts for a memory type."""
        log("get_default_prompts", memory_type=memory_type)
        if memory_type != "chat":
            raise ToolFailure(f"unknown memory type {memory_type!r}")
        if empty_prompts:
            return json.dumps({"version": "", "context_summary_rules": "",
                               "templates": {"context_prompt": "", "entry_capture_prompt": "", "summary_prompt": ""}})
        return json.dumps(DEFAULT_PROMPTS)

    return mcp


class FakeMemoryServer(FakeServer):
    """The fake memory MCP server on 127.0.0.1 in a thread; `.url` ends in /mcp."""

    def __init__(self, *, empty_prompts: bool = False, search_returns: int = 0,
                 search_fault: Callable[[str, int], str | None] | None = None):
        self.state = FakeMemoryState()
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.mcp = build_fake_memory_mcp(self.state, self.calls, empty_prompts=empty_prompts,
                                         search_returns=search_returns, search_fault=search_fault)
        self._runner = ThreadedUvicorn(self.mcp.streamable_http_app())
        self.url = ""

    def tool_schemas(self) -> dict[str, dict[str, Any]]:
        """name -> inputSchema, as the server advertises them."""
        return {t.name: t.parameters for t in self.mcp._tool_manager.list_tools()}

    def _bound(self, root: str) -> None:
        self.url = f"{root}/mcp"
