"""The sweep comparison: one row per (alpha, top_k) point, the best point, and the heatmap input."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from benchmarker.eval.fmt import num
from benchmarker.eval.plots import metric_value
from benchmarker.log.records import SweepPoint

LABEL = re.compile(r"^alpha=(?P<alpha>[^_]+)_topk=(?P<top_k>\d+)$")
SERVICE_ALPHA = -1.0  # the service's own alpha (a real Mycelian's SEARCH_ALPHA): shown as -1


def parse_point_label(label: str) -> tuple[float, int]:
    match = LABEL.match(label)
    if not match:
        raise ValueError(f"not a sweep point label: {label!r}")
    alpha = match["alpha"]
    return (SERVICE_ALPHA if alpha == "service" else float(alpha)), int(match["top_k"])


def choose_metric(summaries: list[dict[str, Any]]) -> str:
    """QA accuracy when answers were judged; else the strictest retrieval recall available."""
    if any(metric_value(s, "qa.overall.accuracy") is not None for s in summaries):
        return "qa.overall.accuracy"
    for metric in ("session.recall_all@10", "session.recall_all@5", "session.recall_any@5", "session.recall_any@1"):
        if any(metric_value(s, metric) is not None for s in summaries):
            return metric
    return "session.recall_all@10"


def sweep_table(points: list[tuple[str, Path, dict[str, Any]]]) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for label, directory, summary in points:
        alpha, top_k = parse_point_label(label)
        rows.append({"label": label, "alpha": alpha, "top_k": top_k, "dir": str(directory), "summary": summary})
    metric = choose_metric([r["summary"] for r in rows])
    extra = ["session.recall_any@5", "session.recall_all@10", "turn.recall_any@10"]
    header = ["alpha", "top_k", metric] + [m for m in extra if m != metric] + ["dir"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    best: dict[str, Any] | None = None
    for row in sorted(rows, key=lambda r: (r["alpha"], r["top_k"])):
        value = metric_value(row["summary"], metric)
        row["value"] = value
        cells = [f"{row['alpha']:g}" if row["alpha"] != SERVICE_ALPHA else "service", str(row["top_k"]), num(value)]
        cells += [num(metric_value(row["summary"], m)) for m in extra if m != metric]
        cells.append(f"points/{row['label']}")
        lines.append("| " + " | ".join(cells) + " |")
        if value is not None and (best is None or value > best["value"]):
            best = {"label": row["label"], "dir": row["dir"], "value": value, "alpha": row["alpha"],
                    "top_k": row["top_k"]}
    markdown = "\n".join(lines) + "\n"
    if best:
        markdown += f"\nBest point by `{metric}`: {best['label']} ({best['value']:.3f}).\n"
    points_out = [SweepPoint.model_validate({k: v for k, v in r.items() if k != "summary"}).to_line() for r in rows]
    return {"schema_version": 1, "metric": metric, "points": points_out,
            "best": best, "markdown": markdown,
            "heatmap": {"metric": metric, "points": rows}}
