"""Re-running a finished run says it was already complete and how to start fresh, instead of printing
a `done` line per question as if it had just run them (issue 37 item 8). In-process: the runner is faked."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from benchmarker.commands import command_named
from benchmarker.commands.run import finished_questions
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.run.runner import RunOutcome


def _finished(answers_dir: Path, ids: list[str], *, status: str = "finished", total: int = 2) -> None:
    answers_dir.mkdir(parents=True, exist_ok=True)
    (answers_dir / "results.jsonl").write_text("".join(json.dumps({"question_id": q, "label": True}) + "\n"
                                                       for q in ids), encoding="utf-8")
    manifest = {"status": status, "dataset": {"questions": total}}
    if not (answers_dir / "manifest.json").exists():
        (answers_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def test_finished_questions_only_when_every_question_of_every_point_has_a_result(tmp_path):
    _finished(tmp_path / "a", ["q1", "q2"])
    assert finished_questions(tmp_path / "a", [""]) == 2
    _finished(tmp_path / "b", ["q1"])
    assert finished_questions(tmp_path / "b", [""]) is None  # one question left to run
    _finished(tmp_path / "c", ["q1", "q2"], status="interrupted")
    assert finished_questions(tmp_path / "c", [""]) is None
    assert finished_questions(tmp_path / "none", [""]) is None  # never run
    sweep = tmp_path / "sweep"
    _finished(sweep, [])
    _finished(sweep / "points" / "alpha=0.5_topk=5", ["q1", "q2"])
    assert finished_questions(sweep, ["alpha=0.5_topk=5"]) == 2
    assert finished_questions(sweep, ["alpha=0.5_topk=5", "alpha=0.5_topk=10"]) is None  # a point not run yet


@pytest.mark.parametrize("complete", [True, False])
def test_a_rerun_of_a_finished_run_says_so_and_prints_no_progress_lines(tmp_path, monkeypatch, capsys, complete):
    config_path = tmp_path / "run.toml"
    config_path.write_text(f'run_id = "done-run"\n[dataset]\nkind = "sample"\n[run]\noutput_dir = "{tmp_path / "runs"}"\n',
                           encoding="utf-8")
    run_dir = tmp_path / "runs" / "done-run"
    _finished(run_dir, ["q1", "q2"] if complete else ["q1"])
    seen: dict[str, bool] = {}

    async def fake_execute_run(config, **_: object) -> RunOutcome:
        seen["progress"] = config.run.progress
        return RunOutcome(run_dir, RunSummary(), [])

    monkeypatch.setattr("benchmarker.run.runner.execute_run", fake_execute_run)
    assert command_named("run").run(argparse.Namespace(config=config_path)) == 0
    out = capsys.readouterr().out
    if complete:
        assert seen["progress"] is False  # the per-question `done` lines are the progress lines
        assert "already complete: 2 of 2 questions answered and judged; nothing to do" in out
        assert f"remove {run_dir}" in out and "run_id" in out
    else:
        assert seen["progress"] is True and "already complete" not in out
