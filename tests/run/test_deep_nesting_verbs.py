"""`report`, `compare`, `oracle` and `score` on a run file nested 100,000 deep (issue 42, item 3): exit 2 and
one line naming the file (and the line of a JSONL file), never a RecursionError traceback. One real offline
run (module fixture) is copied and damaged per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarker.cli import main
from tests.run.test_damaged_run_dirs import finished, one_error_line, run  # a copied run, its config beside it

__all__ = ["finished", "run"]  # fixtures used by name
pytestmark = pytest.mark.xdist_group("deep_nesting_verbs")  # one worker builds the module fixture once

DEEP = "[" * 100_000 + "]" * 100_000
TOO_DEEP = "not valid JSON (nested deeper than 100 levels)"


def deep_first_line(path: Path) -> None:
    """Put a 100,000-deep line before the file's first record (line 1; the others follow whole)."""
    path.write_text(DEEP + "\n" + path.read_text(encoding="utf-8"), encoding="utf-8")


@pytest.mark.parametrize("name", ["manifest.json", "results.jsonl"])
def test_report(run, capsys, name):
    if name.endswith(".jsonl"):
        deep_first_line(run / name)
    else:
        (run / name).write_text(DEEP, encoding="utf-8")
    assert main(["report", str(run)]) == 2
    line = one_error_line(capsys)
    assert name in line and "nested deeper than 100 levels" in line


def test_compare(run, capsys, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(run, other)
    (run / "summary.json").write_text(DEEP, encoding="utf-8")
    assert main(["compare", str(run), str(other), "--out", str(tmp_path / "cmp.md")]) == 2
    line = one_error_line(capsys)
    assert "summary.json" in line and TOO_DEEP in line


def test_oracle(run, capsys):
    deep_first_line(run / "results.jsonl")
    assert main(["oracle", str(run)]) == 2
    line = one_error_line(capsys)
    assert "results.jsonl:1: " + TOO_DEEP in line


def test_oracle_manifest(run, capsys):
    (run / "manifest.json").write_text(DEEP, encoding="utf-8")
    assert main(["oracle", str(run)]) == 2
    assert "manifest.json: " + TOO_DEEP in one_error_line(capsys)


def test_score(run, capsys):
    deep_first_line(run / "answers.jsonl")
    assert main(["score", str(run), str(run.parent / "source.toml")]) == 2
    assert "answers.jsonl:1: " + TOO_DEEP in one_error_line(capsys)
