"""The attribution chart as geometry for an inline SVG (one stacked bar per question type, shares of each
stage), so a run page draws it server-side with no script and no image file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmarker.reporting.palette import OTHER_STAGE, STAGE_COLORS
from benchmarker.scoring.attribution import STAGES

COLORS = STAGE_COLORS   # the report's attribution.png uses the same palette
LABEL_W, BAR_W, ROW_H, BAR_H = 200, 440, 26, 18


@dataclass(frozen=True)
class Segment:
    stage: str
    x: float
    width: float
    count: int
    share: float
    color: str


@dataclass(frozen=True)
class Bar:
    label: str
    n: int
    y: int
    segments: list[Segment]


@dataclass(frozen=True)
class Chart:
    bars: list[Bar]
    width: int
    height: int
    label_w: int
    bar_h: int
    legend: list[tuple[str, str]]


def _bar(label: str, cell: dict[str, Any], y: int, stages: list[str]) -> Bar:
    n = int(cell.get("n") or 0)
    counts = cell.get("counts") or {}
    x, segments = float(LABEL_W), []
    for stage in stages:
        count = int(counts.get(stage) or 0)
        if count and n:
            width = BAR_W * count / n
            segments.append(Segment(stage, round(x, 2), round(width, 2), count, count / n, COLORS.get(stage, OTHER_STAGE)))
            x += width
    return Bar(label, n, y, segments)


def attribution_chart(block: Any) -> Chart | None:
    """All questions, then each question type; None when the summary has no attribution block."""
    if not isinstance(block, dict) or not block.get("n"):
        return None
    stages = [s for s in block.get("stages") or STAGES if isinstance(s, str)]
    cells = [("all", block)] + sorted((str(t), c) for t, c in (block.get("by_type") or {}).items() if isinstance(c, dict))
    bars = [_bar(label, cell, i * ROW_H, stages) for i, (label, cell) in enumerate(cells)]
    return Chart(bars, LABEL_W + BAR_W + 60, len(bars) * ROW_H, LABEL_W, BAR_H,
                 [(s, COLORS.get(s, OTHER_STAGE)) for s in stages])
