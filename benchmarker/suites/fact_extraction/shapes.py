"""The JSON shapes fact extraction writes: a results line's `fact_score` (CaseScore.to_dict), the judge's lists
inside it, and summary.json's `fact_extraction` block. Typed so the writer and its readers spell the keys alike;
they change no byte written."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from benchmarker.log.fact_lines import CaseScoreDict, JudgeCounts, ScoreDetails

__all__ = ["CaseScoreDict", "FactSummary", "JudgeCounts", "MacroScores", "MicroScores", "ScoreDetails", "TargetRow"]


class MicroScores(TypedDict):
    """P / R / F1 over the summed counts of a group of cases (`judged`: the group's judged cases, by scenario)."""

    cases: int
    tp: int
    fp: int
    fn: int
    precision: float | None
    recall: float | None
    f1: float | None
    judged: NotRequired[int]


class MacroScores(TypedDict):
    """The mean of the judged cases' own P / R / F1."""

    cases: int
    precision: float | None
    recall: float | None
    f1: float | None


# `pass` is a keyword: the functional syntax names it
TargetRow = TypedDict("TargetRow", {"metric": str, "target": float, "op": str, "value": "float | None",
                                    "pass": "bool | None", "basis": NotRequired[str]})


class FactSummary(TypedDict):
    """summary.json's `fact_extraction` block (reporting/summary.py documents each key)."""

    method: str
    cases: int
    micro: MicroScores
    macro: MacroScores
    by_scenario: dict[str, MicroScores]
    conflict_resolution_rate: float | None
    conflict_cases: int
    minimalism_rate: float | None
    minimalism_cases: int
    targets: list[TargetRow]
    unjudged: list[str]
    headline: NotRequired[str]   # the suite's one line, added when it writes the block
