"""summary.json's `locomo` block as a typed model (suites/locomo/metrics.py computes it; reporting/summary.py
documents it): LoCoMo registers it in `Suite.reporting.summary_models`, so a summary it builds carries the block typed and a
block off this shape fails the build naming `locomo.<field>`."""

from __future__ import annotations

from typing import Any

from benchmarker.reporting.summary_block import Block, Cell, Num


class MeanStat(Block):
    """f1 / bleu1: the mean over answered questions with its 95% percentile bootstrap interval (null when n == 0)."""

    n: int | None = None
    mean: Num | None = None
    ci95: list[Num] | None = None


class CategoryRow(Block):
    """One LoCoMo category (1-5); category 5 has no f1 / bleu1."""

    name: str | None = None
    questions: int | None = None
    judge: Cell | None = None
    f1: MeanStat | None = None
    bleu1: MeanStat | None = None


class OverallRow(CategoryRow):
    """Categories 1-4 together: what LoCoMo papers publish."""

    categories: list[str] | None = None


class AdversarialRow(CategoryRow):
    """Category 5 apart, as abstention accuracy."""

    category: str | None = None


class EvidenceRepairs(Block):
    """Evidence ids the loader dropped or repaired (suites/locomo/evidence.py)."""

    dropped: int | None = None
    unparseable: int | None = None
    names_no_turn: int | None = None
    repaired: int | None = None
    dropped_ids: list[dict[str, Any]] | None = None
    repaired_ids: list[dict[str, Any]] | None = None


class LocomoBlock(Block):
    """summary.json's `locomo`."""

    categories: dict[str, str] | None = None
    by_category: dict[str, CategoryRow] | None = None
    overall: OverallRow | None = None
    adversarial: AdversarialRow | None = None
    evidence: EvidenceRepairs | None = None
    intervals: dict[str, str] | None = None
    notes: list[str] | None = None
