"""Issue 42 survivor: `report` after a second kill shows what the run spent by its ledger journal, never the
manifest's smaller snapshot. Two kills leave this state: the first attempt's kill wrote its tokens into the
manifest; the resumed attempt journaled more calls (ledger.jsonl, fsynced per call) and was killed with -9 before
it could write the manifest again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.agent.ledger import JOURNAL_FILE, TokenLedger, Usage, journal_totals
from benchmarker.log.jsonl import JsonlWriter, read_jsonl
from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.outputs import rebuild_outputs

PRICES = {"m": {"input": 1.0, "output": 2.0}}   # USD per million tokens


def _attempt(run_dir: Path, calls: int) -> TokenLedger:
    """One attempt's memory agent spending `calls` calls of 1,000 in / 100 out, journaled as they happen."""
    writer = JsonlWriter(run_dir / JOURNAL_FILE, durable=True)
    ledger = TokenLedger(prices=PRICES, earlier=journal_totals(read_jsonl(run_dir / JOURNAL_FILE)))
    ledger.journal_to(writer.write)
    for _ in range(calls):
        ledger.record_usage("agent", "m", Usage(1, 1_000, 100))
    writer.close()
    return ledger


def test_report_after_a_second_kill_shows_the_journals_total(tmp_path: Path) -> None:
    run_dir = tmp_path / "r"
    run_dir.mkdir()
    first = _attempt(run_dir, 2).snapshot()   # killed, and its tokens reached the manifest
    manifest = {"run_id": "r", "config": {"config": {"prices": PRICES}}, "tokens": first}
    (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    _attempt(run_dir, 3)                      # resumed, killed again before the manifest was rewritten

    rebuild_outputs(run_dir, SUITE_LOOKUP)
    cost = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))["cost"]
    assert first["total"]["input_tokens"] == 2_000   # what the manifest says: the smaller count
    assert cost["tokens"]["agent"]["input"] == 5_000 and cost["tokens"]["agent"]["output"] == 500
    assert cost["usd"]["total"] == pytest.approx((5_000 * 1.0 + 500 * 2.0) / 1e6)
    assert "| agent | 5,000 |" in (run_dir / "report.md").read_text(encoding="utf-8")
