"""What the node tests share: the run context `execute_run` would build, a Runtime around it, and
the cases of a config's dataset plan."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from benchmarker.datasets.schema import Case
from benchmarker.graph.build import CASE_GRAPH, LocalExecutor
from benchmarker.graph.context import RunContext
from benchmarker.graph.ingest import ingest
from benchmarker.graph.memory_setup import prepare_memory
from benchmarker.graph.progress import RunProgress
from benchmarker.graph.setup import setup
from benchmarker.log.jsonl import read_jsonl
from benchmarker.log.store import RunLog
from benchmarker.memory.client import MemoryClient
from benchmarker.memory.drivers.mycelian import MycelianDriver
from benchmarker.memory.settings import MemorySettings
from benchmarker.registry import plan_dataset
from benchmarker.run.context import RunParts, build_context, memory_agent
from benchmarker.run.cost_floor import run_floor
from benchmarker.run.models import build_models
from benchmarker.run.runner import ledger_totals, sweep_points
from benchmarker.suites.settings import PlanSettings

SAMPLE = '[dataset]\nkind = "sample"\nquestions_per_type = 1\nsessions_per_question = 3'
LEVEL_L13 = '[dataset]\nkind = "levels"\nlevels = ["L13"]'
FACTS = '[dataset]\nkind = "fact_extraction"'


def node_context(config, run_dir: Path | None, client: MemoryClient, **overrides: Any) -> RunContext:
    """The RunContext a local run builds (run/context.build_context) for a plain (unswept) point, with the
    config's own models over `client`; `mode` and `phases` change the config's [run] table, `holder`
    names the memory's holder (a Ray worker), other overrides replace fields (log, ...). A fresh RunLog
    reads what an earlier context left in `run_dir`, as a resumed process would."""
    run_dir = Path(run_dir or config.run_dir)
    run = {key: (tuple(overrides.pop(key)) if key == "phases" else overrides.pop(key))
           for key in ("mode", "phases") if key in overrides}
    if run:
        config = config.model_copy(update={"run": config.run.model_copy(update=run)})
    models = build_models(config)
    memory = MycelianDriver(client=client, settings=memory_settings(config), holder=overrides.pop("holder", None))
    subject = memory_agent(config.run, models, builds_agent=True, cost_floor=functools.partial(run_floor, config))
    parts = RunParts(memory, subject, LocalExecutor(CASE_GRAPH, tuple))
    progress = RunProgress(1, enabled=False, stats=lambda: ledger_totals(models.ledger))
    judge = models.judge_for(config.eval, config.run.max_failures_in_a_row)
    search = sweep_points(config.sweep, config.params.top_k, config.memory.search_alpha)[0]
    ctx = build_context(config, log=RunLog(run_dir), parts=parts, judge=judge, models=models,
                        progress=progress, search=search, tracing=None)
    return dataclasses.replace(ctx, **overrides)


def memory_settings(config) -> MemorySettings:
    """What run/parts.py hands open_memory of a loaded config."""
    return MemorySettings(config.memory, vault_title=config.vault_title, vault_id=config.vault_id,
                          config_path=config.config_path)


def with_memory(ctx: RunContext, **changes: Any) -> RunContext:
    """The context with its Mycelian driver changed (another client, another holder)."""
    return dataclasses.replace(ctx, memory=dataclasses.replace(ctx.memory, **changes))


def runtime(ctx: RunContext) -> Runtime[RunContext]:
    return Runtime(context=ctx)


def cases_of(config) -> list[Case]:
    """Every case of the config's dataset plan, in order (sample data is written into the run dir)."""
    plan = plan_dataset(PlanSettings.of(config), Path(config.run_dir))
    return [case for group in plan.groups for case in group.cases()]


async def setup_state(ctx: RunContext) -> dict[str, Any]:
    """What the setup node hands every case: {"setup": {"vault_id": ..., "default_prompts": ...}}."""
    return await setup({}, runtime(ctx))


def lines(path: Path) -> list[dict[str, Any]]:
    return list(read_jsonl(path)) if path.exists() else []


def message_count(case: Case) -> int:
    return sum(len(session.messages) for session in case.sessions)


def smallest(cases: list[Case]) -> Case:
    """The case with the fewest messages (the quickest to ingest)."""
    return min(cases, key=message_count)


async def created_memory(ctx: RunContext, case: Case) -> dict[str, Any]:
    """The state `ingest` receives: the case, the run's setup and a freshly created memory."""
    state = {"case": case, **await setup_state(ctx)}
    return state | await prepare_memory(state, runtime(ctx))


async def ingested(ctx: RunContext, case: Case) -> dict[str, Any]:
    """The state `qa` / `read_back` receive: the case, the setup and its ingested memory."""
    state = await created_memory(ctx, case)
    return state | await ingest(state, runtime(ctx))
