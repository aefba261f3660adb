"""Node `summarise`: the run's summary, report and plots (benchmarker.reporting.outputs), from its files."""

from __future__ import annotations

from langgraph.runtime import Runtime

from benchmarker.graph.context import RunContext
from benchmarker.graph.state import RunState
from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.outputs import write_outputs
from benchmarker.reporting.run_meta import RunMeta


async def summarise(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    ctx = runtime.context
    ctx.progress.set_phase("report")
    tokens = ctx.ledger.snapshot()
    run_meta: RunMeta = {"run_id": ctx.run_id, "offline": ctx.offline, "mode": ctx.mode, "judge": ctx.judge.name,
                "point": ctx.search.label, "top_k": ctx.search.top_k, "alpha": ctx.search.alpha,
                "tokens": tokens, "dataset_kind": ctx.dataset_kind,
                "thresholds": ctx.judge.thresholds.model_dump(mode="json"), "memory": ctx.memory.describe(),
                "write_tool": ctx.memory.write_tool, "wall_s": round(ctx.progress.elapsed_s(), 1)}
    if ctx.multi_agent.analyst:
        run_meta["analyst"] = True
    if ctx.multi_agent.graders:
        run_meta["graders"] = list(ctx.multi_agent.graders)
        if getattr(ctx.judge, "model", None) is None:
            run_meta["graders_note"] = "not graded: no grader model (the judge is deterministic; set [models].eval)"
    if ctx.tracing is not None:  # the report links to the LangSmith project
        run_meta["tracing"] = ctx.tracing.describe()
    if (outside := ctx.subject.describe()) is not None:  # an outside agent searched by its own settings, not ours
        run_meta.update({"agent": outside, "top_k": None, "alpha": None})
    if (replay := ctx.subject.replay) is not None:  # where the writes came from, and proof no agent model ran
        calls = agent_role["calls"] if (agent_role := tokens["roles"].get("agent")) else 0
        run_meta["replay"] = replay.describe() | {"agent_calls": calls}
    if ctx.subject.own_writes and ctx.mode == "agent":  # our memory agent wrote this run's memory
        # summary.json: cost.floor_usd, floor_ratio
        run_meta["floor"] = ctx.subject.cost_floor() if ctx.subject.cost_floor else None
        agent = ctx.agent  # which writing mode ran (the report says it)
        run_meta["memory_agent"] = {"ingest_unit": agent.ingest_unit, "raw_entry": agent.raw_entry,
                                    "context_update": agent.context_update,
                                    "context_every_sessions": agent.context_every_sessions}
    summary, path = write_outputs(ctx.log.answers_dir, ctx.log.run_dir, run_meta, SUITE_LOOKUP)
    return {"summary": summary, "report_path": str(path)}
