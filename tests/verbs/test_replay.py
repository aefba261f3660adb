"""`replay RUN_DIR CONFIG`: a finished run's recorded writes, re-applied into another memory backend.

One real offline agent run (module fixture) is the source; replays run in-process on the
embedded service with other search settings, and the memories are read back from its SQLite file.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from benchmarker.config import load_config
from benchmarker.errors import UserError
from benchmarker.log.jsonl import read_jsonl
from benchmarker.log.store import RunLog
from benchmarker.run.replay_source import ReplaySource, ReplayTarget
from benchmarker.run.runner import execute_run
from benchmarker.verbs.replay import execute_replay
from tests.e2e.cli import run_cli

SAMPLE = """
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = {sessions}
[run]
{run}output_dir = "{out}"
progress = false
concurrency = 4
"""


def write_config(path: Path, out: Path, extra: str = "", *, sessions: int = 3, run: str = "") -> Path:
    """The source's dataset; `extra` goes on top (top-level keys and other tables), `run` into [run]."""
    path.write_text(extra + SAMPLE.format(out=out, sessions=sessions, run=run), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished offline agent run: 9 questions, one memory each, alpha 0.6, top_k 10."""
    root = tmp_path_factory.mktemp("replay-source")
    cfg = write_config(root / "source.toml", root / "runs", 'run_id = "source"\n[memory]\nalpha = 0.6\n')
    outcome = asyncio.run(execute_run(load_config(cfg)))
    assert not outcome.skipped
    return outcome.run_dir


def ingested(run_dir: Path) -> dict[str, str]:
    return {case: rec.memory_id for case, rec in RunLog(run_dir).done.memories.items()
            if rec.ingested}


def stored(run_dir: Path, memory_id: str) -> list[tuple[str, str, dict]]:
    """(raw_entry, summary, tags) of a memory's entries in write order, from the embedded service's file."""
    return stored_in(run_dir / "memory.sqlite", memory_id)


def stored_in(db_path: Path | str, memory_id: str) -> list[tuple[str, str, dict]]:
    """As `stored`, from any embedded service's SQLite file."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT e.raw_entry, e.summary, e.tags FROM entries e JOIN memories m ON m.mkey = e.mkey "
                          "WHERE m.memory_id = ? ORDER BY e.seq", (memory_id,)).fetchall()
    finally:
        db.close()
    return [(raw, summary, json.loads(tags)) for raw, summary, tags in rows]


def contexts(run_dir: Path, memory_id: str) -> list[str]:
    """Every context put into a memory, in order (the placeholder of a new memory included)."""
    db = sqlite3.connect(f"file:{run_dir / 'memory.sqlite'}?mode=ro", uri=True)
    try:
        return [c for (c,) in db.execute("SELECT c.content FROM contexts c JOIN memories m ON m.mkey = c.mkey "
                                         "WHERE m.memory_id = ? ORDER BY c.seq", (memory_id,))]
    finally:
        db.close()


def without_run_id(entries: list[tuple[str, str, dict]]) -> list[tuple[str, str, dict]]:
    return [(raw, summary, {k: v for k, v in tags.items() if k != "run_id"}) for raw, summary, tags in entries]


def writes(run_dir: Path, caller: str) -> list[dict]:
    return [d for d in read_jsonl(run_dir / "decisions.jsonl")
            if d.get("caller") == caller and d["tool"] in ("add_entry", "put_context") and d.get("error") is None]


