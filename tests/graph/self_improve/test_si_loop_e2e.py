"""The self-improve loop end to end through the CLI, offline: from a poor configuration (top_k = 1,
retrieval-only) it finds a better one on the held-out split; interrupted mid-loop, a re-run resumes
from the LangGraph checkpoint without redoing or re-logging finished phases.

The interruption uses the loop's test hook (MYCELIAN_LME_SELF_IMPROVE_FAIL_AT=<node>:<iteration>,
see benchmarker/graph/self_improve/graph.py): deterministic, unlike a SIGKILL timed from outside.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarker.graph.self_improve.graph import FAIL_AT_ENV, build_loop_graph

pytestmark = pytest.mark.slow

CONFIG = """
run_id = "si"
[dataset]
kind = "sample"
questions_per_type = 5
sessions_per_question = 4
[params]
top_k = 1
[memory]
embedder = "static"
[self_improve]
iterations = 4
holdout_fraction = 0.5
seed = 7
[run]
mode = "retrieval"
output_dir = "{out}"
progress = false
concurrency = 4
"""


def _run(cfg: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "benchmarker.cli", "run", str(cfg)], cwd=cwd,
                          env=dict(os.environ, PYTHONUNBUFFERED="1", **env), capture_output=True, text=True,
                          timeout=300)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


async def _pending_phases(run_dir: Path) -> tuple[str, ...]:
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    async with AsyncSqliteSaver.from_conn_string(str(run_dir / "self_improve" / "checkpoints.sqlite")) as saver:
        snapshot = await build_loop_graph(checkpointer=saver).aget_state({"configurable": {"thread_id": "si"}})
    return tuple(snapshot.next)


async def test_loop_improves_held_out_score_and_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text(CONFIG.format(out=tmp_path / "runs"), encoding="utf-8")
    run_dir = tmp_path / "runs" / "si"

    first = _run(cfg, tmp_path, **{FAIL_AT_ENV: "re_eval:2"})
    assert first.returncode != 0, first.stdout[-2000:]
    assert "test hook" in first.stderr
    assert [line["iteration"] for line in _lines(run_dir / "self_improve.jsonl")] == [1]
    assert await _pending_phases(run_dir) == ("re_eval",)  # stopped exactly there
    applied = run_dir / "self_improve" / "candidates" / "2" / "tunables.json"
    applied_at = applied.stat().st_mtime_ns
    memories = (run_dir / "memories.jsonl").read_text(encoding="utf-8")

    second = _run(cfg, tmp_path)
    assert second.returncode == 0, second.stderr[-4000:]
    log = _lines(run_dir / "self_improve.jsonl")
    assert [line["iteration"] for line in log] == [1, 2, 3, 4]  # continued; nothing logged twice
    assert applied.stat().st_mtime_ns == applied_at  # APPLY of iteration 2 was not redone
    assert (run_dir / "memories.jsonl").read_text(encoding="utf-8") == memories  # nothing re-ingested
    assert await _pending_phases(run_dir) == ()

    decisions = [line["decision"] for line in log]
    assert "accepted" in decisions
    assert any(line["decision"] == "reverted" and line["stage"] == "re_eval" for line in log)
    start, best = log[0]["start"], log[-1]["best"]
    assert start["tunables"]["top_k"] == 1
    assert best["holdout"]["score"] > start["holdout"]["score"], (start, best)
    assert best["tunables"]["top_k"] > 1
    last_accepted = [line for line in log if line["decision"] == "accepted"][-1]
    assert best["index"] == last_accepted["candidate"]["index"]  # the best so far is the one in force
    for line in log:
        if line["stage"] == "re_eval":
            assert line["votes"] and line["challenge"]["critique"] and line["stats"]["n"] == start["holdout"]["n"]

    # every evaluation asked each question once, even the one interrupted and resumed
    for answers in (run_dir / "self_improve" / "evals").glob("*/answers.jsonl"):
        ids = [line["question_id"] for line in _lines(answers)]
        assert len(ids) == len(set(ids))
    best_json = json.loads((run_dir / "self_improve" / "best.json").read_text(encoding="utf-8"))
    assert best_json["tunables"] == best["tunables"] and "top_k" in best_json["toml"]

    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["self_improve"]["accepted"] >= 1 and summary["self_improve"]["reverted"] >= 1
    report = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "## Self-improve loop" in report and "**accepted**" in report and "**reverted**" in report
    print(f"\nheld-out {start['holdout']['score']} -> {best['holdout']['score']} (n={start['holdout']['n']}); "
          f"{decisions}; best {best['tunables']}")
