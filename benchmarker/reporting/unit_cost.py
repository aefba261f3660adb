"""What a question and a correct answer cost, from summary.json's `cost` and `qa` blocks.

Worked out where it is shown (`report`, `compare`, the board), never stored: summary.json keeps its keys.
Cost per correct answer is `cost.usd.total / qa.overall.correct`: the price of one right answer, which ranks a
cheap system that is often wrong against a dear one that is right. None (shown "n/a") where nothing was priced
or nothing was answered correctly.
"""

from __future__ import annotations

from typing import Any


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _block(data: Any, key: str) -> dict[str, Any]:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def usd_total(summary: dict[str, Any]) -> float | None:
    """cost.usd.total, or None when nothing was priced."""
    return _num(_block(_block(summary, "cost"), "usd").get("total"))


def usd_per_question(summary: dict[str, Any]) -> float | None:
    """cost.usd_per_question as summary.json has it."""
    return _num(_block(summary, "cost").get("usd_per_question"))


def usd_per_correct(summary: dict[str, Any]) -> float | None:
    """cost.usd.total / qa.overall.correct; None without a price or without a correct answer."""
    total, correct = usd_total(summary), _num(_block(_block(summary, "qa"), "overall").get("correct"))
    return total / correct if total is not None and correct else None
