"""Typed records: one pydantic model per kind of line a run writes (schema_version 1).

Records are the API between the graph's nodes and the one writer (`RunLog.append`): a node builds
a record, the writer persists it to the file its type names, and the next node reads it from state
(or, on resume, from the file). Every model allows extra keys, so a line written by a newer
harness, or carrying suite-specific fields (a rubric, a fact score), loads without loss.

    memories.jsonl   MemoryRecord      one per memory status change (created, ingested)
    decisions.jsonl  DecisionRecord    every tool call: the agent's, the harness's, a replay's
    answers.jsonl    AnswerRecord      one per answered question (the QA phase)
    results.jsonl    ResultRecord      the answer plus its grading (scoring/records.py documents it)
    levels.jsonl     LevelRecord       a level's own score (L13 tool trace, L15 balance, ...)
    errors.jsonl     ErrorRecord       a case that failed, with its traceback
    self_improve.jsonl  SelfImproveRecord  one per self-improve iteration (DECIDE's verdict)
    sweep.json       SweepPoint        one per (alpha, top_k) point of a sweep, inside the table

log/lines.py types the same lines (TypedDicts) for the readers that take them as read, without validating.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from benchmarker.errors import UserError
from benchmarker.log.jsonl import read_jsonl
from benchmarker.log.lines import DecisionLine, ResultLine
from benchmarker.redact import masked_preview

# The `kind` of a line written before lines carried one (the suite registry maps kinds to suites)
DEFAULT_RECORD_KIND = "longmemeval"

SCHEMA_VERSION = 1


class LogRecord(BaseModel):
    """A line of a run file. `FILE` names where the writer puts it."""

    model_config = ConfigDict(extra="allow")
    FILE: ClassVar[str] = ""

    schema_version: int = SCHEMA_VERSION

    def to_line(self) -> dict[str, Any]:
        """The JSON object written to disk (declared fields first, then the extra keys)."""
        return self.model_dump(mode="json")

    def get(self, key: str, default: Any = None) -> Any:
        """Dict-style read, so graders written against lines read records too."""
        value = getattr(self, key, None)  # extra keys read as attributes too
        return default if value is None else value


class MemoryRecord(LogRecord):
    """One case's memory: which attempt, and whether ingestion finished."""

    FILE: ClassVar[str] = "memories.jsonl"

    case_id: str
    memory_id: str
    vault_id: str
    title: str
    attempt: int
    status: Literal["created", "ingested"] = "created"
    ingested: bool = False
    entries: int = 0                 # messages ingested (what the agent was shown)
    stored: int | None = None        # write calls the memory server accepted for this case (None: not counted)
    failed_turns: int = 0
    ingest_s: float = 0.0
    # The memory agent's tokens and cost for this case (this attempt's process; TokenLedger.case_usage).
    agent_usage: dict[str, Any] | None = None
    # The context cadence the agent was told while writing this memory (L13 scores against it).
    context_cadence: int | None = None
    # The Ray worker whose own embedded service holds this memory (gone when the worker is); None:
    # the run's memory server. A memory held elsewhere is never searched: a case that still has
    # questions to ask is ingested again into a new memory (graph/memory_setup.py).
    held_by: str | None = None


