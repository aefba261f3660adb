"""Issue 42 survivors: which labels files `calibrate` treats as development files (a fit, never a calibration).

The grader's four shared labels files are known by their content, whatever path names them; a file marked with a
relative `--development` path is the same file as its absolute `--labels` path (one file, marked, read once)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarker.verbs.calibrate import with_development
from benchmarker.scoring.calibration.development import development_notes
from benchmarker.scoring.calibration.labels import file_names
from benchmarker.scoring.judges import judge_class
from tests.verbs.calibrate.test_calibrate import JUDGE_DATA, setup

SHARED_LABELS = sorted(JUDGE_DATA.glob("*.eval-results-*.jsonl"))


def _developed(label_files: list[Path], marked: list[Path], developed_on) -> dict[str, str]:
    """What `calibrate --labels ... --development ...` marks: the files it reads, then their development notes."""
    files = with_development(label_files, marked)
    return development_notes(files, file_names(files), marked=marked, developed_on=developed_on)


@pytest.mark.skipif(len(SHARED_LABELS) != 4, reason="../shared/data/judge absent")
def test_the_graders_shared_labels_are_development_files_under_any_name(tmp_path):
    grader = judge_class("deterministic").developed_on
    copies = []
    for i, original in enumerate(SHARED_LABELS):
        copies.append(tmp_path / f"renamed-{i}.jsonl")
        shutil.copyfile(original, copies[-1])
    assert set(_developed(copies, [], grader)) == {p.name for p in copies}
    assert set(_developed(SHARED_LABELS, [], grader)) == {p.name for p in SHARED_LABELS}
    # a file carrying a shared file's name but other answers is held out: the content decides, not the name
    impostor = tmp_path / "impostor" / SHARED_LABELS[0].name
    impostor.parent.mkdir()
    impostor.write_text(SHARED_LABELS[0].read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    assert _developed([impostor], [], grader) == {}


def test_a_relative_development_path_marks_the_same_absolute_labels_file(tmp_path, monkeypatch):
    _, first, second = setup(tmp_path)
    monkeypatch.chdir(tmp_path)
    files = with_development([first.resolve(), second.resolve()], [Path(first.name)])
    assert files == [first.resolve(), second.resolve()]  # read once, not twice under two spellings
    assert set(_developed([first.resolve(), second.resolve()], [Path(first.name)], {})) == {first.name}
    # and the other way round: relative --labels, absolute --development
    assert set(_developed([Path(first.name), Path(second.name)], [first.resolve()], {})) == {first.name}
