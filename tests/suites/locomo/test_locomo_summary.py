"""summary.json's `locomo` block, the report's LoCoMo table and compare on hand-built results lines."""

from __future__ import annotations

import json

import pytest

from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.compare import compare_runs, format_compare
from benchmarker.reporting.report import write_report
from benchmarker.reporting.summary import build_summary
from benchmarker.reporting.summary_model import parse_summary
from benchmarker.scoring.grade import Grade
from tests.scoring.synthetic_run import result as longmemeval_result
from tests.scoring.synthetic_run import write_run

NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def line(n: int, category: int, label: bool | None, f1: float | None = None, bleu: float | None = None) -> dict:
    """One LoCoMo results line: the answer's keys, the grading keys and the per-answer `locomo` scores."""
    qid = f"conv-26-q{n:03d}" + ("_abs" if category == 5 else "")
    record = {"schema_version": 1, "case_id": "conv-26", "question_id": qid, "kind": "locomo",
              "question_type": NAMES[category], "category": str(category), "is_abstention": category == 5,
              "question": f"Q{n}?", "answer": "gold", "hypothesis": "reply", "answer_session_ids": ["session_1"],
              "evidence_turns": [["session_1", 0]],
              "locomo": {"category": str(category), "category_name": NAMES[category],
                         "f1": None if category == 5 else f1, "bleu1": None if category == 5 else bleu}}
    return record | Grade(label=label, judge="llm", model="judge-model", reason="test").line_fields()


def run_lines() -> list[dict]:
    return [line(1, 1, True, 1.0, 0.8), line(2, 1, False, 0.0, 0.1), line(3, 2, True, 0.5, 0.5),
            line(4, 4, True, 1.0, 1.0), line(5, 4, None, 0.5, 0.2),  # unjudged: out of accuracy, in F1
            line(6, 5, True), line(7, 5, False), line(8, 5, True)]


def test_summary_locomo_block():
    block = build_summary(run_lines(), run_meta={"run_id": "locomo"}, suites=SUITE_LOOKUP).as_dict()["locomo"]
    assert block["categories"] == {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop",
                                   "5": "adversarial"}
    assert list(block["by_category"]) == ["1", "2", "4", "5"]  # only categories present
    one = block["by_category"]["1"]
    assert one["name"] == "multi-hop" and one["questions"] == 2
    assert one["judge"]["n"] == 2 and one["judge"]["accuracy"] == 0.5
    assert one["judge"]["ci95"] == pytest.approx([0.0945, 0.9055], abs=1e-4)  # Wilson 1/2
    assert one["f1"]["mean"] == 0.5 and one["bleu1"]["mean"] == pytest.approx(0.45)
    four = block["by_category"]["4"]
    assert four["judge"]["n"] == 1 and four["judge"]["unjudged"] == 1 and four["f1"]["n"] == 2
    overall = block["overall"]
    assert overall["categories"] == ["1", "2", "3", "4"] and overall["questions"] == 5
    assert overall["judge"]["correct"] == 3 and overall["judge"]["n"] == 4  # category 5 is not in it
    assert overall["judge"]["ci95"] == pytest.approx([0.3006, 0.9544], abs=1e-4)  # Wilson 3/4
    assert overall["f1"]["mean"] == pytest.approx(3.0 / 5) and overall["f1"]["n"] == 5
    lo, hi = overall["f1"]["ci95"]
    assert lo <= overall["f1"]["mean"] <= hi
    adversarial = block["adversarial"]
    assert adversarial["category"] == "5" and adversarial["name"] == "adversarial" and "f1" not in adversarial
    assert adversarial["judge"]["correct"] == 2 and adversarial["judge"]["n"] == 3
    assert "f1" not in block["by_category"]["5"]
    assert "Wilson" in block["intervals"]["judge"] and "seed 0" in block["intervals"]["f1_bleu1"]
    assert any("category 5" in note for note in block["notes"])
    json.dumps(block)  # summary.json-safe


def test_summary_has_no_locomo_block_for_other_runs():
    summary = build_summary([longmemeval_result("q1", "multi-session", True)], run_meta={}, suites=SUITE_LOOKUP).as_dict()
    assert "locomo" not in summary
    assert build_summary(run_lines(), run_meta={"mode": "retrieval"}, suites=SUITE_LOOKUP).as_dict().get("locomo") is None


def test_report_has_the_locomo_table(tmp_path):
    results = run_lines()
    summary = build_summary(results, run_meta={"run_id": "locomo-demo"}, suites=SUITE_LOOKUP).as_dict()
    md = write_report(tmp_path, parse_summary(summary), results, suites=SUITE_LOOKUP)["markdown"].read_text()
    assert "## LoCoMo" in md and md.index("## QA accuracy") < md.index("## LoCoMo") < md.index("## Retrieval")
    assert "1 = multi-hop, 2 = temporal, 3 = open-domain, 4 = single-hop, 5 = adversarial" in md
    assert "| 1 multi-hop | 2 | 50.0 [" in md
    overall = next(row for row in md.splitlines() if row.startswith("| **categories 1-4** |"))
    assert "| 5 | 75.0 [" in overall and "| 0.600 [" in overall
    adversarial = next(row for row in md.splitlines() if row.startswith("| 5 adversarial (abstention) |"))
    assert adversarial.endswith("| n/a | n/a |") and "66.7 [" in adversarial


def test_compare_shows_locomo_side_by_side(tmp_path):
    better = [line(n, c, True if label is not None else None, f1, bleu)
              for n, c, label, f1, bleu in [(1, 1, True, 1.0, 0.9), (2, 1, True, 1.0, 0.9), (3, 2, True, 0.5, 0.5),
                                            (4, 4, True, 1.0, 1.0), (5, 4, True, 1.0, 1.0)]]
    better += [line(6, 5, True), line(7, 5, True), line(8, 5, True)]
    a = write_run(tmp_path / "a", run_lines(), run_id="base")
    b = write_run(tmp_path / "b", better, run_id="better")
    comparison = compare_runs([a, b], suites=SUITE_LOOKUP)
    assert comparison["runs"][1]["locomo"]["overall"]["judge"]["accuracy"] == 1.0
    text = format_compare(comparison, suites=SUITE_LOOKUP)
    assert "## LoCoMo" in text
    f1_row = next(row for row in text.splitlines() if row.startswith("| F1 (1-4) |"))
    assert "0.600 [" in f1_row and "0.900 [" in f1_row
    adversarial = next(row for row in text.splitlines() if row.startswith("| 5 adversarial (abstention) |"))
    assert adversarial.count("(n=3)") == 2
    mixed = compare_runs([a, write_run(tmp_path / "c", [longmemeval_result("conv-26-q001", "multi-session", True)])],
                         suites=SUITE_LOOKUP)  # one shared id: runs that share none are refused
    assert "## LoCoMo" not in format_compare(mixed, suites=SUITE_LOOKUP)  # only when every run is a LoCoMo run
