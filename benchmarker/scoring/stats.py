"""Small-sample statistics: at n=500 one LongMemEval point is ~1.7 standard errors, so every
accuracy carries an interval and every comparison a paired test.

- `wilson(k, n)`: the Wilson score interval (well behaved at 0/n and n/n, unlike Wald);
- `mcnemar_exact(b, c)`: exact McNemar test, a two-sided binomial test on the discordant
  pairs (b = right->wrong, c = wrong->right); no normal approximation, so small flip counts
  are fine;
- `paired_bootstrap(base, other)`: resample questions with replacement (same indices for both
  runs, which keeps the pairing) and report the 2.5/97.5 percentiles of the accuracy difference.
- `bootstrap_mean_ci(values)`: the same resampling for one list of scores (e.g. LoCoMo's F1);
- `holm(p_values)`: Holm's adjustment, for a table that shows many p-values at once (`compare`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z95 = 1.959963984540054  # scipy.stats.norm.ppf(0.975)


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for k successes out of n; (0.0, 1.0) when n == 0 (no information)."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts; 1.0 when there are none."""
    if b + c == 0:
        return 1.0
    from scipy.stats import binomtest  # here, not at import: scipy.stats costs ~0.6 s of every CLI start

    return float(binomtest(min(b, c), b + c, 0.5, alternative="two-sided").pvalue)


def paired_bootstrap(base: Sequence[float], other: Sequence[float], *, iterations: int = 10_000,
                     seed: int = 0) -> dict[str, float | int | None]:
    """Mean difference (other - base) of paired outcomes (0/1, or a score such as ndcg) with a seeded
    95% bootstrap CI."""
    a = np.asarray(base, dtype=float)
    b = np.asarray(other, dtype=float)
    if a.shape != b.shape:
        raise ValueError("paired_bootstrap needs outcomes for the same questions in both runs")
    if a.size == 0:
        return {"diff": None, "lo": None, "hi": None, "iterations": iterations, "seed": seed}
    d = b - a
    lo, hi = bootstrap_mean_ci(d, iterations=iterations, seed=seed)
    return {"diff": float(d.mean()), "lo": lo, "hi": hi, "iterations": iterations, "seed": seed}


def bootstrap_mean_ci(values: Sequence[float] | np.ndarray, *, iterations: int = 10_000,
                      seed: int = 0) -> tuple[float, float]:
    """Seeded 95% percentile bootstrap interval of the mean of `values` (non-empty)."""
    v = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = np.empty(iterations)
    for start in range(0, iterations, 1000):  # chunks keep memory flat at n=500
        size = min(1000, iterations - start)
        idx = rng.integers(0, v.size, size=(size, v.size))
        means[start:start + size] = v[idx].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(lo), float(hi)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of a family of p-values, in their given order: the i-th smallest of m is
    multiplied by (m - i), kept from falling below the one before it, and capped at 1. It controls the chance of
    any false "significant" in the family, as Bonferroni does, with less loss of power."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
