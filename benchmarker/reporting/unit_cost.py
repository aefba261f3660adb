"""What a question and a correct answer cost, from summary.json's `cost` and `qa` blocks.

Worked out where it is shown (`report`, `compare`, the board), never stored: summary.json keeps its keys.
Cost per correct answer is `cost.usd.total / qa.overall.correct`: the price of one right answer, which ranks a
cheap system that is often wrong against a dear one that is right. None (shown "n/a") where nothing was priced
or nothing was answered correctly.
"""

from __future__ import annotations

from benchmarker.reporting.summary_model import RunSummary


def usd_total(summary: RunSummary) -> float | None:
    """cost.usd.total, or None when nothing was priced."""
    total = summary.usd_total()
    return None if total is None else float(total)


def usd_per_question(summary: RunSummary) -> float | None:
    """cost.usd_per_question as summary.json has it."""
    per_question = summary.cost.usd_per_question if summary.cost is not None else None
    return None if per_question is None else float(per_question)


def usd_per_correct(summary: RunSummary) -> float | None:
    """cost.usd.total / qa.overall.correct; None without a price or without a correct answer."""
    overall = summary.qa.overall if summary.qa is not None else None
    total, correct = usd_total(summary), overall.correct if overall is not None else None
    return total / correct if total is not None and correct else None
