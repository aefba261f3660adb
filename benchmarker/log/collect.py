"""A run log that writes nothing: what a Ray worker's case graph appends is kept and sent back.

The run directory has one writer, on the driver (`RunLog`). A worker runs the same nodes with a
`CollectingLog` in their context: each append lands in the case's outcome, and only when the
driver has written them are they acknowledged. A worker that dies mid-case therefore leaves no
half-written case behind; the driver runs the case again on another worker.

The driver hands the worker the slice of its resume index that concerns the case (`CaseSlice`),
so the nodes decide exactly as they would locally: reuse a finished memory, skip an answered
question, score only what is unscored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarker.log.lines import DecisionLine
from benchmarker.log.records import AnswerRecord, DecisionRecord, LogRecord, MemoryRecord, ResultRecord
from benchmarker.log.store import OTHER_WRITERS, ResumeState, error_record, into_memory, note_done, written_lines


@dataclass
class CaseSlice:
    """What the run directory already holds for one case (picklable; sent to a worker)."""

    case_id: str
    memory: MemoryRecord | None
    max_attempt: int
    agent_calls: list[DecisionRecord]                  # the memory agent's logged calls (a resumed case)
    answered: list[dict[str, AnswerRecord]]            # per sweep point, by question id
    judged: list[dict[str, ResultRecord]]
    levels: list[bool]                                 # per point: the level's own score is written
    writes: list[DecisionLine] = field(default_factory=list)  # a resumed case's memory writes (attribution)

    @classmethod
    def from_logs(cls, case, logs: Sequence[Any], *, reads_trace: bool) -> CaseSlice:
        """The case's part of each point's `RunLog.done` (run-level records from the first log);
        `reads_trace`: the case's suite scores from the agent's logged calls, so they are sent too."""
        base = logs[0].done
        ids = [q.question_id for q in case.questions] or [case.case_id]
        memory = base.memories.get(case.case_id)
        return cls(case_id=case.case_id, memory=memory, max_attempt=base.max_attempt.get(case.case_id, 0),
                   agent_calls=logs[0].agent_tool_calls(case.case_id) if memory is not None and reads_trace else [],
                   answered=[{q: log.done.answered[q] for q in ids if q in log.done.answered} for log in logs],
                   judged=[{q: log.done.judged[q] for q in ids if q in log.done.judged} for log in logs],
                   levels=[case.case_id in log.done.levels for log in logs],
                   writes=logs[0].memory_writes(case.case_id, memory.memory_id) if memory is not None else [])


@dataclass
class CollectedCase:
    """Everything a case appended on a worker, in order, with the sweep point each line belongs to."""

    records: list[tuple[int, LogRecord]] = field(default_factory=list)
    memories: dict[str, MemoryRecord] = field(default_factory=dict)    # shared by every point
    max_attempt: dict[str, int] = field(default_factory=dict)
    agent_calls: list[DecisionRecord] = field(default_factory=list)
    other_calls: list[DecisionRecord] = field(default_factory=list)    # the harness's and a replay's


class CollectingLog:
    """The `RunLog` interface the case graph uses, for one sweep point of one case on a worker."""

    def __init__(self, collected: CollectedCase, slice_: CaseSlice, point: int, *, run_dir: Path):
        self.collected = collected
        self.earlier_writes = slice_.writes
        self.point = point
        self.run_dir = self.answers_dir = Path(run_dir)  # the worker's own folder (case scopes, logs)
        self.done = ResumeState(memories=collected.memories, answered=dict(slice_.answered[point]),
                                judged=dict(slice_.judged[point]), max_attempt=collected.max_attempt,
                                levels={slice_.case_id} if slice_.levels[point] else set())
        self.interrupted: set[str] = set()  # as RunLog's: a case cancelled when the worker stops

    @classmethod
    def for_points(cls, slice_: CaseSlice, *, run_dir: Path) -> tuple[CollectedCase, list[CollectingLog]]:
        """One log per sweep point over one shared collection (memories and decisions are run-level)."""
        collected = CollectedCase(agent_calls=list(slice_.agent_calls))
        if slice_.memory is not None:
            collected.memories[slice_.case_id] = slice_.memory
        if slice_.max_attempt:
            collected.max_attempt[slice_.case_id] = slice_.max_attempt
        return collected, [cls(collected, slice_, i, run_dir=run_dir) for i in range(len(slice_.answered))]

    def append(self, record: LogRecord) -> None:
        self.collected.records.append((self.point, record))
        note_done(self.done, record)
        if isinstance(record, DecisionRecord) and record.caller == "agent":
            self.collected.agent_calls.append(record)
        elif isinstance(record, DecisionRecord) and record.caller in OTHER_WRITERS and not record.tool.startswith("_"):
            self.collected.other_calls.append(record)

    def append_many(self, records: Sequence[DecisionRecord]) -> None:
        for record in records:
            self.append(record)

    def log_error(self, case_id: str, err: BaseException) -> None:
        self.append(error_record(case_id, err))

    def next_attempt(self, case_id: str) -> int:
        return self.done.max_attempt.get(case_id, 0) + 1

    def release_trace(self, case_id: str) -> None:
        """Nothing to release: the collection goes with the case's outcome."""

    def agent_tool_calls(self, case_id: str, memory_id: str | None = None) -> list[DecisionRecord]:
        return into_memory([c for c in self.collected.agent_calls if c.case_id == case_id], memory_id)

    def memory_writes(self, case_id: str, memory_id: str | None = None,
                      tools: frozenset[str] | None = None) -> list[DecisionLine]:
        """As RunLog.memory_writes: this worker's calls, else the ones the driver read for a resumed case."""
        calls = [c for c in self.collected.agent_calls + self.collected.other_calls if c.case_id == case_id]
        return written_lines(calls, self.earlier_writes, memory_id, tools)
