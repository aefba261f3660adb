"""A run directory whose `plots/`, `official/`, `oracle/`, `scores/`, `baselines/` or `data/` is a link to
another folder (issue 42, item 1): every verb that writes refuses it with one line naming the link (exit 2),
and nothing in the folder it points to is created, written or appended to. The folders are opened one at a
time with O_NOFOLLOW (log/confined.py), so a link planted between a check and the write is refused too."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.log import confined, jsonl, safe_open
from benchmarker.log.confined import confined_to, make_folders
from benchmarker.log.jsonl import JsonlWriter, write_json_atomic, write_text_atomic
from benchmarker.log.safe_open import UnsafePathError
from benchmarker.run.run_lock import acquire_run_lock
from tests.run.test_damaged_run_dirs import finished, run  # a copied offline run, its config beside it
from tests.scoring.synthetic_run import small_run, write_run

KEEP = "the other folder's own file\n"


@pytest.fixture
def other(tmp_path: Path) -> Path:
    """The folder a planted link points to; what it holds must never change."""
    folder = tmp_path / "other"
    folder.mkdir()
    (folder / "keep.txt").write_text(KEEP, encoding="utf-8")
    return folder


def untouched(folder: Path) -> bool:
    return [p.name for p in folder.iterdir()] == ["keep.txt"] and (folder / "keep.txt").read_text(encoding="utf-8") == KEEP


def plant(run_dir: Path, sub: str, other: Path) -> Path:
    link = run_dir / sub
    if link.is_dir() and not link.is_symlink():
        shutil.rmtree(link)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(other, target_is_directory=True)
    return link


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    # a resumed run says what it found first ("resuming: N of M questions already done"); the refusal is one line
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("resuming: ")]
    assert len(lines) == 1, err
    return lines[0]


# -- the writers, while a run directory is held ---------------------------------------------------------

@pytest.mark.parametrize("write", [
    lambda path: write_text_atomic(path, "# report\n"),
    lambda path: write_json_atomic(path, {"accuracy": 1.0}),
    lambda path: JsonlWriter(path).write({"question_id": "q1"}),
])
@pytest.mark.parametrize("sub", ["plots", "scores/llm", "points/top_k=5/scores"])
def test_every_writer_refuses_a_link_at_any_level_below_a_held_run_directory(tmp_path, other, write, sub):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    link = plant(run_dir, sub, other)
    lock = acquire_run_lock(run_dir, "report")
    try:
        with pytest.raises(UnsafePathError) as refused:
            write(run_dir / sub / "deeper" / "file.json")
    finally:
        lock.release()
    assert f"{link} is a symbolic link" in str(refused.value)
    assert untouched(other)


def test_a_folder_made_below_a_held_run_directory_is_never_made_through_a_link(tmp_path, other):
    run_dir = tmp_path / "run"
    plant(run_dir, "baselines", other)
    with confined_to(run_dir), pytest.raises(UnsafePathError, match="baselines is a symbolic link"):
        make_folders(run_dir / "baselines" / "no_memory")
    assert untouched(other)


def test_the_run_directory_itself_and_paths_outside_any_held_one_may_be_links(tmp_path, other):
    """The folder the user names is theirs to link; only what lies below a held run directory is checked."""
    (tmp_path / "linked-run").symlink_to(other, target_is_directory=True)
    with confined_to(tmp_path / "linked-run"):
        write_text_atomic(tmp_path / "linked-run" / "plots" / "a.md", "a\n")
    write_text_atomic(tmp_path / "linked-run" / "b.md", "b\n")   # held by nobody: as before issue 42
    assert (other / "plots" / "a.md").read_text(encoding="utf-8") == "a\n"
    assert (other / "b.md").read_text(encoding="utf-8") == "b\n"


def test_releasing_the_lock_ends_the_confinement(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    acquire_run_lock(run_dir, "report").release()
    assert confined.root_of(run_dir / "plots" / "a.png") is None


def test_a_link_planted_after_the_folder_is_made_and_with_every_pre_check_skipped_is_refused(
        tmp_path, other, monkeypatch):
    """The race: the writer makes `plots/`, then the attacker swaps it for a link before it is opened. With
    the last-component checks disabled, only the O_NOFOLLOW open of each folder stands in the way."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    skip = lambda *args, **kw: None  # noqa: E731
    monkeypatch.setattr(jsonl, "check_regular", skip)
    monkeypatch.setattr(safe_open, "check_regular", skip)
    real_mkdir = os.mkdir

    def mkdir_then_swap(name, mode=0o777, *, dir_fd=None):
        real_mkdir(name, mode, dir_fd=dir_fd)
        if name == "plots":
            os.rmdir(name, dir_fd=dir_fd)
            os.symlink(other, name, dir_fd=dir_fd)

    monkeypatch.setattr(os, "mkdir", mkdir_then_swap)
    with confined_to(run_dir), pytest.raises(UnsafePathError, match="plots is a symbolic link"):
        write_text_atomic(run_dir / "plots" / "accuracy_by_type.png", "png")
    assert (run_dir / "plots").is_symlink() and untouched(other)


