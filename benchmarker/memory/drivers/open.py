"""Reach the run's memory server (start the embedded service, launch a stdio command, or connect to a
URL), open one MCP session to it, and wrap it in the driver its contract needs. Every run path (a
local run, a Ray worker) gets its memory here."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from benchmarker.config_schema import MemoryConfig
from benchmarker.errors import UserError
from benchmarker.log.lines import Json
from benchmarker.memory.client import WaitLimit, auth_headers
from benchmarker.memory.driver import MemoryDriver
from benchmarker.memory.drivers.mapped import SERVERS_DIR, MappedDriver, check_scope_launch, connect_within, scope_folder
from benchmarker.memory.drivers.mycelian import MycelianDriver
from benchmarker.memory.launch import ServerLaunch, embedded_stdio_launch, mapping_for, stdio_launch
from benchmarker.memory.settings import MemorySettings
from benchmarker.memory.tool_mapping import ToolMapping


@dataclass(frozen=True)
class OpenMemory:
    """The driver, and where its server is (for the manifest)."""

    driver: MemoryDriver
    launch: ServerLaunch

    def describe(self) -> dict[str, Json]:
        return {**self.launch.describe(), "mcp_url": self.launch.url or None}


def embedder_device(mem: MemoryConfig, config_path: Path | None) -> str | None:
    """Where the embedded service's minilm embedder will run, "cpu" or "cuda" (`[memory] device`, "auto"
    resolved here the way the service resolves it on this machine); None when no minilm runs. A `cuda`
    that torch cannot see is a UserError (exit 2) naming the key (and `config_path`), before anything starts."""
    if mem.backend != "embedded" or mem.embedder != "minilm":
        return None
    from embedded_memory.embedders import resolve_device
    from embedded_memory.errors import EmbedderError

    try:
        return resolve_device(mem.device)
    except EmbedderError:
        where = f"{config_path}: " if config_path else ""
        raise UserError(f"{where}[memory] device = \"{mem.device}\": torch sees no CUDA device "
                        "(torch.cuda.is_available() is False: no GPU, no driver, or a CPU-only torch build); "
                        "set device = \"auto\" or \"cpu\"") from None


@contextlib.asynccontextmanager
async def memory_server(mem: MemoryConfig, config_path: Path | None, run_dir: Path,
                        mapping: ToolMapping) -> AsyncIterator[ServerLaunch]:
    """How to reach the run's memory server: the configured URL or stdio command (`[memory] transport`,
    else the preset's), or the embedded service (on a free port with its own key, or as a stdio
    process the client starts). A server other than Mycelian is always backend "mcp" (config rule)."""
    if mem.backend == "mcp":
        if (mem.transport or mapping.server.transport) == "stdio":
            yield stdio_launch(mem, config_path, mapping, run_dir)
        else:
            yield ServerLaunch(transport="streamable_http", url=mem.mcp_url,
                               headers=auth_headers(os.environ.get(mem.auth_token_env)))
        return
    from embedded_memory.launcher import EmbeddedMemoryService
    from embedded_memory.settings import ServiceSettings

    db_path = Path(mem.db_path) if mem.db_path else run_dir / "memory.sqlite"
    settings = ServiceSettings(host="127.0.0.1", port=0, db_path=str(db_path), alpha=mem.alpha,
                               embedder=mem.embedder, index_lag_ms=mem.index_lag_ms,
                               placeholder_context=mem.placeholder_context, vector_cache_mb=mem.vector_cache_mb,
                               embed_batch_size=mem.embed_batch_size, device=mem.device,
                               await_timeout_s=mem.await_timeout_s, store_secrets=mem.store_secrets)
    if mem.transport == "stdio":
        yield embedded_stdio_launch(settings, run_dir / "memory-service.log")
        return
    async with EmbeddedMemoryService(settings, log_path=run_dir / "memory-service.log") as service:
        yield ServerLaunch(transport="streamable_http", url=service.mcp_url, headers=service.auth_headers,
                           max_body_bytes=settings.max_body_bytes)


@contextlib.asynccontextmanager
async def open_memory(settings: MemorySettings, run_dir: Path, *,
                      holder: str | None = None) -> AsyncIterator[OpenMemory]:
    """The run's memory driver over one MCP session, open for the block. With a mapping whose scope is
    "process" (a server per case), the session opened here is a probe asked only which tools it has.
    `holder` names who keeps the memories (a Ray worker's own service)."""
    mapping = mapping_for(settings.memory)
    async with memory_server(settings.memory, settings.config_path, run_dir, mapping) as launch:
        per_process = not mapping.is_mycelian and mapping.scope.kind == "process" and launch.transport == "stdio"
        if per_process:
            check_scope_launch(mapping, launch, str(settings.config_path))
        probe = launch.for_scope(_fresh_dir(scope_folder(run_dir, run_dir / SERVERS_DIR / "_probe")), "probe") \
            if per_process else launch
        try:
            async with connect_within(probe, settings.memory.start_timeout_s, timeout_s=settings.memory.call_timeout_s,
                                      waits=wait_limit(settings.memory, mapping)) as client:
                driver: MemoryDriver
                if mapping.is_mycelian:
                    driver = MycelianDriver(client=client, settings=settings, holder=holder)
                else:
                    driver = MappedDriver(client=client, mapping=mapping, backend=settings.memory.backend,
                                          config_path=str(settings.config_path),
                                          launch=launch if per_process else None, holder=holder,
                                          start_timeout_s=settings.memory.start_timeout_s,
                                          max_result_mb=settings.memory.max_result_mb)
                yield OpenMemory(driver, launch)
        except ConnectionError as err:
            raise _unreachable(settings.config_path, launch, err) from err


def wait_limit(memory: MemoryConfig, mapping: ToolMapping) -> WaitLimit:
    """How long a consistency wait may block: `[memory] await_timeout_s` (plus a margin) for Mycelian's
    await_consistency or the mapping's consistency tool; every other call has `call_timeout_s`."""
    tools = {"await_consistency"} if mapping.is_mycelian else {mapping.consistency.tool} - {""}
    return WaitLimit.of(memory.await_timeout_s, tools)


def _unreachable(config_path: Path | None, launch: ServerLaunch, err: ConnectionError) -> UserError:
    if launch.transport == "stdio":
        return UserError(f"{err}. Check [memory].command / args / env in {config_path}: the "
                         "server must speak MCP on stdin/stdout and log only to stderr.")
    return UserError(f"{err}. Check [memory].mcp_url in {config_path} and that the server is up "
                     "(make start-mcp-streamable-server && make wait-backend-health).")


def _fresh_dir(path: Path) -> Path:
    """An empty folder at `path` (a probe server's leftovers from an earlier attempt removed)."""
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path
