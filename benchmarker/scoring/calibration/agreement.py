"""How far a judge agrees with labels: agreement, Cohen's kappa (seeded bootstrap 95% interval),
the confusion table, and precision / recall of "correct".

"Correct" is the positive class: tp = both say correct, fn = the label says correct and the judge
wrong, fp = the label wrong and the judge correct, tn = both wrong. Unjudged verdicts (the judge
gave no usable yes/no) are counted apart and left out of every number, as a run's accuracy does.
Kappa is None where it is undefined: when either rater is constant (every label, or every verdict, the
same), chance agreement explains everything it could show.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from benchmarker.scoring.stats import wilson

ITERATIONS = 2000   # bootstrap resamples (2000 keeps the interval's end points stable to ~0.01)
SEED = 0


def kappa(labels: Sequence[bool], verdicts: Sequence[bool]) -> float | None:
    """Cohen's kappa of two boolean raters; None when chance agreement is 1."""
    y, v = np.asarray(labels, dtype=bool), np.asarray(verdicts, dtype=bool)
    return _kappas(y[None, :], v[None, :])[0]


def _kappas(y: np.ndarray, v: np.ndarray) -> list[float | None]:
    """Kappa of each row of two (samples x n) boolean matrices."""
    n = y.shape[1]
    po = (y == v).mean(axis=1)
    py, pv = y.mean(axis=1), v.mean(axis=1)
    pe = py * pv + (1 - py) * (1 - pv)
    with np.errstate(divide="ignore", invalid="ignore"):
        # a rater that never varies (every label, or every verdict, the same) leaves kappa undefined, not 0
        varies = (py > 0) & (py < 1) & (pv > 0) & (pv < 1)
        k = np.where((pe < 1) & varies, (po - pe) / (1 - pe), np.nan)
    return [None if n == 0 or np.isnan(x) else float(x) for x in k]


def kappa_interval(labels: Sequence[bool], verdicts: Sequence[bool], *, iterations: int = ITERATIONS,
                   seed: int = SEED) -> tuple[float, float] | None:
    """Seeded 95% percentile bootstrap interval of kappa (resampling answers); None when undefined."""
    y, v = np.asarray(labels, dtype=bool), np.asarray(verdicts, dtype=bool)
    if y.size == 0:
        return None
    rng = np.random.default_rng(seed)
    values: list[float] = []
    for start in range(0, iterations, 500):  # chunks keep memory flat
        idx = rng.integers(0, y.size, size=(min(500, iterations - start), y.size))
        values += [k for k in _kappas(y[idx], v[idx]) if k is not None]
    if not values:
        return None
    lo, hi = np.percentile(values, [2.5, 97.5])
    return float(lo), float(hi)


def confusion(labels: Sequence[bool], verdicts: Sequence[bool]) -> dict[str, int]:
    pairs = list(zip(labels, verdicts, strict=True))
    return {"tp": sum(1 for y, v in pairs if y and v), "fn": sum(1 for y, v in pairs if y and not v),
            "fp": sum(1 for y, v in pairs if not y and v), "tn": sum(1 for y, v in pairs if not y and not v)}


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def agreement_block(labels: Sequence[bool], verdicts: Sequence[bool | None], *, interval: bool = True) -> dict[str, Any]:
    """{n, unjudged, agreement, agreement_ci95, kappa, kappa_ci95, confusion, precision, recall,
    label_correct, verdict_correct} for paired labels and verdicts (None = unjudged)."""
    judged = [(y, v) for y, v in zip(labels, verdicts, strict=True) if v is not None]
    ys, vs = [y for y, _ in judged], [bool(v) for _, v in judged]
    table = confusion(ys, vs)
    n, agree = len(judged), table["tp"] + table["tn"]
    return {"n": n, "unjudged": len(labels) - n, "agreement": _ratio(agree, n),
            "agreement_ci95": list(wilson(agree, n)) if n else None,
            "kappa": kappa(ys, vs) if n else None,
            "kappa_ci95": (list(ci) if (ci := kappa_interval(ys, vs)) else None) if interval and n else None,
            "confusion": table, "precision": _ratio(table["tp"], table["tp"] + table["fp"]),
            "recall": _ratio(table["tp"], table["tp"] + table["fn"]),
            "label_correct": _ratio(sum(ys), n), "verdict_correct": _ratio(sum(vs), n)}


def summarise(rows: Sequence[tuple[str, str, bool, bool, bool | None]],
              development: Collection[str] = ()) -> dict[str, Any]:
    """The whole calibration from (file, question_type, abstention, label, verdict) rows: the
    overall block, then by question type (`_abs` ids counted in their type and again in an
    "abstention" row, as LongMemEval's print_qa_metrics reports them) and by labels file; then
    `held_out` (the files not in `development`: the calibration) and `development_fit` (those that
    shaped the judge: a fit, not a calibration), each None when no file is on that side."""
    def block(chosen: list[tuple[str, str, bool, bool, bool | None]]) -> dict[str, Any]:
        return agreement_block([r[3] for r in chosen], [r[4] for r in chosen])

    types = sorted({r[1] for r in rows})
    by_type = {t: block([r for r in rows if r[1] == t]) for t in types}
    if any(r[2] for r in rows):
        by_type["abstention"] = block([r for r in rows if r[2]])
    files = list(dict.fromkeys(r[0] for r in rows))
    held = [r for r in rows if r[0] not in development]
    fit = [r for r in rows if r[0] in development]
    return block(list(rows)) | {"by_type": by_type,
                                "by_file": {f: block([r for r in rows if r[0] == f]) for f in files},
                                "held_out": block(held) if held else None,
                                "development_fit": block(fit) if fit else None,
                                "bootstrap": {"iterations": ITERATIONS, "seed": SEED}}
