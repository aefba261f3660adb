"""What the node tests share: the run context `execute_run` would build, a Runtime around it, and
the cases of a config's dataset plan."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from benchmarker.datasets.schema import Case
from benchmarker.datasets.source import plan_dataset
from benchmarker.graph.context import RunContext
from benchmarker.graph.progress import RunProgress
from benchmarker.graph.ingest import ingest
from benchmarker.graph.memory_setup import prepare_memory
from benchmarker.graph.setup import setup
from benchmarker.log.jsonl import read_jsonl
from benchmarker.log.store import RunLog
from benchmarker.memory.client import MemoryClient
from benchmarker.run.models import build_models
from benchmarker.run.runner import ledger_totals, sweep_points

SAMPLE = '[dataset]\nkind = "sample"\nquestions_per_type = 1\nsessions_per_question = 3'
LEVEL_L13 = '[dataset]\nkind = "levels"\nlevels = ["L13"]'
FACTS = '[dataset]\nkind = "fact_extraction"'


def node_context(config, run_dir: Path | None, client: MemoryClient, **overrides: Any) -> RunContext:
    """The RunContext `execute_run` builds for a plain (unswept) point, with the config's own models;
    `overrides` replace fields (qa_model, phases, mode, log, ...). A fresh RunLog reads what an earlier
    context left in `run_dir`, as a resumed process would."""
    run_dir = Path(run_dir or config.run_dir)
    models = build_models(config)
    mode = overrides.get("mode", config.run.mode)
    phases = tuple(overrides.get("phases", config.run.phases))
    agent = models.build_agent(client.tools) if mode == "agent" and "ingest" in phases else None
    progress = RunProgress(1, enabled=False, stats=lambda: ledger_totals(models.ledger))
    ctx = RunContext(config=config, run_id=config.run_id, log=RunLog(run_dir), client=client, agent=agent,
                     qa_model=models.qa if mode == "agent" else None, judge=models.judge_for(config),
                     ledger=models.ledger, progress=progress, search=sweep_points(config)[0],
                     offline=models.offline, phases=phases, mode=mode)
    return dataclasses.replace(ctx, **{k: v for k, v in overrides.items() if k not in ("mode", "phases")})


def runtime(ctx: RunContext) -> Runtime[RunContext]:
    return Runtime(context=ctx)


def cases_of(config) -> list[Case]:
    """Every case of the config's dataset plan, in order (sample data is written into the run dir)."""
    plan = plan_dataset(config, Path(config.run_dir))
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
