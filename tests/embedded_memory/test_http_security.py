"""Who may use the service (issue 12, item 5): the bearer key on every route but health, Host/Origin
checks on every route, no non-loopback bind without a key, and a launcher key that never shows in `ps`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from benchmarker.memory.client import MemoryClient
from embedded_memory.launcher import EmbeddedMemoryService, free_port
from embedded_memory.settings import ServiceSettings

ROOT = Path(__file__).resolve().parents[2]
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}}
SEARCH = {"memoryId": "00000000-0000-0000-0000-000000000000", "query": "x"}


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    """The service as the harness launches it (random key), answering to one extra name and origin."""
    root = tmp_path_factory.mktemp("secured")
    settings = ServiceSettings(port=0, db_path=str(root / "memory.sqlite"), embedder="none", alpha=0.0,
                               allowed_hosts=("memory.internal",), allowed_origins=("https://ui.example",))
    with EmbeddedMemoryService(settings, log_path=root / "service.log") as svc:
        yield svc


def _routes(svc: EmbeddedMemoryService, headers: dict[str, str]) -> dict[str, httpx.Response]:
    with httpx.Client(timeout=10) as http:
        return {"/mcp": http.post(svc.mcp_url, json=INITIALIZE, headers={**MCP_HEADERS, **headers}),
                "/v0/search": http.post(f"{svc.rest_url}/v0/search", json=SEARCH, headers=headers)}


def test_mcp_and_search_need_the_key(secured):
    for route, response in _routes(secured, {}).items():
        assert response.status_code == 401, (route, response.text)
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert "Authorization: Bearer" in response.json()["error"], route
    for route, response in _routes(secured, {"Authorization": "Bearer not-the-key"}).items():
        assert response.status_code == 401 and 'error="invalid_token"' in response.headers["www-authenticate"], route
        assert "wrong API key" in response.json()["error"]
    for route, response in _routes(secured, {"Authorization": f"Basic {secured.api_key}"}).items():
        assert response.status_code == 401, route
    answered = _routes(secured, secured.auth_headers)
    assert answered["/mcp"].status_code == 200 and answered["/mcp"].headers["mcp-session-id"]
    assert answered["/v0/search"].status_code == 404  # past auth: the route itself answers (no such memory)


async def test_the_harness_client_sends_the_launch_key_and_a_wrong_key_is_a_clear_error(secured):
    async with MemoryClient.connect(secured.mcp_url, headers=secured.auth_headers) as client:
        vault_id = await client.ensure_vault("secret-vault-title")
    with pytest.raises(ConnectionError, match="refused the API key"):
        async with MemoryClient.connect(secured.mcp_url, timeout_s=10):  # Mycelian's dev token: not this key
            pass
    health = httpx.get(secured.health_url)  # public, as Mycelian's: a liveness probe carries no key
    assert health.status_code == 200 and health.json()["status"] == "healthy"
    assert "secret-vault-title" not in health.text and vault_id not in health.text
    assert secured.api_key not in health.text


def test_foreign_hosts_get_421_on_every_route(secured):
    with httpx.Client(timeout=10, headers=secured.auth_headers) as http:
        for host in ("evil.example", f"evil.example:{secured.port}", "memory.internal.evil.example"):
            responses = [http.get(secured.health_url, headers={"Host": host}),
                         http.post(f"{secured.rest_url}/v0/search", json=SEARCH, headers={"Host": host}),
                         http.post(secured.mcp_url, json=INITIALIZE, headers={**MCP_HEADERS, "Host": host})]
            for response in responses:
                assert response.status_code == 421, (host, response.request.url, response.text)
                assert "--allowed-host" in response.json()["error"]
        for host in (f"localhost:{secured.port}", f"127.0.0.1:{secured.port}", "memory.internal",
                     "memory.internal:8443", f"[::1]:{secured.port}", "10.1.2.3:80"):
            assert http.get(secured.health_url, headers={"Host": host}).status_code == 200, host
        assert http.post(secured.mcp_url, json=INITIALIZE,
                         headers={**MCP_HEADERS, "Host": "memory.internal"}).status_code == 200


def test_foreign_origins_get_403_on_every_route(secured):
    with httpx.Client(timeout=10, headers=secured.auth_headers) as http:
        for origin in ("http://evil.example", "null", "https://ui.example.evil.com", "file://"):
            responses = [http.get(secured.health_url, headers={"Origin": origin}),
                         http.post(f"{secured.rest_url}/v0/search", json=SEARCH, headers={"Origin": origin}),
                         http.post(secured.mcp_url, json=INITIALIZE, headers={**MCP_HEADERS, "Origin": origin})]
            for response in responses:
                assert response.status_code == 403, (origin, response.request.url, response.text)
                assert "--allowed-origin" in response.json()["error"]
        for origin in ("http://localhost:3000", f"http://127.0.0.1:{secured.port}", "https://ui.example",
                       "http://memory.internal:8080"):
            assert http.get(secured.health_url, headers={"Origin": origin}).status_code == 200, origin


def _serve(*flags: str, env_key: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MEMORY_API_KEY"}
    if env_key is not None:
        env["MEMORY_API_KEY"] = env_key
    return subprocess.run([sys.executable, "-m", "embedded_memory", *flags], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.1"])
def test_a_non_loopback_bind_without_a_key_is_refused(tmp_path, host):
    result = _serve("--host", host, "--port", str(free_port()), "--db", str(tmp_path / "m.sqlite"),
                    "--embedder", "none", "--alpha", "0")
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--api-key" in lines[0] and "MEMORY_API_KEY" in lines[0], result.stderr
    assert not (tmp_path / "m.sqlite").exists()  # refused before anything was opened


def test_an_all_interfaces_bind_with_a_key_serves_only_key_holders(tmp_path):
    settings = ServiceSettings(host="0.0.0.0", port=0, db_path=str(tmp_path / "m.sqlite"), embedder="none",
                               alpha=0.0)
    with EmbeddedMemoryService(settings, log_path=tmp_path / "service.log") as svc:
        assert _routes(svc, {})["/v0/search"].status_code == 401
        assert _routes(svc, svc.auth_headers)["/v0/search"].status_code == 404
        cmdline = Path(f"/proc/{svc.pid}/cmdline").read_bytes().decode()
        environ = Path(f"/proc/{svc.pid}/environ").read_bytes().decode()
    assert svc.api_key not in cmdline and "--api-key" not in cmdline  # ps shows argv to every local user
    assert f"MEMORY_API_KEY={svc.api_key}" in environ
    assert svc.api_key not in (tmp_path / "service.log").read_text()


def test_every_launch_has_its_own_key_and_settings_never_print_it(tmp_path):
    settings = ServiceSettings(port=0, db_path=str(tmp_path / "m.sqlite"), embedder="none", alpha=0.0)
    first, second = EmbeddedMemoryService(settings), EmbeddedMemoryService(settings)
    assert len(first.api_key) >= 32 and first.api_key != second.api_key
    assert first.api_key not in repr(first.settings) and first.settings.as_dict()["api_key"] == "***"
    assert first.api_key not in " ".join(first.settings.to_cli_args())
    assert EmbeddedMemoryService(settings, api_key="chosen").auth_headers == {"Authorization": "Bearer chosen"}


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_start_embedded_memory_refuses_fast_without_a_key_and_serves_with_one(tmp_path):
    def make(target: str, *overrides: str, key: str | None = None) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != "MEMORY_API_KEY"}
        if key is not None:
            env["MEMORY_API_KEY"] = key
        files = [f"EMBEDDED_{name}={tmp_path / name.lower()}" for name in ("DB", "PID", "LOG")]
        return subprocess.run(["make", "-f", str(ROOT / "mk" / "stack.mk"), target, *files, *overrides,
                               f"PYTHON={sys.executable}", "EMBEDDED_ARGS=--embedder none --alpha 0"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)

    port = f"EMBEDDED_PORT={free_port()}"
    started = time.monotonic()
    refused = make("start-embedded-memory", "EMBEDDED_HOST=0.0.0.0", port)
    assert refused.returncode != 0 and time.monotonic() - started < 30  # not the whole EMBEDDED_TIMEOUT
    assert "MEMORY_API_KEY" in refused.stderr and "--api-key" in refused.stderr, refused.stderr
    try:
        served = make("start-embedded-memory", "EMBEDDED_HOST=0.0.0.0", port, key="k-123")
        assert served.returncode == 0, served.stderr
        url = f"http://127.0.0.1:{port.split('=')[1]}/v0/search"
        assert httpx.post(url, json=SEARCH).status_code == 401
        assert httpx.post(url, json=SEARCH, headers={"Authorization": "Bearer k-123"}).status_code == 404
    finally:
        assert make("stop-embedded-memory").returncode == 0
