"""Which sweep point is best, by a metric the config names, with ties and noise said out loud.

A sweep compares points on the same questions, so a "best" point means something only when it
beats the others by more than chance. This module
- parses the metric name (`[sweep] metric`): "auto", `qa.overall.accuracy` (alias "accuracy"),
  `qa.task_averaged.accuracy`, or a retrieval metric `<session|turn>.<recall_any|recall_all|ndcg_any>@k`;
- reads each point's per-question values from its results.jsonl (the same definitions as the
  summary), gives each point a 95% interval (Wilson for 0/1 outcomes, a seeded bootstrap otherwise),
- ranks the points: the metric first, then each `[sweep] tie_break` metric in order, then the
  smaller top_k (a cheaper reader context); points still equal on all of those are a tie, reported
  as one,
- tests the winner against the runner-up on the questions both answered (exact McNemar for 0/1
  outcomes, a paired bootstrap otherwise), so a "best" inside the noise is called what it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from benchmarker.log.jsonl import latest_by
from benchmarker.log.lines import ResultLine
from benchmarker.metric_names import ACCURACY, BINARY, K_VALUES, RETRIEVAL, canonical, largest_common_k
from benchmarker.reporting.plots import metric_value
from benchmarker.scoring.records import checked_results
from benchmarker.scoring.retrieval_metrics import question_retrieval
from benchmarker.scoring.stats import bootstrap_mean_ci, mcnemar_exact, paired_bootstrap, wilson

NOISE_P = 0.05  # a winner whose paired test against the runner-up is at or above this is "within the noise"


class Versus(TypedDict, total=False):
    """The winner against the runner-up (sweep.json `best.vs_runner_up`): McNemar's keys or the bootstrap's."""

    runner_up: str
    metric: str
    n: int
    test: str                    # "mcnemar_exact" (0/1 outcomes) | "paired_bootstrap"
    winner_only: int
    runner_up_only: int
    p_value: float
    diff: float | int | None
    ci95: list[float | int | None]
    within_noise: bool


def auto_metric(summaries: Sequence[Mapping[str, Any]], top_ks: Sequence[int]) -> str:
    """QA accuracy when answers were judged; else the strictest session recall every point measures."""
    if any(metric_value(dict(s), ACCURACY) is not None for s in summaries):
        return ACCURACY
    k = largest_common_k(top_ks) or K_VALUES[0]
    for metric in (f"session.recall_all@{k}", f"session.recall_any@{k}", f"turn.recall_all@{k}", f"turn.recall_any@{k}"):
        if any(metric_value(dict(s), metric) is not None for s in summaries):
            return metric
    return f"session.recall_all@{k}"


def auto_tie_break(metric: str, top_ks: Sequence[int]) -> list[str]:
    """The default tie-breakers: the other recall figures at the largest common k."""
    k = largest_common_k(top_ks) or K_VALUES[0]
    candidates = [f"session.recall_any@{k}", f"session.recall_all@{k}", f"turn.recall_any@{k}", f"session.ndcg_any@{k}"]
    return [m for m in candidates if m != metric]


def question_values(results: Sequence[ResultLine], metric: str) -> dict[str, float]:
    """Per-question values of `metric` keyed by question id (questions it does not score are left out)."""
    metric = canonical(metric)
    out: dict[str, float] = {}
    if metric == ACCURACY:
        for r in results:
            if isinstance(label := r.get("label"), bool):
                out[str(r.get("question_id"))] = float(label)
        return out
    match = RETRIEVAL.match(metric)
    if not match:
        return out
    name = f"{match['metric']}@{match['k']}"
    for r in results:
        per_level = question_retrieval(r)
        value = (per_level or {}).get(match["level"], {}).get(name)
        if value is not None:
            out[str(r.get("question_id"))] = float(value)
    return out


def is_binary(metric: str) -> bool:
    match = RETRIEVAL.match(canonical(metric))
    return canonical(metric) == ACCURACY or bool(match and match["metric"] in BINARY)


def interval(values: Sequence[float], metric: str, seed: int = 0) -> tuple[float, float] | None:
    """95% interval of the mean of one point's per-question values."""
    if not values:
        return None
    if is_binary(metric):
        return wilson(round(sum(values)), len(values))
    return bootstrap_mean_ci(values, iterations=2000, seed=seed)


@dataclass
class PointScore:
    label: str
    alpha: float
    top_k: int
    value: float | None
    ci95: tuple[float, float] | None
    per_question: dict[str, float] = field(default_factory=dict)
    tie_values: tuple[float | None, ...] = ()
    results: list[ResultLine] = field(default_factory=list, repr=False)



