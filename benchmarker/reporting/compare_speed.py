"""`compare`'s speed and cost, side by side: each run's search latency (p50 / p95 of the one search a question
makes, from its results lines' `timings.search_ms`; a run from before those were written falls back to its
summary's search tool latency) and what a question and a correct answer cost (unit_cost.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

import numpy as np

from benchmarker.log.lines import ResultLine
from benchmarker.reporting.compare_shapes import Table
from benchmarker.reporting.fmt import num
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.reporting.unit_cost import usd_per_correct, usd_per_question

SEARCH_TOOLS = ("search_memories", "search")  # the memory tool a question's search goes through, in preference


class UnitCosts(TypedDict):
    per_question: float | None
    per_correct: float | None


class SpeedAndCost(TypedDict):
    """A compared run's `search_ms` ({"n", "p50", "p95"}) and `cost` (USD per question and per correct answer)."""

    search_ms: dict[str, float | int | None]
    cost: UnitCosts


def search_latency(results: Sequence[ResultLine], summary: RunSummary) -> dict[str, float | int | None]:
    """{"n", "p50", "p95"} of the run's searches, in milliseconds."""
    values = [float(v) for r in results if isinstance(v := (r.get("timings") or {}).get("search_ms"), int | float)]
    if values:
        return {"n": len(values), "p50": float(np.percentile(values, 50)), "p95": float(np.percentile(values, 95))}
    by_tool = (summary.speed.tool_latency_by_tool_ms or {}) if summary.speed else {}
    cell = next((by_tool[t] for t in SEARCH_TOOLS if t in by_tool), None)
    return {"n": cell.n if cell else 0, "p50": cell.p50 if cell else None, "p95": cell.p95 if cell else None}


def speed_and_cost(results: Sequence[ResultLine], summary: RunSummary) -> SpeedAndCost:
    return {"search_ms": search_latency(results, summary),
            "cost": {"per_question": usd_per_question(summary), "per_correct": usd_per_correct(summary)}}


def speed_table(runs: list[dict[str, Any]]) -> Table:
    """{"header", "rows"}: search p50 / p95 and USD per question / per correct answer, one column a run."""
    rows = [[label] + [num(((r.get("search_ms") or {}).get(key)), "{:.1f}") for r in runs]
            for label, key in (("search p50 (ms)", "p50"), ("search p95 (ms)", "p95"))]
    rows += [[label] + [num((r.get("cost") or {}).get(key), "${:.4f}") for r in runs]
             for label, key in (("USD per question", "per_question"), ("USD per correct answer", "per_correct"))]
    return {"header": ["", *(r["name"] for r in runs)], "rows": rows}
