"""The run page's "Is memory needed here?" chart as geometry for an inline SVG: per question type (and all), one
bar per condition (no memory, memory, full context, oracle) with its 95% interval as a whisker, drawn
server-side like the attribution chart (no script, no image file)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CONDITIONS = ("no_memory", "memory", "full_context", "oracle")  # scoring/headroom.py's order
COLORS = {"no_memory": "#9e9e9e", "memory": "#1565c0", "full_context": "#ef6c00", "oracle": "#2e7d32"}
WORDS = {"no_memory": "no memory", "memory": "memory", "full_context": "full context", "oracle": "oracle"}
PLOT_H, BAR_W, GAP, LEFT, TOP = 160, 14, 18, 40, 10
LABEL_CHAR_W = 6.5  # px a character of a type name takes at the legend's font size


@dataclass(frozen=True)
class ConditionBar:
    condition: str
    x: float
    y: float
    height: float
    color: str
    accuracy: float | None
    n: int
    ci_top: float     # whisker ends, in SVG y
    ci_bottom: float


@dataclass(frozen=True)
class GroupedChart:
    groups: list[tuple[str, float]]  # label, x of its centre
    bars: list[ConditionBar]
    width: int
    height: int
    base_y: int
    legend: list[tuple[str, str]]
    legend_y: int


def _y(share: float) -> float:
    return round(TOP + PLOT_H * (1 - share), 2)


def baselines_chart(block: Any) -> GroupedChart | None:
    """None when the summary has no baselines block."""
    if not isinstance(block, dict) or not isinstance(block.get("accuracy"), dict):
        return None
    present = [c for c in CONDITIONS if isinstance(block["accuracy"].get(c), dict)]
    tables = {c: block["accuracy"][c] for c in present}
    types = sorted({str(t) for c in present for t in (tables[c].get("by_type") or {})})
    groups, bars = [], []
    x = float(LEFT + GAP)
    for label in [*types, "all"]:
        start = x
        for condition in present:
            table = tables[condition]
            cell = table.get("overall") if label == "all" else (table.get("by_type") or {}).get(label)
            cell = cell if isinstance(cell, dict) else {}
            accuracy = cell.get("accuracy")
            lo, hi = cell.get("ci95") or (0.0, 0.0)
            share = float(accuracy or 0.0)
            bars.append(ConditionBar(condition, x, _y(share), round(PLOT_H * share, 2), COLORS[condition], accuracy,
                                     int(cell.get("n") or 0), _y(float(hi)), _y(float(lo))))
            x += BAR_W
        groups.append((label, round((start + x) / 2, 2)))
        x += GAP
    # type names run to ~25 characters, far wider than a group: set at 30 degrees, below and right of their bars
    longest = max((len(label) for label, _ in groups), default=0)
    legend_y = TOP + PLOT_H + round(longest * LABEL_CHAR_W * 0.5) + 24
    width = max([int(x) + 10, LEFT + 110 * len(present),
                 *(round(centre + len(label) * LABEL_CHAR_W * 0.87) + 10 for label, centre in groups)])
    return GroupedChart(groups, bars, width, legend_y + 20, TOP + PLOT_H, [(WORDS[c], COLORS[c]) for c in present],
                        legend_y)
