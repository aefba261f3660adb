"""What attribution writes: the keys it adds to a results line and summary.json's `attribution` block
(scoring/attribution.py computes them; reporting/summary_model.py's AttributionBlock reads the block back)."""

from __future__ import annotations

from typing import TypedDict


class AttributionFields(TypedDict, total=False):
    """The keys attribution adds to a results line (all three, or none where nothing is attributed)."""

    attribution: str
    evidence_seen: str | None
    evidence_written: str | None


class StageCell(TypedDict):
    """Counts and shares by stage over some judged questions (overall, or one question type)."""

    n: int
    counts: dict[str, int]
    shares: dict[str, float]


class AttributionSummary(TypedDict):
    """summary.json's `attribution` as computed here (reporting/summary_model.py's AttributionBlock reads it)."""

    stages: list[str]
    n: int
    counts: dict[str, int]
    shares: dict[str, float]
    lost_by_memory: int
    by_type: dict[str, StageCell]
    write_match: str
    seen_match: str
    notes: list[str]
