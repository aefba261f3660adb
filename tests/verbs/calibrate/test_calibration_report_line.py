"""A run's report shows its judge's calibration when `calibrate` wrote one for that judge under the
run's output dir (`<output_dir>/calibration/<judge label>/calibration.json`), and nothing otherwise."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.outputs import write_outputs
from benchmarker.scoring.calibration.store import judge_label


def _result(qid: str, label: bool, judge: str = "deterministic", model: str | None = None) -> dict:
    return {"kind": "longmemeval", "question_id": qid, "case_id": qid, "question_type": "single-session-user",
            "question": "where?", "answer": "Paris", "hypothesis": "Paris" if label else "London", "label": label,
            "autoeval_label": {"model": model or judge, "label": label},
            "grade": {"judge": judge, "model": model, "reason": "r", "unjudged": False}}


def _run(output_dir: Path, results: list[dict]) -> Path:
    run_dir = output_dir / "my-run"
    run_dir.mkdir(parents=True)
    (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results), encoding="utf-8")
    return run_dir


def _calibration(output_dir: Path, label: str) -> Path:
    folder = output_dir / "calibration" / label
    folder.mkdir(parents=True)
    path = folder / "calibration.json"
    path.write_text(json.dumps({"n": 500, "kappa": 0.558, "kappa_ci95": [0.5, 0.61], "agreement": 0.883,
                                "labels_models": {"gpt-4o-2024-08-06": 500}}), encoding="utf-8")
    return path


def test_the_report_shows_the_calibration_of_the_judge_that_graded_the_run(tmp_path):
    run_dir = _run(tmp_path, [_result("q1", True), _result("q2", False)])
    path = _calibration(tmp_path, "deterministic")
    _calibration(tmp_path, judge_label("llm", "gpt-4o"))  # another judge's: not this run's
    summary, _ = write_outputs(run_dir, run_dir, {"run_id": "my-run", "judge": "deterministic"}, suites=SUITE_LOOKUP)
    assert summary.block("judge_calibration")["path"] == str(path) and summary.block("judge_calibration")["n"] == 500
    report = (run_dir / "report.md").read_text()
    line = next(x for x in report.splitlines() if x.startswith("- judge calibration"))
    assert "kappa 0.558" in line and "500 answers" in line and "gpt-4o-2024-08-06" in line and "88.3%" in line
    assert "judge calibration" in (run_dir / "report.html").read_text()


def test_an_llm_judged_run_finds_its_own_judge_and_no_calibration_means_no_line(tmp_path):
    run_dir = _run(tmp_path, [_result("q1", True, "llm", "gpt-4o")])
    write_outputs(run_dir, run_dir, {"run_id": "my-run", "judge": "llm"}, suites=SUITE_LOOKUP)
    assert "judge calibration" not in (run_dir / "report.md").read_text()
    _calibration(tmp_path, "llm-gpt-4o")
    summary, _ = write_outputs(run_dir, run_dir, {"run_id": "my-run", "judge": "llm"}, suites=SUITE_LOOKUP)
    assert summary.block("judge_calibration")["judge"] == "llm-gpt-4o"
    assert "- judge calibration (llm-gpt-4o)" in (run_dir / "report.md").read_text()


def test_other_thresholds_are_another_judge(tmp_path):
    run_dir = _run(tmp_path, [_result("q1", True)])
    _calibration(tmp_path, "deterministic")
    thresholds = {"preference_recall": 0.9}
    summary, _ = write_outputs(run_dir, run_dir, {"run_id": "my-run", "thresholds": thresholds}, suites=SUITE_LOOKUP)
    assert summary.block("judge_calibration") is None
