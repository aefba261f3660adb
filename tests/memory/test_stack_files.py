"""The Mycelian stack files without a Docker engine: compose parses, make targets print the right
commands, and the health wait succeeds against a live service and fails clearly on a closed port."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from embedded_memory.launcher import EmbeddedMemoryService, free_port
from embedded_memory.settings import ServiceSettings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
STACK_MK = ROOT / "mk" / "stack.mk"
needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))


def test_compose_names_every_service_port_and_variable(compose):
    services = compose["services"]
    assert {"postgres", "weaviate", "ollama", "ollama-pull", "memory-service", "outbox-worker", "mcp-server"} <= set(services)
    assert services["postgres"]["image"].startswith("postgres:16")
    assert any("server/internal/storage/postgres/schema.sql:/docker-entrypoint-initdb.d/" in v
               and "${MYCELIAN_REPO:-../mycelian-memory}" in v for v in services["postgres"]["volumes"])
    weaviate = services["weaviate"]
    assert "semitechnologies/weaviate:1.25" in weaviate["image"] and "platform" not in weaviate
    assert "nomic-embed-text" in " ".join(services["ollama-pull"]["entrypoint"])
    for name in ("memory-service", "outbox-worker", "mcp-server"):
        assert services[name]["build"]["context"] == "${MYCELIAN_REPO:-../mycelian-memory}"
    memory_env = services["memory-service"]["environment"]
    assert "11545:11545" in services["memory-service"]["ports"] and memory_env["MEMORY_SERVER_HTTP_PORT"] == "11545"
    assert memory_env["SEARCH_ALPHA"] == memory_env["MEMORY_SERVER_SEARCH_ALPHA"] == "${SEARCH_ALPHA:-0.6}"
    assert memory_env["MEMORY_SERVER_EMBED_PROVIDER"] == "ollama"
    assert services["outbox-worker"]["environment"]["MEMORY_SERVER_SEARCH_INDEX_URL"] == "weaviate:8080"
    mcp = services["mcp-server"]
    assert mcp["environment"]["MCP_HTTP"] == "true"
    assert mcp["environment"]["MEMORY_SERVICE_URL"] == "http://memory-service:11545"
    assert "11546:11546" in mcp["ports"]


def make_n(target: str, *overrides: str) -> str:
    result = subprocess.run(["make", "-n", "-f", str(STACK_MK), target, *overrides], cwd=ROOT,
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout


@needs_make
def test_make_targets_print_the_expected_commands():
    dev = make_n("start-dev-mycelian-server", "MYCELIAN_REPO=/src/mycelian", "SEARCH_ALPHA=0.4")
    stack = "MYCELIAN_REPO=/src/mycelian SEARCH_ALPHA=0.4 OLLAMA_EMBED_MODEL=nomic-embed-text docker compose -f docker-compose.yml"
    assert f"{stack} up -d postgres weaviate ollama" in dev
    assert f"{stack} run --rm ollama-pull" in dev
    assert f"{stack} up -d --build memory-service outbox-worker" in dev
    assert "up -d --build mcp-server" in make_n("start-mcp-streamable-server")
    wait = make_n("wait-backend-health", "HEALTH_TIMEOUT=42")
    assert ".venv/bin/python -m embedded_memory.healthwait --url http://localhost:11545/v0/health --timeout 42" in wait
    assert "docker compose -f docker-compose.yml down -v" in make_n("stop-mycelian", "STACK_DOWN_FLAGS=-v")
    start = make_n("start-embedded-memory", "EMBEDDED_PORT=12345")
    assert "-m embedded_memory --host 127.0.0.1 --port 12345 --db .cache/embedded-memory.sqlite" in start
    assert "> .cache/embedded-memory.pid" in start and ".cache/embedded-memory.log" in start
    assert "kill $pid" in make_n("stop-embedded-memory")
    contract = make_n("contract-test", "MEMORY_MCP_URL=http://x:1/mcp")
    assert "MEMORY_MCP_URL=http://x:1/mcp .venv/bin/python -m pytest -m contract tests/embedded_memory/test_contract.py" in contract
    assert "podman compose -f docker-compose.yml down" in make_n("stop-mycelian", "COMPOSE=podman compose")


@needs_make
def test_missing_mycelian_clone_is_a_clear_error(tmp_path):
    result = subprocess.run(["make", "-f", str(STACK_MK), "start-dev-mycelian-server", f"MYCELIAN_REPO={tmp_path}/nope",
                             "COMPOSE=false"], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert result.returncode != 0 and "is not a directory; clone https://github.com/mycelian-ai" in result.stderr


def healthwait(url: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "embedded_memory.healthwait", "--url", url,
                           "--timeout", str(timeout), "--interval", "0.2"], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout + 30)


def test_health_wait_succeeds_against_the_embedded_service(tmp_path):
    settings = ServiceSettings(port=0, db_path=str(tmp_path / "h.sqlite"), embedder="none", alpha=0.0)
    with EmbeddedMemoryService(settings, log_path=tmp_path / "h.log") as svc:
        result = healthwait(f"{svc.rest_url}/v0/health", 10)
    assert result.returncode == 0 and "healthy after" in result.stdout


def test_health_wait_fails_clearly_on_a_closed_port():
    url = f"http://127.0.0.1:{free_port()}/v0/health"
    started = time.monotonic()
    result = healthwait(url, 1.5)
    assert result.returncode == 1 and time.monotonic() - started < 15
    assert f"ERROR: {url} was not healthy after" in result.stderr and "ConnectError" in result.stderr
