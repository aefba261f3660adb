"""await_consistency may take the whole configured `[memory] await_timeout_s`, however short the client's
limit for an ordinary tool call: a slow embedder (minilm on a loaded 2-core box) made every await give up
at the client's fixed 60 s while the service would have waited 600.

The embedded service runs for real, embedding through an Ollama-compatible server on 127.0.0.1 that takes
EMBED_DELAY_S per text (the "outside" part, faked at its wire), so an await lasts longer than CALL_S.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest
from mcp.shared.exceptions import McpError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from benchmarker.config import load_config
from benchmarker.errors import MemoryToolError
from benchmarker.log.store import RunLog
from benchmarker.memory.client import WAIT_MARGIN_S, MemoryClient
from benchmarker.memory.driver import MemoryPlace
from benchmarker.memory.drivers.open import open_memory
from embedded_memory.launcher import EmbeddedMemoryService
from embedded_memory.settings import ServiceSettings
from tests.fakes import ThreadedUvicorn
from tests.graph.support import SAMPLE, cases_of, memory_settings

CALL_S = 1.0          # the client's limit for an ordinary tool call in these tests
EMBED_DELAY_S = 0.5   # per embedded text: three entries and the placeholder context take ~2 s


def slow_embeddings(delay_s: float) -> Starlette:
    """Ollama's /api/embeddings, answering after `delay_s` (at once for the start-up check)."""

    async def embeddings(request: Request) -> JSONResponse:
        prompt = (await request.json()).get("prompt", "")
        if prompt != "connectivity check":
            await asyncio.sleep(delay_s)
        seed = sum(map(ord, prompt)) % 97
        return JSONResponse({"embedding": [float((seed + i) % 7 + 1) for i in range(8)]})

    return Starlette(routes=[Route("/api/embeddings", embeddings, methods=["POST"])])


@pytest.fixture(scope="module")
def ollama_url():
    with ThreadedUvicorn(slow_embeddings(EMBED_DELAY_S)) as server:
        yield f"http://127.0.0.1:{server.port}"


async def _write(client: MemoryClient, title: str, n: int = 3) -> str:
    vault_id = await client.ensure_vault("await-limit")
    memory_id = (await client.create_memory(vault_id, title))["memoryId"]
    for i in range(n):
        await client.add_entry(vault_id, memory_id, f"message {i} of {title}", f"summary {i}")
    return memory_id


async def test_await_consistency_outlasts_the_ordinary_call_limit(tmp_path: Path, ollama_url: str) -> None:
    """Harness, mapped-path and agent-tool awaits all wait past CALL_S, up to the await limit."""
    settings = ServiceSettings(host="127.0.0.1", port=0, db_path=str(tmp_path / "m.sqlite"), embedder="ollama")
    with EmbeddedMemoryService(settings, log_path=tmp_path / "service.log",
                               env={"OLLAMA_BASE_URL": ollama_url}) as service:
        async with MemoryClient.connect(service.mcp_url, headers=service.auth_headers, timeout_s=CALL_S) as client:
            memory_id = await _write(client, "harness")
            started = time.monotonic()
            assert await client.await_consistency(memory_id) == "consistent"
            assert time.monotonic() - started > CALL_S  # it really outlasted the ordinary limit

            memory_id = await _write(client, "direct")  # direct ingestion and mapped drivers: client.call
            started = time.monotonic()
            assert await client.call("await_consistency", {"memory_id": memory_id}) == "consistent"
            assert time.monotonic() - started > CALL_S

            memory_id = await _write(client, "agent")  # the memory agent's own tool, on the same session
            (tool,) = [t for t in client.tools if t.name == "await_consistency"]
            started = time.monotonic()
            reply = await tool.ainvoke({"memory_id": memory_id})
            assert "consistent" in str(reply)
            assert time.monotonic() - started > CALL_S


def _config(tmp_path: Path, *, await_s: float) -> object:
    path = tmp_path / f"await-{await_s:g}.toml"
    path.write_text(f"""
run_id = "await-{await_s:g}"
[dataset]
kind = "sample"
[memory]
embedder = "ollama"
call_timeout_s = {CALL_S}
await_timeout_s = {await_s}
[run]
progress = false
output_dir = "{tmp_path / 'runs'}"
""", encoding="utf-8")
    return load_config(path)


