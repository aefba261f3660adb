"""The rubric's LLM dimensions (scoring/rubric.py grades with them): each dimension's prompt
(prompts/rubric_<dimension>.txt), the judge's `{"score", "reason"}` reply parsed, and one vote under the judge policy."""

from __future__ import annotations

import json
from functools import cache
from string import Template
from typing import Any, TypedDict

from benchmarker.agent.prompts import load_prompt
from benchmarker.datasets.schema import Question
from benchmarker.scoring.json_reply import first_json_object
from benchmarker.scoring.judge_policy import ask_until_parsed


class JudgeScore(TypedDict):
    """A rubric judge's usable reply."""

    score: float | None
    reason: str


class Vote(TypedDict, total=False):
    """One vote on one dimension: the judge's score and reason with its attempts and raw reply, a failed or
    unparsable call (score None), or the deterministic score standing in for the judge."""

    score: float | None
    reason: str
    attempts: int
    raw: str
    unparsable: bool
    error: str | None
    deterministic: bool


@cache
def _prompt_template(dimension: str) -> Template:
    return Template(load_prompt(f"rubric_{dimension}"))


def render_prompt(dimension: str, question: Question, answer: str) -> str:
    rubric = {k: v for k, v in question.rubric.items() if k != "dimensions"}
    return _prompt_template(dimension).safe_substitute(
        question=question.question, question_date=question.question_date or "unknown",
        gold_answer=question.answer, answer=answer, rubric=json.dumps(rubric, sort_keys=True))


def _score_of(obj: dict[str, Any]) -> float | None:
    try:
        value = float(obj.get("score"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return value if 0.0 <= value <= 1.0 else None


def parse_judge_reply(text: str) -> JudgeScore | None:
    """`{"score": 0..1, "reason": ...}` from a judge reply (fences and chatter tolerated), else None."""
    obj = first_json_object(text, lambda o: _score_of(o) is not None)
    return None if obj is None else {"score": _score_of(obj), "reason": str(obj.get("reason", ""))}


async def judge_vote(model: Any, prompt: str, retries: int) -> Vote:
    """One vote under the judge policy (judge_policy.py): a failed call is recorded, never a zero."""
    from langchain_core.messages import HumanMessage

    got = await ask_until_parsed(lambda _: model.ainvoke([HumanMessage(content=prompt)]), parse_judge_reply, retries)
    if got.value is not None:
        return {**got.value, "attempts": got.attempts, "raw": got.reply}
    return {"score": None, "unparsable": not got.failed, "attempts": got.attempts, "raw": got.reply,
            "error": got.error}
