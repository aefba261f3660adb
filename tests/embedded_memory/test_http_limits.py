"""Resource limits and robustness over real HTTP (issue 12, items 6, 7, 9a): body cap, JSON that used
to crash the handlers, request-read and keep-alive timeouts, the connection cap, MCP session expiry
(and a harness client that survives it), the new flags, and exit 0 on SIGTERM / SIGINT."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx
import pytest
from mcp.shared.exceptions import McpError

from benchmarker.memory.client import MemoryClient
from embedded_memory.cli import add_arguments, settings_from_args
from embedded_memory.healthwait import probe
from embedded_memory.launcher import EmbeddedMemoryService, free_port
from embedded_memory.settings import ServiceSettings

ROOT = Path(__file__).resolve().parents[2]
# Small content limits so the body cap (which must fit the largest legal call) is small too.
SMALL = dict(max_raw_entry_bytes=4096, max_summary_bytes=1024, max_tags_bytes=1024, max_context_bytes=4096)
CAP = 6 * (4096 + 1024 + 1024) + 64 * 1024  # == ServiceSettings(**SMALL).required_body_bytes()
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    root = tmp_path_factory.mktemp("limited")
    settings = ServiceSettings(port=0, db_path=str(root / "memory.sqlite"), embedder="none", alpha=0.0, **SMALL,
                               max_body_bytes=CAP, request_timeout_s=1.0, keep_alive_s=1, max_connections=8)
    with EmbeddedMemoryService(settings, log_path=root / "service.log") as svc:
        yield svc


@pytest.fixture(scope="module")
def roomy(tmp_path_factory):
    """The default body cap, with short-lived and few MCP sessions."""
    root = tmp_path_factory.mktemp("roomy")
    settings = ServiceSettings(port=0, db_path=str(root / "memory.sqlite"), embedder="none", alpha=0.0,
                               session_idle_s=1.0, max_sessions=2)
    with EmbeddedMemoryService(settings, log_path=root / "service.log") as svc:
        yield svc


def _connect(svc: EmbeddedMemoryService) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", svc.port), timeout=10)
    sock.settimeout(10)
    return sock


def _head(svc: EmbeddedMemoryService, path: str, extra: str) -> bytes:
    auth = svc.auth_headers["Authorization"]
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{svc.port}\r\nAuthorization: {auth}\r\n"
            f"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}\r\n").encode()


def _response(sock: socket.socket) -> tuple[int, dict]:
    """(status, JSON body) of one HTTP/1.1 response read off a raw socket."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += _recv(sock)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"content-length: *(\d+)", head, re.IGNORECASE)[1])
    while len(body) < length:
        body += _recv(sock)
    return int(head.split()[1]), json.loads(body)


def _recv(sock: socket.socket) -> bytes:
    chunk = sock.recv(65536)
    assert chunk, "the server closed the connection before answering"
    return chunk


def _closed_after(sock: socket.socket) -> float:
    """Seconds until the server closes the connection (inf if it is still open after 10 s)."""
    started = time.monotonic()
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return float("inf")
    except ConnectionResetError:
        pass
    return time.monotonic() - started


@pytest.mark.parametrize("path", ["/mcp", "/v0/search"])
def test_an_oversized_body_is_refused_by_its_length_before_it_is_sent(limited, path):
    with _connect(limited) as sock:
        sock.sendall(_head(limited, path, f"Content-Length: {50 * 1024 * 1024}\r\n"))
        status, body = _response(sock)
    assert status == 413 and "--max-body-bytes" in body["error"] and str(CAP) in body["error"]


@pytest.mark.parametrize("path", ["/mcp", "/v0/search"])
def test_an_oversized_chunked_body_is_refused_while_counting(limited, path):
    chunk = b"[" * 32 * 1024
    with _connect(limited) as sock:
        sock.sendall(_head(limited, path, "Transfer-Encoding: chunked\r\n"))
        for _ in range(CAP // len(chunk) + 1):  # no terminating chunk: the last one crosses the cap
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        status, body = _response(sock)
    assert status == 413 and "--max-body-bytes" in body["error"]


async def test_the_largest_legal_calls_fit_under_the_cap(limited):
    assert limited.settings.required_body_bytes() == CAP
    worst = "\x01"  # JSON escapes it to six bytes: the most a legal byte can cost on the wire
    async with MemoryClient.connect(limited.mcp_url, headers=limited.auth_headers) as client:
        vault_id = await client.ensure_vault("limits")
        memory_id = (await client.create_memory(vault_id, "largest"))["memoryId"]
        assert await client.put_context(vault_id, memory_id, worst * SMALL["max_context_bytes"]) == "enqueued"
        assert await client.add_entry(vault_id, memory_id, worst * SMALL["max_raw_entry_bytes"],
                                      worst * SMALL["max_summary_bytes"]) == "enqueued"


NESTED = "[" * 100_000 + "]" * 100_000
JUST_PARSEABLE = "[" * 960 + "]" * 960  # passes json.loads at a shallow stack, overflows deeper in the SDK


@pytest.mark.parametrize("raw", [
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"\xff"}}}',
    NESTED.encode(),
    ('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_vaults","arguments":{"x":%s}}}'
     % JUST_PARSEABLE).encode(),
    b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", ',
], ids=["invalid-utf8", "100k-nested", "960-nested", "truncated"])
def test_unparsable_mcp_bodies_are_a_json_rpc_parse_error(roomy, raw):
    response = httpx.post(roomy.mcp_url, content=raw, headers={**MCP_HEADERS, **roomy.auth_headers}, timeout=10)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] is None and body["error"]["code"] == -32700
    assert body["error"]["message"].startswith("Parse error")


