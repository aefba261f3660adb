"""What every node of the run graph needs and nothing in the state should carry.

LangGraph passes this as the runtime context (`graph.ainvoke(..., context=RunContext(...))`), which
it documents as static: the context holds only dependencies (config, the MCP client, the models,
the judge, the run log handle, the progress sink). What a run produces travels as records, in
graph state and through `log.append`; what setup learns (the vault, Mycelian's default prompts)
travels in state too. A self-improve candidate gets its own context (`dataclasses.replace`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from benchmarker.graph.progress import RunProgress
from benchmarker.log.store import RunLog

if TYPE_CHECKING:
    from benchmarker.config import RunConfig
    from benchmarker.datasets.schema import Case
    from benchmarker.eval.score import Judge
    from benchmarker.graph.case_scope import CaseScope
    from benchmarker.memory.client import MemoryClient
    from benchmarker.memory.launch import ServerLaunch
    from benchmarker.tool_mapping import ToolMapping


@dataclass(frozen=True)
class SearchSettings:
    """Search-time knobs: these change QA, never what ingestion wrote (so sweeps reuse ingestion)."""

    top_k: int
    alpha: float | None  # None: the service's own alpha (Mycelian's SEARCH_ALPHA)
    label: str = ""      # sweep point label, "" for a plain run


class ReplayWrites(Protocol):
    """A finished run's recorded memory writes (`benchmarker.run.replay.ReplaySource`)."""

    def writes_for(self, case_id: str) -> Iterable[Any]: ...
    def missing_reason(self, case_id: str) -> str | None: ...
    def describe(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class RunContext:
    config: RunConfig
    run_id: str
    log: RunLog
    client: MemoryClient
    agent: Any | None            # the compiled memory agent (None in retrieval mode and replay)
    qa_model: Any | None         # the reader (None in retrieval mode)
    judge: Judge
    ledger: Any                  # benchmarker.agent.ledger.TokenLedger
    progress: RunProgress
    search: SearchSettings
    offline: bool
    phases: tuple[str, ...]
    mode: str                    # agent | retrieval
    started: float = field(default_factory=time.monotonic)
    # Self-improve re-iterates the run's cases; a candidate has its prompt copies and cadence.
    case_source: Callable[[], Iterable[Case]] | None = None
    prompts_dir: Path | None = None
    context_cadence: int | None = None
    replay: ReplayWrites | None = None   # `replay`: writes to re-apply instead of running the agent
    # A server other than Mycelian, driven through its tool mapping (None: Mycelian's own contract).
    mapping: ToolMapping | None = None
    # Set when every case gets its own server process (mapping scope "process"): how to start one,
    # and how to build the memory agent over that process's tools.
    launch: ServerLaunch | None = None
    agent_factory: Callable[[list[Any]], Any] | None = None
    scope: CaseScope | None = None     # the case's own server (set per case by graph/case_scope.py)
    adapter: Any | None = None           # an outside agent's pool (agent.adapters.AgentPool); client is then None
    # Ray: the driver's executor (cases run on workers, run/ray_executor.py); on a worker, the name
    # of its own embedded memory service (None: the run's memory server, reachable from anywhere).
    executor: Any | None = None
    memory_holder: str | None = None
    tracing: Any | None = None           # agent.tracing.RunTracing when [tracing] langsmith = true

    def traced(self, *, case_id: str, role: str, phase: str, **where: Any):
        """A LangSmith scope around one unit of work (a question, a judgement); nothing when tracing is off."""
        if self.tracing is None:
            return contextlib.nullcontext(False)
        return self.tracing.scope(case_id=case_id, role=role, phase=phase, run_name=phase, **where)

    @property
    def cadence(self) -> int:
        """The context cadence the memory agent is told (a candidate's, else the config's)."""
        return self.context_cadence or self.config.params.context_cadence
