"""Node `graders`: extra scores from named perspectives on the judged answers (scoring/graders.py).

Runs after the cases (and the adversary's rounds) with the judge's model; offline there is no
grader model and nothing is graded (the summary says so)."""

from __future__ import annotations

from pathlib import Path

from langgraph.runtime import Runtime

from benchmarker.graph.context import RunContext
from benchmarker.graph.state import RunState


async def graders(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    from benchmarker.scoring.graders import grade_run

    ctx = runtime.context
    settings = ctx.multi_agent
    model = getattr(ctx.judge, "model", None)
    if model is None or "eval" not in ctx.phases:
        return {}
    ctx.progress.set_phase("graders")
    await grade_run(ctx.log.answers_dir, model, tuple(settings.graders),
                    baseline_dir=Path(settings.baseline_run) if settings.baseline_run else None,
                    retries=ctx.eval.judge_retries, concurrency=ctx.run.concurrency)
    return {}
