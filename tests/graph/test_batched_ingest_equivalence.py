"""Issue 45: batched writes (`[memory] write_batch`, the embedded service's add_entries) leave the same
memories as one add_entry per message: a retrieval run and a replay, each done twice (write_batch 0 and
7, an odd size so batches cross session boundaries and end on a partial one), are compared entry by
entry: texts, summaries, tags, order, every question's hits and scores, the decision lines, the
memories.jsonl counts and the retrieval metrics."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from benchmarker.config import load_config
from benchmarker.log.jsonl import read_jsonl
from benchmarker.run.runner import execute_run
from benchmarker.verbs.replay import execute_replay
from tests.verbs.test_replay import ingested, stored, without_run_id
from tests.shared_data import REAL_5Q

BATCH = 7
LOCOMO_MINI = Path(__file__).resolve().parents[1] / "suites" / "locomo" / "fixtures" / "locomo_mini.json"
SAMPLE = '[dataset]\nkind = "sample"\nquestions_per_type = 1\nsessions_per_question = 3\n'
DATASETS = {
    "sample": SAMPLE,
    "real5q": f'dataset_file = "{REAL_5Q}"\n',  # ~2,500 long messages: [run] limit keeps two questions
    "locomo": f'[dataset]\nkind = "locomo"\nfile = "{LOCOMO_MINI}"\n',
}
# What differs between two runs of the same writes: ids, times and the run's own name.
RUN_OWN = {"run_id", "vault_id", "memory_id", "entry_id", "entryId", "memoryId", "vaultId", "creationTime",
           "created_at", "latency_ms", "ts", "batch", "result_preview", "attempt", "timings"}


TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?")


def _config(tmp_path: Path, name: str, dataset: str, write_batch: int, run: str = "", embedder: str = "static"):
    """`embedder` "none" (BM25 only, alpha 0) where vectors add only start-up time."""
    path = tmp_path / f"{name}.toml"
    alpha = "alpha = 0.0\n" if embedder == "none" else ""
    path.write_text(f'run_id = "{name}"\n{dataset}[memory]\nembedder = "{embedder}"\n{alpha}write_batch = {write_batch}\n'
                    f'[run]\noutput_dir = "{tmp_path / "runs"}"\nprogress = false\n{run}', encoding="utf-8")
    return load_config(path)


def _retrieval_run(tmp_path: Path, name: str, dataset: str, write_batch: int) -> Path:
    run = 'mode = "retrieval"\n' + ("limit = 2\n" if "dataset_file" in dataset else "")
    outcome = asyncio.run(execute_run(_config(tmp_path, name, dataset, write_batch, run=run)))
    assert not outcome.skipped
    return outcome.run_dir


def _without(value: Any, keys: set[str] = RUN_OWN) -> Any:
    """`value` with the keys that name this run (ids, times, latency) dropped, at any depth."""
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    if isinstance(value, str):  # a context's "saved <time>" line in reader_context
        return TIMESTAMP.sub("<time>", value)
    return value


def _writes(run_dir: Path, caller: str) -> list[dict[str, Any]]:
    return [d for d in read_jsonl(run_dir / "decisions.jsonl") if d["caller"] == caller and d["tool"] == "add_entry"]


def _by_case(run_dir: Path, file: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for line in read_jsonl(run_dir / file):
        out.setdefault(line["case_id"], []).append(line)
    return out


def _memories(run_dir: Path) -> dict[str, tuple[int, int | None, str]]:
    return {case: (m[-1]["entries"], m[-1]["stored"], m[-1]["status"]) for case, m in _by_case(run_dir, "memories.jsonl").items()}


def assert_same_memories(one: Path, batched: Path, caller: str) -> None:
    """Everything a reader of the two run directories could compare, entry by entry."""
    cases_one, cases_batched = ingested(one), ingested(batched)
    assert set(cases_one) == set(cases_batched) and cases_one
    for case, memory_id in cases_one.items():
        assert without_run_id(stored(batched, cases_batched[case])) == without_run_id(stored(one, memory_id)), case
    assert _memories(batched) == _memories(one)
    assert all(stored_ == entries for entries, stored_, _ in _memories(one).values())

    lines_one, lines_batched = _writes(one, caller), _writes(batched, caller)
    assert len(lines_batched) == len(lines_one) > 0
    assert _without(lines_batched) == _without(lines_one)  # one line per write, same args, same order
    assert all(d.get("batch") is None for d in lines_one)
    sizes = [d.get("batch") or 1 for d in lines_batched]  # a write sent alone is a plain add_entry line
    assert all(1 <= n <= BATCH for n in sizes) and sizes.count(1) < len(sizes) // 2
    assert all(d["error"] is None and d["latency_ms"] >= 0 for d in lines_batched)

    answers_one, answers_batched = _by_case(one, "answers.jsonl"), _by_case(batched, "answers.jsonl")
    assert _without(answers_batched) == _without(answers_one)  # every question's hits: texts, scores, order
    assert any(a["retrieved"] for answers in answers_one.values() for a in answers)
    metrics = [json.loads((d / "summary.json").read_text())["retrieval"] for d in (one, batched)]
    assert metrics[0] == metrics[1] and metrics[0]["available"]


@pytest.mark.parametrize("dataset", [
    "sample",
    pytest.param("real5q", marks=[pytest.mark.slow,
                                  pytest.mark.skipif(not REAL_5Q.exists(), reason=f"{REAL_5Q} is absent")]),
    pytest.param("locomo", marks=pytest.mark.slow),
])
def test_a_batched_retrieval_run_ingests_exactly_what_one_by_one_does(tmp_path: Path, dataset: str) -> None:
    one = _retrieval_run(tmp_path, "one", DATASETS[dataset], 0)
    batched = _retrieval_run(tmp_path, "batched", DATASETS[dataset], BATCH)
    assert_same_memories(one, batched, "retrieval")


@pytest.fixture(scope="module")
def agent_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished offline agent run on three sample questions: the writes both replays send (its
    put_context calls cut the batches short)."""
    root = tmp_path_factory.mktemp("batched-replay-source")
    outcome = asyncio.run(execute_run(_config(root, "source", SAMPLE, 0, run="limit = 3\n", embedder="none")))
    assert not outcome.skipped
    return outcome.run_dir


