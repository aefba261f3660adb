"""Typed graph state. Nodes return only the keys they change; lists merge with `operator.add`."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from benchmarker.datasets.schema import Case


class CaseState(TypedDict, total=False):
    """One case moving through memory setup -> ingest -> qa -> eval."""

    case: Case
    memory: dict[str, Any]                                   # MemoryRecord fields
    skipped: str                                             # why the case stopped early
    answers: Annotated[list[dict[str, Any]], operator.add]   # new answer records
    results: Annotated[list[dict[str, Any]], operator.add]   # new result records
    readback: dict[str, Any]                                 # fact extraction: what memory holds


class RunState(TypedDict, total=False):
    """The whole run: which cases, what finished, where the report went."""

    total_questions: int
    cases_done: Annotated[list[str], operator.add]
    cases_skipped: Annotated[list[str], operator.add]
    summary: dict[str, Any]
    report_path: str
    self_improve: dict[str, Any]
