"""The shapes of the summary blocks usage_blocks.py computes (`speed`, `counts`), as the dicts it writes: what
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


class CostShape(TypedDict):
    """summary.json's `cost` (floor_usd and floor_ratio only when the run knows its memory agent's floor)."""

    tokens: dict[str, dict[str, int]]          # role -> input, output, cache_read, cache_write
    tokens_total: dict[str, int]
    cache_hit_share: dict[str, float | None]   # role (and "total") -> cache_read / input
    usd: dict[str, float | None]
    usd_per_question: float | None
    floor_usd: NotRequired[float | None]
    floor_ratio: NotRequired[float | None]
    source: dict[str, str]                     # role -> "results" | "ledger"
    unpriced_models: list[str]
    price_notes: list[str]
