"""Our memory agent: a prebuilt LangGraph agent over the memory server's tools that decides what to
write while it reads the dialogue, and a reader that answers from what search returns. A `replay`
re-applies a finished run's recorded writes instead of running the agent (whose model is then never
built); a retrieval run has neither agent nor reader."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable

from benchmarker.log.lines import Json
from benchmarker.memory.client import MemoryClient
from benchmarker.memory.driver import MemoryDriver

AgentFactory = Callable[[MemoryDriver], Runnable[Any, Any]]
# summary.json's cost.floor: usd, input_tokens, output_tokens, context_updates, summary_tokens
CostFloor = dict[str, float | int | None]


class ReplayWrites(Protocol):
    """A finished run's recorded memory writes (`benchmarker.run.replay_source.ReplaySource`)."""

    def writes_for(self, case_id: str) -> Iterable[Any]: ...
    def missing_reason(self, case_id: str) -> str | None: ...
    def describe(self) -> dict[str, Json]: ...


@dataclass
class MemoryAgentSubject:
    """The memory agent (built per memory driver: a per-case server has its own tools) and the reader."""

    build_agent: AgentFactory | None      # None: retrieval mode, an eval-only run, or a replay
    reader: BaseChatModel | Runnable[Any, Any] | None
    offline: bool
    replay: ReplayWrites | None = None
    # The memory agent's cost floor for the run's cases (run.cost_floor.run_floor), worked out when the
    # summary is written; None where the run has no floor.
    cost_floor: Callable[[], CostFloor | None] | None = None
    _built: tuple[MemoryClient, Runnable[Any, Any]] | None = field(default=None, repr=False)

    @property
    def has_agent(self) -> bool:
        return self.build_agent is not None

    @property
    def own_writes(self) -> bool:
        """The memory holds what our memory agent wrote (not a replay of another run's writes)."""
        return self.replay is None

    def agent_for(self, memory: MemoryDriver) -> Runnable[Any, Any]:
        """The agent over this driver's tools: built once for the run's server, and anew for a case whose
        own server process has its own session (each case asks once, when its ingestion starts)."""
        assert self.build_agent is not None, "the memory agent runs only when ingest runs in agent mode"
        if self._built is None or self._built[0] is not memory.client:
            self._built = (memory.client, self.build_agent(memory))
        return self._built[1]

    async def check(self, phases: tuple[str, ...]) -> None:
        """Nothing to check: the memory server's setup checks the tools the agent gets."""

    def describe(self) -> dict[str, Json] | None:
        return None
