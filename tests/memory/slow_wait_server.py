"""A third-party-style MCP memory server (stdio) whose consistency tool blocks for SLOW_WAIT_S seconds,
as a server with a slow index does: notes are saved at once and `wait_indexed` returns when "indexed"."""

from __future__ import annotations

import json
import os
import time

from mcp.server.fastmcp import FastMCP

server = FastMCP("slow-wait-notes")
NOTES: list[str] = []


@server.tool()
def save_note(text: str) -> str:
    """Store one note."""
    NOTES.append(text)
    return json.dumps({"saved": len(NOTES)})


@server.tool()
def find_notes(query: str, limit: int = 5) -> str:
    """Notes containing any word of the query."""
    words = set(query.lower().split())
    hits = [n for n in NOTES if words & set(n.lower().split())][:limit]
    return json.dumps({"results": [{"id": str(i), "text": t} for i, t in enumerate(hits)]})


@server.tool()
def wait_indexed() -> str:
    """Block until every saved note is searchable."""
    time.sleep(float(os.environ.get("SLOW_WAIT_S", "2")))
    return "indexed"


@server.tool()
def stall() -> str:
    """An ordinary tool that is slow (not a consistency wait)."""
    time.sleep(float(os.environ.get("SLOW_WAIT_S", "2")))
    return "late"


if __name__ == "__main__":
    server.run("stdio")
