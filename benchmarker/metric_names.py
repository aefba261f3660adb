"""Names of the metrics a sweep can rank its points by, and why a name cannot (for config checks).

Import-light on purpose: config_schema validates `[sweep] metric` with it before anything runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["ACCURACY", "AUTO", "BINARY", "K_VALUES", "LEVELS", "METRICS", "QA_METRICS", "RETRIEVAL", "canonical",
           "largest_common_k", "metric_k", "metric_problem"]

K_VALUES = (1, 3, 5, 10, 30, 50)  # the cutoffs retrieval is reported at (scoring/retrieval_metrics.py)
LEVELS = ("session", "turn")
METRICS = ("recall_any", "recall_all", "ndcg_any")
AUTO = "auto"
ACCURACY = "qa.overall.accuracy"
QA_METRICS = (ACCURACY, "qa.task_averaged.accuracy")
ALIASES = {"accuracy": ACCURACY}
RETRIEVAL = re.compile(rf"^(?P<level>{'|'.join(LEVELS)})\.(?P<metric>{'|'.join(METRICS)})@(?P<k>\d+)$")
BINARY = ("recall_any", "recall_all")


def canonical(name: str) -> str:
    return ALIASES.get(name.strip(), name.strip())


def metric_k(name: str) -> int | None:
    """The cutoff k of a retrieval metric name; None for QA metrics."""
    match = RETRIEVAL.match(canonical(name))
    return int(match["k"]) if match else None


def metric_problem(name: str, *, top_ks: Sequence[int], judged: bool) -> str | None:
    """Why `name` cannot rank this sweep's points (None when it can).

    `top_ks` are the swept top_k values (a k above the smallest is not measured at every point);
    `judged` says whether the run answers and judges questions (QA metrics need it)."""
    name = canonical(name)
    if name == AUTO:
        return None
    if name in QA_METRICS:
        return None if judged else (f'"{name}" needs judged answers, but this run judges none (retrieval mode, or '
                                    'no "eval" in [run].phases); use a retrieval metric such as '
                                    '"session.recall_any@5", or add the eval phase')
    match = RETRIEVAL.match(name)
    if not match:
        return (f'got "{name}"; expected "auto", "accuracy", one of {", ".join(QA_METRICS)}, or '
                f'<session|turn>.<{"|".join(METRICS)}>@k with k in {", ".join(map(str, K_VALUES))}')
    k = int(match["k"])
    if k not in K_VALUES:
        return f'k = {k} is not measured; use one of {", ".join(map(str, K_VALUES))}'
    if top_ks and k > min(top_ks):
        common = largest_common_k(top_ks)
        hint = f'; the largest k every point has is {common} (e.g. "{match["level"]}.{match["metric"]}@{common}")' \
            if common else ""
        return f"k = {k} is above the smallest swept top_k ({min(top_ks)}), where it is not measured{hint}"
    return None


def largest_common_k(top_ks: Sequence[int]) -> int | None:
    """The largest reported k that every point measures (k <= each point's top_k)."""
    fitting = [k for k in K_VALUES if not top_ks or k <= min(top_ks)]
    return fitting[-1] if fitting else None
