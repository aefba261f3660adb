"""The slices of summary.json that bundle/recompute.py re-derives, as written (manifest.json's: log/lines.py Manifest).

Every key is optional: a block may be absent, and a bundle is what is being checked, so nothing here is trusted.
"""

from __future__ import annotations

from typing import TypedDict

from benchmarker.log.lines import Json


class WrittenRetrieval(TypedDict, total=False):
    available: bool
    metrics: dict[str, float | None]


class WrittenAttribution(TypedDict, total=False):
    counts: dict[str, int]


class WrittenCheck(TypedDict, total=False):
    count: int
    of: int | None
    threshold: float | None
    applies: bool


class WrittenValidity(TypedDict, total=False):
    checks: dict[str, WrittenCheck]


class WrittenBaselines(TypedDict, total=False):
    accuracy: dict[str, Json]


class WrittenSummary(TypedDict, total=False):
    baselines: WrittenBaselines
    retrieval: WrittenRetrieval
    attribution: WrittenAttribution
    validity: WrittenValidity
    locomo: dict[str, Json]
    beam: dict[str, Json]
