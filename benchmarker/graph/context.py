"""What every node of the run graph needs and nothing in the state should carry.

LangGraph passes this as the runtime context (`graph.ainvoke(..., context=RunContext(...))`), which
it documents as static: the context holds only dependencies, each behind a small type: the memory
under test (a `MemoryDriver`), what is benchmarked (a subject), the judge, the ledger, the run log,
the progress sink, the executor that runs cases, the point (the knobs a sweep point or a
self-improve candidate changes), the config tables its nodes read (`ctx.run`, `ctx.params`, `ctx.agent`,
`ctx.memory_table`, ...: the loaded config's own typed tables, never the whole config), and the suite that
scores the run's cases, resolved once (nodes read
its parts, `ctx.suite.protocol` and `ctx.suite.adversary`, never the registry by a case's kind). What a
run produces travels as records, in graph state and through `log.append`; what setup learns (the vault,
Mycelian's default prompts) travels in state too. A self-improve candidate or a case's own server gets its
own context (`dataclasses.replace`).
`run/context.py` builds it, for every run path.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from benchmarker.agent.ledger import TokenLedger
from benchmarker.agent.tracing import RunTracing
from benchmarker.config_schema import (
    AgentConfig,
    EvalConfig,
    MemoryConfig,
    ModelsConfig,
    MultiAgentConfig,
    ParamsConfig,
    RunSection,
    SelfImproveConfig,
)
from benchmarker.datasets.schema import Case
from benchmarker.graph.progress import RunProgress
from benchmarker.graph.state import CaseState, Setup
from benchmarker.log.store import RunLog
from benchmarker.memory.driver import MemoryDriver, MemoryPlace
from benchmarker.scoring.judges import Judge
from benchmarker.subjects import MemoryAgentSubject, Subject
from benchmarker.suites.base import Suite


@dataclass(frozen=True)
class SearchSettings:
    """Search-time knobs: these change QA, never what ingestion wrote (so sweeps reuse ingestion)."""

    top_k: int
    alpha: float | None  # None: the service's own alpha (Mycelian's SEARCH_ALPHA)
    label: str = ""      # sweep point label, "" for a plain run


@dataclass(frozen=True)
class RunPoint:
    """One pass over the cases: a sweep point's search settings, or a self-improve candidate's phases,
    prompt copies and context cadence (None: the config's)."""

    search: SearchSettings
    phases: tuple[str, ...]
    prompts_dir: Path | None = None
    context_cadence: int | None = None


class CaseExecutor(Protocol):
    """Where a case's graph runs: in this process, or on a Ray worker (run/ray_executor.py)."""

    def cases(self) -> Iterable[Case]: ...

    async def run_case(self, case: Case, ctx: RunContext, setup: Setup) -> CaseState: ...


@dataclass(frozen=True)
class RunContext:
    run_id: str
    log: RunLog
    memory: MemoryDriver
    subject: Subject
    judge: Judge
    ledger: TokenLedger
    progress: RunProgress
    executor: CaseExecutor
    point: RunPoint
    suite: Suite                          # scores the run's cases: registry.scoring_suite([dataset].kind)
    # The config's tables the nodes read (run/context.build_context takes them from the config, once):
    run: RunSection                       # [run]: mode, phases, concurrency, failure limit, context budget
    params: ParamsConfig                  # [params]: recursion limit, cadence, titles, QA context, timeouts
    agent: AgentConfig                    # [agent]: our memory agent's writing mode and tools
    models: ModelsConfig                  # [models]: the agent model the ledger names
    memory_table: MemoryConfig            # [memory] (`memory` is the driver): write batch, self-improve's space
    multi_agent: MultiAgentConfig         # [multi_agent]: adversary, analyst, graders
    eval: EvalConfig                      # [eval]: judge retries
    self_improve: SelfImproveConfig       # [self_improve]: the loop's iterations, split and decision rule
    dataset_kind: str                     # [dataset].kind, as the summary names it
    tracing: RunTracing | None = None     # LangSmith scopes when [tracing] langsmith = true

    @property
    def mode(self) -> str:
        """agent | retrieval ([run].mode)."""
        return self.run.mode

    @property
    def phases(self) -> tuple[str, ...]:
        return self.point.phases

    @property
    def search(self) -> SearchSettings:
        return self.point.search

    @property
    def prompts_dir(self) -> Path | None:
        return self.point.prompts_dir

    @property
    def offline(self) -> bool:
        """Answers come from the offline provider (labelled so in every output)."""
        return self.subject.offline

    @property
    def cadence(self) -> int:
        """The context cadence the memory agent is told (a candidate's, else the config's)."""
        return self.point.context_cadence or self.params.context_cadence

    @property
    def agent_subject(self) -> MemoryAgentSubject:
        """The memory agent; only the memory-agent case graph asks for it."""
        assert isinstance(self.subject, MemoryAgentSubject), "an outside agent runs its own case graph"
        return self.subject

    def memory_place(self) -> MemoryPlace:
        """How this context names and records a case's memory."""
        return MemoryPlace(run_id=self.run_id, title_template=self.params.memory_title_template,
                           cadence=self.cadence, can_create="ingest" in self.phases)

    def traced(self, *, case_id: str, role: str, phase: str,
               **where: Any) -> contextlib.AbstractContextManager[Any]:
        """A LangSmith scope around one unit of work (a question, a judgement); nothing when tracing is off."""
        if self.tracing is None:
            return contextlib.nullcontext(False)
        return self.tracing.scope(case_id=case_id, role=role, phase=phase, run_name=phase, **where)
