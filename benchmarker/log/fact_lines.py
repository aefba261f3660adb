"""The JSON shape of a fact-extraction results line's `fact_score` (CaseScore.to_dict) and the judge's lists inside
it: below the suites, so that log/lines.py's `ResultLine` types the key its readers (the suite's summary) read.
suites/fact_extraction/shapes.py re-exports them beside the summary block's shapes."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class JudgeCounts(TypedDict):
    """The judge's fact lists for one case (FactJudgeResult.to_dict), its counts and scores (None: unjudged)."""

    case_id: str
    status: str
    conversation_facts: list[str]
    extracted_facts: list[str]
    missed_facts: list[str]
    hallucinated_facts: list[str]
    attempts: int
    input_tokens: int
    output_tokens: int
    total_tokens: int
    error: str
    tp: int | None
    fp: int | None
    fn: int | None
    precision: float | None
    recall: float | None
    f1: float | None


class ScoreDetails(TypedDict, total=False):
    """What a case's score rests on: the matched, hallucinated, missed and duplicate facts; the stale-value
    check (cases with superseded facts); the judge's lists (LLM scoring)."""

    true_positives: list[list[str | float]]   # [expected fact, extracted, similarity]
    false_positives: list[str]
    false_negatives: list[str]
    duplicates: list[str]
    stale_facts: list[str]
    missing_new_values: list[str]
    judge: JudgeCounts


class CaseScoreDict(TypedDict):
    """A results line's `fact_score` (CaseScore.to_dict)."""

    case_id: str
    scenario: str
    method: NotRequired[str]
    judged: NotRequired[bool]
    tp: NotRequired[int]
    fp: NotRequired[int]
    fn: NotRequired[int]
    extracted_count: NotRequired[int]
    conflict_resolved: NotRequired[bool | None]
    minimal: NotRequired[bool | None]
    details: NotRequired[ScoreDetails]
    precision: NotRequired[float | None]
    recall: NotRequired[float | None]
    f1: NotRequired[float | None]
