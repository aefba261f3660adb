"""The published gold a suite offers to errata: each question's answer, evidence and category, and its turns' text."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarker.log.lines import Json

FIELDS = ("answer", "evidence", "category")


@dataclass(frozen=True)
class GoldQuestion:
    """One question's published gold, as the dataset file writes it (the harness's own id is the key)."""

    case_id: str
    answer: str
    evidence: tuple[str, ...]   # the dataset's own ids of the turns (LoCoMo) or sessions (LongMemEval) that prove it
    category: str               # the dataset's own category (LoCoMo's number, LongMemEval's question_type)
    abstention: bool = False    # its gold is "not mentioned": no answer to correct


@dataclass(frozen=True)
class GoldTurn:
    """A turn the dataset names, with its text and where the harness finds it (session id, 0-based index)."""

    text: str
    session_id: str
    index: int


@dataclass
class GoldIndex:
    """A dataset's gold for checking and applying corrections.

    `categories` maps each category a correction may name to the results-line fields it sets (question_type,
    category); `evidence_fields(case_id, ids)` gives the results-line fields a corrected evidence list sets
    (evidence_turns, answer_session_ids), or None when an id names nothing in that case."""

    questions: dict[str, GoldQuestion]
    turns: dict[str, dict[str, GoldTurn]]   # case_id -> the dataset's turn id -> turn
    categories: dict[str, dict[str, Json]]   # a category -> the results-line fields moving a question there sets
    evidence_fields: Callable[[str, tuple[str, ...]], dict[str, Json] | None]
    # evidence ids as the suite reads them (LoCoMo's "D1:5; D2:2" is two ids), so a file's spelling matches
    canonical_ids: Callable[[tuple[str, ...]], tuple[str, ...]] = lambda ids: tuple(sorted(ids))


# a suite's: the gold of the dataset file at a path (only the questions named, where reading all would be slow)
GoldReader = Callable[[Path, set[str] | None], GoldIndex]


def as_text(value: Any) -> str:
    """A gold value as the harness compares it: numbers as the loaders write them (3, not 3.0), text stripped."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def as_ids(value: Any) -> tuple[str, ...] | None:
    """An evidence list as sorted ids; None when it is not a list of strings."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return tuple(sorted(v.strip() for v in value))
