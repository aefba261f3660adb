"""The sweep's rows and heatmap input as the table, the heatmap plot and the report read them (sweep.py builds
them; here apart so plots.py can name them without importing sweep.py, which imports plots.py)."""

from __future__ import annotations

from typing import Any, TypedDict


class SweepRow(TypedDict, total=False):
    """One point as the table and the heatmap read it (`value` and `ci95` once it is scored)."""

    label: str
    alpha: float
    top_k: int
    dir: str
    summary: dict[str, Any]      # the point's summary.json (RunSummary.as_dict)
    value: float | None
    ci95: list[float] | None


class SweepHeatmap(TypedDict):
    metric: str
    points: list[SweepRow]