async def test_the_configured_limits_reach_the_client_and_the_service(tmp_path: Path, ollama_url: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`[memory] call_timeout_s` bounds ordinary calls; an await gets `await_timeout_s` plus a margin, so
    the service's own "still queued after N s" arrives rather than a client timeout."""
    monkeypatch.setenv("OLLAMA_BASE_URL", ollama_url)
    config = _config(tmp_path, await_s=30.0)
    (tmp_path / "long").mkdir()
    async with open_memory(memory_settings(config), tmp_path / "long") as opened:
        client = opened.driver.client
        assert client.timeout_s == CALL_S
        assert client.waits.seconds == 30.0 + WAIT_MARGIN_S and "await_consistency" in client.waits.tools
        memory_id = await _write(client, "long")
        started = time.monotonic()
        assert await client.await_consistency(memory_id) == "consistent"
        assert time.monotonic() - started > CALL_S

    config = _config(tmp_path, await_s=0.5)  # shorter than the writes take to index: the service says so
    (tmp_path / "short").mkdir()
    async with open_memory(memory_settings(config), tmp_path / "short") as opened:
        memory_id = await _write(opened.driver.client, "short")
        with pytest.raises(MemoryToolError, match=r"writes queued after 0 s|writes queued after 1 s"):
            await opened.driver.client.await_consistency(memory_id)


MAPPING = """
name = "slow-wait-notes"
description = "test server: a consistency tool that blocks"

[server]
transport = "stdio"
command = "python"

[scope]
kind = "process"

[write]
tool = "save_note"
arguments = { text = "{text}" }
text_paths = ["text"]

[consistency]
tool = "wait_indexed"

[search]
tool = "find_notes"
arguments = { query = "{query}", limit = "{top_k}" }
hits = "results[*]"
text = "text"
id = "id"

[agent]
tools = ["save_note", "find_notes"]
"""


async def test_a_mapped_servers_consistency_tool_gets_the_await_limit_in_each_cases_own_process(tmp_path: Path) -> None:
    """A mapping's consistency tool is a wait too: the per-case server process gets the run's limits."""
    (tmp_path / "slow.toml").write_text(MAPPING, encoding="utf-8")
    server = Path(__file__).with_name("slow_wait_server.py")
    path = tmp_path / "mapped.toml"
    path.write_text(f"""
run_id = "mapped-wait"
{SAMPLE}
[memory]
backend = "mcp"
mapping = "{tmp_path / 'slow.toml'}"
command = "{sys.executable}"
args = ["{server}"]
env = {{ SLOW_WAIT_S = "{2 * CALL_S}" }}
call_timeout_s = {CALL_S}
await_timeout_s = 30
[run]
progress = false
output_dir = "{tmp_path / 'runs'}"
""", encoding="utf-8")
    config = load_config(path)
    run_dir = Path(config.run_dir)
    run_dir.mkdir(parents=True)
    case = cases_of(config)[0]
    log = RunLog(run_dir)
    place = MemoryPlace(run_id="mapped-wait", title_template="{question_id}__{run_id}", cadence=6, can_create=True)
    async with open_memory(memory_settings(config), run_dir) as opened:
        assert opened.driver.client.waits.tools == frozenset({"wait_indexed"})
        async with opened.driver.for_case(case, log, place) as driver:
            assert driver.client.timeout_s == CALL_S and driver.client.waits.seconds == 30 + WAIT_MARGIN_S
            record = await driver.create_memory(case, "", log, place)
            started = time.monotonic()
            await driver.settle(record)  # blocks 2 * CALL_S in the case's own server process
            assert time.monotonic() - started > CALL_S
            # any other tool keeps call_timeout_s, from the harness and from the memory agent alike
            with pytest.raises(McpError, match="Timed out"):
                await driver.client.call("stall")
            (stall,) = [t for t in driver.client.tools if t.name == "stall"]
            with pytest.raises(McpError, match="Timed out"):
                await stall.ainvoke({})
    log.close()
