"""The shapes of the summary blocks summary.py computes (`speed`, `counts`), as the dicts it writes: what
`RunSummary`'s models (summary_model.py) validate them into, typed where they are built."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from benchmarker.scoring.searchable import NotSearchable


class LatencyStats(TypedDict):
    """Milliseconds over some tool calls: their count and percentiles (None without a call)."""

    n: int
    p50: float | None
    p95: float | None
    mean: float | None
    max: float | None


class PhaseTimes(TypedDict):
    """speed.phases[phase]: the seconds a phase took, summed and averaged over the rows that timed it."""

    sum: float | None
    mean: float | None
    n: int


class SpeedShape(TypedDict):
    """summary.json's `speed`."""

    phases: dict[str, PhaseTimes]
    tool_latency_ms: LatencyStats
    tool_latency_by_tool_ms: dict[str, LatencyStats]


class CountsShape(TypedDict):
    """summary.json's `counts` (not_searchable added by summary_blocks)."""

    questions: int
    judged: int
    unjudged: int
    not_graded: int
    abstention: int
    by_type: dict[str, int]
    by_kind: dict[str, int]
    judges: dict[str, int]
    judge_models: list[str]
    not_searchable: NotRequired[NotSearchable]
