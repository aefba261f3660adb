"""A third-party memory server on stdio that exits mid-run: the call in flight and every later one fail with
MemoryServerLost naming the server's command and the cause (the SDK's McpError "Connection closed", then
anyio's ClosedResourceError), as an HTTP server's broken transport does; a call before it died works."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarker.errors import MemoryServerLost
from benchmarker.memory.client import MemoryClient

# MCP over stdio in plain JSON-RPC lines (no SDK import: it starts in milliseconds): answers the handshake,
# lists one tool, and exits hard on the tool call after `argv[1]` of them, as a crashed server would.
DYING_SERVER = r'''
import json, os, sys

LIVES = int(sys.argv[1])
calls = 0
for line in sys.stdin:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if rid is None:
        continue  # a notification
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "dying", "version": "0"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "search", "description": "Echo the query.",
                             "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}}}]}
    elif method == "tools/call":
        calls += 1
        if calls > LIVES:
            os._exit(1)
        result = {"content": [{"type": "text", "text": msg["params"]["arguments"]["query"]}], "isError": False}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n")
    sys.stdout.flush()
'''


@pytest.fixture
def server(tmp_path: Path) -> str:
    path = tmp_path / "dying_server.py"
    path.write_text(DYING_SERVER, encoding="utf-8")
    return str(path)


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 20))


def test_a_stdio_server_that_exits_mid_run_is_memory_server_lost_naming_its_command(server: str) -> None:
    seen: list[tuple[str, str | None]] = []
    inner: list[BaseException] = []

    async def go() -> str:
        async with MemoryClient.connect_stdio(sys.executable, [server, "1"], timeout_s=10,
                                              on_call=lambda tool, _a, _t, _ms, err: seen.append((tool, err))) as c:
            first = await c.call("search", {"query": "alive"})  # before it dies: an ordinary answer
            for _ in range(2):  # the call it dies on, then one on the closed session
                with pytest.raises(MemoryServerLost) as lost:
                    await c.call("search", {"query": "dead"})
                inner.append(lost.value)
            await c.call("search", {"query": "still dead"})  # escapes the body: the session's exit keeps it
            return first

    with pytest.raises(MemoryServerLost) as outer:
        _run(go())
    assert seen[0] == ("search", None)
    assert all(err for _, err in seen[1:]) and len(seen) == 4
    dying, closed, last = inner[0], inner[1], outer.value
    for err in (dying, closed, last):
        message = str(err)
        assert f"the memory MCP server '{sys.executable} {server} 1' stopped answering mid-run" in message
        assert "run the same command again to resume" in message
        assert "memory-service.log" not in message  # that is the embedded service's, not this server's
    assert "McpError: Connection closed" in str(dying)
    assert "ClosedResourceError" in str(closed) and "ClosedResourceError" in str(last)


def test_a_call_before_the_server_dies_works_and_its_stderr_is_named(server: str, tmp_path: Path) -> None:
    stderr = tmp_path / "server.stderr"

    async def go() -> list[str]:
        async with MemoryClient.connect_stdio(sys.executable, [server, "2"], timeout_s=10,
                                              stderr_path=str(stderr)) as c:
            answers = [await c.call("search", {"query": q}) for q in ("one", "two")]
            with pytest.raises(MemoryServerLost, match=f"its stderr: {stderr}"):
                await c.call("search", {"query": "three"})
            return answers

    assert _run(go()) == ["one", "two"]  # the exception was caught in the body: the session closes cleanly


def test_the_memory_agents_tools_see_the_same_loss(server: str) -> None:
    async def go() -> None:
        async with MemoryClient.connect_stdio(sys.executable, [server, "0"], timeout_s=10) as c:
            (tool,) = c.tools
            with pytest.raises(MemoryServerLost, match="Connection closed"):
                await tool.ainvoke({"query": "x"})

    _run(go())
