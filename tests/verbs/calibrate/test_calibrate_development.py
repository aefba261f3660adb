"""Issue 37 item 11: agreement on labels a judge was developed on is a fit, never presented as a calibration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.datasets.source import dataset_sha256
from benchmarker.scoring.calibration.development import GRADER_DEVELOPED_ON
from benchmarker.scoring.calibration.store import calibration_line, find_calibration
from tests.verbs.calibrate.test_calibrate import JUDGE_DATA, setup


def _summary(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "out" / "calibration" / "deterministic" / "calibration.json").read_text())


def test_a_development_file_is_reported_apart_and_the_calibration_is_the_held_out_one(tmp_path, capsys):
    config, first, second = setup(tmp_path)
    assert main(["calibrate", str(config), "--labels", str(second), "--development", str(first)]) == 0
    out = capsys.readouterr().out
    summary = _summary(tmp_path)
    assert summary["n"] == 6 and summary["held_out"]["n"] == 2 and summary["development_fit"]["n"] == 4
    marks = {f["file"]: f["development"] for f in summary["labels"]}
    assert marks[second.name] is None and "--development" in marks[first.name]
    assert "held out (the calibration)" in out and "development fit (not a calibration)" in out
    report = (tmp_path / "out" / "calibration" / "deterministic" / "report.md").read_text()
    assert "## Held out (the calibration)" in report and "## Development fit (not a calibration)" in report
    assert f"{first.name} (development)" in report
    # a run judged by this grader quotes the held-out figure, never the fit
    run_dir = tmp_path / "out" / "some-run"
    results = [{"grade": {"judge": "deterministic", "model": None}}]
    block = find_calibration(run_dir, results, summary["judge"]["thresholds"])
    assert block is not None and block["n"] == 2 and block.get("held_out")
    assert "2 held-out answers" in str(calibration_line(block))


def test_only_development_labels_is_a_fit_and_says_so(tmp_path, capsys):
    config, first, _ = setup(tmp_path)
    assert main(["calibrate", str(config), "--labels", str(first), "--development", str(first)]) == 0
    summary = _summary(tmp_path)
    assert summary["held_out"] is None and summary["development_fit"]["n"] == 4
    report = (tmp_path / "out" / "calibration" / "deterministic" / "report.md").read_text()
    assert "No held-out labels" in report and "not a calibration" in report
    block = find_calibration(tmp_path / "out" / "r", [{"grade": {"judge": "deterministic", "model": None}}],
                             summary["judge"]["thresholds"])
    line = str(calibration_line(block))
    assert "development fit" in line and "not a calibration" in line and "judge calibration" not in line


def test_without_development_files_nothing_changes(tmp_path, capsys):
    config, first, second = setup(tmp_path)
    assert main(["calibrate", str(config), "--labels", str(first), "--labels", str(second)]) == 0
    summary = _summary(tmp_path)
    assert summary["development_fit"] is None and summary["held_out"]["n"] == summary["n"] == 6
    assert "Development fit" not in (tmp_path / "out" / "calibration" / "deterministic" / "report.md").read_text()


@pytest.mark.skipif(not JUDGE_DATA.is_dir(), reason="../shared/data/judge absent")
def test_the_grader_knows_the_shared_labels_it_was_developed_on():
    shared = sorted(JUDGE_DATA.glob("*.eval-results-*.jsonl"))
    assert shared and all(dataset_sha256(p) in GRADER_DEVELOPED_ON for p in shared)
