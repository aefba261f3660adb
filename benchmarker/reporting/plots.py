"""Report figures (matplotlib, Agg backend, no display needed). Each function writes one PNG
and returns its path, or None when there is nothing to draw (no judged questions, no
retrieval data, an empty sweep): an empty chart would only look like a zero.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # after matplotlib.use: the backend must be chosen first

from benchmarker.log.jsonl import write_figure
from benchmarker.reporting.calibration_shapes import CalibrationSummary
from benchmarker.reporting.summary_metric_blocks import QaBlock, RetrievalBlock
from benchmarker.reporting.sweep_shapes import SweepHeatmap

COLORS = {"bar": "#4C72B0", "session": "#4C72B0", "turn": "#DD8452", "grid": "#dddddd"}


def _save(fig: Any, path: Path) -> Path:
    write_figure(path, fig)
    plt.close(fig)
    return path


def plot_accuracy_by_type(qa: QaBlock, path: Path) -> Path | None:
    """Horizontal bars per question type (plus overall and abstention) with Wilson error bars."""
    same = qa.abstention_type   # the type that is exactly the abstention questions: its bar is abstention's
    rows = [(t, c) for t, c in (qa.by_type or {}).items() if c.n and t != same]
    rows += [(name, c) for name, c in (("abstention", qa.abstention), ("overall", qa.overall)) if c is not None and c.n]
    if not rows:
        return None
    labels = [f"{name} (n={c.n})" for name, c in rows]
    acc = [100 * (c.accuracy or 0) for _, c in rows]
    ci = [c.ci95 or [0, 0] for _, c in rows]
    # max(0, ...): Wilson bounds are rounded, so at 0% or 100% they can sit a hair inside the point.
    err = [[max(0.0, 100 * ((c.accuracy or 0) - lo)) for (_, c), (lo, _) in zip(rows, ci, strict=True)],
           [max(0.0, 100 * (hi - (c.accuracy or 0))) for (_, c), (_, hi) in zip(rows, ci, strict=True)]]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.2))
    colors = [COLORS["bar"] if name not in ("overall", "abstention") else "#55A868" for name, _ in rows]
    ax.barh(range(len(rows)), acc, xerr=err, color=colors, capsize=3, ecolor="#333333")
    for y, value in enumerate(acc):  # label inside the bar's start: never under an error bar
        inside = value >= 12
        ax.text(1.5 if inside else value + 1.5, y, f"{value:.1f}%", va="center", fontsize=8,
                color="white" if inside else "#222222", fontweight="bold")
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.set_xlim(0, 100)
    ax.set_xlabel("accuracy (%) with 95% Wilson interval")
    ax.invert_yaxis()
    ax.grid(axis="x", color=COLORS["grid"])
    ax.set_axisbelow(True)
    return _save(fig, path)


def plot_mean_scores(rows: list[tuple[str, float, list[float] | None, int]], path: Path, *,
                     xlabel: str) -> Path | None:
    """Horizontal bars of mean scores in 0..1 (label, mean, 95% interval or None, n), the last row highlighted
    (an overall mean); None when there is no row."""
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.2))
    means = [mean for _, mean, _, _ in rows]
    err = [[max(0.0, mean - ci[0]) if ci else 0.0 for _, mean, ci, _ in rows],
           [max(0.0, ci[1] - mean) if ci else 0.0 for _, mean, ci, _ in rows]]
    colors = [COLORS["bar"]] * (len(rows) - 1) + ["#55A868"]
    ax.barh(range(len(rows)), means, xerr=err, color=colors, capsize=3, ecolor="#333333")
    for y, value in enumerate(means):
        inside = value >= 0.12
        ax.text(0.015 if inside else value + 0.015, y, f"{value:.3f}", va="center", fontsize=8,
                color="white" if inside else "#222222", fontweight="bold")
    ax.set_yticks(range(len(rows)), [f"{label} (n={n})" for label, _, _, n in rows], fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel(xlabel)
    ax.invert_yaxis()
    ax.grid(axis="x", color=COLORS["grid"])
    ax.set_axisbelow(True)
    return _save(fig, path)


def plot_agreement_by_type(summary: CalibrationSummary, path: Path) -> Path | None:
    """A judge's agreement with the labels per question type (and over all), kappa beside each bar."""
    rows = [(name, b) for name, b in (summary.get("by_type") or {}).items() if b.get("n")]
    rows.append(("all", summary))
    if not summary.get("n"):
        return None
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.2))
    values = [100 * (b.get("agreement") or 0.0) for _, b in rows]
    ax.barh(range(len(rows)), values, color=[COLORS["bar"] if name != "all" else "#55A868" for name, _ in rows])
    for y, (value, (_, b)) in enumerate(zip(values, rows, strict=True)):
        kappa = b.get("kappa")
        ax.text(min(value, 100) + 1, y, f"{value:.1f}%  kappa {'n/a' if kappa is None else f'{kappa:.2f}'}",
                va="center", fontsize=8, color="#222222")
    ax.set_yticks(range(len(rows)), [f"{name} (n={b['n']})" for name, b in rows], fontsize=8)
    ax.set_xlim(0, 125)
    ax.set_xticks(range(0, 101, 20))
    ax.set_xlabel("agreement with the labels (%)")
    ax.invert_yaxis()
    ax.grid(axis="x", color=COLORS["grid"])
    ax.set_axisbelow(True)
    return _save(fig, path)


