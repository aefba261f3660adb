"""The real service over HTTP (a subprocess from the launcher): REST routes, raw MCP, robustness, restarts."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarker.memory.client import LOCAL_DEV_TOKEN
from embedded_memory.launcher import EmbeddedMemoryService, free_port
from embedded_memory.settings import ServiceSettings
from tests.embedded_memory.memsvc_support import call, err, mcp_session, ok

SEARCH_KEYS = {"entries", "count", "latestContext", "contextTimestamp", "bestContext", "bestContextTimestamp",
               "bestContextScore"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("http")
    settings = ServiceSettings(port=0, db_path=str(root / "memory.sqlite"), embedder="static")
    with EmbeddedMemoryService(settings, log_path=root / "service.log", api_key=LOCAL_DEV_TOKEN) as svc:
        yield svc


async def _memory(url: str, title: str, facts: list[str]) -> tuple[str, str]:
    async with mcp_session(url) as s:
        vaults = {v["title"]: v["vaultId"] for v in await ok(s, "list_vaults")}
        vault_id = vaults.get("http") or (await ok(s, "create_vault", title="http"))["vaultId"]
        memory_id = (await ok(s, "create_memory_in_vault", vault_id=vault_id, title=title,
                              memory_type="NOTES"))["memoryId"]
        for fact in facts:
            assert await ok(s, "add_entry", vault_id=vault_id, memory_id=memory_id, raw_entry=fact,
                            summary=fact) == "enqueued"
        assert await ok(s, "await_consistency", memory_id=memory_id) == "consistent"
    return vault_id, memory_id


def test_health_is_mycelian_like(server):
    body = httpx.get(f"{server.rest_url}/v0/health").json()
    assert body["status"] == "healthy" and body["embedder"] == "static" and body["alpha"] == 0.6
    assert server.mcp_url == f"http://127.0.0.1:{server.port}/mcp" and server.pid


async def test_rest_search_matches_the_mcp_shape(server):
    facts = ["My hamster Peanut eats sunflower seeds", "I booked a flight to Lisbon on 2023-07-14"]
    _, memory_id = await _memory(server.mcp_url, "rest-search", facts)
    async with httpx.AsyncClient(base_url=server.rest_url, headers=server.auth_headers) as http:
        response = await http.post("/v0/search", json={"memoryId": memory_id, "query": "hamster food", "topK": 1})
        assert response.status_code == 200, response.text
        body = response.json()
        assert SEARCH_KEYS <= set(body) and body["count"] == 1 and "Peanut" in body["entries"][0]["rawEntry"]
        pure_bm25 = (await http.post("/v0/search", json={"memoryId": memory_id, "query": "Lisbon",
                                                          "alpha": 0})).json()
        assert pure_bm25["alpha"] == 0 and [e["summary"] for e in pure_bm25["entries"]] == [facts[1]]
        bad = await http.post("/v0/search", json={"memoryId": memory_id, "query": "x", "topK": 0})
        assert bad.status_code == 400 and bad.json()["error"].startswith("topK:")
        missing = await http.post("/v0/search", json={"memoryId": "nope", "query": "x"})
        assert missing.status_code == 404 and missing.json()["error"].startswith("memoryId:")
        garbage = await http.post("/v0/search", content=b"{not json")
        assert garbage.status_code == 400 and "JSON" in garbage.json()["error"]
    async with mcp_session(server.mcp_url) as s:
        assert SEARCH_KEYS <= set(await ok(s, "search_memories", memory_id=memory_id, query="hamster"))


def _initialize(http: httpx.Client, url: str, host: str | None = None) -> httpx.Response:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if host:
        headers["Host"] = host
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    return http.post(url, json=body, headers=headers)


def test_localhost_host_header_works_and_foreign_hosts_get_421(server):
    with httpx.Client(headers=server.auth_headers) as http:
        assert _initialize(http, server.mcp_url, host=f"localhost:{server.port}").status_code == 200
        assert _initialize(http, server.mcp_url, host=f"127.0.0.1:{server.port}").status_code == 200
        assert _initialize(http, server.mcp_url, host="evil.example:80").status_code == 421


def _sse_json(response: httpx.Response) -> dict:
    if response.headers["content-type"].startswith("application/json"):
        return response.json()
    data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])


async def test_lone_surrogates_in_raw_json_are_a_tool_error_not_a_crash(server):
    vault_id, memory_id = await _memory(server.mcp_url, "surrogates", ["kept entry"])
    with httpx.Client(timeout=10, headers=server.auth_headers) as http:
        init = _initialize(http, server.mcp_url)
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
                   "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        http.post(server.mcp_url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        raw = ('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_entry","arguments":'
               '{"vault_id":"%s","memory_id":"%s","raw_entry":"bad \\ud800 text","summary":"s"}}}' % (vault_id, memory_id))
        response = http.post(server.mcp_url, headers=headers, content=raw.encode())
    result = _sse_json(response)
    assert result["result"]["isError"] is True, result
    assert result["result"]["content"][0]["text"].startswith("add_entry: raw_entry: is not valid UTF-8"), result
    assert httpx.get(f"{server.rest_url}/v0/health").json()["status"] == "healthy"
    async with mcp_session(server.mcp_url) as s:
        listed = await ok(s, "list_entries", vault_id=vault_id, memory_id=memory_id)
        assert [e["rawEntry"] for e in listed["entries"]] == ["kept entry"]


async def test_wrong_types_and_missing_arguments_name_the_argument(server):
    vault_id, memory_id = await _memory(server.mcp_url, "bad-types", ["kept"])
    async with mcp_session(server.mcp_url) as s:
        assert "top_k" in await err(s, "search_memories", memory_id=memory_id, query="x", top_k="abc")
        assert "alpha" in await err(s, "search_memories", memory_id=memory_id, query="x", alpha=3)
        assert "tags" in await err(s, "add_entry", vault_id=vault_id, memory_id=memory_id, raw_entry="r",
                                   summary="s", tags="not an object")
        assert "limit" in await err(s, "list_entries", vault_id=vault_id, memory_id=memory_id, limit="ten")
        assert "vault_id" in await err(s, "list_memories", vault_id=123)
        missing = await err(s, "add_entry", vault_id=vault_id, memory_id=memory_id, raw_entry="r")
        assert "summary: is required" in missing
        assert "memory_id" in await err(s, "await_consistency", memory_id="no-such-memory")
        big = await err(s, "add_entry", vault_id=vault_id, memory_id=memory_id, raw_entry="x" * 70_000, summary="s")
        assert "raw_entry" in big and "65536" in big
        # numbers as strings are refused, as the REST API refuses them (test_strict_args.py)
        assert "limit: must be a whole number" in await err(s, "list_entries", vault_id=vault_id,
                                                            memory_id=memory_id, limit="1")
        assert "top_k: must be a whole number" in await err(s, "search_memories", memory_id=memory_id, query="kept",
                                                            top_k="2")
        listed = await ok(s, "list_entries", vault_id=vault_id, memory_id=memory_id)
    assert [e["rawEntry"] for e in listed["entries"]] == ["kept"]


text_strategy = st.text(min_size=1, max_size=120).filter(lambda t: t.strip())


def test_unicode_round_trips_over_mcp(server):
    vault_id, memory_id = asyncio.run(_memory(server.mcp_url, "unicode", []))

    async def roundtrip(raw: str, query: str) -> None:
        async with mcp_session(server.mcp_url) as s:
            await ok(s, "add_entry", vault_id=vault_id, memory_id=memory_id, raw_entry=raw, summary=raw,
                     tags={"t": raw})
            newest = (await ok(s, "list_entries", vault_id=vault_id, memory_id=memory_id, limit=1))["entries"][0]
            got = await ok(s, "get_entry", vault_id=vault_id, memory_id=memory_id, entry_id=newest["entryId"])
            assert got["rawEntry"] == raw and got["summary"] == raw and got["tags"] == {"t": raw}
            await ok(s, "await_consistency", memory_id=memory_id)
            is_error, _ = await call(s, "search_memories", memory_id=memory_id, query=query)
            assert not is_error or not query.strip()

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(raw=text_strategy, query=st.text(max_size=60))
    def run(raw: str, query: str) -> None:
        asyncio.run(roundtrip(raw, query))

    run()


def test_restart_on_the_same_file_keeps_entries_contexts_and_search(tmp_path):
    settings = ServiceSettings(port=0, db_path=str(tmp_path / "restart.sqlite"), embedder="static")
    with EmbeddedMemoryService(settings, log_path=tmp_path / "a.log", api_key=LOCAL_DEV_TOKEN) as first:
        vault_id, memory_id = asyncio.run(_memory(first.mcp_url, "restart", ["Peanut the hamster loves seeds"]))

        async def put() -> None:
            async with mcp_session(first.mcp_url) as s:
                await ok(s, "put_context", vault_id=vault_id, memory_id=memory_id, content="facts: hamster Peanut")
                await ok(s, "await_consistency", memory_id=memory_id)

        asyncio.run(put())
    assert first.pid is None and not first.running

    with EmbeddedMemoryService(settings, log_path=tmp_path / "b.log", api_key=LOCAL_DEV_TOKEN) as second:
        async def check() -> None:
            async with mcp_session(second.mcp_url) as s:
                assert await ok(s, "get_context", vault_id=vault_id, memory_id=memory_id) == "facts: hamster Peanut"
                hits = await ok(s, "search_memories", memory_id=memory_id, query="what is my hamster called")
                assert hits["entries"][0]["rawEntry"] == "Peanut the hamster loves seeds"
                assert hits["bestContext"] == "facts: hamster Peanut"

        asyncio.run(check())


def test_launcher_reports_a_failed_start_with_the_log_tail(tmp_path):
    (tmp_path / "adir").mkdir()
    settings = ServiceSettings(port=0, db_path=str(tmp_path / "adir"), embedder="none", alpha=0.0)
    service = EmbeddedMemoryService(settings, log_path=tmp_path / "fail.log", startup_timeout_s=60)
    with pytest.raises(RuntimeError, match=r"exited with code 2(.|\n)*serve-memory:"):
        service.start()
    with pytest.raises(ValueError, match="alpha"):
        EmbeddedMemoryService(ServiceSettings(port=0, embedder="none", alpha=0.5))


def test_cli_rejects_bad_flags_with_exit_code_2(tmp_path):
    run = [sys.executable, "-m", "embedded_memory", "--db", str(tmp_path / "x.sqlite")]
    bad_alpha = subprocess.run([*run, "--alpha", "2"], capture_output=True, text=True, timeout=60)
    assert bad_alpha.returncode == 2 and "alpha: must be a number between 0 and 1" in bad_alpha.stderr
    no_port = subprocess.run([*run, "--port", "0"], capture_output=True, text=True, timeout=60)
    assert no_port.returncode == 2 and "--port 0" in no_port.stderr


def test_the_service_exits_when_its_launcher_dies(tmp_path):
    script = textwrap.dedent(f"""
        import sys, time
        from embedded_memory.launcher import EmbeddedMemoryService
        from embedded_memory.settings import ServiceSettings
        svc = EmbeddedMemoryService(ServiceSettings(port={free_port()}, db_path={str(tmp_path / 'orphan.sqlite')!r},
                                                    embedder="none", alpha=0.0))
        svc.start()
        print(svc.pid, flush=True)
        time.sleep(120)
    """)
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                              cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    try:
        child = int(parent.stdout.readline())
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                return
            if _is_zombie(child):
                return
            time.sleep(0.2)
        os.kill(child, signal.SIGKILL)
        pytest.fail("the orphaned service did not exit within 15 s")
    finally:
        if parent.poll() is None:
            parent.kill()


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True
