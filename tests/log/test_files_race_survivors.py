"""Issue 42 survivors: what protects a run directory's files when something is planted between the check and
the write. The pre-check (`safe_open.check_regular`) only gives the early, clear refusal; the open itself
(O_NOFOLLOW, and O_EXCL for a temporary) is what refuses a link planted after it, and a link or FIFO planted at a
temporary's name is refused and left where it is, never deleted."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from benchmarker.log import safe_open
from benchmarker.log.jsonl import JsonlWriter, write_text_atomic
from benchmarker.log.safe_open import UnsafePathError
from benchmarker.run.run_lock import acquire_run_lock
from tests.log.test_symlink_writes import SECRET, run_dir, victim

__all__ = ["run_dir", "victim"]  # fixtures used by name


def _append(path: Path) -> None:
    writer = JsonlWriter(path)
    writer.write({"question_id": "q1"})
    writer.close()


@pytest.mark.parametrize(("name", "write"), [("results.jsonl", _append),
                                             (".lock", lambda path: acquire_run_lock(path.parent, "run").release())])
def test_a_link_the_pre_check_missed_is_refused_by_the_open_itself(run_dir, victim, monkeypatch, name, write):
    monkeypatch.setattr(safe_open, "check_regular", lambda *args, **kwargs: None)  # as if planted just after it
    (run_dir / name).symlink_to(victim)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        write(run_dir / name)
    assert victim.read_text(encoding="utf-8") == SECRET


def _plant_after_the_check(monkeypatch, at: Path, plant: Callable[[Path], None]) -> None:
    """Let the real pre-check pass, then plant at `at` (the race the open must win)."""
    real = safe_open.check_regular
    planted: list[bool] = []

    def check_then_plant(path, *, dir_fd=None) -> None:
        real(path, dir_fd=dir_fd)
        if not planted and os.path.basename(os.fspath(path)) == at.name:
            planted.append(True)
            plant(at)

    monkeypatch.setattr(safe_open, "check_regular", check_then_plant)


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_a_link_or_fifo_planted_at_a_temporarys_name_is_refused_not_deleted(run_dir, victim, monkeypatch, kind):
    tmp = run_dir / "report.md.tmp"
    _plant_after_the_check(monkeypatch, tmp, (lambda p: p.symlink_to(victim)) if kind == "link" else os.mkfifo)
    with pytest.raises(UnsafePathError):
        write_text_atomic(run_dir / "report.md", "# report\n")
    assert os.path.lexists(tmp) and (tmp.is_symlink() if kind == "link" else tmp.is_fifo())
    assert not (run_dir / "report.md").exists() and victim.read_text(encoding="utf-8") == SECRET