class Ranking(TypedDict):
    """rank(): the winner (None when no point has a value), how it won, its ties and its test against the runner-up."""

    best: PointScore | None
    decided_by: str | None       # the metric that separated the two, "top_k", or None (one point, or a tie)
    tied: list[str]
    vs_runner_up: Versus | None
    runner_up: PointScore | None


def _point_results(directory: Path) -> list[ResultLine]:
    path = directory / "results.jsonl"
    return latest_by(checked_results(path), "question_id") if path.exists() else []


def score_points(rows: Sequence[Mapping[str, Any]], metric: str, tie_break: Sequence[str]) -> list[PointScore]:
    """Each row ({label, alpha, top_k, dir, summary}) scored on `metric` (+ interval) and the tie-breakers.

    Values come from the summary (what the report shows); per-question values come from results.jsonl
    when it is there (intervals and the paired test need them)."""
    scores = []
    for row in rows:
        results = _point_results(Path(row["dir"]))
        per_question = question_values(results, metric)
        scores.append(PointScore(
            label=row["label"], alpha=row["alpha"], top_k=row["top_k"],
            value=metric_value(dict(row["summary"]), canonical(metric)),
            ci95=interval(list(per_question.values()), metric),
            per_question=per_question, results=results,
            tie_values=tuple(metric_value(dict(row["summary"]), canonical(m)) for m in tie_break)))
    return scores


def _sort_key(score: PointScore) -> tuple:
    """Higher metric, then higher tie-breakers (a missing value ranks last), then smaller top_k."""
    values = (score.value,) + score.tie_values
    return tuple(-(v if v is not None else float("-inf")) for v in values) + (score.top_k,)


def rank(scores: Sequence[PointScore], metric: str, tie_break: Sequence[str]) -> Ranking:
    """The winner, how it won (metric, a tie-breaker, or top_k), the points tied with it, and whether
    its lead over the runner-up is outside the noise."""
    measured = [s for s in scores if s.value is not None]
    if not measured:
        return {"best": None, "decided_by": None, "tied": [], "vs_runner_up": None, "runner_up": None}
    ordered = sorted(measured, key=_sort_key)
    best = ordered[0]
    tied = [s.label for s in ordered[1:] if _sort_key(s) == _sort_key(best)]
    decided_by: str | None = None
    if len(ordered) > 1 and not tied:
        runner = ordered[1]
        steps = [canonical(metric), *map(canonical, tie_break)]
        for name, mine, theirs in zip(steps, (best.value,) + best.tie_values, (runner.value,) + runner.tie_values,
                                       strict=True):
            if mine != theirs:
                decided_by = name
                break
        else:
            decided_by = "top_k"
    deciding = decided_by if decided_by not in (None, "top_k") else canonical(metric)
    comparison = _versus(best, ordered[1], deciding, ranked_by=canonical(metric)) if len(ordered) > 1 else None
    return {"best": best, "decided_by": decided_by, "tied": tied, "vs_runner_up": comparison,
            "runner_up": ordered[1] if len(ordered) > 1 else None}


def _versus(best: PointScore, runner: PointScore, metric: str, *, ranked_by: str) -> Versus | None:
    """The paired test of the winner against the runner-up, on `metric` (the one that separated them),
    over the questions both have a value for; the ranking metric's values were read by score_points."""
    if metric == ranked_by:
        mine, theirs = best.per_question, runner.per_question
    else:
        mine, theirs = question_values(best.results, metric), question_values(runner.results, metric)
    common = sorted(set(mine) & set(theirs))
    if not common:
        return None
    a = [mine[q] for q in common]
    b = [theirs[q] for q in common]
    out: Versus = {"runner_up": runner.label, "metric": metric, "n": len(common)}
    if is_binary(metric):
        only_winner = sum(1 for x, y in zip(a, b, strict=True) if x > y)  # the winner got it, the runner-up missed
        only_runner = sum(1 for x, y in zip(a, b, strict=True) if y > x)
        out["test"], out["winner_only"], out["runner_up_only"] = "mcnemar_exact", only_winner, only_runner
        out["p_value"] = mcnemar_exact(only_winner, only_runner)
        out["within_noise"] = out["p_value"] >= NOISE_P
    else:
        boot = paired_bootstrap(b, a, iterations=2000)
        out["test"], out["diff"], out["ci95"] = "paired_bootstrap", boot["diff"], [boot["lo"], boot["hi"]]
        lo = boot["lo"]
        out["within_noise"] = lo is None or lo <= 0.0
    return out
