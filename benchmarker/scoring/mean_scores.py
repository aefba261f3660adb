"""Mean score per group of results lines: the numbers the rubric suites' summary blocks and the multi-seed statistics
share (no formatting: reporting renders them)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from statistics import mean
from typing import TypedDict, TypeVar, cast

from benchmarker.log.jsonl import Keyed


class MeanScore(TypedDict):
    """One group's row: how many scored lines, and their mean score (4 decimals)."""

    n: int
    mean_score: float


S = TypeVar("S", bound=Keyed)


def scored_rows(rows: Sequence[S]) -> list[S]:
    """The rows that carry a numeric score (results lines, level lines: anything read by key)."""
    return [r for r in rows if isinstance(r.get("score"), (int, float))]


def mean_score_table(rows: Sequence[Keyed], key: str) -> dict[str, MeanScore]:
    """{value of `key`: {"n", "mean_score"}} over the scored rows."""
    groups: dict[str, list[float]] = defaultdict(list)
    for r in scored_rows(rows):
        groups[str(r.get(key) or "?")].append(float(cast(float, r.get("score"))))   # numeric: scored_rows
    return {name: {"n": len(v), "mean_score": round(mean(v), 4)} for name, v in sorted(groups.items())}
