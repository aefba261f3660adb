"""A run whose cases are spread over Ray workers (`[run].executor = "ray"`).

The driver runs the same run graph as a local run (setup -> cases | levels -> summarise, one
graph per sweep point) and stays the run directory's one writer; the workers run the case graph
(run/ray_worker.py). No memory service starts on the driver: each worker has its own embedded
service, or all of them use the shared Mycelian server at `[memory].mcp_url`. This module owns
the workers' lifetime: they are stopped when the run ends, also on failure and Ctrl-C.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from benchmarker.datasets.source import DatasetPlan
from benchmarker.graph.build import build_run_graph
from benchmarker.graph.context import RunContext
from benchmarker.graph.progress import RunProgress
from benchmarker.graph.state import RunState
from benchmarker.log.store import RunLog
from benchmarker.run.models import RunModels
from benchmarker.run.ray_executor import RayExecutor
from benchmarker.run.runner import RunOutcome, ledger_totals, sweep_points


async def ray_setup(state: RunState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """The run graph's setup on the driver: the workers did theirs (vault, prompts, tool check) when
    they started, each on its own server; cases carry the worker's own setup."""
    runtime.context.progress.set_phase("ray")  # cases are on the workers from here on
    return {"setup": {"vault_id": "", "default_prompts": {}}}


async def run_on_ray(config, plan: DatasetPlan, models: RunModels, manifest: dict[str, Any],
                     store: RunLog, *, tracing: Any | None = None) -> RunOutcome:
    """Start the workers, run every sweep point's graph with cases dispatched to them, stop them."""
    run_dir = config.run_dir
    points = sweep_points(config)
    logs = [RunLog(run_dir, answers_dir=run_dir / "points" / p.label if p.label else run_dir) for p in points]
    executor = RayExecutor(config, points, logs, models.ledger)
    results: list[tuple[str, Any, dict[str, Any]]] = []
    skipped: list[str] = []
    summary: dict[str, Any] = {}
    try:
        await executor.start()
        manifest["executor"] = executor.describe()
        # Each worker's own service (its URL is in executor.started), or the one shared server.
        manifest["memory"]["per_worker"] = not executor.workers[0]["memory"]["shared"]
        store.write_manifest(manifest)
        state: dict[str, Any] = {"total_questions": plan.total_questions}
        for point, log in zip(points, logs, strict=True):
            with RunProgress(plan.total_questions, enabled=config.run.progress,
                             stats=lambda: ledger_totals(models.ledger)) as progress:
                ctx = RunContext(
                    config=config, run_id=config.run_id, log=log, client=None, agent=None, qa_model=None,  # type: ignore[arg-type]  # the driver has no MCP client: each worker opens its own
                    judge=models.judge_for(config), ledger=models.ledger, progress=progress, search=point,
                    offline=models.offline, phases=tuple(config.run.phases), mode=config.run.mode,
                    executor=executor, tracing=tracing, case_source=lambda: (case for g in plan.groups for case in g.cases()))
                graph = build_run_graph([(g.name, g.cases) for g in plan.groups], setup_node=ray_setup)
                final = await graph.ainvoke(state, context=ctx)
                state = {"total_questions": plan.total_questions, "setup": final["setup"]}
            summary = final.get("summary", {})
            results.append((point.label, log.answers_dir, summary))
            skipped.extend(c for c in final.get("cases_skipped", []) if c not in skipped)
    finally:
        for log in logs:
            log.close()
        if executor.workers:
            manifest["executor"] = executor.describe()  # with the cases lost to dead workers, before Ray stops
        await executor.close()
    if len(points) > 1:
        from benchmarker.eval.outputs import write_sweep_files

        summary = write_sweep_files(run_dir, results)
    return RunOutcome(run_dir, summary, results, skipped)
