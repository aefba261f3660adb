"""The JSON shapes BEAM writes: a results line's `beam` block (scoring.py) and summary.json's `beam` block
(summary.py), typed so the writer and its readers spell the keys alike. They change no byte written.
Every key is optional (`total=False`) where a reader meets older or partial blocks and reads with `.get()`."""

from __future__ import annotations

from typing import TypedDict, cast

from benchmarker.log.lines import Json, ResultLine


class ItemScore(TypedDict):
    """One rubric item's grade: its text, 0 / 0.5 / 1 (None: unjudged) and the judge's reason."""

    item: str
    score: float | None
    reason: str


class OrderingMetrics(TypedDict, total=False):
    """Event ordering: the aligned items' precision / recall / F1 and the normalised Kendall tau-b."""

    precision: float
    recall: float
    f1: float
    tau_b: float | None
    tau_norm: float
    final_score: float
    tau_undefined: bool


class AnswerBlock(TypedDict, total=False):
    """A results line's `beam` block: the item scores, the ordering metrics, the score and score_half."""

    ability: str
    items: list[ItemScore]
    score: float | None
    score_half: float | None
    unjudged_items: int
    ordering: OrderingMetrics


class AbilityStat(TypedDict, total=False):
    """summary.json `beam.by_ability.<ability>`."""

    questions: int
    scored: int
    mean: float | None
    ci95: list[float] | None
    mean_half: float | None


class Overall(TypedDict, total=False):
    """summary.json `beam.overall`: the mean over abilities (BEAM's headline) and over questions."""

    mean_over_abilities: float | None
    ci95: list[float] | None
    abilities: int
    questions: int
    scored: int
    mean_over_questions: float | None


class EventOrdering(TypedDict, total=False):
    """summary.json `beam.event_ordering`."""

    questions: int
    tau_norm: float | None
    f1: float | None


class SummaryBlock(TypedDict, total=False):
    """summary.json's `beam` block."""

    by_ability: dict[str, AbilityStat]
    overall: Overall
    event_ordering: EventOrdering
    scoring: str


def answer_block(line: ResultLine) -> AnswerBlock:
    """A results line's `beam` block as the grader wrote it (empty when the line has none)."""
    return cast(AnswerBlock, line.get("beam") or {})


def block_json(block: AnswerBlock) -> dict[str, Json]:
    """The block as the results line's JSON object (every value is JSON already)."""
    return cast("dict[str, Json]", block)
