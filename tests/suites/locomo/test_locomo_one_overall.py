"""A LoCoMo report has one "overall" (every question, as in the run table, compare and verify), and category 5,
which is exactly the abstention questions, is one row, not an "abstention" row and an identical "adversarial" one."""

from __future__ import annotations

from rich.console import Console

from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.report import write_report
from benchmarker.reporting.summary import build_summary
from benchmarker.reporting.summary_model import parse_summary
from benchmarker.run.console import summary_table
from tests.scoring.synthetic_run import result as longmemeval_result
from tests.suites.locomo.test_locomo_summary import run_lines


def rows(markdown: str) -> list[str]:
    """The first cell of every table row."""
    return [c for line in markdown.splitlines() if line.startswith("| ") and (c := line.split("|")[1].strip())]


def test_the_report_has_one_overall_and_no_duplicated_abstention_row(tmp_path):
    results = run_lines()   # 5 questions of categories 1-4 (one unjudged), 3 of category 5
    summary = build_summary(results, run_meta={"run_id": "locomo-demo"}, suites=SUITE_LOOKUP).as_dict()
    assert summary["qa"]["abstention_type"] == "adversarial"
    md = write_report(tmp_path, parse_summary(summary), results, suites=SUITE_LOOKUP)["markdown"].read_text()
    first = rows(md)
    assert [r for r in first if "overall" in r] == ["**overall**"]   # the LoCoMo table says "categories 1-4"
    assert "**categories 1-4**" in first
    qa = md[md.index("## QA accuracy"):md.index("## LoCoMo")]
    assert rows(qa)[:2] == ["**overall**", "abstention (adversarial)"] and "adversarial" not in rows(qa)[2:]
    assert "| **overall** | 7 | 5 |" in qa   # every judged question, category 5 included
    assert "overall accuracy counts every question" in md


def test_the_run_table_shows_category_5_once(tmp_path):
    summary = build_summary(run_lines(), run_meta={"run_id": "locomo-demo"}, suites=SUITE_LOOKUP).as_dict()
    console = Console(width=200, record=True)
    console.print(summary_table(summary, "run"))
    text = console.export_text()
    assert "abstention (adversarial) accuracy" in text and "  adversarial " not in text


def test_a_type_with_other_questions_keeps_its_own_row(tmp_path):
    lines = [longmemeval_result("q1", "multi-session", True), longmemeval_result("q2_abs", "multi-session", False),
             longmemeval_result("q3", "temporal-reasoning", True)]
    summary = build_summary(lines, run_meta={"run_id": "lme"}, suites=SUITE_LOOKUP).as_dict()
    assert summary["qa"]["abstention_type"] is None
    md = write_report(tmp_path, parse_summary(summary), lines, suites=SUITE_LOOKUP)["markdown"].read_text()
    assert {"abstention", "multi-session", "temporal-reasoning"} <= set(rows(md))
