"""Run ids are predictable, so a shared output folder can be seeded before a run: every file the harness
creates or replaces in a run directory refuses a symlink or a non-regular file with one line naming it
(exit 2), and what a planted link points to is never touched."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.log.jsonl import JsonlWriter, write_json_atomic, write_text_atomic
from benchmarker.log.safe_open import UnsafePathError
from benchmarker.run.run_lock import acquire_run_lock
from benchmarker.run.runner import check_writable

SECRET = "the victim's own data\n"


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_text(SECRET, encoding="utf-8")
    return path


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    path = tmp_path / "runs" / "seeded"
    path.mkdir(parents=True)
    return path


def test_report_refuses_a_planted_lock_link_and_leaves_the_victim_alone(run_dir, victim, capsys):
    (run_dir / ".lock").symlink_to(victim)
    assert main(["report", str(run_dir)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(run_dir / ".lock") in err[0] and "symbolic link" in err[0]
    assert victim.read_text(encoding="utf-8") == SECRET
    with pytest.raises(UnsafePathError):
        acquire_run_lock(run_dir, "run")
    assert victim.read_text(encoding="utf-8") == SECRET


@pytest.mark.parametrize("name", ["summary.json", "summary.json.tmp"])
def test_an_atomic_write_refuses_a_link_at_the_file_or_at_its_temporary(run_dir, victim, name):
    (run_dir / name).symlink_to(victim)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        write_json_atomic(run_dir / "summary.json", {"accuracy": 1.0})
    assert victim.read_text(encoding="utf-8") == SECRET


def test_a_crashed_writers_temporary_is_replaced(run_dir):
    (run_dir / "report.md.tmp").write_text("half a report", encoding="utf-8")
    write_text_atomic(run_dir / "report.md", "# whole\n")
    assert (run_dir / "report.md").read_text(encoding="utf-8") == "# whole\n"
    assert not (run_dir / "report.md.tmp").exists()


def test_an_appender_refuses_a_link_and_a_fifo_without_hanging(run_dir, victim):
    (run_dir / "results.jsonl").symlink_to(victim)
    with pytest.raises(UnsafePathError, match="results.jsonl is a symbolic link"):
        JsonlWriter(run_dir / "results.jsonl")
    assert victim.read_text(encoding="utf-8") == SECRET
    os.mkfifo(run_dir / "answers.jsonl")
    outcome: list[BaseException] = []
    worker = threading.Thread(target=lambda: _catch(outcome, lambda: JsonlWriter(run_dir / "answers.jsonl")))
    worker.start()
    worker.join(10)
    assert not worker.is_alive() and isinstance(outcome[0], UnsafePathError) and "not a regular file" in str(outcome[0])


def test_the_write_probe_has_a_name_of_its_own_and_leaves_nothing(run_dir):
    check_writable(run_dir, config_path=None)
    assert sorted(p.name for p in run_dir.iterdir()) == []


def _catch(outcome: list[BaseException], call) -> None:
    try:
        call()
    except BaseException as err:  # the test asserts which
        outcome.append(err)
