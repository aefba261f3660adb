"""The `retrieval` block's shape (scoring/retrieval_metrics.py computes it), apart so the `qa` block's
type (qa_metrics.py, whose `qa_corrected` may carry one) can name it without importing the metrics."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class TypeRetrieval(TypedDict):
    """One question type's means and counts under `retrieval.by_type`."""

    metrics: dict[str, float | None]
    n: dict[str, int]


class TracedHits(TypedDict):
    """`retrieval.traced`: a mapped server's hits traced back to the dataset message that wrote them."""

    hits: int
    hits_traced: int
    share: float
    servers: list[str]


class RetrievalMetrics(TypedDict):
    """summary.json's `retrieval` block, in the order its keys are written; a block that is not available
    has only `available`, `k_values`, the empty `metrics`, `n` and `by_type`, `notes` (and `traced` when
    a mapped server's hits could not be traced)."""

    available: bool
    k_values: list[int]
    top_k: NotRequired[list[int]]
    metrics: dict[str, float | None]
    n: dict[str, int]
    traced: NotRequired[TracedHits | None]
    excluded_abstention: NotRequired[int]
    questions: NotRequired[dict[str, int]]
    by_type: dict[str, TypeRetrieval]
    notes: list[str]
