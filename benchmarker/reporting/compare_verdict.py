"""`compare`'s first line: which run is ahead on the deciding metric, by how much, and whether it is noise.

The deciding metric is QA accuracy where both runs judged answers to the questions they share; else the
strictest retrieval recall both measured on them (the sweep's order: session recall_all, session recall_any,
turn recall_all, turn recall_any, each at the largest k both runs reach). On the shared questions: the paired
difference (other - baseline) with a seeded paired bootstrap 95% interval, and the exact McNemar p on the
questions only one run got. A lead counts only when the interval excludes 0 and the p-value, Holm-adjusted over
the verdicts shown (one per run against the baseline), is below 0.05; otherwise it is "within the noise".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarker.log.lines import ResultLine
from benchmarker.metric_names import ACCURACY, BINARY, K_VALUES, RETRIEVAL
from benchmarker.reporting.compare_shapes import PairedCell, ShareCounts, Verdict
from benchmarker.reporting.retrieval_compare import PerQuestion
from benchmarker.reporting.sweep_metric import NOISE_P
from benchmarker.scoring.stats import holm, mcnemar_exact, paired_bootstrap

BOOTSTRAP_ITERATIONS = 10_000
BOOTSTRAP_SEED = 0
RECALLS = ("session.recall_all", "session.recall_any", "turn.recall_all", "turn.recall_any")
Values = dict[str, float]


@dataclass(frozen=True)
class Shared:
    """The question ids two runs both have (any results line, judged or not), and how many only one has."""

    ids: list[str]
    only_base: int
    only_other: int

    @property
    def total(self) -> int:
        return len(self.ids) + self.only_base + self.only_other


def shared(base: Sequence[ResultLine], other: Sequence[ResultLine]) -> Shared:
    a = {str(r["question_id"]) for r in base}
    b = {str(r["question_id"]) for r in other}
    return Shared(sorted(a & b), len(a - b), len(b - a))


def share_counts(share: Shared) -> ShareCounts:
    return {"n": len(share.ids), "total": share.total, "only_base": share.only_base, "only_other": share.only_other}


def share_note(counts: ShareCounts, base: str, other: str) -> str | None:
    """The line said at the top when two runs share only some of their questions (None: all of them)."""
    if not counts["only_base"] and not counts["only_other"]:
        return None
    return (f"{counts['n']} of {counts['total']} questions in both runs; the rest are left out of every paired "
            f"figure ({counts['only_base']} only in {base}, {counts['only_other']} only in {other}).")


def no_share_message(base: str, other: str, n_base: int, n_other: int) -> str:
    return (f"{other} ({n_other} questions) and {base} ({n_base} questions) share no question: there is nothing to "
            "pair (runs of different datasets, or of different conversations?); compare runs of the same questions")


def accuracy_values(results: Sequence[ResultLine]) -> Values:
    return {str(r.get("question_id")): float(label) for r in results if isinstance(label := r.get("label"), bool)}


def retrieval_values(per_question: PerQuestion, metric: str) -> Values:
    """question_id -> `metric` ("session.recall_all@10"), for the questions that measured it."""
    level, name = metric.split(".", 1)
    return {q: float(v) for q, levels in per_question.items() if (v := levels.get(level, {}).get(name)) is not None}


def recall_metric(base: PerQuestion, other: PerQuestion, ids: list[str]) -> str | None:
    """The strictest recall both runs measured on the shared questions, at the largest k both reach."""
    for stem in RECALLS:
        for k in reversed(K_VALUES):
            metric = f"{stem}@{k}"
            a, b = retrieval_values(base, metric), retrieval_values(other, metric)
            if any(q in a and q in b for q in ids):
                return metric
    return None


def paired_cell(a: Values, b: Values, ids: list[str], *, binary: bool) -> PairedCell | None:
    """Both means, the paired difference b - a with its bootstrap 95% CI, and (0/1 values) the exact McNemar p,
    over the ids both have a value for; None when there are none."""
    common = [q for q in ids if q in a and q in b]
    if not common:
        return None
    x, y = [a[q] for q in common], [b[q] for q in common]
    boot = paired_bootstrap(x, y, iterations=BOOTSTRAP_ITERATIONS, seed=BOOTSTRAP_SEED)
    p = mcnemar_exact(sum(1 for u, v in zip(x, y, strict=True) if v < u),
                      sum(1 for u, v in zip(x, y, strict=True) if v > u)) if binary else None
    diff, lo, hi = boot["diff"], boot["lo"], boot["hi"]
    assert diff is not None and lo is not None and hi is not None  # None only without pairs; `common` has some
    return {"n": len(common), "base": sum(x) / len(x), "other": sum(y) / len(y), "diff": diff, "lo": lo, "hi": hi,
            "p": p}


def is_binary(metric: str) -> bool:
    match = RETRIEVAL.match(metric)
    return metric == ACCURACY or bool(match and match["metric"] in BINARY)


def decide(base: Sequence[ResultLine], other: Sequence[ResultLine], base_q: PerQuestion, other_q: PerQuestion,
           ids: list[str]) -> Verdict:
    """{"metric", "cell"} on the deciding metric (both None when the runs share no figure)."""
    cell = paired_cell(accuracy_values(base), accuracy_values(other), ids, binary=True)
    if cell is not None:
        return {"metric": ACCURACY, "cell": cell}
    metric = recall_metric(base_q, other_q, ids)
    if metric is None:
        return {"metric": None, "cell": None}
    return {"metric": metric, "cell": paired_cell(retrieval_values(base_q, metric), retrieval_values(other_q, metric),
                                                  ids, binary=True)}


def amount(metric: str, value: float, *, signed: bool = True) -> str:
    """A difference as the tables show it: points of accuracy, else the metric's own scale."""
    sign = "+" if signed else ""
    return f"{100 * value:{sign}.1f} points" if metric == ACCURACY else f"{value:{sign}.3f}"


