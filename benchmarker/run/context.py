"""The one place a RunContext is built, for every run path (a local run, the Ray driver, a Ray
worker): from the run's parts (run/parts.py chooses them) and one sweep point."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benchmarker.agent.tracing import RunTracing
from benchmarker.config import RunConfig
from benchmarker.config_schema import RunSection
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
    run's cases is resolved here, once, for every run path; the context gets the config's tables its nodes read,
    never the config."""
    return RunContext(run_id=config.run_id, log=log, memory=parts.memory, subject=parts.subject, judge=judge,
                      ledger=models.ledger, progress=progress, executor=parts.executor,
                      point=RunPoint(search=search, phases=tuple(config.run.phases)),
                      suite=scoring_suite(config.dataset.kind), run=config.run, params=config.params,
                      agent=config.agent, models=config.models, memory_table=config.memory,
                      multi_agent=config.multi_agent, eval=config.eval, self_improve=config.self_improve,
                      dataset_kind=config.dataset.kind, tracing=tracing)


def memory_agent(run: RunSection, models: RunModels, *, builds_agent: bool,
                 cost_floor: Callable[[], CostFloor | None], replay: ReplayWrites | None = None) -> MemoryAgentSubject:
    """Our memory agent and reader; the agent is built per memory driver, and only where it writes
    (agent mode, ingest in the phases, no replay). `cost_floor` works out the run's floor when the summary asks
    (run.cost_floor.run_floor over the run's config)."""
    wants_agent = builds_agent and replay is None and run.mode == "agent" and "ingest" in run.phases
    return MemoryAgentSubject(build_agent=models.build_agent if wants_agent else None,
                              reader=models.qa, offline=models.offline, replay=replay,
                              cost_floor=cost_floor)


def describe_outside_models(agent_type: str, eval_model: str, models: RunModels) -> dict[str, Json]:
    """The manifest's models block: only the judge is ours; the outside agent learns and answers
    (`agent_type`: [agent].type, `eval_model`: [models].eval)."""
    return {"provider": models.provider, "agent": f"{agent_type} agent (outside the harness)", "qa": None,
            "eval": eval_model or None, "judge": models.judge_kind, "offline": False,
            "note": "answers come from an outside agent; the harness only judges them"}
