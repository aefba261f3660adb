"""The one place a RunContext is built, for every run path (a local run, the Ray driver, a Ray
worker): from the run's parts (run/parts.py chooses them) and one sweep point."""

from __future__ import annotations

from dataclasses import dataclass

from benchmarker.agent.tracing import RunTracing
from benchmarker.config import RunConfig
from benchmarker.graph.context import CaseExecutor, RunContext, RunPoint, SearchSettings
from benchmarker.graph.progress import RunProgress
from benchmarker.log.lines import Json
from benchmarker.log.store import RunLog
from benchmarker.memory.driver import MemoryDriver
from benchmarker.registry import scoring_suite
from benchmarker.run.models import RunModels
from benchmarker.scoring.judges import Judge
from benchmarker.subjects import MemoryAgentSubject, ReplayWrites, Subject
from benchmarker.subjects.memory_agent import CostFloor


@dataclass(frozen=True)
class RunParts:
    """What the run's contexts share across sweep points."""

    memory: MemoryDriver
    subject: Subject
    executor: CaseExecutor


def build_context(config: RunConfig, *, log: RunLog, parts: RunParts, judge: Judge, models: RunModels,
                  progress: RunProgress, search: SearchSettings, tracing: RunTracing | None) -> RunContext:
    """The run graph's context at one sweep point (a plain run is one point); the suite that scores the
    run's cases is resolved here, once, for every run path."""
    return RunContext(config=config, log=log, memory=parts.memory, subject=parts.subject, judge=judge,
                      ledger=models.ledger, progress=progress, executor=parts.executor,
                      point=RunPoint(search=search, phases=tuple(config.run.phases)),
                      suite=scoring_suite(config.dataset.kind), tracing=tracing)


def _floor(config: RunConfig) -> CostFloor | None:
    from benchmarker.run.cost_floor import run_floor

    return run_floor(config)


def memory_agent(config: RunConfig, models: RunModels, *, builds_agent: bool,
                 replay: ReplayWrites | None = None) -> MemoryAgentSubject:
    """Our memory agent and reader; the agent is built per memory driver, and only where it writes
    (agent mode, ingest in the phases, no replay)."""
    wants_agent = builds_agent and replay is None and config.run.mode == "agent" and "ingest" in config.run.phases
    return MemoryAgentSubject(build_agent=models.build_agent if wants_agent else None,
                              reader=models.qa, offline=models.offline, replay=replay,
                              cost_floor=lambda: _floor(config))


def describe_outside_models(config: RunConfig, models: RunModels) -> dict[str, Json]:
    """The manifest's models block: only the judge is ours; the outside agent learns and answers."""
    return {"provider": models.provider, "agent": f"{config.agent.type} agent (outside the harness)", "qa": None,
            "eval": config.models.eval or None, "judge": models.judge_kind, "offline": False,
            "note": "answers come from an outside agent; the harness only judges them"}
