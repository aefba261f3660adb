"""Issue 45's durability promise for batched writes: a retrieval run killed with SIGKILL mid-ingestion
(writes going out `write_batch` at a time through add_entries) loses nothing the server acknowledged,
and the same command then leaves every case ingested exactly once, the finished ones not again."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.e2e.cli import run_cli
from tests.e2e.test_resume import _lines, _per_case, _start

pytestmark = pytest.mark.slow

CONFIG = """
run_id = "killed"
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 40
[memory]
embedder = "none"
alpha = 0.0
write_batch = 5
[run]
mode = "retrieval"
output_dir = "{out}"
progress = false
concurrency = 2
"""


def _stored(run_dir: Path) -> dict[str, list[tuple[str, int]]]:
    """memory_id -> (session_id, turn_index) of its entries in memory.sqlite, in write order."""
    db = sqlite3.connect(f"file:{run_dir / 'memory.sqlite'}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT m.memory_id, e.tags FROM entries e JOIN memories m ON m.mkey = e.mkey ORDER BY e.seq")
        out: dict[str, list[tuple[str, int]]] = {}
        for memory_id, tags in rows:
            tag = json.loads(tags)
            out.setdefault(memory_id, []).append((tag["session_id"], tag["turn_index"]))
        return out
    finally:
        db.close()


def _acknowledged(run_dir: Path) -> list[tuple[str, str, int]]:
    """(memory_id, session_id, turn_index) of every add_entry the run logged as answered without error."""
    return [(d["args"]["memory_id"], d["args"]["tags"]["session_id"], d["args"]["tags"]["turn_index"])
            for d in _lines(run_dir / "decisions.jsonl")
            if d["tool"] == "add_entry" and d["caller"] == "retrieval" and d.get("error") is None]


def test_sigkill_mid_batched_ingestion_loses_no_acknowledged_write_and_resumes_once(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    cfg = tmp_path / "run.toml"
    cfg.write_text(CONFIG.format(out=out), encoding="utf-8")
    run_dir = out / "killed"

    proc = _start(cfg, tmp_path)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:  # kill once a case is ingested and another is part-way, in batches
        mems = _lines(run_dir / "memories.jsonl")
        ingested = [m for m in mems if m["status"] == "ingested"]
        if ingested and len([m for m in mems if m["status"] == "created"]) > len(ingested):
            batched = [d for d in _lines(run_dir / "decisions.jsonl") if d.get("batch")]
            if len(batched) > sum(m["entries"] for m in ingested) + 10:
                break
        if proc.poll() is not None:
            pytest.fail(f"run ended before it could be killed: {proc.stderr.read().decode()[-2000:]}")
        time.sleep(0.02)
    else:
        pytest.fail("run never reached mid-ingestion")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)

    acknowledged = _acknowledged(run_dir)
    assert acknowledged and max(Counter(acknowledged).values()) == 1
    stored = _stored(run_dir)
    lost = [w for w in acknowledged if (w[1], w[2]) not in set(stored.get(w[0], []))]
    assert not lost, f"{len(lost)} acknowledged writes are not in memory.sqlite, e.g. {lost[:3]}"
    finished = {m["case_id"] for m in _lines(run_dir / "memories.jsonl") if m["status"] == "ingested"}
    memories_before = _per_case(_lines(run_dir / "memories.jsonl"), finished)
    assert finished

    again = run_cli("run", str(cfg), cwd=tmp_path, timeout=600)
    assert again.returncode == 0, again.stderr[-4000:]

    dataset = json.loads((run_dir / "data" / "sample_longmemeval.json").read_text(encoding="utf-8"))
    messages = {q["question_id"]: sum(len(s) for s in q["haystack_sessions"]) for q in dataset}
    final = {m["case_id"]: m for m in _lines(run_dir / "memories.jsonl") if m["status"] == "ingested"}
    assert set(final) == set(messages)
    assert _per_case(_lines(run_dir / "memories.jsonl"), finished) == memories_before  # not ingested again
    stored = _stored(run_dir)
    for case_id, memory in final.items():
        keys = stored.get(memory["memory_id"], [])
        assert len(keys) == len(set(keys)) == messages[case_id] == memory["entries"] == memory["stored"], case_id
    assert not [w for w in acknowledged if (w[1], w[2]) not in set(stored.get(w[0], []))]  # still there after resume
