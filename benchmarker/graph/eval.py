"""Node: grade every answered question of the case, with the scorer its suite calls for.

LongMemEval answers go to the LongMemEval judge (LLM, official prompts, or the deterministic
grader offline); in-house questions to the rubric; fact-extraction read-backs to the fact
matcher (and the fact-enumeration judge when a judge model is configured).
"""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from benchmarker.datasets.schema import Case
from benchmarker.graph.context import RunContext
from benchmarker.graph.state import CaseState


async def eval_case(state: CaseState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    ctx = runtime.context
    if state.get("skipped") or "eval" not in ctx.phases:
        return {}
    case = state["case"]
    ids = [case.case_id] if case.kind == "fact_extraction" else [q.question_id for q in case.questions]
    pending = [ctx.resume.answered[i] for i in ids if i in ctx.resume.answered and i not in ctx.resume.judged]
    if not pending:
        return {}
    ctx.progress.set_phase("eval")
    memory = state.get("memory") or {}
    results = []
    for record in pending:
        started = time.monotonic()
        grading = await _grade(ctx, case, record)
        result = dict(record) | grading
        result["timings"] = dict(record.get("timings") or {}) | {"eval_s": round(time.monotonic() - started, 4)}
        if memory:
            result["failed_turns"] = memory.get("failed_turns", 0)
        ctx.store.write_result(result)
        ctx.resume.judged[record["question_id"]] = result
        results.append(result)
    if case.kind == "level":
        _score_level(ctx, case, memory)
    return {"results": results}


def _score_level(ctx: RunContext, case: Case, memory: dict[str, Any]) -> None:
    """A level's own score (L13 tool trace, L15 balance, ...) once all its questions are judged."""
    from benchmarker.datasets.levels import build_level
    from benchmarker.eval.level_scoring import score_level
    from benchmarker.run.jsonl import read_jsonl

    if any(q.question_id not in ctx.resume.judged for q in case.questions):
        return
    spec = build_level(case.metadata["level_id"], case.metadata["seed"])
    answers = {q.question_id: ctx.resume.judged[q.question_id].get("hypothesis") or "" for q in case.questions}
    decisions = [d for d in read_jsonl(ctx.store.decisions_path) if d.get("case_id") == case.case_id]
    scored = score_level(spec, answers, decisions=decisions,
                         bindings={"vault_id": memory.get("vault_id"), "memory_id": memory.get("memory_id")})
    ctx.store.write_level_score({"case_id": case.case_id, "level": spec.level_id, "title": spec.title, **scored})


async def _grade(ctx: RunContext, case: Case, record: dict[str, Any]) -> dict[str, Any]:
    if ctx.mode == "retrieval":
        return {"label": None, "autoeval_label": None,
                "grade": {"judge": "none", "reason": "retrieval-only run: no answer to judge", "unjudged": False}}
    if case.kind == "fact_extraction":
        from benchmarker.graph.scorers import grade_fact_case

        return await grade_fact_case(ctx, case, record)
    if case.kind in ("level", "long_horizon"):
        from benchmarker.graph.scorers import grade_inhouse

        return await grade_inhouse(ctx, case, record)
    from benchmarker.eval.scoring import grade_record

    grading = await grade_record(record, judge_kind=ctx.judge_kind, model=ctx.judge_model,
                                 prompt_builder=ctx.official_prompt, retries=ctx.config.eval.judge_retries)
    tokens = (grading.get("grade") or {}).get("tokens") or {}
    if tokens:
        grading["tokens"] = dict(record.get("tokens") or {}) | {"eval": tokens}
    return grading
