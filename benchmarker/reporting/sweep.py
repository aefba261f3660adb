"""The sweep comparison: one row per (alpha, top_k) point, the best point, and the heatmap input."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

from benchmarker.log.records import SweepPoint
from benchmarker.metric_names import AUTO, canonical, largest_common_k
from benchmarker.reporting.fmt import num
from benchmarker.reporting.plots import metric_value
from benchmarker.reporting.sweep_metric import PointScore, Versus, auto_metric, auto_tie_break, rank, score_points
from benchmarker.reporting.sweep_shapes import SweepHeatmap, SweepRow

LABEL = re.compile(r"^alpha=(?P<alpha>[^_]+)_topk=(?P<top_k>\d+)$")
SERVICE_ALPHA = -1.0  # the service's own alpha (a real Mycelian's SEARCH_ALPHA): shown as -1


class RunnerUp(TypedDict):
    label: str
    rule_values: dict[str, float | None]


class SweepBest(TypedDict):
    """sweep.json's `best`: the winning point, what decided it, and its test against the runner-up."""

    label: str
    dir: str
    value: float | None
    alpha: float
    top_k: int
    ci95: list[float] | None
    decided_by: str | None
    tied_with: list[str]
    vs_runner_up: Versus | None
    rule_values: dict[str, float | None]
    runner_up: RunnerUp | None


class SweepGrid(TypedDict):
    header: list[str]
    rows: list[list[str]]


class SweepTable(TypedDict):
    """sweep_table(): sweep.json as written (docs/run-files.md), its markdown and the heatmap input."""

    schema_version: int
    metric: str
    tie_break: list[str]
    points: list[dict[str, Any]]     # log/records.SweepPoint lines
    best: SweepBest | None
    invalid: list[str]
    markdown: str
    table: SweepGrid
    verdict: str
    heatmap: SweepHeatmap


def parse_point_label(label: str) -> tuple[float, int]:
    match = LABEL.match(label)
    if not match:
        raise ValueError(f"not a sweep point label: {label!r}")
    alpha = match["alpha"]
    return (SERVICE_ALPHA if alpha == "service" else float(alpha)), int(match["top_k"])


def sweep_table(points: list[tuple[str, Path, dict[str, Any]]], settings: Mapping[str, Any] | None = None) -> SweepTable:
    """Rows, the best point and the heatmap input. `settings` is the config's [sweep] table as run
    (`metric`, `tie_break`); absent keys mean "auto" (see reporting/sweep_metric.py)."""
    settings = settings or {}
    rows: list[SweepRow] = []
    for label, directory, summary in points:
        alpha, top_k = parse_point_label(label)
        rows.append({"label": label, "alpha": alpha, "top_k": top_k, "dir": str(directory), "summary": summary})
    top_ks = sorted({r["top_k"] for r in rows})
    wanted = canonical(str(settings.get("metric") or AUTO))
    metric = auto_metric([r["summary"] for r in rows], top_ks) if wanted == AUTO else wanted
    tie_break = [canonical(m) for m in settings.get("tie_break") or []] or auto_tie_break(metric, top_ks)
    scores = {s.label: s for s in score_points(rows, metric, tie_break)}
    # an invalid point's number is not a score (scoring/validity.py): never ranked, never picked, labelled
    invalid = [r["label"] for r in rows if (r["summary"].get("validity") or {}).get("valid") is False]
    ranking = rank([s for s in scores.values() if s.label not in invalid], metric, tie_break)
    k = largest_common_k(top_ks) or 1
    # every rule that can decide (the tie-breakers, in order) gets a column, then the usual recall figures
    recall = (f"session.recall_any@{k}", f"session.recall_all@{k}", f"turn.recall_any@{k}")
    extra = [m for m in dict.fromkeys([*tie_break, *recall]) if m != metric]
    header = ["alpha", "top_k", metric, "95% CI"] + extra + ["dir"]
    body: list[list[str]] = []
    for row in sorted(rows, key=lambda r: (r["alpha"], r["top_k"])):
        score = scores[row["label"]]
        row["value"] = score.value
        row["ci95"] = list(score.ci95) if score.ci95 else None
        shown = num(score.value) + (" INVALID: not ranked" if row["label"] in invalid else "")
        cells = [f"{row['alpha']:g}" if row["alpha"] != SERVICE_ALPHA else "service", str(row["top_k"]), shown,
                 f"{score.ci95[0]:.3f}-{score.ci95[1]:.3f}" if score.ci95 else "n/a"]
        cells += [num(metric_value(row["summary"], m)) for m in extra]
        cells.append(f"points/{row['label']}")
        body.append(cells)
    winner, runner = ranking["best"], ranking["runner_up"]
    best: SweepBest | None = None if winner is None else {
        "label": winner.label, "dir": next(r["dir"] for r in rows if r["label"] == winner.label), "value": winner.value,
        "alpha": winner.alpha, "top_k": winner.top_k, "ci95": list(winner.ci95) if winner.ci95 else None,
        "decided_by": ranking["decided_by"], "tied_with": ranking["tied"], "vs_runner_up": ranking["vs_runner_up"],
        "rule_values": _rule_values(winner, metric, tie_break),
        "runner_up": None if runner is None else {"label": runner.label,
                                                  "rule_values": _rule_values(runner, metric, tie_break)}}
    sentence = best_sentence(metric, tie_break, best)
    if invalid:
        sentence += (f" {len(invalid)} INVALID point(s) not ranked (their numbers are not scores; summary.json's "
                     f"validity says why): {', '.join(sorted(invalid))}.")
    # in the files each point's directory links to its own report (the console table keeps the plain path)
    linked = [[*cells[:-1], f"[{cells[-1]}]({cells[-1]}/report.html)"] for cells in body]
    lines = ["| " + " | ".join(cells) + " |" for cells in [header, ["---"] * len(header), *linked]]
    markdown = "\n".join(lines) + "\n\n" + sentence + "\n"
    points_out = [SweepPoint.model_validate({k: v for k, v in r.items() if k != "summary"}).to_line() for r in rows]
    return {"schema_version": 2, "metric": metric, "tie_break": tie_break, "points": points_out,
            "best": best, "invalid": sorted(invalid), "markdown": markdown,
            "table": {"header": header, "rows": body}, "verdict": sentence,
            "heatmap": {"metric": metric, "points": rows}}