def _raw_request(svc: EmbeddedMemoryService, head: bytes) -> bytes:
    sock = _connect(svc)
    try:
        sock.sendall(head)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        return received
    finally:
        sock.close()


def test_after_a_400_the_connection_drains_the_rest_instead_of_resetting(roomy):
    """uvicorn answered a head h11 gave up on (over 16 KiB, still arriving) with 400 and closed at
    once; bytes the client was still sending then made the kernel reset the connection, and under
    load the client lost the 400 itself (httpx ReadError in the fuzzer). Now the server half-closes
    and drains: the client can finish sending, and reads the 400 and then a clean end of stream."""
    sock = _connect(roomy)
    try:
        sock.sendall(b"GET /v0/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"b" * 20_000)
        time.sleep(0.3)  # h11 gives up on the incomplete head; the 400 is written
        for _ in range(3):  # the rest of the client's header keeps coming
            sock.sendall(b"b" * 20_000)
            time.sleep(0.1)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        assert received.startswith(b"HTTP/1.1 400")
    finally:
        sock.close()


def test_an_unknown_http_version_is_505(roomy):
    reply = _raw_request(roomy, b"GET /v0/health HTTP/9.9\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 505") and b"use HTTP/1.1" in reply


def test_a_request_head_over_16_kib_is_431_even_in_one_read(roomy):
    head = (b"GET /v0/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 100_000
            + b"\r\nConnection: close\r\n\r\n")
    assert _raw_request(roomy, head).startswith(b"HTTP/1.1 431")
    assert probe(roomy.health_url)[0]


@pytest.mark.parametrize("rpc_id", ['{"a": 1}', "NaN", "1e400", "1.5", "true", "[1]"])
def test_a_request_id_json_rpc_forbids_is_an_invalid_request_not_a_silent_202(roomy, rpc_id):
    raw = '{"jsonrpc": "2.0", "id": %s, "method": "tools/list"}' % rpc_id
    response = httpx.post(roomy.mcp_url, content=raw.encode(), headers={**MCP_HEADERS, **roomy.auth_headers},
                          timeout=10)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["error"]["code"] == -32600 and "id must be a string, an integer or null" in body["error"]["message"]


@pytest.mark.parametrize("raw", [b'{"memoryId": "m", "query": "caf\xff"}', NESTED.encode(),
                                 ('{"memoryId": %s, "query": "x"}' % JUST_PARSEABLE).encode()],
                         ids=["invalid-utf8", "100k-nested", "960-nested"])
def test_unparsable_search_bodies_are_a_400(roomy, raw):
    response = httpx.post(f"{roomy.rest_url}/v0/search", content=raw, headers=roomy.auth_headers, timeout=10)
    assert response.status_code == 400, response.text
    assert "expected a JSON object" in response.json()["error"]


def test_the_malformed_bodies_left_no_traceback_and_the_service_serves(roomy):
    assert probe(roomy.health_url)[0]
    assert "Traceback" not in roomy.log_path.read_text(encoding="utf-8", errors="replace")


def test_connections_that_never_complete_a_request_are_closed(limited):
    head = f"GET /v0/health HTTP/1.1\r\nHost: 127.0.0.1:{limited.port}\r\n".encode()
    with _connect(limited) as idle, _connect(limited) as slow_head, _connect(limited) as slow_body:
        slow_body.sendall(_head(limited, "/v0/search", "Content-Length: 1000\r\n"))
        for i in range(3):  # a byte every 0.3 s, as slowloris does (each byte used to reset nothing)
            slow_head.sendall(head[i:i + 1])
            slow_body.sendall(b"{")
            time.sleep(0.3)
        for sock in (idle, slow_head, slow_body):
            assert _closed_after(sock) < 3.0


def test_an_idle_kept_alive_connection_is_closed_after_keep_alive(limited):
    with _connect(limited) as sock:
        sock.sendall(f"GET /v0/health HTTP/1.1\r\nHost: 127.0.0.1:{limited.port}\r\n\r\n".encode())
        assert _response(sock)[0] == 200
        assert _closed_after(sock) < 3.0


def test_past_the_connection_cap_requests_get_503_until_idle_sockets_time_out(limited):
    idle = [_connect(limited) for _ in range(limited.settings.max_connections)]
    try:
        time.sleep(0.2)
        assert httpx.get(limited.health_url, timeout=10).status_code == 503
        time.sleep(limited.settings.request_timeout_s + 1.0)
        assert httpx.get(limited.health_url, timeout=10).status_code == 200
    finally:
        for sock in idle:
            sock.close()


def _open_session(http: httpx.Client, svc: EmbeddedMemoryService) -> httpx.Response:
    return http.post(svc.mcp_url, json=INITIALIZE, headers={**MCP_HEADERS, **svc.auth_headers})


def test_idle_sessions_expire_and_the_session_cap_holds(roomy):
    with httpx.Client(timeout=10) as http:
        first, second = _open_session(http, roomy), _open_session(http, roomy)
        assert first.status_code == second.status_code == 200
        third = _open_session(http, roomy)
        assert third.status_code == 503, third.text
        time.sleep(2.5)
        session = {**MCP_HEADERS, **roomy.auth_headers, "mcp-session-id": first.headers["mcp-session-id"],
                   "mcp-protocol-version": "2025-06-18"}
        expired = http.post(roomy.mcp_url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                            headers=session)
        assert expired.status_code == 404 and "Session not found" in expired.text
        assert _open_session(http, roomy).status_code == 200  # expired sessions freed their slots


async def test_the_harness_client_outlives_the_idle_expiry(roomy, monkeypatch):
    # The MCP client's GET stream counts as a request in flight, but it gives up after two read
    # timeouts (2 x 300 s); without it only the client's keep-alive pings hold the session.
    monkeypatch.setattr("mcp.client.streamable_http.MAX_RECONNECTION_ATTEMPTS", 0)
    async with MemoryClient.connect(roomy.mcp_url, headers=roomy.auth_headers,
                                    keepalive_s=0.3) as client:
        await anyio.sleep(2.5)
        assert await client.call_json("list_vaults") == []
    async with MemoryClient.connect(roomy.mcp_url, headers=roomy.auth_headers,
                                    keepalive_s=None, timeout_s=10) as client:
        await anyio.sleep(2.5)
        with pytest.raises(McpError, match="Session terminated"):
            await client.call("list_vaults")


def _serve(tmp_path: Path, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "embedded_memory", "--db", str(tmp_path / "m.sqlite"),
                             "--embedder", "none", "--alpha", "0", *flags], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_the_server_gracefully_with_exit_0(tmp_path, sig):
    port = free_port()
    proc = _serve(tmp_path, "--port", str(port))
    try:
        deadline = time.monotonic() + 60
        while not probe(f"http://127.0.0.1:{port}/v0/health")[0]:
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1]
            time.sleep(0.1)
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr


