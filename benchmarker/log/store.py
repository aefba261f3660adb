"""The run directory: the durable log every phase writes through one writer (schema_version 1).

Each phase appends one record per finished unit of work, so a run that dies is resumed by reading
these files back: nothing already paid for is redone, and nothing is written twice. `RunLog` is
the store handle the graph's runtime context carries: `append(record)` persists a record to the
file its type names and updates the index of finished work that resume reads.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import cast, overload

from benchmarker.log.confined import make_folders
from benchmarker.log.jsonl import JsonlWriter, latest_by, lines_at, parse_object, read_results, write_json_atomic
from benchmarker.log.lines import DecisionLine, Manifest, ResultLine
from benchmarker.log.records import (
    SCHEMA_VERSION,
    AnswerRecord,
    DecisionRecord,
    ErrorRecord,
    LevelRecord,
    LogRecord,
    MemoryRecord,
    ResultRecord,
    read_records,
)
from benchmarker.redact import redact, redact_text

__all__ = ["RunLog", "ResumeState", "MemoryRecord", "SCHEMA_VERSION"]

# Lines that must survive a power cut are fsynced; decisions are a trace, flushed only.
_DURABLE = {MemoryRecord.FILE: True, AnswerRecord.FILE: True, ResultRecord.FILE: True,
            LevelRecord.FILE: True, ErrorRecord.FILE: True, DecisionRecord.FILE: False}
ANSWERS_DIR_FILES = {AnswerRecord.FILE, ResultRecord.FILE, LevelRecord.FILE}
# Callers besides the agent whose calls write a memory: the harness's own writes, a replay's and a
# retrieval-mode ingestion's.
OTHER_WRITERS = ("harness", "replay", "retrieval")


@dataclass
class ResumeState:
    """Everything already finished in a run directory, read back before any work starts."""

    memories: dict[str, MemoryRecord] = field(default_factory=dict)
    answered: dict[str, AnswerRecord] = field(default_factory=dict)
    judged: dict[str, ResultRecord] = field(default_factory=dict)
    max_attempt: dict[str, int] = field(default_factory=dict)
    levels: set[str] = field(default_factory=set)   # level cases whose own score is written


class RunLog:
    """Owns the paths and the one writer of a run directory (or of one sweep point inside it)."""

    def __init__(self, run_dir: Path, *, answers_dir: Path | None = None):
        self.run_dir = Path(run_dir)
        # Sweep points and self-improve candidates keep their own answers/results/summary but
        # share one ingestion (memories and decisions stay in run_dir).
        self.answers_dir = Path(answers_dir) if answers_dir else self.run_dir
        make_folders(self.run_dir)       # never through a link below a held run directory (log/confined.py)
        make_folders(self.answers_dir)
        self._writers: dict[Path, JsonlWriter] = {}
        self._traces: dict[str, list[DecisionRecord]] = {}   # this process's agent tool calls per case
        self._traces_on_disk: dict[str, list[DecisionRecord]] | None = None
        self._other_calls: dict[str, list[DecisionRecord]] = {}  # this process's harness / replay calls per case
        self._offsets: dict[str, list[int]] | None = None   # case -> decisions.jsonl offsets of its write calls
        self.interrupted: set[str] = set()  # cases cancelled mid-way when the run stopped (graph.build.run_cases)

    # paths -----------------------------------------------------------------------------------
    def path_of(self, file: str) -> Path:
        return (self.answers_dir if file in ANSWERS_DIR_FILES else self.run_dir) / file

    @property
    def manifest_path(self) -> Path:
        return self.run_dir / "manifest.json"

    @property
    def memories_path(self) -> Path:
        return self.path_of(MemoryRecord.FILE)

    @property
    def decisions_path(self) -> Path:
        return self.path_of(DecisionRecord.FILE)

    @property
    def answers_path(self) -> Path:
        return self.path_of(AnswerRecord.FILE)

    @property
    def results_path(self) -> Path:
        return self.path_of(ResultRecord.FILE)

    @property
    def hypotheses_path(self) -> Path:
        return self.answers_dir / "hypotheses.jsonl"

    # the one writer --------------------------------------------------------------------------
    def _writer(self, path: Path, durable: bool) -> JsonlWriter:
        if path not in self._writers:
            self._writers[path] = JsonlWriter(path, durable=durable)
        return self._writers[path]

    def append(self, record: LogRecord) -> None:
        """Persist `record` to its file and note it as done (answers also go to hypotheses.jsonl,
        LongMemEval's evaluation input)."""
        file = type(record).FILE
        line = record.to_line()
        self._writer(self.path_of(file), _DURABLE[file]).write(line)
        note_done(self.done, record)
        if isinstance(record, AnswerRecord) and not isinstance(record, ResultRecord):
            hyp = {"question_id": record.question_id, "hypothesis": record.hypothesis}
            self._writer(self.hypotheses_path, True).write(hyp)
        elif isinstance(record, DecisionRecord):
            self._note_call(record)

    def append_many(self, records: Sequence[DecisionRecord]) -> None:
        """Append decision records in one write (a batch of writes acknowledged together), as `append`
        would one by one."""
        if not records:
            return
        lines = [record.decision_line() for record in records]
        self._writer(self.decisions_path, _DURABLE[DecisionRecord.FILE]).write_many(lines)
        for record in records:
            self._note_call(record)

    def _note_call(self, record: DecisionRecord) -> None:
        """Hold a case's agent calls and other writes for its own scoring."""
        if record.caller == "agent":
            self._traces.setdefault(record.case_id, []).append(record)
        elif record.caller in OTHER_WRITERS and stores(record.tool, record.error):
            self._other_calls.setdefault(record.case_id, []).append(record)  # the harness's searches are no write

    def log_error(self, case_id: str, err: BaseException) -> None:
        """A failed case, with its traceback."""
        self.append(error_record(case_id, err))

    def write_manifest(self, manifest: Manifest) -> None:
        write_json_atomic(self.manifest_path, redact(manifest))  # no URL password or token reaches the disk

    def close(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()

    # reading ---------------------------------------------------------------------------------
    @cached_property
    def done(self) -> ResumeState:
        """What the run directory already holds, read on first use (a handle that only writes the
        manifest never reads the run's files)."""
        return self._load()

    def next_attempt(self, case_id: str) -> int:
        return self.done.max_attempt.get(case_id, 0) + 1

    def release_trace(self, case_id: str) -> None:
        """Forget a finished case's agent tool calls: held for the case's own scoring only, they
        would otherwise grow with every message of the run (a read falls back to the file)."""
        self._traces.pop(case_id, None)
        self._other_calls.pop(case_id, None)

    def agent_tool_calls(self, case_id: str, memory_id: str | None = None) -> list[DecisionRecord]:
        """The memory agent's tool calls for a case, in order: this process's, else the file's
        (a resumed run scores a trace written by an earlier process). With `memory_id`, only the
        calls into that memory: a cut-off attempt's calls went to an abandoned one."""
        if case_id in self._traces:
            return into_memory(self._traces[case_id], memory_id)
        if self._traces_on_disk is None:
            self._traces_on_disk = {}
            for record in read_records(self.decisions_path, DecisionRecord):
                if record.caller == "agent":
                    self._traces_on_disk.setdefault(record.case_id, []).append(record)
        return into_memory(self._traces_on_disk.get(case_id, []), memory_id)

    def memory_writes(self, case_id: str, memory_id: str | None = None,
                      tools: frozenset[str] | None = None) -> list[DecisionLine]:
        """The case's calls that may have stored an entry (not failed; of `tools` when given), as decisions.jsonl
        lines: this process's, else, for a case ingested by an earlier process, read from the file through an
        index of byte offsets built in one pass (memory bounded: never every line of the run at once)."""
        calls = self._traces.get(case_id, []) + self._other_calls.get(case_id, [])
        offsets = [] if calls else self._write_offsets().get(case_id, [])
        earlier = [line for raw in lines_at(self.decisions_path, offsets) if (line := _decision(raw)) is not None]
        return written_lines(calls, earlier, memory_id, tools)

    def _write_offsets(self) -> dict[str, list[int]]:
        if self._offsets is None:
            self._offsets = {}
            if self.decisions_path.exists():
                with self.decisions_path.open("rb") as handle:
                    position = 0
                    for raw in handle:
                        if b'"tool"' in raw:
                            line = _decision(raw)
                            if line is not None and may_write(line):
                                self._offsets.setdefault(str(line.get("case_id")), []).append(position)
                        position += len(raw)
        return self._offsets

    def _load(self) -> ResumeState:
        state = ResumeState()
        for rec in read_records(self.memories_path, MemoryRecord):
            if rec.status == "ingested":
                rec.ingested = True
            case_id = rec.case_id
            state.max_attempt[case_id] = max(state.max_attempt.get(case_id, 0), rec.attempt)
            current = state.memories.get(case_id)
            # The ingested record of the newest attempt wins; a later "created" for a new
            # attempt supersedes an older unfinished one.
            if current is None or rec.attempt > current.attempt or (rec.attempt == current.attempt and rec.ingested):
                state.memories[case_id] = rec
        for answer in read_records(self.answers_path, AnswerRecord):
            state.answered[answer.question_id] = answer
        for result in read_records(self.results_path, ResultRecord):
            state.judged[result.question_id] = result
        state.levels = {level.case_id for level in read_records(self.path_of(LevelRecord.FILE), LevelRecord)}
        return state

    def load_results(self) -> list[ResultLine]:
        """Results in file order, one per question (a re-judged question keeps its last line)."""
        return latest_by(read_results(self.results_path), "question_id")


def note_done(done: ResumeState, record: LogRecord) -> None:
    """Update the index of finished work with a record just written (the writer and, on a Ray
    worker, the collecting log keep the same index)."""
    if isinstance(record, MemoryRecord):
        done.memories[record.case_id] = record
        done.max_attempt[record.case_id] = max(done.max_attempt.get(record.case_id, 0), record.attempt)
    elif isinstance(record, ResultRecord):
        done.judged[record.question_id] = record
    elif isinstance(record, AnswerRecord):
        done.answered[record.question_id] = record
    elif isinstance(record, LevelRecord):
        done.levels.add(record.case_id)


def error_record(case_id: str, err: BaseException) -> ErrorRecord:
    """A failed case's line; an error from a Ray worker keeps the worker's own traceback."""
    trace = getattr(err, "remote_traceback", None) or "".join(traceback.format_exception(err))
    return ErrorRecord(case_id=case_id, error=redact_text(f"{type(err).__name__}: {err}"),
                       traceback=redact_text(trace[-4000:]))


# Tools that only read a memory: never a write, whatever server they belong to.
READ_TOOLS = frozenset({"search_memories", "get_context", "list_entries", "get_entry", "get_memory", "list_memories",
                        "list_vaults", "await_consistency", "get_default_prompts", "create_vault",
                        "create_memory_in_vault"})


def _decision(raw: bytes) -> DecisionLine | None:
    """One decisions.jsonl line read by offset (None: torn or damaged), typed as the harness wrote it."""
    line = parse_object(raw)
    return None if line is None else cast(DecisionLine, line)


def may_write(line: DecisionLine) -> bool:
    """A logged call that may have stored an entry: a tool call (not a harness event), not a read, not failed."""
    return stores(line.get("tool"), line.get("error"))


def stores(tool: str | None, error: str | None) -> bool:
    """may_write over a call's tool and error (a record's, before it is a line)."""
    name = str(tool or "_")
    return not name.startswith("_") and name not in READ_TOOLS and not error


def written_lines(calls: list[DecisionRecord], earlier: list[DecisionLine], memory_id: str | None,
                  tools: frozenset[str] | None) -> list[DecisionLine]:
    """`calls` (this process's records) and `earlier` (lines from the file) that may have written into
    `memory_id`, as lines; with `tools`, only calls of those tools."""
    lines = [c.decision_line() for c in calls] + earlier
    return [line for line in lines if may_write(line) and (tools is None or line.get("tool") in tools)
            and (memory_id is None or (line.get("args") or {}).get("memory_id") in (None, memory_id))]




def into_memory(calls: list[DecisionRecord], memory_id: str | None) -> list[DecisionRecord]:
    if memory_id is None:
        return list(calls)
    return [c for c in calls if c.args.get("memory_id") in (None, memory_id)]


class PointLogs(Sequence[RunLog]):
    """The run's logs, one per sweep point (a point's answers in `points/<label>/`), each opened when first
    asked for: a point that runs after another reads what that one wrote (its ingested memories)."""

    def __init__(self, run_dir: Path, labels: list[str]):
        self.run_dir = Path(run_dir)
        self._labels = labels
        self._open: dict[int, RunLog] = {}

    def __len__(self) -> int:
        return len(self._labels)

    def opened(self) -> list[RunLog]:
        """The points' logs opened so far (the others have nothing in flight)."""
        return [self._open[i] for i in sorted(self._open)]

    @overload
    def __getitem__(self, index: int) -> RunLog: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[RunLog]: ...

    def __getitem__(self, index: int | slice) -> RunLog | Sequence[RunLog]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        index = range(len(self))[index]  # IndexError past the end, as a list does
        if index not in self._open:
            label = self._labels[index]
            self._open[index] = RunLog(self.run_dir, answers_dir=self.run_dir / "points" / label if label else None)
        return self._open[index]

    def close(self) -> None:
        for log in self._open.values():
            log.close()
