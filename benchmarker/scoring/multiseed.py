"""Multi-seed statistics: per category and per level mean, spread and 95% interval over seed means.

Each seed is one independent draw of the generated data (and a fresh memory), so the unit of
variation is the seed: a group's score for a seed is the mean of its question scores in that seed,
and the interval is a t-interval over those seed means (n - 1 degrees of freedom). A question
(matched across seeds by its stable key) is flagged noisy when its scores across seeds span more
than `[eval.thresholds] noise_spread` (0.10, i.e. 10 points).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from statistics import mean, stdev
from typing import Any

from scipy import stats

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.scoring.multiseed_shapes import NoisyQuestion, SeedInterval, SeedSummary

CONFIDENCE = 0.95


def _interval(values: list[float]) -> SeedInterval:
    n = len(values)
    m = mean(values)
    sd = stdev(values) if n > 1 else None
    if sd is None:
        lo = hi = None
    else:
        half = float(stats.t.ppf((1 + CONFIDENCE) / 2, n - 1)) * sd / math.sqrt(n)
        lo, hi = m - half, m + half
    return {"mean": round(m, 6), "stdev": None if sd is None else round(sd, 6), "n_seeds": n,
            "ci95_low": None if lo is None else round(lo, 6), "ci95_high": None if hi is None else round(hi, 6)}


def _group_table(rows: Sequence[Mapping[str, Any]], key: str) -> dict[str, SeedInterval]:
    per_group: dict[str, dict[Any, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        group = row.get(key)
        if group in (None, ""):
            continue
        per_group[str(group)][row["seed"]].append(float(row["score"]))
    table = {}
    for group in sorted(per_group):
        seed_means = {seed: mean(v) for seed, v in sorted(per_group[group].items(), key=lambda kv: str(kv[0]))}
        entry = _interval(list(seed_means.values()))
        entry["n_scores"] = sum(len(v) for v in per_group[group].values())
        entry["seed_means"] = {str(s): round(m, 6) for s, m in seed_means.items()}
        table[group] = entry
    return table


def _noisy(rows: Sequence[Mapping[str, Any]], spread_limit: float) -> list[NoisyQuestion]:
    by_key: dict[str, dict[Any, list[float]]] = defaultdict(lambda: defaultdict(list))
    labels: dict[str, tuple[Any, Any]] = {}
    for row in rows:
        key = str(row["question_key"])
        by_key[key][row["seed"]].append(float(row["score"]))
        labels.setdefault(key, (row.get("category"), row.get("level")))
    flagged: list[NoisyQuestion] = []
    for key in sorted(by_key):
        per_seed = {seed: mean(v) for seed, v in by_key[key].items()}
        if len(per_seed) < 2:
            continue
        spread = max(per_seed.values()) - min(per_seed.values())
        if spread > spread_limit + 1e-9:
            category, level = labels[key]
            flagged.append({"question_key": key, "category": category, "level": level,
                            "range": round(spread, 6), "stdev": round(stdev(per_seed.values()), 6),
                            "scores": {str(s): round(v, 6) for s, v in sorted(per_seed.items(), key=lambda kv: str(kv[0]))}})
    return flagged


def summarize_seeds(scores: Iterable[Mapping[str, Any]], *,
                    thresholds: ThresholdsConfig | None = None) -> SeedSummary:
    """Rows {seed, question_key, category, level, score} -> summary.json tables.

    Returns {"seeds", "overall", "by_category", "by_level", "noisy_questions", "noise_threshold",
    "confidence"}; groups with one seed have stdev and interval None.
    """
    noise = (thresholds or ThresholdsConfig()).noise_spread
    rows = [dict(r) for r in scores]
    missing = [k for k in ("seed", "question_key", "score") if rows and any(k not in r for r in rows)]
    if missing:
        raise ValueError(f"every score row needs keys seed, question_key, score; missing {missing}")
    seeds = sorted({r["seed"] for r in rows}, key=lambda s: (str(type(s)), s))
    per_seed = {s: mean(float(r["score"]) for r in rows if r["seed"] == s) for s in seeds}
    overall = _interval(list(per_seed.values())) if per_seed else None
    if overall:
        overall["seed_means"] = {str(s): round(m, 6) for s, m in per_seed.items()}
    return {"seeds": seeds, "overall": overall, "by_category": _group_table(rows, "category"),
            "by_level": _group_table(rows, "level"), "noisy_questions": _noisy(rows, noise),
            "noise_threshold": noise, "confidence": CONFIDENCE}


__all__ = ["summarize_seeds", "CONFIDENCE"]