def _interval(metric: str, lo: float, hi: float) -> str:
    if metric == ACCURACY:
        return f"[{100 * lo:+.1f}, {100 * hi:+.1f}]"
    return f"[{lo:+.3f}, {hi:+.3f}]"


def adjust_verdicts(decisions: list[Verdict]) -> None:
    """Holm-adjust the verdicts' p-values over the verdicts shown, then write each one's sentence (in place)."""
    measured = [(d, p) for d in decisions if (cell := d["cell"]) is not None and (p := cell["p"]) is not None]
    for (d, _), p in zip(measured, holm([p for _, p in measured]), strict=True):
        d["p_holm"] = p
        d["family"] = len(measured)
    for d in decisions:
        d["within_noise"] = d["cell"] is None or _within_noise(d)
        d["text"] = verdict_text(d)


def _within_noise(d: Verdict) -> bool:
    cell = d["cell"]
    return cell is None or cell["lo"] <= 0.0 <= cell["hi"] or d.get("p_holm", 1.0) >= NOISE_P


def verdict_text(d: Verdict) -> str:
    """The one `verdict:` line of a pair ({"baseline", "run", "metric", "cell", "p_holm", "family"})."""
    base, other, metric, cell = d["baseline"], d["run"], d["metric"], d["cell"]
    if cell is None:
        return (f"verdict: nothing decides between {other} and {base}: no judged answer and no retrieval figure in "
                "both runs on the questions they share.")
    assert metric is not None  # a cell is on the metric that decided
    label = "accuracy" if metric == ACCURACY else f"`{metric}`"
    p = f"exact McNemar p = {cell['p']:.3g}"
    if d.get("family", 1) > 1:
        p += f", Holm-adjusted over {d['family']} verdicts {d['p_holm']:.3g}"
    over = (f"paired bootstrap over the {cell['n']} questions {'judged' if metric == ACCURACY else 'scored'} in "
            f"both runs; {p}")
    if d["within_noise"]:
        return (f"verdict: within the noise: {other} vs {base} on {label}: {amount(metric, cell['diff'])} "
                f"(95% CI {_interval(metric, cell['lo'], cell['hi'])}, {over}); neither run is ahead.")
    ahead = cell["diff"] > 0
    winner, loser = (other, base) if ahead else (base, other)
    sign = 1 if ahead else -1
    lo, hi = sorted((sign * cell["lo"], sign * cell["hi"]))
    return (f"verdict: {winner} is ahead of {loser} on {label} by {amount(metric, sign * cell['diff'], signed=False)} "
            f"(95% CI {_interval(metric, lo, hi)}, {over}).")
