"""Scorers for the in-house suites: fact extraction read-backs and rubric-graded questions.

Each returns the grading keys merged into a results line: `label` (bool or None), `score`
(0..1 or None), and a `grade` dict with the details a report needs.
"""

from __future__ import annotations

from typing import Any

from benchmarker.datasets.schema import Case
from benchmarker.graph.context import RunContext

PASS_SCORE = 0.5  # a rubric score at or above this counts as correct in accuracy tables


async def grade_fact_case(ctx: RunContext, case: Case, record: dict[str, Any]) -> dict[str, Any]:
    from benchmarker.datasets.fact_extraction import context_facts, extracted_facts_from_memory, fact_case_of
    from benchmarker.eval.facts import score_case

    fc = fact_case_of(case)
    context = record.get("latest_context") or ""
    extracted = extracted_facts_from_memory(record.get("new_entries") or [], context, list(fc.existing_memory))
    all_context = context_facts(context)
    judge = "deterministic"
    if ctx.judge_model is not None and ctx.judge_kind != "deterministic":
        from benchmarker.eval.fact_judge import format_extracted_output, judge_facts, judged_case_score

        verdict = await judge_facts(ctx.judge_model, fc, format_extracted_output(extracted),
                                    retries=ctx.config.eval.judge_retries)
        score = judged_case_score(fc, extracted, verdict, context_facts=all_context)
        judge = "llm"
    else:
        score = score_case(fc, extracted, context_facts=all_context)
    data = score.to_dict()
    exact = score.judged and score.fp == 0 and score.fn == 0
    checks = [c for c in (score.conflict_resolved, score.minimal) if c is not None]
    label = (exact and all(checks)) if score.judged else None
    return {"label": label, "score": score.f1, "extracted_facts": extracted, "fact_score": data,
            "autoeval_label": None if label is None else {"model": judge, "label": label},
            "grade": {"judge": judge, "reason": f"tp={score.tp} fp={score.fp} fn={score.fn}",
                      "unjudged": not score.judged}}


async def grade_inhouse(ctx: RunContext, case: Case, record: dict[str, Any]) -> dict[str, Any]:
    from benchmarker.eval.rubric import grade_answer

    question = next(q for q in case.questions if q.question_id == record["question_id"])
    judge_model = ctx.judge_model if ctx.judge_kind != "deterministic" else None
    grade = await grade_answer(question, record.get("hypothesis") or "", judge_model=judge_model,
                               votes=ctx.config.eval.votes, retries=ctx.config.eval.judge_retries)
    data = grade.to_dict()
    extra = await _level_extras(ctx, case, question, record)
    score = extra.get("score", data.get("overall"))
    label = None if score is None else bool(score >= PASS_SCORE)
    return {"label": label, "score": score, "rubric": data, "level_scoring": extra or None,
            "autoeval_label": None if label is None else {"model": data.get("judge") or "deterministic", "label": label},
            "grade": {"judge": "rubric", "reason": data.get("reason", ""), "unjudged": score is None,
                      "covers": data.get("overall_covers")}}


async def _level_extras(ctx: RunContext, case: Case, question, record: dict[str, Any]) -> dict[str, Any]:
    """L14 / L16 per-question scoring replaces the plain rubric score where the level defines one."""
    level = case.metadata.get("level_id")
    if level == "L14":
        from benchmarker.eval.level_scoring import score_forgetting

        return score_forgetting(question, record.get("hypothesis") or "")
    if level == "L16":
        from benchmarker.eval.level_scoring import score_decision

        return score_decision(question, record.get("hypothesis") or "")
    return {}
