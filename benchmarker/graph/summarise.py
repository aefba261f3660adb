"""Node `summarise`: the run's summary, report and plots (benchmarker.eval.outputs), from its files."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from benchmarker.eval.outputs import write_outputs
from benchmarker.graph.context import RunContext
from benchmarker.graph.state import RunState


def memory_meta(ctx: RunContext) -> dict[str, Any]:
    """The memory backend as the manifest names it: a retrieval report says which index it measured."""
    if ctx.adapter is not None:
        return {"backend": "none: the outside agent keeps its own memory"}
    memory = ctx.config.memory
    if ctx.mapping is not None:  # a server other than Mycelian: name it and what it cannot do
        return {"backend": memory.backend, "server": ctx.mapping.name, "mapping": ctx.mapping.source,
                "scope": ctx.mapping.scope.kind, "lacks": list(ctx.mapping.lacks), "embedder": None, "alpha": None}
    embedded = memory.backend == "embedded"
    return {"backend": memory.backend, "embedder": memory.embedder if embedded else None,
            "alpha": memory.alpha if embedded else "service default"}


async def summarise(state: RunState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    ctx = runtime.context
    ctx.progress.set_phase("report")
    run_meta = {"run_id": ctx.run_id, "offline": ctx.offline, "mode": ctx.mode, "judge": ctx.judge.kind,
                "point": ctx.search.label, "top_k": ctx.search.top_k, "alpha": ctx.search.alpha,
                "tokens": ctx.ledger.snapshot(), "dataset_kind": ctx.config.dataset.kind,
                "thresholds": ctx.judge.thresholds.model_dump(mode="json"), "memory": memory_meta(ctx)}
    if ctx.config.multi_agent.analyst:
        run_meta["analyst"] = True
    if ctx.config.multi_agent.graders:
        run_meta["graders"] = list(ctx.config.multi_agent.graders)
        if getattr(ctx.judge, "model", None) is None:
            run_meta["graders_note"] = "not graded: no grader model (the judge is deterministic; set [models].eval)"
    if ctx.tracing is not None:  # the report links to the LangSmith project
        run_meta["tracing"] = ctx.tracing.describe()
    if ctx.adapter is not None:  # an outside agent searched (if at all) by its own settings, not ours
        run_meta.update(agent=ctx.adapter.describe(), top_k=None, alpha=None)
    if ctx.replay is not None:  # where the writes came from, and proof that no agent model was called
        agent = run_meta["tokens"].get("roles", {}).get("agent") or {}
        run_meta["replay"] = ctx.replay.describe() | {"agent_calls": agent.get("calls", 0)}
    summary, path = write_outputs(ctx.log.answers_dir, ctx.log.run_dir, run_meta)
    return {"summary": summary, "report_path": str(path)}
