"""Node `analyst`: a model-written explanation of each wrong answer's diagnosis ([multi_agent]
analyst_explain), after the cases and the adversary's rounds, before the graders.

The diagnosis itself is deterministic (scoring/analyst.py, computed again at summary time from the
logs); this node only asks the judge's model to explain it, shown the question, both answers, the
evidence messages and what the search returned, for at most `explain_max` wrong answers. Lines go
to `analyst.jsonl` as they come (resumable; a failed call is left for the next run), tokens to the
ledger as role "eval".
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.runtime import Runtime

from benchmarker.graph.context import RunContext
from benchmarker.graph.state import RunState
from benchmarker.log.lines import ResultLine


async def analyst(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    from benchmarker.agent.prompts import load_prompt
    from benchmarker.scoring.analyst import explain_run

    ctx = runtime.context
    model = getattr(ctx.judge, "model", None)
    if model is None or "eval" not in ctx.phases:
        return {}
    ctx.progress.set_phase("analyst")
    settings = ctx.multi_agent
    with ctx.traced(case_id="", role="eval", phase="analyst"):
        await explain_run(ctx.log.answers_dir, ctx.log.run_dir, model,
                          evidence_texts=lambda results: _evidence_texts(ctx, results),
                          template=load_prompt("analyst_explain", directory=ctx.prompts_dir),
                          limit=settings.explain_max, retries=ctx.eval.judge_retries,
                          concurrency=ctx.run.concurrency)
    return {}


def _evidence_texts(ctx: RunContext, results: Sequence[ResultLine]) -> dict[str, list[str]]:
    """question id -> the texts of its evidence messages, read from the cases (streamed once)."""
    wanted: dict[str, list[tuple[str, tuple[str, int]]]] = {}
    for r in results:
        for sid, turn in r.get("evidence_turns") or r.get("evidence_messages") or []:
            wanted.setdefault(r["case_id"], []).append((r["question_id"], (str(sid), int(turn))))
    out: dict[str, list[str]] = {r["question_id"]: [] for r in results}
    for case in (ctx.executor.cases() if wanted else []):
        if case.case_id not in wanted:
            continue
        messages = {(s.session_id, i): m.content for s in case.sessions for i, m in enumerate(s.messages)}
        for qid, key in wanted[case.case_id]:
            if key in messages:
                out[qid].append(messages[key])
    return out
