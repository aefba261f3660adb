"""The run directory: the durable log every phase reads and writes (schema_version 1).

Each phase appends one line per finished unit of work, so a run that dies is resumed by reading
these files back: nothing already paid for is redone, and nothing is written twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarker.run.jsonl import JsonlWriter, latest_by, read_jsonl, write_json_atomic

SCHEMA_VERSION = 1


@dataclass
class MemoryRecord:
    """What the run knows about one case's memory: which attempt, and whether ingestion finished."""

    case_id: str
    memory_id: str
    vault_id: str
    title: str
    attempt: int
    ingested: bool = False
    entries: int = 0
    failed_turns: int = 0
    ingest_s: float = 0.0
    # The memory agent's tokens and cost for this case (this attempt's process; see TokenLedger.case_usage).
    agent_usage: dict[str, Any] | None = None


@dataclass
class ResumeState:
    """Everything already finished in a run directory, read back before any work starts."""

    memories: dict[str, MemoryRecord] = field(default_factory=dict)
    answered: dict[str, dict[str, Any]] = field(default_factory=dict)
    judged: dict[str, dict[str, Any]] = field(default_factory=dict)
    max_attempt: dict[str, int] = field(default_factory=dict)


class RunStore:
    """Owns the paths and writers of one run directory (or one sweep point inside it)."""

    def __init__(self, run_dir: Path, *, answers_dir: Path | None = None):
        self.run_dir = run_dir
        # Sweep points keep their own answers/results/summary but share one ingestion.
        self.answers_dir = answers_dir or run_dir
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.answers_dir.mkdir(parents=True, exist_ok=True)
        self._writers: dict[str, JsonlWriter] = {}

    # paths -----------------------------------------------------------------------------------
    @property
    def manifest_path(self) -> Path:
        return self.run_dir / "manifest.json"

    @property
    def memories_path(self) -> Path:
        return self.run_dir / "memories.jsonl"

    @property
    def decisions_path(self) -> Path:
        return self.run_dir / "decisions.jsonl"

    @property
    def answers_path(self) -> Path:
        return self.answers_dir / "answers.jsonl"

    @property
    def results_path(self) -> Path:
        return self.answers_dir / "results.jsonl"

    @property
    def hypotheses_path(self) -> Path:
        return self.answers_dir / "hypotheses.jsonl"

    @property
    def summary_path(self) -> Path:
        return self.answers_dir / "summary.json"

    # writing ---------------------------------------------------------------------------------
    def _writer(self, path: Path, durable: bool) -> JsonlWriter:
        key = str(path)
        if key not in self._writers:
            self._writers[key] = JsonlWriter(path, durable=durable)
        return self._writers[key]

    def log_decision(self, record: dict[str, Any]) -> None:
        self._writer(self.decisions_path, durable=False).write(record)

    def log_memory(self, record: MemoryRecord, status: str) -> None:
        line = {"schema_version": SCHEMA_VERSION, "status": status, **record.__dict__}
        self._writer(self.memories_path, durable=True).write(line)

    def write_answer(self, record: dict[str, Any]) -> None:
        self._writer(self.answers_path, durable=True).write({"schema_version": SCHEMA_VERSION, **record})
        hyp = {"question_id": record["question_id"], "hypothesis": record.get("hypothesis", "")}
        self._writer(self.hypotheses_path, durable=True).write(hyp)

    def write_result(self, record: dict[str, Any]) -> None:
        self._writer(self.results_path, durable=True).write({"schema_version": SCHEMA_VERSION, **record})

    def write_level_score(self, record: dict[str, Any]) -> None:
        self._writer(self.answers_dir / "levels.jsonl", durable=True).write({"schema_version": SCHEMA_VERSION, **record})

    def log_error(self, case_id: str, err: BaseException) -> None:
        """A failed case, with its traceback; re-running the command retries it."""
        import traceback

        self._writer(self.run_dir / "errors.jsonl", durable=True).write({
            "case_id": case_id, "error": f"{type(err).__name__}: {err}",
            "traceback": "".join(traceback.format_exception(err))[-4000:],
        })

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        write_json_atomic(self.manifest_path, manifest)

    def close(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()

    # reading ---------------------------------------------------------------------------------
    def load_resume_state(self) -> ResumeState:
        state = ResumeState()
        for line in read_jsonl(self.memories_path):
            case_id = line["case_id"]
            state.max_attempt[case_id] = max(state.max_attempt.get(case_id, 0), int(line["attempt"]))
            rec = MemoryRecord(
                case_id=case_id,
                memory_id=line["memory_id"],
                vault_id=line["vault_id"],
                title=line["title"],
                attempt=int(line["attempt"]),
                ingested=line["status"] == "ingested",
                entries=int(line.get("entries", 0)),
                failed_turns=int(line.get("failed_turns", 0)),
                ingest_s=float(line.get("ingest_s", 0.0)),
                agent_usage=line.get("agent_usage"),
            )
            current = state.memories.get(case_id)
            # The ingested record of the newest attempt wins; a later "created" for a new
            # attempt supersedes an older unfinished one.
            if current is None or rec.attempt > current.attempt or (rec.attempt == current.attempt and rec.ingested):
                state.memories[case_id] = rec
        for line in read_jsonl(self.answers_path):
            state.answered[line["question_id"]] = line
        for line in read_jsonl(self.results_path):
            state.judged[line["question_id"]] = line
        return state

    def load_results(self) -> list[dict[str, Any]]:
        """Results in file order, one per question (a re-judged question keeps its last line)."""
        return latest_by(read_jsonl(self.results_path), "question_id")
