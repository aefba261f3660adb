"""Start the embedded memory service as a subprocess and wait until it is healthy.

    async with EmbeddedMemoryService(ServiceSettings(port=0, db_path=...), log_path=...) as svc:
        url = svc.mcp_url            # http://127.0.0.1:<port>/mcp
        headers = svc.auth_headers   # {"Authorization": "Bearer <this launch's key>"}
    with EmbeddedMemoryService(settings) as svc: ...   # the same, synchronously

A subprocess (not a thread) keeps the embedder's CPU work and the server's event loop out of the
harness's process. The child exits by itself when this process dies, even by SIGKILL during
start-up: it is told this PID (--exit-with-parent --parent-pid) and checks it from its first
instant (lifeline.py), so it never holds the database lock as an orphan. It runs in a session of
its own, so a terminal's Ctrl-C reaches the harness only, which then stops it last. Every
launch has its own random API key (handed over in MEMORY_API_KEY, never in argv where `ps`
shows it), so the harness authenticates the way a client of Mycelian's stack does.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import IO

from embedded_memory.healthwait import probe
from embedded_memory.settings import API_KEY_ENV, ServiceSettings

DEFAULT_STARTUP_TIMEOUT_S = 300.0  # the first `static` start distils a model (20-80 s on 2 cores)
PORT_RETRIES = 3


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:]) or "(empty log)"


class EmbeddedMemoryService:
    """The service in a child process: start, health-wait, URLs, stop (SIGTERM, then kill)."""

    def __init__(self, settings: ServiceSettings, *, log_path: str | os.PathLike[str] | None = None,
                 startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S, env: Mapping[str, str] | None = None,
                 api_key: str | None = None):
        """`api_key`: None = `settings.api_key`, or a fresh random key when that is empty too."""
        key = api_key if api_key is not None else settings.api_key or secrets.token_urlsafe(32)
        settings = dataclasses.replace(settings, api_key=key)
        settings.validate()
        self.settings = settings
        self.startup_timeout_s = startup_timeout_s
        self.extra_env = dict(env or {})
        if log_path is None:
            fd, name = tempfile.mkstemp(prefix="embedded-memory-", suffix=".log")
            os.close(fd)
            log_path = name
        self.log_path = Path(log_path)
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._port = settings.port

    # -- addresses -----------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return self._port

    @property
    def _url_host(self) -> str:
        return "127.0.0.1" if self.settings.host in ("0.0.0.0", "::", "") else self.settings.host

    @property
    def rest_url(self) -> str:
        return f"http://{self._url_host}:{self._port}"

    @property
    def mcp_url(self) -> str:
        return f"{self.rest_url}/mcp"

    @property
    def health_url(self) -> str:
        return f"{self.rest_url}/v0/health"

    @property
    def api_key(self) -> str:
        return self.settings.api_key

    @property
    def auth_headers(self) -> dict[str, str]:
        """What a client sends (MemoryClient.connect(svc.mcp_url, headers=svc.auth_headers))."""
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> EmbeddedMemoryService:
        """Spawn the service and block until /v0/health is healthy (RuntimeError with the log tail if not)."""
        if self.running:
            return self
        attempts = PORT_RETRIES if self.settings.port == 0 else 1
        for attempt in range(1, attempts + 1):
            self._port = self.settings.port or free_port(self._url_host)
            self._spawn()
            error = self._wait_healthy()
            if error is None:
                return self
            self.stop()
            if attempt < attempts and "address already in use" in error.lower():
                continue
            raise RuntimeError(error)
        raise RuntimeError("unreachable")  # pragma: no cover

    def _spawn(self) -> None:
        settings = dataclasses.replace(self.settings, port=self._port, exit_with_parent=True)
        env = dict(os.environ)
        package_root = str(Path(__file__).resolve().parents[1])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
        env["PYTHONUNBUFFERED"] = "1"
        env.update(self.extra_env)
        env[API_KEY_ENV] = settings.api_key  # after extra_env: the key this object reports is the one served
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "ab")  # noqa: SIM115 (the server's log: closed by stop())
        command = [sys.executable, "-m", "embedded_memory", *settings.to_cli_args(),
                   "--parent-pid", str(os.getpid())]
        self._log.write(f"$ {' '.join(command)}\n".encode())
        self._log.flush()
        # A session of its own: a terminal's Ctrl-C reaches the whole foreground process group, and a service
        # that stopped on it first would fail the run's last calls ("stopped answering") instead of letting
        # it end as interrupted. The harness alone stops it (stop()), or the lifeline when the harness dies.
        self._proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                                      env=env, start_new_session=True)

    def _wait_healthy(self) -> str | None:
        """None once healthy, else a message with the reason and the log tail."""
        assert self._proc is not None
        deadline = time.monotonic() + self.startup_timeout_s
        detail = "no answer yet"
        while time.monotonic() < deadline:
            code = self._proc.poll()
            if code is not None:
                return (f"the embedded memory service exited with code {code} before it was healthy "
                        f"(log {self.log_path}):\n{_tail(self.log_path)}")
            ok, detail = probe(self.health_url, timeout_s=2.0)
            if ok:
                return None
            time.sleep(0.1)
        return (f"the embedded memory service did not report healthy at {self.health_url} within "
                f"{self.startup_timeout_s:.0f} s (last answer: {detail}); log {self.log_path}:\n{_tail(self.log_path)}")

    def stop(self, timeout_s: float = 15.0) -> int | None:
        """SIGTERM, then SIGKILL after `timeout_s`; returns the exit code (None if never started)."""
        proc, self._proc = self._proc, None
        code = None
        if proc is not None:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout_s)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5.0)
            code = proc.returncode
        if self._log is not None:
            self._log.close()
            self._log = None
        return code

    def __enter__(self) -> EmbeddedMemoryService:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    async def __aenter__(self) -> EmbeddedMemoryService:
        return await asyncio.to_thread(self.start)

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await asyncio.to_thread(self.stop)
