"""The board's two figures: accuracy against cost per question and against p95 search latency, with the Pareto
frontier (the points no other point beats on both axes) drawn through them and every point labelled.

Drawn with matplotlib's object API on an Agg canvas (no pyplot state), so the server can draw two figures at
once from its worker threads; the PNG bytes go straight to the response or the static bundle.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

LABEL_CHARS = 32   # a point's label is cut here; the table beside the figure names the run in full
LOG_SPAN = 20      # an axis whose largest value is this many times its smallest is drawn on a log scale
COLORS = {"point": "#4C72B0", "front": "#C44E52", "grid": "#dddddd"}


def pareto_front(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indices of the points no other point beats (an x as low and a y as high, one of them strictly), by x.

    x is a cost (lower is better), y an accuracy (higher is better); equal points are on the frontier together."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], -points[i][1]))
    front: list[int] = []
    best = float("-inf")
    for i in order:
        x, y = points[i]
        if y > best or (front and points[front[-1]] == (x, y)):
            front.append(i)
            best = max(best, y)
    return front


@dataclass(frozen=True)
class Point:
    label: str
    x: float
    accuracy: float  # a share in [0, 1]


def _short(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[:LABEL_CHARS - 1] + "…"


def frontier_png(points: Sequence[Point], x_label: str, title: str) -> bytes:
    """One scatter of accuracy (%) against x, the frontier as a staircase, each point labelled; PNG bytes."""
    fig = Figure(figsize=(8, 5), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    xs, ys = [p.x for p in points], [100 * p.accuracy for p in points]
    ax.scatter(xs, ys, color=COLORS["point"], zorder=3)
    front = pareto_front(list(zip(xs, ys, strict=True)))
    if front:
        ax.plot([xs[i] for i in front], [ys[i] for i in front], drawstyle="steps-post", color=COLORS["front"],
                linewidth=1.5, zorder=2, label="Pareto frontier")
        ax.scatter([xs[i] for i in front], [ys[i] for i in front], color=COLORS["front"], zorder=4)
        ax.legend(loc="best", fontsize=8)
    for point, x, y in zip(points, xs, ys, strict=True):
        # parse_math off: a run id with `$` in it is text, not a formula to typeset (or fail on)
        ax.annotate(_short(point.label), (x, y), textcoords="offset points", xytext=(5, 4), fontsize=8,
                    parse_math=False)
    positive = [x for x in xs if x > 0]
    if len(positive) == len(xs) and positive and max(positive) > LOG_SPAN * min(positive):
        ax.set_xscale("log")
    ax.margins(x=0.18, y=0.12)  # room for the labels of the outermost points
    ax.set_xlabel(x_label)
    ax.set_ylabel("accuracy (%)")
    ax.set_title(title, fontsize=10, parse_math=False)
    ax.grid(color=COLORS["grid"], zorder=0)
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="png")
    return out.getvalue()