def measured_ks(retrieval: RetrievalBlock) -> list[int]:
    """The k values a run measured: those with a value at some level (k <= top_k; larger k are null)."""
    metrics = retrieval.metrics or {}
    return [k for k in retrieval.k_values or []
            if any(value is not None for name, value in metrics.items() if name.endswith(f"@{k}"))]


def plot_recall_curves(retrieval: RetrievalBlock, path: Path) -> Path | None:
    """recall_any@k, recall_all@k and ndcg_any@k against k, session and turn level, over the measured k
    only (a top_k = 10 run drawn out to k = 50 would be half empty)."""
    if not retrieval.available:
        return None
    metrics, ks = retrieval.metrics or {}, measured_ks(retrieval)
    fig, ax = plt.subplots(figsize=(7, 4))
    drawn = False
    for level in ("session", "turn"):
        for metric, style in (("recall_any", "-o"), ("recall_all", "--s"), ("ndcg_any", ":^")):
            pts = [(k, v) for k in ks if (v := metrics.get(f"{level}.{metric}@{k}")) is not None]
            if pts:
                ax.plot([k for k, _ in pts], [v for _, v in pts], style, color=COLORS[level],
                        label=f"{level} {metric}", markersize=4)
                drawn = True
    if not drawn:
        plt.close(fig)
        return None
    ax.set_xscale("log")
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.minorticks_off()
    ax.set_xlim(ks[0] / 1.25, ks[-1] * 1.25)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("k (hits considered)")
    ax.set_ylabel("mean over questions")
    ax.grid(color=COLORS["grid"])
    ax.legend(fontsize=7, ncols=3, loc="upper center", bbox_to_anchor=(0.5, -0.16), frameon=False)
    return _save(fig, path)


def metric_value(summary: dict[str, Any], metric: str) -> float | None:
    """A retrieval metric name ("session.recall_all@10") or a dotted path ("qa.overall.accuracy")."""
    retrieval = summary.get("retrieval", {}).get("metrics", {})
    if metric in retrieval:
        return retrieval[metric]
    node: Any = summary
    for part in metric.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, (int, float)) and not isinstance(node, bool) else None


def plot_sweep_heatmap(sweep: SweepHeatmap, path: Path) -> Path | None:
    """alpha (rows) x top_k (columns) heatmap of the sweep metric; missing cells are grey."""
    points, metric = sweep.get("points") or [], sweep.get("metric", "session.recall_all@10")
    if not points:
        return None
    alphas = sorted({p["alpha"] for p in points})
    top_ks = sorted({p["top_k"] for p in points})
    grid = [[math.nan] * len(top_ks) for _ in alphas]
    for p in points:
        value = metric_value(p.get("summary") or {}, metric)
        if value is not None:
            grid[alphas.index(p["alpha"])][top_ks.index(p["top_k"])] = value
    fig, ax = plt.subplots(figsize=(1.1 * len(top_ks) + 2.5, 0.6 * len(alphas) + 1.6))
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#cccccc")
    image = ax.imshow(grid, cmap=cmap, vmin=0, vmax=1, aspect="auto")
    for r, row in enumerate(grid):
        for c, value in enumerate(row):
            text = "n/a" if math.isnan(value) else f"{value:.2f}"
            color = "black" if math.isnan(value) or value > 0.6 else "white"
            ax.text(c, r, text, ha="center", va="center", fontsize=8, color=color)
    ax.set_xticks(range(len(top_ks)), [str(k) for k in top_ks])
    ax.set_yticks(range(len(alphas)), [f"{a:g}" for a in alphas])
    ax.set_xlabel("top_k")
    ax.set_ylabel("alpha (0 = keyword, 1 = vector)")
    ax.set_title(metric, fontsize=9)
    fig.colorbar(image, ax=ax, fraction=0.05)
    return _save(fig, path)
