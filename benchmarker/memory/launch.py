"""How the harness reaches a memory server: a URL (streamable HTTP) or a command it starts (stdio).

`ServerLaunch` is the resolved answer for one run, from `[memory]` over the preset's defaults.
A mapping whose scope is "process" gets one server per case: `for_scope` fills `{scope_dir}` (and
`{scope}`) into the command's arguments and environment, so each case's data lives in its own
folder under the run directory and a resumed run reopens the same folder.

A stdio server is started under the lifeline guard (benchmarker/memory/lifeline.py), which ends
the server and its process group when the harness dies, even by SIGKILL during start-up: many
servers never notice that stdin closed, and one left behind keeps its data locked.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarker.log.lines import Json
from benchmarker.memory.lifeline import guard_command
from benchmarker.memory.tool_mapping import ToolMapping, load_mapping, render
from benchmarker.redact import redact

if TYPE_CHECKING:
    from benchmarker.config_schema import MemoryConfig
    from benchmarker.memory.client import MemoryClient


@dataclass(frozen=True)
class ServerLaunch:
    transport: str                                  # streamable_http | stdio
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    stderr_path: str | None = None
    max_body_bytes: int | None = None               # the server's request-body limit, when known (embedded)

    def for_scope(self, scope_dir: Path, scope: str) -> ServerLaunch:
        """This launch for one case's own server process (its data in `scope_dir`)."""
        values = {"scope_dir": str(scope_dir), "scope": scope}
        return replace(self, args=tuple(render(list(self.args), values)),
                       env={k: str(v) for k, v in render(dict(self.env), values).items()},
                       cwd=str(scope_dir), stderr_path=str(scope_dir / "server-stderr.log"))

    def describe(self) -> dict[str, Json]:
        """For the manifest: where the server was (credentials masked, headers left out)."""
        if self.transport == "streamable_http":
            return redact({"transport": self.transport, "url": self.url})
        return redact({"transport": self.transport, "command": self.command, "args": list(self.args),
                       "env": dict(self.env)})

    @contextlib.asynccontextmanager
    async def connect(self, **kwargs: Any) -> AsyncIterator[MemoryClient]:
        from benchmarker.memory.client import MemoryClient

        if self.transport == "streamable_http":
            async with MemoryClient.connect(self.url, headers=self.headers, max_request_bytes=self.max_body_bytes,
                                            **kwargs) as client:
                yield client
            return
        command, args = guard_command(self.command, self.args)
        async with MemoryClient.connect_stdio(command, args, env=self.env, cwd=self.cwd,
                                              stderr_path=self.stderr_path, **kwargs) as client:
            yield client


def mapping_for(memory: MemoryConfig) -> ToolMapping:
    """The run's tool mapping: `[memory].mapping` (a file) over `[memory].preset`."""
    return load_mapping(memory.mapping or memory.preset)


def stdio_launch(mem: MemoryConfig, config_path: Path | None, mapping: ToolMapping, run_dir: Path) -> ServerLaunch:
    """The server command for a stdio run: `[memory]` command / args / env over the preset's (errors name
    `config_path`)."""
    command = mem.command or mapping.server.command
    args = tuple(mem.args) if "args" in mem.model_fields_set else tuple(mapping.server.args)
    env = {**mapping.server.env, **mem.env}
    if not command:
        from benchmarker.errors import UserError

        raise UserError(f"{config_path}: [memory].command is required: {mapping.source} names no command")
    if shutil.which(command) is None and not Path(command).is_file():
        from benchmarker.errors import UserError

        hint = f" Install it: {mapping.server.install_hint}." if mapping.server.install_hint else ""
        raise UserError(f"{config_path}: [memory].command {command!r} (from "
                        f"{'[memory]' if mem.command else mapping.source}) is not on PATH.{hint}")
    return ServerLaunch(transport="stdio", command=command, args=args, env=env,
                        stderr_path=str(run_dir / "memory-server.log"))


def embedded_stdio_launch(settings: Any, log_path: Path) -> ServerLaunch:
    """The embedded Mycelian-compatible service as a stdio server: this Python, the same flags the
    HTTP launcher passes (`ServiceSettings.to_cli_args`), plus `--transport stdio`."""
    args = ("-m", "embedded_memory", *settings.to_cli_args(), "--transport", "stdio")
    return ServerLaunch(transport="stdio", command=sys.executable, args=args,
                        env={"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}, stderr_path=str(log_path))
