"""An agent under test outside the harness (`[agent].type` http or subprocess): it learns the dialogue
and answers the questions itself, keeping its own memory; the harness feeds it and judges it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchmarker.agent.adapters import (
    AdapterError,
    AgentPool,
    HttpAgentAdapter,
    HttpAgentSettings,
    SubprocessAgentAdapter,
    SubprocessAgentSettings,
)
from benchmarker.config_schema import AgentConfig
from benchmarker.errors import UserError
from benchmarker.log.lines import Json
from benchmarker.redact import redact, redact_url

WHERE = {"http": "[agent.http].base_url", "subprocess": "[agent.subprocess].command"}


@dataclass
class OutsideAgentSubject:
    pool: AgentPool
    agent_type: str
    config_path: str

    offline = False
    has_agent = False
    own_writes = False   # the agent keeps its own memory: none of our agent's writing settings apply
    replay = None
    cost_floor = None    # its model calls are its business: no floor of ours

    async def check(self, phases: tuple[str, ...]) -> None:
        """Start the agent and check it answers a reset; an eval-only run never starts it."""
        if "qa" not in phases:
            return
        try:
            await self.pool.check()
        except AdapterError as err:
            key = WHERE.get(self.agent_type, "[agent]")
            raise UserError(f"{err}. Check {key} in {self.config_path} and that the agent is up; "
                            "nothing was run") from err

    def describe(self) -> dict[str, Json] | None:
        return self.pool.describe()

    def identity(self) -> dict[str, str]:
        """Which agent answered, as answers and memory records name it."""
        return {"type": self.agent_type, "name": self.pool.name}


def agent_pool(agent: AgentConfig, concurrency: int, config_path: Path | None) -> AgentPool:
    """The configured outside agent (`[agent]`): one HTTP service, or one subprocess per concurrent case
    (`[run] concurrency`), its cwd relative to `config_path`'s folder. Its description (manifest, summary) names
    header and variable names, never their values."""
    if agent.type == "http":
        h = agent.http
        http = HttpAgentSettings(base_url=h.base_url, name=h.name, header_env=dict(h.header_env),
                                 headers=dict(h.headers), timeout_s=h.timeout_s, max_attempts=h.max_attempts,
                                 initial_backoff_s=h.initial_backoff_s, max_backoff_s=h.max_backoff_s)
        description = {"type": "http", "name": h.name, "base_url": redact_url(h.base_url),
                       "headers": sorted(h.headers), "header_env": sorted(h.header_env), "timeout_s": h.timeout_s,
                       "max_attempts": h.max_attempts}
        return AgentPool(lambda: HttpAgentAdapter(http), size=1, description=redact(description))
    if agent.type == "subprocess":
        s = agent.subprocess
        cwd = _cwd(config_path, s.cwd)
        sub = SubprocessAgentSettings(command=s.command, args=tuple(s.args), env=dict(s.env), cwd=cwd,
                                      name=s.name, timeout_s=s.timeout_s, close_grace_s=s.close_grace_s)
        description = {"type": "subprocess", "name": s.name, "command": s.command, "args": list(s.args),
                       "cwd": cwd, "env": sorted(s.env), "timeout_s": s.timeout_s}
        return AgentPool(lambda: SubprocessAgentAdapter(sub), size=concurrency,
                         description=redact(description))
    raise ValueError(f"[agent].type = {agent.type!r} is not an outside agent")


def _cwd(config_path: Path | None, written: str) -> str:
    """Relative to the config file's folder, like every path in the config; "" means that folder."""
    base = config_path.parent if config_path else Path.cwd()
    return str((base / Path(written).expanduser()).resolve()) if written else str(base.resolve())