def _rule_values(score: PointScore, metric: str, tie_break: list[str]) -> dict[str, float | None]:
    """A point's value on each ranking rule, in order: what the verdict quotes."""
    return dict(zip([metric, *tie_break], (score.value, *score.tie_values), strict=True))


def _values(values: dict[str, float | None]) -> str:
    return ", ".join(f"`{m}` {num(v)}" for m, v in values.items())


def best_sentence(metric: str, tie_break: list[str], best: SweepBest | None) -> str:
    """One paragraph a reader can trust: the winner, what decided it, ties, and whether it is noise."""
    if best is None:
        return f"No point has a value for `{metric}`: no best point."
    rule = f"ranked by `{metric}`, ties broken by {', '.join(f'`{m}`' for m in tie_break) or 'nothing'}, then the " \
        "smaller top_k"
    values = best.get("rule_values") or {metric: best["value"]}
    if best["tied_with"]:
        return (f"No single best point ({rule}): {', '.join([best['label'], *best['tied_with']])} are equal on every "
                f"rule ({_values(values)}, and top_k); the report shows {best['label']}.")
    text = f"Best point by `{metric}`: {best['label']} ({best['value']:.3f}"
    ci95 = best["ci95"]
    text += f", 95% CI {ci95[0]:.3f}-{ci95[1]:.3f})" if ci95 else ")"
    text += _decided(metric, best, values)
    text += f"; {rule}."
    versus = best.get("vs_runner_up")
    if versus:
        if versus["test"] == "mcnemar_exact":
            detail = (f"exact McNemar p = {versus['p_value']:.3g} over {versus['n']} questions "
                      f"({versus['winner_only']} only it got, {versus['runner_up_only']} only the runner-up got)")
        else:
            lo, hi = versus["ci95"]
            detail = f"paired bootstrap difference {versus['diff']:+.3f} (95% CI {lo:+.3f} to {hi:+.3f})"
        verdict = "within the noise: not distinguishable from" if versus["within_noise"] else "ahead of"
        text += f" It is {verdict} the runner-up {versus['runner_up']} on `{versus['metric']}` ({detail})."
    return text


def _decided(metric: str, best: SweepBest, values: dict[str, float | None]) -> str:
    """How a tie on the ranking metric was broken, with the deciding metric's values for both points."""
    decided_by = best["decided_by"]
    if not decided_by or decided_by == metric:
        return ""
    if decided_by == "top_k":
        return f", the smaller top_k after a tie on every metric ({_values(values)})"
    names = list(values)
    tied = names[:names.index(decided_by)] if decided_by in names else [metric]
    tied_text = _values({m: values.get(m) for m in tied})
    runner = best["runner_up"]
    theirs = runner["rule_values"].get(decided_by) if runner else None
    return (f", decided by `{decided_by}`: {num(values.get(decided_by))} against {num(theirs)} for the runner-up "
            f"{runner['label'] if runner else '?'}, after a tie on {tied_text}")
