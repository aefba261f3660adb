"""A question searched against an index that was not searchable yet is not a retrieval miss: it is left
out of every metric, and summary.json, the report and the console say how many and why. A case that
failed on it (errors.jsonl, retried on resume) is counted and named the same way."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.outputs import write_outputs
from benchmarker.reporting.summary import build_summary
from benchmarker.run.console import summary_table
from tests.scoring.synthetic_run import hits_for, result, write_run

NOT_SEARCHABLE_ERROR = ("IndexNotSearchableError: case c9: memory m9's newest write was still not searchable "
                        "after [params] consistency_timeout_s = 60 s")


def run_results() -> list[dict]:
    """q1 found its evidence; q2 was searched against an empty, lagging index (no hits, judged wrong)."""
    found = result("q1", "single-session-user", True, hits=hits_for("q1", True))
    lagging = result("q2", "single-session-user", False, hits=[]) | {"index_searchable": False}
    return [found | {"index_searchable": True}, lagging]


def test_an_unsearchable_question_is_left_out_of_every_metric_with_a_count_and_a_note() -> None:
    summary = build_summary(run_results(), run_meta={"run_id": "lag"}, suites=SUITE_LOOKUP).as_dict()
    assert summary["retrieval"]["metrics"]["session.recall_any@5"] == 1.0  # not 0.5: q2 is no miss
    assert summary["retrieval"]["n"]["session@5"] == 1
    assert summary["qa"]["overall"]["n"] == 1 and summary["qa"]["overall"]["accuracy"] == 1.0
    assert summary["counts"]["questions"] == 2  # still counted as asked
    assert summary["counts"]["not_searchable"] == {"questions": 1, "question_ids": ["q2"], "cases_failed": 0,
                                                   "case_ids": []}
    (note,) = [n for n in summary["notes"] if "not searchable" in n]
    assert note.startswith("1 question(s) were searched against an index that was not searchable yet")


def test_a_case_that_failed_on_an_unsearchable_index_is_counted_until_a_retry_answers_it() -> None:
    errors = [{"case_id": "c9", "error": NOT_SEARCHABLE_ERROR},
              {"case_id": "q1", "error": NOT_SEARCHABLE_ERROR},      # failed once, answered on resume
              {"case_id": "c7", "error": "RuntimeError: something else"}]
    results = [result("q1", "single-session-user", True, hits=hits_for("q1", True))]
    summary = build_summary(results, run_meta={"errors": errors}, suites=SUITE_LOOKUP).as_dict()
    assert summary["counts"]["not_searchable"]["cases_failed"] == 1
    assert summary["counts"]["not_searchable"]["case_ids"] == ["c9"]
    (note,) = [n for n in summary["notes"] if "not searchable" in n]
    assert "1 case(s) failed" in note and "re-running the same command retries" in note.lower()
    assert "errors" not in summary["run"]  # an input, like decisions, not echoed


def test_summary_report_and_console_all_say_it(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run", run_results(), run_id="lag")
    (run_dir / "errors.jsonl").write_text(json.dumps({"case_id": "c9", "error": NOT_SEARCHABLE_ERROR}) + "\n",
                                          encoding="utf-8")
    summary, html_path = write_outputs(run_dir, run_dir, {"run_id": "lag"}, suites=SUITE_LOOKUP)
    on_disk = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert on_disk["counts"]["not_searchable"]["questions"] == 1
    assert on_disk["counts"]["not_searchable"]["case_ids"] == ["c9"]
    markdown = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "not searchable yet" in markdown and "c9" in markdown
    assert "not searchable yet" in html_path.read_text(encoding="utf-8")
    console = Console(width=200, record=True)
    console.print(summary_table(summary.as_dict(), "run lag"))
    printed = console.export_text()
    assert "not searchable" in printed and "1 question(s) left out" in printed and "1 case(s) failed" in printed
