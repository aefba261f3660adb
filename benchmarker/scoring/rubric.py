"""Hybrid multi-dimension grading of in-house answers (long-horizon dialogues and levels).

Deterministic dimensions, computed from the question's rubric dict:
  factual_accuracy  required key facts (word-boundary, number-aware), numbers (all-or-nothing),
                    ordered sequences, yes/no polarity, structured choices (L16); minus
                    `[eval.thresholds] rubric_penalty` (0.5) for each forbidden value (distractor)
                    and each stale value presented as current. Abstention questions
                    (`abstain: true`) score 1 for an "I don't know"-style answer and 0 for any
                    asserted value.
  specificity       share of the gold answer's specific tokens (numbers, dates, names) present.
LLM dimensions (only with a judge model; never zero-filled without one): temporal_awareness,
source_attribution, confidence_calibration, prompts in prompts/rubric_<dimension>.txt.
`overall` weighs the graded dimensions by `rubric_weights`. Text goes through `normalize`.
The deterministic dimensions are in rubric_facts.py, the LLM dimensions' prompts and votes in rubric_judge.py.

Rubric keys (all optional): required [str | [alternatives]], numbers [..], accept [full
alternative answers], forbidden [..], stale [..], abstain bool, sequence [..], yes_no "yes"|"no",
choice {"options": {label: name}, "correct": label}, justify [..], recall [..], weights {..},
dimensions [..].
"""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.datasets.schema import Question
from benchmarker.scoring.abstention import has_abstention_phrase
from benchmarker.scoring.judge import model_id
from benchmarker.scoring.rubric_facts import factual_accuracy, specificity
from benchmarker.scoring.rubric_judge import Vote, judge_vote, render_prompt

DETERMINISTIC = ("factual_accuracy", "specificity")
LLM_DIMENSIONS = ("temporal_awareness", "source_attribution", "confidence_calibration")
ALL_DIMENSIONS = DETERMINISTIC + LLM_DIMENSIONS


@dataclass
class RubricGrade:
    """Per-dimension scores (None = not graded), every raw vote, and what `overall` covers."""

    question_id: str
    scores: dict[str, float | None]
    overall: float | None
    overall_covers: list[str]
    graded_dimensions: list[str]
    ungraded_dimensions: list[str]
    reasons: dict[str, str] = field(default_factory=dict)
    votes: dict[str, list[Vote]] = field(default_factory=dict)
    abstained: bool = False
    judge: str | None = None
    reason: str = ""  # one line: the reasons of the graded dimensions

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _dimensions(question: Question, dimensions: Any) -> list[str]:
    chosen = list(dimensions or question.rubric.get("dimensions") or ALL_DIMENSIONS)
    unknown = [d for d in chosen if d not in ALL_DIMENSIONS]
    if unknown:
        raise ValueError(f"unknown rubric dimension(s) {unknown}; choose from {list(ALL_DIMENSIONS)}")
    return [d for d in ALL_DIMENSIONS if d in chosen or d == "factual_accuracy"]


def _deterministic(question: Question, answer: str, dims: list[str], thresholds: ThresholdsConfig) -> RubricGrade:
    grade = RubricGrade(question.question_id, {}, None, [], [], [], abstained=has_abstention_phrase(answer))
    rubric = question.rubric or {"required": [question.answer]}  # no rubric: the gold answer is the key fact
    score, reason = factual_accuracy(rubric, answer, thresholds=thresholds)
    grade.scores["factual_accuracy"], grade.reasons["factual_accuracy"] = score, reason
    if "specificity" in dims:
        spec, why = specificity(question, answer)
        grade.scores["specificity"], grade.reasons["specificity"] = spec, why
    for dim, value in grade.scores.items():
        grade.votes[dim] = [{"score": value, "deterministic": True}]
    return grade


def _finish(grade: RubricGrade, dims: list[str], weights: dict[str, float]) -> RubricGrade:
    grade.graded_dimensions = [d for d in dims if grade.scores.get(d) is not None]
    grade.ungraded_dimensions = [d for d in dims if grade.scores.get(d) is None]
    for d in grade.ungraded_dimensions:
        grade.scores.setdefault(d, None)
    total = sum(weights[d] for d in grade.graded_dimensions)
    if total:
        grade.overall = round(sum(weights[d] * (grade.scores[d] or 0.0) for d in grade.graded_dimensions) / total, 6)
    if grade.scores.get("factual_accuracy") == 0.0:
        grade.overall = 0.0  # a wrong or missing answer earns nothing for style or calibration
    grade.overall_covers = list(grade.graded_dimensions)
    grade.reason = "; ".join(f"{d}: {grade.reasons.get(d, '')}" for d in grade.graded_dimensions)
    return grade


def grade_answer_deterministic(question: Question, answer: str, dimensions: Any = None, *,
                               thresholds: ThresholdsConfig | None = None) -> RubricGrade:
    """Offline grading: deterministic dimensions only; LLM dimensions listed as ungraded."""
    thresholds = thresholds or ThresholdsConfig()
    dims = _dimensions(question, dimensions)
    grade = _deterministic(question, answer or "", dims, thresholds)
    for dim in dims:
        if dim in LLM_DIMENSIONS:
            grade.reasons[dim] = "not graded: no judge model configured"
    return _finish(grade, dims, thresholds.rubric_weights)


async def grade_answer(question: Question, answer: str, *, judge_model: Any = None, votes: int = 1,
                       dimensions: Any = None, retries: int = 2,
                       thresholds: ThresholdsConfig | None = None) -> RubricGrade:
    """Hybrid grading: deterministic dimensions plus, with a judge, the median of `votes` LLM votes.

    Each vote follows the judge policy (judge_policy.py): `retries` re-asks after an unusable
    reply, none after a model error; a dimension without a parsable vote is ungraded."""
    thresholds = thresholds or ThresholdsConfig()
    if judge_model is None:
        return grade_answer_deterministic(question, answer, dimensions, thresholds=thresholds)
    dims = _dimensions(question, dimensions)
    grade = _deterministic(question, answer or "", dims, thresholds)
    grade.judge = model_id(judge_model) or type(judge_model).__name__
    llm_dims = [d for d in dims if d in LLM_DIMENSIONS]
    jobs = [judge_vote(judge_model, render_prompt(d, question, answer or ""), retries)
            for d in llm_dims for _ in range(max(1, votes))]
    results = await asyncio.gather(*jobs)
    for i, dim in enumerate(llm_dims):
        dim_votes = list(results[i * max(1, votes):(i + 1) * max(1, votes)])
        grade.votes[dim] = dim_votes
        scores = [score for v in dim_votes if (score := v.get("score")) is not None]
        if scores:
            grade.scores[dim] = float(statistics.median(scores))
            grade.reasons[dim] = f"median of {len(scores)} parsable vote(s) of {len(dim_votes)}"
        else:
            failed = [v["error"] for v in dim_votes if not v.get("unparsable")]
            grade.scores[dim] = None
            grade.reasons[dim] = (f"not graded: {failed[0]}" if failed
                                  else f"not graded: all {len(dim_votes)} judge vote(s) unparsable")
    return _finish(grade, dims, thresholds.rubric_weights)


__all__ = ["RubricGrade", "grade_answer", "grade_answer_deterministic", "ALL_DIMENSIONS", "LLM_DIMENSIONS"]