# -- report: a run built by hand, no services -----------------------------------------------------------

@pytest.fixture
def reported(tmp_path: Path) -> Path:
    run_dir = write_run(tmp_path / "run", small_run(), run_id="run")
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    manifest.update({"started_at": "2024-01-01T10:00:00+00:00", "models": {"offline": True},
                     "dataset": {"kind": "longmemeval"}, "judge": {"kind": "llm"}})
    (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert main(["report", str(run_dir)]) == 0
    return run_dir


@pytest.mark.parametrize("sub", ["plots", "official"])
def test_report_refuses_a_linked_subfolder_and_leaves_the_other_folder_alone(reported, other, sub, capsys):
    capsys.readouterr()
    link = plant(reported, sub, other)
    assert main(["report", str(reported)]) == 2
    line = one_error_line(capsys)
    assert line.startswith("error: ") and f"{link} is a symbolic link" in line and "remove it" in line
    assert untouched(other)


# -- run, oracle, score, baselines: one real offline run (module fixture), copied per test --------------

__all__ = ["finished", "run"]  # fixtures used by name (tests/run/test_damaged_run_dirs.py)

@pytest.mark.slow
@pytest.mark.xdist_group("directory_links")
@pytest.mark.parametrize(("verb", "sub"), [
    ("oracle", "oracle"), ("score", "scores"), ("score", "scores/deterministic"), ("baselines", "baselines"),
    ("baselines", "baselines/no_memory"), ("run", "data"), ("run", "plots"),
])
def test_each_writing_verb_refuses_a_linked_subfolder(run, other, verb, sub, capsys):
    link = plant(run, sub, other)
    config = str(run.parent / "source.toml")
    argv = {"oracle": ["oracle", str(run)], "score": ["score", str(run), config],
            "baselines": ["baselines", str(run), "--only", "no_memory"], "run": ["run", config]}[verb]
    capsys.readouterr()
    assert main(argv) == 2
    line = one_error_line(capsys)
    assert f"{link} is a symbolic link" in line
    assert untouched(other)


@pytest.mark.slow
@pytest.mark.xdist_group("directory_links")
def test_a_resumed_run_whose_results_file_is_a_link_stops_in_one_line(run, tmp_path, capsys):
    """A link planted at results.jsonl fails the write inside a case: that is the run directory's fault, not the
    case's, so the run stops with the one line (exit 2) instead of failing every case and finishing INVALID."""
    victim = tmp_path / "victim.txt"
    victim.write_text("the victim's own line\n", encoding="utf-8")
    (run / "results.jsonl").unlink()
    (run / "results.jsonl").symlink_to(victim)
    capsys.readouterr()
    assert main(["run", str(run.parent / "source.toml")]) == 2
    assert f"{run / 'results.jsonl'} is a symbolic link" in one_error_line(capsys)
    assert victim.read_text(encoding="utf-8") == "the victim's own line\n"

