"""The report's "with memory vs with the gold evidence" table: a question with no gold evidence (BEAM's abstention
questions) gives the oracle reader nothing to read, so it declines and is counted correct; such rows say "not
comparable" instead of a "+100 pts" gap, and an overall row compares only the questions that had evidence."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.attribution_report import oracle_lines
from benchmarker.reporting.oracle_block import attribution_and_oracle
from benchmarker.reporting.summary import build_summary
from benchmarker.reporting.summary_model import RunSummary
from tests.scoring.synthetic_run import result, write_run


def oracle_run(tmp_path: Path, lines: list[dict]) -> Path:
    write_run(tmp_path / "oracle", lines)
    summary = build_summary(lines, run_meta={"run_id": "oracle"}, suites=SUITE_LOOKUP).as_dict()
    (tmp_path / "oracle" / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return tmp_path


def with_evidence(line: dict, text: bool) -> dict:
    return line | {"evidence": [{"session_id": "s1", "role": "user", "content": "the fact"}] if text else []}


def table(tmp_path: Path, memory: list[dict], oracle: list[dict]) -> dict[str, str]:
    """The table's rows, first cell -> gap cell, and the whole text under `_text`."""
    summary = build_summary(memory, run_meta={"run_id": "run"}, suites=SUITE_LOOKUP).as_dict()
    summary |= attribution_and_oracle(memory, [], oracle_run(tmp_path, oracle), None)
    text = "\n".join(oracle_lines(RunSummary.model_validate(summary)))
    rows = [r.strip("|").split(" | ") for r in text.splitlines() if r.startswith("| ") and "---" not in r]
    return {cells[0].strip(): cells[-1].strip() for cells in rows} | {"_text": text}


def test_rows_without_gold_evidence_are_not_comparable(tmp_path):
    memory = [result("a1_abs", "abstention", False), result("a2_abs", "abstention", False),
              result("e1", "information_extraction", True), result("e2", "information_extraction", False)]
    oracle = [with_evidence(result("a1_abs", "abstention", True), False),   # declined with nothing to read
              with_evidence(result("a2_abs", "abstention", True), False),
              with_evidence(result("e1", "information_extraction", True), True),
              with_evidence(result("e2", "information_extraction", True), True)]
    rows = table(tmp_path, memory, oracle)
    assert rows["abstention"] == "not comparable: no gold evidence"   # not "+100.0 pts"
    assert rows["information_extraction"] == "+50.0 pts"
    assert rows["**overall**"] == "+75.0 pts (2 without gold evidence)"
    assert rows["**overall, with gold evidence**"] == "+50.0 pts"
    assert "2 question(s) had no gold evidence (abstention: 2)" in rows["_text"]


def test_a_run_whose_questions_all_had_evidence_is_unchanged(tmp_path):
    memory = [result("e1", "information_extraction", True), result("e2", "information_extraction", False)]
    oracle = [with_evidence(result(q, "information_extraction", True), True) for q in ("e1", "e2")]
    rows = table(tmp_path, memory, oracle)
    assert rows["**overall**"] == "+50.0 pts" and "**overall, with gold evidence**" not in rows
    assert "no gold evidence" not in rows["_text"]


def test_a_damaged_oracle_line_is_one_error_naming_its_file_and_line(tmp_path):
    """The oracle's results are read as the run's are (scoring/records.py checked_results): typed ResultLines whose
    keys the metrics index are checked, so a damaged line is a UserError, not a traceback in the evidence split."""
    import pytest

    from benchmarker.errors import UserError

    memory = [result("e1", "information_extraction", True)]
    run = oracle_run(tmp_path, [with_evidence(result("e1", "information_extraction", True), True)])
    with open(run / "oracle" / "results.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"question_id": "e2", "label": "yes"}) + "\n")
    with pytest.raises(UserError, match=r"oracle/results\.jsonl:2: `label` is a string"):
        attribution_and_oracle(memory, [], run, None)