def _timeline(run_dir: Path, memory_id: str) -> list[tuple[str, str]]:
    """The memory's entries and contexts in the order they were stored: a put_context the agent made
    between two writes must land between them in a replay too."""
    db = sqlite3.connect(f"file:{run_dir / 'memory.sqlite'}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT e.creation_time, 'entry', e.raw_entry FROM entries e JOIN memories m ON m.mkey = e.mkey "
                          "WHERE m.memory_id = ? UNION ALL SELECT c.creation_time, 'context', c.content FROM contexts c "
                          "JOIN memories m ON m.mkey = c.mkey WHERE m.memory_id = ?", (memory_id, memory_id)).fetchall()
    finally:
        db.close()
    return [(kind, TIMESTAMP.sub("<time>", text)) for _, kind, text in sorted(rows)]


def test_a_batched_replay_writes_exactly_what_one_by_one_does(agent_run: Path, tmp_path: Path) -> None:
    one, batched = (asyncio.run(execute_replay(agent_run, _config(tmp_path, name, SAMPLE, size, run="limit = 3\n",
                                                                       embedder="none"))).run_dir
                    for name, size in (("one", 0), ("batched", BATCH)))
    assert_same_memories(one, batched, "replay")
    memories_one, memories_batched = ingested(one), ingested(batched)
    for case, memory_id in memories_one.items():
        timeline = _timeline(one, memory_id)
        assert _timeline(batched, memories_batched[case]) == timeline and "context" in dict(timeline), case
    for run_dir in (one, batched):
        manifest = json.loads((run_dir / "manifest.json").read_text())
        assert manifest["replay"]["decisions_replayed"] == len(_writes(agent_run, "agent")) + len(
            [d for d in read_jsonl(agent_run / "decisions.jsonl") if d["tool"] == "put_context" and d["caller"] == "agent"
             and d["error"] is None])
