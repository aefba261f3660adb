"""summary.json's `judge_sensitivity` block as models: each judge's accuracy, their spread, pairs and disagreements."""

from __future__ import annotations

from benchmarker.reporting.summary_block import Block, Cell, Num


class JudgeSpread(Block):
    """max - min of the judges' accuracies, with its paired bootstrap 95% interval."""

    value: Num | None = None
    ci95: list[Num] | None = None
    highest: str | None = None
    lowest: str | None = None


class JudgeGroup(Block):
    """One row of judge_sensitivity (overall, or one question type): each judge's accuracy cell and the spread."""

    n: int | None = None
    judges: dict[str, Cell] | None = None
    spread: JudgeSpread | None = None


class JudgePair(Block):
    a: str | None = None
    b: str | None = None
    n: int | None = None
    agree: int | None = None
    agreement: Num | None = None
    kappa: Num | None = None   # null where undefined (a judge gave one label everywhere)
    only_a_correct: int | None = None
    only_b_correct: int | None = None


class JudgeEntry(Block):
    """One judge of judge_sensitivity: where its labels are and how many it left unjudged."""

    name: str | None = None
    source: str | None = None
    own: bool | None = None
    judge: str | None = None
    model: str | None = None
    lines: int | None = None
    unjudged: int | None = None


class Disagreement(Block):
    """A paired question the judges labelled differently: each judge's label."""

    question_id: str | None = None
    question_type: str | None = None
    labels: dict[str, bool | None] | None = None


class JudgeSensitivityBlock(Block):
    """summary.json's `judge_sensitivity` (scoring/judge_sensitivity.py), when a run was judged twice or more."""

    judges: list[JudgeEntry] | None = None
    questions: int | None = None
    paired: int | None = None
    overall: JudgeGroup | None = None
    by_type: dict[str, JudgeGroup] | None = None
    pairs: list[JudgePair] | None = None
    disagreements: list[Disagreement] | None = None
    bootstrap: dict[str, int] | None = None
    notes: list[str] | None = None
