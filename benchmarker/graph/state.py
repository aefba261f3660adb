"""Typed graph state. Nodes return only the keys they change; lists merge with `operator.add`.

Records (benchmarker/log/records.py) are what moves between nodes: `prepare_memory` and `ingest`
hand on a MemoryRecord, `qa` / `read_back` every AnswerRecord of the case (resumed ones included),
`score` the ResultRecords.
"""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from benchmarker.datasets.schema import Case
from benchmarker.log.lines import Json
from benchmarker.log.records import AnswerRecord, MemoryRecord, ResultRecord
from benchmarker.reporting.summary_model import RunSummary


class Setup(TypedDict):
    """What the setup node learns once per run and every case needs."""

    vault_id: str
    default_prompts: dict[str, Json]  # Mycelian's get_default_prompts("chat"); {} in retrieval mode


class CaseState(TypedDict, total=False):
    """One case moving through memory setup -> ingest -> qa -> score."""

    case: Case
    setup: Setup
    memory: MemoryRecord
    skipped: str                                             # why the case stopped early
    answers: Annotated[list[AnswerRecord], operator.add]     # every answer of the case
    results: Annotated[list[ResultRecord], operator.add]     # results scored in this process


class RunState(TypedDict, total=False):
    """The whole run: which cases, what finished, where the report went."""

    total_questions: int
    setup: Setup
    cases_done: Annotated[list[str], operator.add]
    cases_skipped: Annotated[list[str], operator.add]
    summary: RunSummary
    report_path: str
    self_improve: dict[str, Json]      # reporting.sections.self_improve_summary's block, or {"error": why}
