"""Retrieval, paired per question, between two runs: the index-tuning loop's `compare`.

For every (level, metric, k) the two runs both measured, on the questions scored in both (same
definitions as retrieval_metrics.py; a k above either run's top_k is not compared):
  - both runs' means over those questions, and the paired difference (run - baseline) with a
    seeded paired bootstrap 95% CI (the same resampling as QA accuracy: stats.paired_bootstrap);
  - better / worse: the questions whose value rose / fell;
  - for the 0/1 recalls, the exact McNemar p on (worse, better), and the ids that lost or gained
    their evidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmarker.log.lines import ResultLine
from benchmarker.reporting.compare_shapes import Pair, RetrievalPair, RetrievalStat
from benchmarker.reporting.fmt import num
from benchmarker.scoring.retrieval_metrics import K_VALUES, LEVELS, METRICS, question_retrieval
from benchmarker.scoring.stats import holm, mcnemar_exact, paired_bootstrap

BINARY = ("recall_any", "recall_all")
PerQuestion = dict[str, dict[str, dict[str, float | None]]]


def per_question(results: Sequence[ResultLine]) -> PerQuestion:
    """question_id -> the question's retrieval metrics, for every question scored for retrieval."""
    out: PerQuestion = {}
    for record in results:
        scores = question_retrieval(record, K_VALUES)
        if scores:
            out[str(record["question_id"])] = scores
    return out


def _paired(base: PerQuestion, other: PerQuestion, level: str, name: str) -> list[tuple[str, float, float]]:
    pairs = []
    for qid in sorted(base.keys() & other.keys()):
        a, b = base[qid].get(level, {}).get(name), other[qid].get(level, {}).get(name)
        if a is not None and b is not None:
            pairs.append((qid, a, b))
    return pairs


def compare_retrieval(base: Sequence[ResultLine], other: Sequence[ResultLine], *, iterations: int,
                      seed: int) -> RetrievalPair:
    """{"available", "questions": {level: n}, "metrics": {"session.recall_any@5": {...}, ...}}."""
    a, b = per_question(base), per_question(other)
    metrics: dict[str, RetrievalStat] = {}
    for level in LEVELS:
        for k in K_VALUES:
            for metric in METRICS:
                name = f"{metric}@{k}"
                pairs = _paired(a, b, level, name)
                if pairs:
                    metrics[f"{level}.{name}"] = _stats(pairs, metric, iterations, seed)
    common = a.keys() & b.keys()
    return {"available": bool(metrics),
            "questions": {level: sum(1 for q in common if level in a[q] and level in b[q]) for level in LEVELS},
            "metrics": metrics}


def _stats(pairs: list[tuple[str, float, float]], metric: str, iterations: int, seed: int) -> RetrievalStat:
    n = len(pairs)
    worse = [q for q, x, y in pairs if y < x]
    better = [q for q, x, y in pairs if y > x]
    out: RetrievalStat = {
        "n": n, "baseline": sum(x for _, x, _ in pairs) / n, "run": sum(y for _, _, y in pairs) / n,
        "bootstrap": paired_bootstrap([x for _, x, _ in pairs], [y for _, _, y in pairs],
                                      iterations=iterations, seed=seed),
        "better": len(better), "worse": len(worse)}
    if metric in BINARY:
        out.update({"mcnemar_p": mcnemar_exact(len(worse), len(better)), "lost": worse, "gained": better})
    return out


def format_ids(ids: list[str], limit: int = 30) -> str:
    """Question ids as inline code, the first `limit` of them."""
    shown = ", ".join(f"`{q}`" for q in ids[:limit])
    return (shown + (f" ... (+{len(ids) - limit})" if len(ids) > limit else "")) or "none"


def side_by_side(runs: list[dict[str, Any]]) -> list[str]:
    """Each run's retrieval means (all its scored questions) per level, metric and measured k."""
    blocks = [run.get("retrieval") or {} for run in runs]
    if not any(block.get("available") for block in blocks):
        return []
    out = ["", "## Retrieval", "", "Means over each run's own scored questions (non-abstention, with evidence); "
           "n/a: k above that run's top_k.", "",
           "| metric | " + " | ".join(r["name"] for r in runs) + " |", "|---|" + "---|" * len(runs)]
    for level in LEVELS:
        for k in K_VALUES:
            for metric in METRICS:
                key = f"{level}.{metric}@{k}"
                values = [(block.get("metrics") or {}).get(key) for block in blocks]
                if any(v is not None for v in values):
                    out.append(f"| {level} {metric}@{k} | " + " | ".join(num(v) for v in values) + " |")
    return out


def pair_lines(pair: Pair) -> list[str]:
    """The paired retrieval table of one run against the baseline, then who lost or gained evidence."""
    r = pair["retrieval"]
    if not r["available"]:
        return []
    metrics = r["metrics"]
    boot = next(iter(metrics.values()))["bootstrap"]
    tested = [key for key, m in metrics.items() if "mcnemar_p" in m]
    adjusted = dict(zip(tested, holm([metrics[key]["mcnemar_p"] for key in tested]), strict=True))
    out = ["", f"### Retrieval, paired per question ({r['questions']['session']} questions at session level, "
           f"{r['questions']['turn']} at turn level)", "",
           f"Means over the questions scored in both runs; difference = {pair['run']} - {pair['baseline']} with a "
           f"paired bootstrap 95% CI ({boot['iterations']} resamples, seed {boot['seed']}); better / worse = "
           "questions whose value rose / fell; exact McNemar p on those for the 0/1 recalls, Holm-adjusted over the "
           f"{len(tested)} p-values in this table.", "",
           f"| metric | n | {pair['baseline']} | {pair['run']} | difference [95% CI] | better / worse | McNemar p (Holm) |",
           "|---|---|---|---|---|---|---|"]
    for key, m in metrics.items():
        b = m["bootstrap"]
        diff = f"{b['diff']:+.3f} [{b['lo']:+.3f}, {b['hi']:+.3f}]"
        p = f"{adjusted[key]:.4g}" if key in adjusted else "-"
        out.append(f"| {key.replace('.', ' ', 1)} | {m['n']} | {num(m['baseline'])} | {num(m['run'])} | {diff} "
                   f"| {m['better']} / {m['worse']} | {p} |")
    for level in LEVELS:
        k = max((int(key.rsplit("@", 1)[1]) for key in metrics if key.startswith(f"{level}.")), default=None)
        recall = metrics.get(f"{level}.recall_any@{k}")
        if recall and (recall["lost"] or recall["gained"]):
            out += ["", f"- {level} recall_any@{k}, evidence lost: {format_ids(recall['lost'])}",
                    f"- {level} recall_any@{k}, evidence gained: {format_ids(recall['gained'])}"]
    return out
