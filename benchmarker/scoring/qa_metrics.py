"""QA accuracy from results lines, the way LongMemEval's print_qa_metrics.py counts it, plus
Wilson intervals and an honest count of what was not judged.

Definitions (a "cell" is {"n", "correct", "accuracy", "ci95": [lo, hi], "unjudged"}):
  - n counts judged questions only (label true/false); unjudged (label null) are reported in
    "unjudged" and excluded from every denominator; accuracy and ci95 are null when n == 0;
  - by_type: one cell per question_type (abstention questions stay in their own type, as
    in the official script);
  - overall: all judged questions;
  - task_averaged: the unweighted mean of the per-type accuracies over the types present
    (for LongMemEval: the six types), i.e. the official "Task-averaged Accuracy". It has no
    Wilson interval; "types" lists what was averaged;
  - abstention: questions whose id ends in `_abs`;
  - abstention_type: the question type whose questions are exactly the abstention ones (LoCoMo's
    adversarial), else null: reports show that type once, as the abstention row;
  - not_graded: answers of a retrieval-only run (grade.judge "none"), outside every cell.
Works for any suite: in-house kinds simply bring other question_type values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NotRequired, TypedDict

from benchmarker.log.lines import ResultLine
from benchmarker.scoring.grade import Grade
from benchmarker.scoring.retrieval_shapes import RetrievalMetrics
from benchmarker.scoring.stats import wilson


class AccuracyCell(TypedDict):
    """An accuracy cell (module docstring), in the order its keys are written."""

    n: int
    correct: int
    accuracy: float | None
    ci95: list[float] | None
    unjudged: int


class TaskAverage(TypedDict):
    """qa.task_averaged: the unweighted mean of the per-type accuracies, and the types averaged."""

    accuracy: float | None
    types: list[str]
    n_types: int


class QaMetrics(TypedDict):
    """summary.json's `qa` block (module docstring), in the order its keys are written."""

    overall: AccuracyCell
    task_averaged: TaskAverage
    abstention: AccuracyCell
    by_type: dict[str, AccuracyCell]
    abstention_type: str | None
    judged: int
    unjudged: int
    not_graded: int
    retrieval: NotRequired[RetrievalMetrics]   # qa_corrected only: retrieval over the corrected evidence


def cell(labels: Iterable[bool | None]) -> AccuracyCell:
    """n, correct, accuracy and a 95% Wilson interval over judged labels; unjudged counted apart."""
    values = list(labels)
    judged = [v for v in values if v is not None]
    n, k = len(judged), sum(1 for v in judged if v)
    lo, hi = wilson(k, n)
    return {"n": n, "correct": k, "accuracy": (k / n) if n else None,
            "ci95": [lo, hi] if n else None, "unjudged": len(values) - n}


def is_abstention(record: ResultLine) -> bool:
    return bool(record.get("is_abstention")) or str(record.get("question_id", "")).endswith("_abs")


def abstention_type(results: Sequence[ResultLine]) -> str | None:
    """The question type made of exactly the abstention questions, or None (module docstring)."""
    types = {str(r.get("question_type") or "unknown") for r in results if is_abstention(r)}
    if len(types) != 1:
        return None
    (name,) = types
    return name if all(is_abstention(r) for r in results if str(r.get("question_type") or "unknown") == name) else None


def shown_rows(qa: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(label, cell): the abstention row, then one per type, as reports show them; the abstention type is
    shown once, as "abstention (<type>)", not as a second row with the same questions."""
    same = qa.get("abstention_type")
    label = f"abstention ({same})" if same else "abstention"
    return [(label, qa.get("abstention") or {})] + [(name, c) for name, c in (qa.get("by_type") or {}).items()
                                                    if name != same]


def not_graded(record: ResultLine) -> bool:
    """An answer nothing was asked to judge (a retrieval-only run's): not a QA answer at all."""
    return record.get("label") is None and Grade.of_line(record).judge == "none"


def qa_metrics(results: Sequence[ResultLine]) -> QaMetrics:
    """The `qa` block of summary.json (module docstring); not-graded records are left out, counted apart."""
    skipped = sum(1 for r in results if not_graded(r))
    results = [r for r in results if not not_graded(r)]
    by_type: dict[str, list[bool | None]] = {}
    for r in results:
        by_type.setdefault(str(r.get("question_type") or "unknown"), []).append(r.get("label"))
    types = {t: cell(labels) for t, labels in sorted(by_type.items())}
    present = [t for t, c in types.items() if c["n"] > 0]
    accuracies = [a for t in present if (a := types[t]["accuracy"]) is not None]  # every one: n > 0
    task_avg = (sum(accuracies) / len(present)) if present else None
    return {
        "overall": cell(r.get("label") for r in results),
        "task_averaged": {"accuracy": task_avg, "types": present, "n_types": len(present)},
        "abstention": cell(r.get("label") for r in results if is_abstention(r)),
        "by_type": types,
        "abstention_type": abstention_type(results),
        "judged": sum(1 for r in results if r.get("label") is not None),
        "unjudged": sum(1 for r in results if r.get("label") is None),
        "not_graded": skipped,
    }
