"""A run killed with SIGKILL mid-ingestion, then re-run, ends with every question answered once,
no duplicate entries in any memory, and the cases the killed run finished not ingested again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarker.memory.client import MemoryClient
from embedded_memory.launcher import EmbeddedMemoryService
from embedded_memory.settings import ServiceSettings
from tests.e2e.cli import run_cli

pytestmark = pytest.mark.slow

CONFIG = """
run_id = "resume"
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 5
[memory]
embedder = "static"
[run]
output_dir = "{out}"
progress = false
"""


def _lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(l) for l in path.read_text(encoding="utf-8").splitlines() if l.strip().endswith("}")]


def _as_a_foreground_job() -> None:
    """Ctrl-C reaches a run started from a terminal. A job a non-interactive shell starts in the
    background (`cmd &`, as CI and tool runners launch the suite) inherits SIGINT ignored, Python then
    installs no KeyboardInterrupt handler, and the SIGINT this test sends would be dropped: the run
    would finish with exit 0. Restore the terminal's default before the run's Python starts (and unblock
    it: a blocked signal mask is inherited too, and the signal would wait, pending, until the run ended)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _start(cfg: Path, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "benchmarker.cli", "run", str(cfg)], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=_as_a_foreground_job)


def _per_case(memories: list[dict], cases: set[str]) -> dict[str, list[tuple[int, str]]]:
    """(attempt, status) of every memories.jsonl record of each case, in file order."""
    out: dict[str, list[tuple[int, str]]] = {case: [] for case in cases}
    for m in memories:
        if m["case_id"] in cases:
            out[m["case_id"]].append((m["attempt"], m["status"]))
    return out


def _adds(run_dir: Path, cases: set[str]) -> dict[str, int]:
    """The memory agent's add_entry calls per case (decisions.jsonl)."""
    out = dict.fromkeys(cases, 0)
    for d in _lines(run_dir / "decisions.jsonl"):
        if d["case_id"] in cases and d["tool"] == "add_entry" and d["caller"] == "agent" and not d.get("error"):
            out[d["case_id"]] += 1
    return out


async def test_sigkill_mid_ingestion_then_resume(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    cfg = tmp_path / "run.toml"
    cfg.write_text(CONFIG.format(out=out), encoding="utf-8")
    run_dir = out / "resume"

    proc = _start(cfg, tmp_path)
    deadline = time.monotonic() + 300
    # Kill once the first question is ingested and the second is half-way through ingestion.
    while time.monotonic() < deadline:
        mems = _lines(run_dir / "memories.jsonl")
        ingested = [m for m in mems if m["status"] == "ingested"]
        created = [m for m in mems if m["status"] == "created"]
        if ingested and len(created) > len(ingested):
            adds = [d for d in _lines(run_dir / "decisions.jsonl") if d["tool"] == "add_entry"]
            if len(adds) > sum(m["entries"] for m in ingested) + 3:
                break
        if proc.poll() is not None:
            pytest.fail(f"run ended before it could be killed: {proc.stderr.read().decode()[-2000:]}")
        time.sleep(0.05)
    else:
        pytest.fail("run never reached mid-ingestion")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    # What the killed run finished: these cases must not be ingested again (the README's promise).
    finished = {m["case_id"] for m in _lines(run_dir / "memories.jsonl") if m["status"] == "ingested"}
    memories_before = _per_case(_lines(run_dir / "memories.jsonl"), finished)
    adds_before = _adds(run_dir, finished)

    second = run_cli("run", str(cfg), cwd=tmp_path, timeout=600)
    assert second.returncode == 0, second.stderr[-4000:]

    dataset = json.loads((run_dir / "data" / "sample_longmemeval.json").read_text(encoding="utf-8"))
    ids = [q["question_id"] for q in dataset]
    results = _lines(run_dir / "results.jsonl")
    assert sorted(r["question_id"] for r in results) == sorted(ids)  # every question once
    answers = _lines(run_dir / "answers.jsonl")
    assert len(answers) == len(ids)

    # Finished questions are not redone: no second memory, no add_entry of the second run for them.
    assert finished and _per_case(_lines(run_dir / "memories.jsonl"), finished) == memories_before
    assert all(statuses == [(1, "created"), (1, "ingested")] for statuses in memories_before.values())
    assert _adds(run_dir, finished) == adds_before
    messages_of = {q["question_id"]: sum(len(s) for s in q["haystack_sessions"]) for q in dataset}
    assert adds_before == {case: messages_of[case] for case in finished}  # each message written once, in run 1

    final = {}
    for m in _lines(run_dir / "memories.jsonl"):
        if m["status"] == "ingested":
            final[m["case_id"]] = m
    assert set(final) == set(ids)
    messages = {q["question_id"]: sum(len(s) for s in q["haystack_sessions"]) for q in dataset}
    settings = ServiceSettings(host="127.0.0.1", port=0, db_path=str(run_dir / "memory.sqlite"),
                               alpha=0.0, embedder="none")
    async with EmbeddedMemoryService(settings) as service:
        async with MemoryClient.connect(service.mcp_url, headers=service.auth_headers) as client:
            for case_id, mem in final.items():
                entries = await client.list_all_entries(mem["vault_id"], mem["memory_id"])
                keys = [(e["tags"]["session_id"], e["tags"]["turn_index"]) for e in entries]
                assert len(keys) == len(set(keys)), f"duplicate entries in {case_id}"
                assert len(keys) == messages[case_id]


def test_ctrl_c_stops_cleanly_and_the_same_command_resumes(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    cfg = tmp_path / "run.toml"
    cfg.write_text(CONFIG.format(out=out).replace('run_id = "resume"', 'run_id = "ctrlc"'), encoding="utf-8")
    run_dir = out / "ctrlc"
    proc = _start(cfg, tmp_path)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not any(d["tool"] == "add_entry" for d in _lines(run_dir / "decisions.jsonl")):
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        time.sleep(0.05)
    # Still running, or the signal would reach nothing and the run's own exit 0 would read as a lost Ctrl-C.
    assert proc.poll() is None, f"the run ended before Ctrl-C: exit {proc.returncode}"
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal sends it: to the run's whole process group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err.decode()[-3000:]
    assert "run the same command again to resume" in err.decode()
    assert json.loads((run_dir / "manifest.json").read_text())["status"] == "interrupted"
    service = subprocess.run(["pgrep", "-f", str(run_dir / "memory.sqlite")], capture_output=True, text=True)
    assert service.stdout.strip() == ""  # the embedded service went down with the run

    again = run_cli("run", str(cfg), cwd=tmp_path, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "finished" and len(manifest["attempts"]) == 2