def test_replay_writes_the_same_entries_into_another_backend(source: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import benchmarker.agent.providers as providers

    real = providers.make_chat_model

    def no_agent_model(provider, model_id, *, role, **kw):
        assert role != "agent", "replay must not build the memory agent's model"
        return real(provider, model_id, role=role, **kw)

    monkeypatch.setattr(providers, "make_chat_model", no_agent_model)
    cfg = write_config(tmp_path / "bm25.toml", tmp_path / "runs", "[memory]\nalpha = 0.0\n[params]\ntop_k = 5\n")
    outcome = asyncio.run(execute_replay(source, load_config(cfg)))
    run_dir = outcome.run_dir
    assert re.fullmatch(r"bm25-replay-[0-9a-f]{8}", run_dir.name) and not outcome.skipped

    src_memories, new_memories = ingested(source), ingested(run_dir)
    assert set(new_memories) == set(src_memories) and len(src_memories) == 9
    total = 0
    for case, memory_id in src_memories.items():
        before, after = stored(source, memory_id), stored(run_dir, new_memories[case])
        assert without_run_id(after) == without_run_id(before)  # same texts, same tags, same order, same count
        assert {tags["run_id"] for _, _, tags in after} <= {run_dir.name}
        assert contexts(run_dir, new_memories[case]) == contexts(source, memory_id)  # put_context replayed too
        total += len(after)
    assert total == len([d for d in writes(source, "agent") if d["tool"] == "add_entry"]) > 0

    manifest = json.loads((run_dir / "manifest.json").read_text())
    replayed = writes(run_dir, "replay")
    assert manifest["replay"] == {
        "source_run_dir": str(source.resolve()), "source_run_id": "source",
        "source_manifest_sha256": hashlib.sha256((source / "manifest.json").read_bytes()).hexdigest(),
        "decisions_replayed": len(replayed), "cases": 9, "source_agent_model": "offline-memory-agent"}
    assert len(replayed) == len(writes(source, "agent"))
    assert not [d for d in read_jsonl(run_dir / "decisions.jsonl") if d.get("caller") == "agent"]
    assert manifest["memory"]["alpha"] == 0.0

    summary = json.loads((run_dir / "summary.json").read_text())
    assert manifest["tokens"]["roles"].get("agent", {}).get("calls", 0) == 0
    assert summary["run"]["replay"]["agent_calls"] == 0
    assert summary["cost"]["tokens"]["agent"]["input"] == summary["cost"]["tokens"]["agent"]["output"] == 0
    answers = {a["question_id"]: a for a in read_jsonl(run_dir / "answers.jsonl")}
    assert set(answers) == {a["question_id"] for a in read_jsonl(source / "answers.jsonl")}
    assert all(a["top_k"] == 5 and len(a["retrieved"]) <= 5 for a in answers.values())
    src_summary = json.loads((source / "summary.json").read_text())
    for s in (src_summary, summary):
        assert s["retrieval"]["available"] and s["retrieval"]["metrics"]["session.recall_any@5"] is not None
    assert summary["retrieval"]["metrics"]["session.recall_any@10"] is None  # above this replay's top_k


@pytest.mark.parametrize("write_batch", [0, 4], ids=["one-by-one", "batches-of-4"])
def test_a_replay_cut_off_mid_case_resumes_into_a_fresh_memory(source: Path, tmp_path: Path, write_batch: int,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # A subset of the source's questions is fine: 4 cases instead of 9.
    cfg = write_config(tmp_path / "cut.toml", tmp_path / "runs", f"[memory]\nwrite_batch = {write_batch}\n",
                       run='question_types = ["multi-session", "single-session-user"]\n')
    config = load_config(cfg)
    victim = "27cd8130"  # a single-session-user case with several writes
    original, original_many = RunLog.append, RunLog.append_many
    seen = {"n": 0}

    def count(records) -> None:
        """Die once the victim's third write is logged (with batches: the batch that holds it)."""
        before = seen["n"]
        seen["n"] += sum(1 for r in records if getattr(r, "caller", None) == "replay" and r.case_id == victim)
        if before < 3 <= seen["n"]:
            raise RuntimeError("killed mid-replay")

    def dies_on_third_write(self, record):
        original(self, record)
        count([record])

    def dies_on_the_batch_of_the_third_write(self, records):
        original_many(self, records)
        count(records)

    monkeypatch.setattr(RunLog, "append", dies_on_third_write)
    monkeypatch.setattr(RunLog, "append_many", dies_on_the_batch_of_the_third_write)
    first = asyncio.run(execute_replay(source, config))
    assert first.skipped == [victim]
    assert [(m["status"], m["attempt"]) for m in read_jsonl(first.run_dir / "memories.jsonl")
            if m["case_id"] == victim] == [("created", 1)]

    monkeypatch.setattr(RunLog, "append", original)
    monkeypatch.setattr(RunLog, "append_many", original_many)
    killed_after = seen["n"]
    assert killed_after == (3 if write_batch == 0 else 4)  # the logged writes the cut-off attempt acknowledged
    second = asyncio.run(execute_replay(source, config))
    run_dir = second.run_dir
    assert run_dir == first.run_dir and not second.skipped
    lines = [m for m in read_jsonl(run_dir / "memories.jsonl") if m["case_id"] == victim]
    assert [(m["status"], m["attempt"]) for m in lines] == [("created", 1), ("created", 2), ("ingested", 2)]
    abandoned, fresh = lines[0]["memory_id"], lines[2]["memory_id"]
    assert fresh != abandoned and len(stored(run_dir, abandoned)) <= killed_after
    source_entries = without_run_id(stored(source, ingested(source)[victim]))
    assert without_run_id(stored(run_dir, fresh)) == source_entries  # complete, and nothing written twice
    # The other cases finished in the first attempt and were not replayed again.
    per_case = {}
    for d in writes(run_dir, "replay"):
        per_case[d["case_id"]] = per_case.get(d["case_id"], 0) + 1
    expected = {}
    for d in writes(source, "agent"):
        if d["case_id"] in per_case:
            expected[d["case_id"]] = expected.get(d["case_id"], 0) + 1
    assert len(per_case) == 4
    assert {c: n for c, n in per_case.items() if c != victim} == {c: n for c, n in expected.items() if c != victim}
    assert per_case[victim] == expected[victim] + killed_after
    answered = [a["question_id"] for a in read_jsonl(run_dir / "answers.jsonl")]
    assert len(answered) == len(set(answered)) == 4
    assert [e["case_id"] for e in read_jsonl(run_dir / "errors.jsonl")] == [victim]


def copy_source(source: Path, to: Path, *, manifest=None, memories=None, decisions_tail: bytes = b"") -> Path:
    to.mkdir()
    shutil.copy(source / "manifest.json", to / "manifest.json")
    if manifest is not None:
        data = json.loads((source / "manifest.json").read_text())
        manifest(data)
        (to / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    (to / "decisions.jsonl").write_bytes((source / "decisions.jsonl").read_bytes() + decisions_tail)
    lines = list(read_jsonl(source / "memories.jsonl"))
    (to / "memories.jsonl").write_text("".join(json.dumps(m) + "\n" for m in lines if memories is None or memories(m)),
                                       encoding="utf-8")
    return to


def test_a_case_the_source_never_finished_is_skipped_with_a_reason(source: Path, tmp_path: Path) -> None:
    missing, kept = "27cd8130", "f89897b9"
    partial = copy_source(source, tmp_path / "partial",
                          memories=lambda m: not (m["case_id"] == missing and m["status"] == "ingested"))
    cfg = write_config(tmp_path / "two.toml", tmp_path / "runs", run=f'question_ids = ["{missing}", "{kept}"]\n')
    config = load_config(cfg)
    assert "no finished ingestion" in ReplaySource.load(partial, ReplayTarget.of(config)).missing_reason(missing)
    outcome = asyncio.run(execute_replay(partial, config))
    assert outcome.skipped == [missing]
    assert {m["case_id"] for m in read_jsonl(outcome.run_dir / "memories.jsonl")} == {kept}  # no memory made
    assert [a["question_id"] for a in read_jsonl(outcome.run_dir / "answers.jsonl")] == [kept]


def test_bad_sources_and_other_datasets_are_user_errors(source: Path, tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path / "ok.toml", tmp_path / "runs"))

    def error(run_dir: Path, cfg=config) -> str:
        with pytest.raises(UserError) as info:
            ReplaySource.load(run_dir, ReplayTarget.of(cfg))
        return str(info.value)

    (tmp_path / "empty").mkdir()
    assert "no manifest.json" in error(tmp_path / "empty")
    no_log = tmp_path / "no-log"
    no_log.mkdir()
    shutil.copy(source / "manifest.json", no_log / "manifest.json")
    assert "no decisions.jsonl" in error(no_log)

    def retrieval(m):
        m["config"]["config"]["run"]["mode"] = "retrieval"

    assert "retrieval mode" in error(copy_source(source, tmp_path / "retrieval", manifest=retrieval))

    other = load_config(write_config(tmp_path / "other.toml", tmp_path / "runs", sessions=4))
    message = error(source, other)
    assert "dataset differs" in message and "sha256" in message
    assert "sessions_per_question: source 3, CONFIG 4" in message

    def fewer(m):
        m["config"]["config"]["run"]["question_types"] = ["multi-session"]

    message = error(copy_source(source, tmp_path / "fewer", manifest=fewer))
    assert "selects 7 question(s) the source run did not select" in message and "question_types" in message

    # A decisions.jsonl torn at the very end by a crash still loads, with every complete write.
    torn_dir = copy_source(source, tmp_path / "torn", decisions_tail=b'{"caller": "agent", "to')
    assert ReplaySource.load(torn_dir, ReplayTarget.of(config)).decisions_replayed == len(writes(source, "agent"))


@pytest.mark.slow
def test_cli_replay_prints_source_and_replay_side_by_side(source: Path, tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "cli.toml", tmp_path / "runs", "[memory]\nembedder = \"none\"\nalpha = 0.0\n")
    proc = run_cli("replay", str(source), str(cfg), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    run_dir = next((tmp_path / "runs").iterdir())
    assert re.fullmatch(r"cli-replay-[0-9a-f]{8}", run_dir.name)
    assert f"results: {run_dir}" in proc.stdout.replace("\n", "")  # rich wraps long paths
    assert "writes replayed" in proc.stdout
    for row in ("session.recall_any@5", "session.recall_all@10", "turn.recall_any@10", "agent model calls"):
        assert re.search(rf"{re.escape(row)}\s*\S+\s+\S+\s+\S+", proc.stdout), row
    assert re.search(r"agent model calls\s*\S\s+\d+\s+\S\s+0\b", proc.stdout)
    bad = run_cli("replay", str(tmp_path), str(cfg), cwd=tmp_path)
    assert bad.returncode == 2 and "no manifest.json" in bad.stderr
