"""One process per run directory (run/run_lock.py): a second `run` (or `score`, `report`) on a run
directory another process holds exits 2 at once with one line naming the holder's PID, for the
embedded memory backend and for an outside agent; a holder killed with SIGKILL blocks nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.run.run_lock import LOCK_FILE, acquire_run_lock, hold_run_lock, run_root
from tests.agent.adapters.test_agent_runs import SAMPLE, agent_processes, lines, subprocess_config
from tests.run.test_run_inputs import _setup, _small

REPO = Path(__file__).resolve().parents[2]


def refusal(err: str, run_dir: Path, pid: int) -> None:
    """The one-line message: the directory, the holder's PID, what to do; no traceback."""
    assert err.count("\n") == 1 and err.startswith("error: the run directory "), err
    assert str(run_dir) in err and f"PID {pid}" in err and f"kill {pid}" in err and "wait for it" in err
    assert "Traceback" not in err


def test_a_run_on_a_held_run_dir_exits_2_naming_the_holder_embedded_backend(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, run_dir, cfg = _setup(tmp_path, [_small("q1")])
    run_dir.mkdir(parents=True)
    with hold_run_lock(run_dir, "run"):  # this test process is "the first run"
        assert main(["run", str(cfg)]) == 2
        refusal(capsys.readouterr().err, run_dir, os.getpid())
        assert not (run_dir / "manifest.json").exists() and not (run_dir / "memory.sqlite").exists()
    assert main(["run", str(cfg)]) == 0  # released: the same command now runs
    assert (run_dir / LOCK_FILE).read_text() == ""  # emptied on release


def test_a_run_on_a_held_run_dir_exits_2_naming_the_holder_outside_agent(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = subprocess_config(tmp_path, SAMPLE, concurrency=1)
    run_dir = tmp_path / "runs" / "agent"
    run_dir.mkdir(parents=True)
    with hold_run_lock(run_dir, "run"):
        assert main(["run", str(cfg)]) == 2
        refusal(capsys.readouterr().err, run_dir, os.getpid())
        assert not (run_dir / "manifest.json").exists() and not (tmp_path / "transcript.jsonl").exists()
    assert agent_processes(tmp_path) == []  # no agent was started


def test_score_and_report_wait_for_the_run_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, run_dir, cfg = _setup(tmp_path, [_small("q1")])
    assert main(["run", str(cfg)]) == 0
    capsys.readouterr()
    with hold_run_lock(run_dir, "run"):
        assert main(["report", str(run_dir)]) == 2
        refusal(capsys.readouterr().err, run_dir, os.getpid())
        assert main(["score", str(run_dir), str(cfg)]) == 2
        refusal(capsys.readouterr().err, run_dir, os.getpid())
    assert main(["report", str(run_dir)]) == 0


def test_a_holder_killed_with_sigkill_does_not_block_the_next_run(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _, run_dir, cfg = _setup(tmp_path, [_small("q1")])
    run_dir.mkdir(parents=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from benchmarker.run.run_lock import acquire_run_lock; "
                               f"acquire_run_lock(sys.argv[1], 'run'); print('held', flush=True); time.sleep(60)",
         str(run_dir)], stdout=subprocess.PIPE, text=True, cwd=REPO, env=os.environ | {"PYTHONPATH": str(REPO)})
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main(["run", str(cfg)]) == 2
        refusal(capsys.readouterr().err, run_dir, holder.pid)
        assert json.loads((run_dir / LOCK_FILE).read_text())["pid"] == holder.pid
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert main(["run", str(cfg)]) == 0  # the kernel released the lock: the stale PID in the file means nothing


def test_two_cli_runs_at_once_the_second_exits_2_and_a_kill_9_run_resumes(tmp_path: Path) -> None:
    """The real thing: two `mycelian-longmemeval run` processes on one outside-agent run directory."""
    flag = tmp_path / "hung-once"
    cfg = subprocess_config(tmp_path, SAMPLE, ["--mode", "hang", "--once", str(flag)], concurrency=1)
    run_dir = tmp_path / "runs" / "agent"
    cli = [sys.executable, "-m", "benchmarker.cli", "run", str(cfg)]
    env = os.environ | {"PYTHONPATH": str(REPO)}
    first = subprocess.Popen(cli, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):  # until its agent hangs on the first question: the run is mid-way
            if flag.exists() or first.poll() is not None:
                break
            time.sleep(0.05)
        assert flag.exists(), "the first run did not reach its first question"
        second = subprocess.run(cli, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
        assert second.returncode == 2, second.stderr
        refusal(second.stderr, run_dir, first.pid)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
        for pid in agent_processes(tmp_path):  # the hung agent the killed run left behind
            os.kill(pid, signal.SIGKILL)
    assert main(["run", str(cfg)]) == 0  # resume after kill -9: not refused
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "finished" and len(manifest["attempts"]) == 2
    dataset = json.loads((run_dir / "data" / "sample_longmemeval.json").read_text())
    assert len(lines(run_dir / "results.jsonl")) == len(dataset)


def test_the_lock_file_names_its_holder_and_a_sweep_point_locks_its_run(tmp_path: Path) -> None:
    lock = acquire_run_lock(tmp_path, "score")
    holder = json.loads((tmp_path / LOCK_FILE).read_text())
    assert holder["pid"] == os.getpid() and holder["verb"] == "score" and holder["host"] and holder["started_at"]
    lock.release()
    lock.release()  # idempotent
    acquire_run_lock(tmp_path, "report").release()  # free again
    assert acquire_run_lock(tmp_path / "missing", "run").fd is None  # nothing to protect yet
    point = tmp_path / "points" / "alpha=0.5_topk=5"
    point.mkdir(parents=True)
    assert run_root(point) == point  # no manifest: not a run's point
    (tmp_path / "manifest.json").write_text("{}")
    assert run_root(point) == tmp_path and run_root(tmp_path) == tmp_path
