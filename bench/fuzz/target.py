"""How every attack group reaches the service: a handle on a launched or given service, MCP sessions.

The fuzzer either launches the service itself (a child process on a temp database, so it can
read its RSS and restart it after a crash) or attacks a URL it is given. Either way requests
carry `Authorization: Bearer <key>` when a key is known, so the attacks measure the service's
behaviour for a legitimate client, and the auth cases can tell a wrong key from a right one.
"""

from __future__ import annotations

import functools
import inspect
import os
import secrets
import signal
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from embedded_memory.launcher import EmbeddedMemoryService
from embedded_memory.settings import ServiceSettings

API_KEY_ENV = "MEMORY_API_KEY"
JSON_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@functools.lru_cache(maxsize=1)
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


def http_client(*, timeout_s: float = 30.0, fresh_connections: bool = False, **kw: Any) -> httpx.AsyncClient:
    """An httpx client sharing one TLS context (building one per client costs ~50 ms).

    `fresh_connections`: no keep-alive, so every request has its own connection and a reset
    belongs to the request that caused it (uvicorn may drop a connection after a server error).
    """
    if fresh_connections:
        kw["limits"] = httpx.Limits(max_keepalive_connections=0)
    return httpx.AsyncClient(timeout=timeout_s, verify=_tls(), **kw)


def launcher_takes_key() -> bool:
    """Whether this checkout's launcher hands the service an API key itself."""
    return "api_key" in inspect.signature(EmbeddedMemoryService.__init__).parameters


@dataclass
class ServiceHandle:
    """A service under attack: its URLs, the auth headers to send, and (when launched) its process."""

    base_url: str
    api_key: str | None = None
    launched: EmbeddedMemoryService | None = None
    given_pid: int | None = None
    restarts: int = field(default=0)

    @classmethod
    def launch(cls, db_path: Path, log_path: Path, *, embedder: str = "static", api_key: str | None = None,
               **overrides: Any) -> "ServiceHandle":
        """Start the service on `db_path`; a random key when none is given (auth cases need one)."""
        key = api_key or secrets.token_urlsafe(24)
        alpha = 0.0 if embedder == "none" else overrides.pop("alpha", 0.6)
        settings = ServiceSettings(port=0, db_path=str(db_path), embedder=embedder, alpha=alpha, **overrides)
        if launcher_takes_key():
            svc = EmbeddedMemoryService(settings, log_path=log_path, api_key=key)
        else:  # an older launcher: hand the key over the way the service reads it
            svc = EmbeddedMemoryService(settings, log_path=log_path, env={API_KEY_ENV: key})
        svc.start()
        return cls(base_url=svc.rest_url, api_key=key, launched=svc)

    @classmethod
    def attach(cls, url: str, *, api_key: str | None = None, pid: int | None = None) -> "ServiceHandle":
        """A running service at `url` (its /mcp URL or its base URL)."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"--url: expected http://host:port[/mcp], got {url!r}")
        return cls(base_url=f"{parts.scheme}://{parts.netloc}", api_key=api_key or os.environ.get(API_KEY_ENV),
                   given_pid=pid)

    # -- addresses ---------------------------------------------------------------------------

    @property
    def mcp_url(self) -> str:
        return f"{self.base_url}/mcp"

    @property
    def health_url(self) -> str:
        return f"{self.base_url}/v0/health"

    @property
    def host_port(self) -> tuple[str, int]:
        parts = urlsplit(self.base_url)
        return parts.hostname or "127.0.0.1", parts.port or 80

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    @property
    def pid(self) -> int | None:
        return self.launched.pid if self.launched is not None else self.given_pid

    # -- liveness ------------------------------------------------------------------------------

    def process_alive(self) -> bool | None:
        """True/False for a known pid, None when the process is not ours to see."""
        if self.launched is not None:
            return self.launched.running
        if self.given_pid is None:
            return None
        try:
            os.kill(self.given_pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    async def healthy(self, timeout_s: float = 5.0) -> bool:
        try:
            async with http_client(timeout_s=timeout_s) as http:
                response = await http.get(self.health_url, headers=self.headers)
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    def revive(self) -> bool:
        """Restart a launched service whose process died (on the same database); True if restarted."""
        if self.launched is None or self.launched.running:
            return False
        self.restart()
        return True

    def restart(self) -> None:
        """Stop (reaping a killed process) and start again on the same database; RuntimeError if it fails."""
        if self.launched is None:
            raise RuntimeError("restart: this service was not launched by the fuzzer (--url); it cannot restart it")
        self.launched.stop()
        self.launched.start()
        self.base_url = self.launched.rest_url
        self.restarts += 1

    def kill9(self) -> None:
        if self.launched is not None and self.launched.pid is not None:
            os.kill(self.launched.pid, signal.SIGKILL)

    def stop(self) -> int | None:
        """SIGTERM the launched service; its exit code (None when not launched here)."""
        return self.launched.stop() if self.launched is not None else None


@asynccontextmanager
async def mcp_session(target: ServiceHandle, timeout_s: float = 30.0) -> AsyncIterator[Any]:
    """An initialised MCP ClientSession (the real SDK client) carrying the target's auth headers."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    http = http_client(timeout_s=timeout_s, headers=target.headers)  # what create_mcp_http_client builds
    async with http, streamable_http_client(target.mcp_url, http_client=http) as (read, write, _), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


def tool_text(result: Any) -> str:
    """The text of a tool result (the contract says exactly one text content)."""
    return "".join(getattr(block, "text", "") for block in result.content)
