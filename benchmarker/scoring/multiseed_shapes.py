"""The `multi_seed` block's shape (scoring/multiseed.py computes it), apart so a reader can name it without
importing scipy."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class SeedInterval(TypedDict):
    """A mean over seeds with its t interval (stdev and interval None with one seed), in the order written."""

    mean: float
    stdev: float | None
    n_seeds: int
    ci95_low: float | None
    ci95_high: float | None
    n_scores: NotRequired[int]               # a group's: the scores averaged
    seed_means: NotRequired[dict[str, float]]


class NoisyQuestion(TypedDict):
    """A question whose per-seed scores spread more than [eval.thresholds] noise_spread."""

    question_key: str
    category: Any
    level: Any
    range: float
    stdev: float
    scores: dict[str, float]


class SeedSummary(TypedDict):
    """summary.json's `multi_seed` block (summarize_seeds)."""

    seeds: list[Any]
    overall: SeedInterval | None
    by_category: dict[str, SeedInterval]
    by_level: dict[str, SeedInterval]
    noisy_questions: list[NoisyQuestion]
    noise_threshold: float
    confidence: float