def test_help_lists_the_new_flags_and_bad_values_exit_2(tmp_path):
    helped = subprocess.run([sys.executable, "-m", "embedded_memory", "--help"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    for flag in ("--api-key", "--allowed-host", "--allowed-origin", "--max-body-bytes", "--session-idle-s",
                 "--max-sessions", "--request-timeout-s", "--keep-alive-s", "--max-connections", "MEMORY_API_KEY"):
        assert flag in helped.stdout, flag
    for flags, named in ((["--max-body-bytes", "1000"], "max_body_bytes"),
                         (["--session-idle-s", "0"], "session_idle_s"),
                         (["--request-timeout-s", "nan"], "request_timeout_s"),
                         (["--max-connections", "0"], "max_connections")):
        proc = _serve(tmp_path, "--port", str(free_port()), *flags)
        _, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 2 and named in stderr and "Traceback" not in stderr, stderr


def test_launcher_arguments_reproduce_the_settings(monkeypatch):
    import argparse

    settings = ServiceSettings(port=1234, max_body_bytes=8 << 20, session_idle_s=30.5, max_sessions=7,
                               request_timeout_s=2.5, keep_alive_s=3, max_connections=64, api_key="k",
                               allowed_hosts=("a.internal", "b.internal:8443"), allowed_origins=("https://ui.example",))
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    monkeypatch.setenv("MEMORY_API_KEY", "k")  # the launcher hands the key over in the environment
    assert settings_from_args(parser.parse_args(settings.to_cli_args())) == settings