class DecisionRecord(LogRecord):
    """One tool call. caller: agent | harness | replay | retrieval; tools starting with `_` are harness events."""

    FILE: ClassVar[str] = "decisions.jsonl"

    case_id: str
    caller: str
    tool: str
    question_id: str | None = None
    session_id: str | None = None
    turn: int | None = None
    args: dict[str, Any] = {}
    result_preview: str | None = None
    latency_ms: float | None = None
    error: str | None = None
    # a write sent in one add_entries call with others: the call's size (latency_ms is then its share)
    batch: int | None = None

    def to_line(self) -> dict[str, Any]:
        """As every record's, without `batch` on a call that was made alone (the lines of runs before it)."""
        line = super().to_line()
        if line.get("batch") is None:
            line.pop("batch", None)
        return line

    def decision_line(self) -> DecisionLine:
        """to_line(), typed as readers of decisions.jsonl see it (the record is what the line is made from)."""
        return cast(DecisionLine, self.to_line())

    @model_validator(mode="before")
    @classmethod
    def _cap_failed_args(cls, data: Any) -> Any:
        """A refused call's arguments are kept only in part: a model that sends a 1 MB summary again and again
        would otherwise fill decisions.jsonl (29 MB seen); a call that succeeded keeps every byte (replay)."""
        if isinstance(data, dict) and data.get("error") and isinstance(data.get("args"), dict):
            data = {**data, "args": _capped(data["args"])}
        return data

    def trace_step(self) -> dict[str, Any]:
        """What level L13 and the fact suite score: the tool, its arguments, its error."""
        return {"tool": self.tool, "args": self.args, "error": self.error}


FAILED_ARG_CHARS = 2000  # of each string argument of a failed call


def _capped(value: Any) -> Any:
    if isinstance(value, str) and len(value) > FAILED_ARG_CHARS:
        return (f"{masked_preview(value, FAILED_ARG_CHARS)}... ({len(value):,} characters; the rest not kept: "
                "the call failed)")  # masked before the cut: a cut key would no longer be recognised
    if isinstance(value, dict):
        return {k: _capped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_capped(v) for v in value]
    return value


class AnswerRecord(LogRecord):
    """One question answered from memory (or a fact case's read-back); the QA phase's output."""

    FILE: ClassVar[str] = "answers.jsonl"

    case_id: str
    question_id: str
    question_type: str = ""
    category: str = ""
    kind: str = DEFAULT_RECORD_KIND
    level: str | None = None
    seed: int | None = None
    question_key: str | None = None
    is_abstention: bool = False
    question: str = ""
    answer: Any = ""
    question_date: str | None = None
    answer_session_ids: list[str] = []
    evidence_turns: list[list[Any]] = []
    hypothesis: str = ""
    mode: str = "agent"
    offline: bool = False

    def result_line(self) -> ResultLine:
        """to_line(), typed as readers of answers and results lines see it (log/lines.py's ResultLine)."""
        return cast(ResultLine, self.to_line())


class ResultRecord(AnswerRecord):
    """An answer plus the grading keys `scoring/records.py` documents (label None = unjudged)."""

    FILE: ClassVar[str] = "results.jsonl"

    label: bool | None = None
    autoeval_label: dict[str, Any] | None = None
    grade: dict[str, Any] = {}


class LevelRecord(LogRecord):
    """A level case's own score, written once all its questions are scored."""

    FILE: ClassVar[str] = "levels.jsonl"

    case_id: str
    level: str
    title: str = ""


class ErrorRecord(LogRecord):
    """A case that failed; re-running the command retries it."""

    FILE: ClassVar[str] = "errors.jsonl"

    case_id: str
    error: str
    traceback: str = ""


class SelfImproveRecord(LogRecord):
    """One self-improve iteration: the proposal, the critique, the votes, the scores, the decision."""

    FILE: ClassVar[str] = "self_improve.jsonl"

    iteration: int
    decision: Literal["accepted", "reverted", "refused", "stopped"] | str
    stage: str
    reason: str


class SweepPoint(LogRecord):
    """One (alpha, top_k) point of a sweep: its results directory and the value it is ranked by."""

    label: str
    alpha: float        # -1: the service's own alpha
    top_k: int
    dir: str
    value: float | None = None
    ci95: list[float] | None = None  # 95% interval of `value` (Wilson for 0/1 outcomes, else bootstrap)


R = TypeVar("R", bound=LogRecord)


def read_records(path: Path, model: type[R]) -> Iterator[R]:
    """Every line of `path` as `model`; a line that does not fit names the file, line and field."""
    for number, line in enumerate(read_jsonl(path), start=1):
        try:
            yield model.model_validate(line)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "line"
            raise UserError(f"{path}: record {number}: {where}: {first['msg']} "
                            f"(not a {model.__name__}; fix or delete that line)") from None
