"""The ledger's types (agent/ledger.py) name exactly the keys its snapshot and prices hold: the manifest's
`tokens` and summary.json's cost are read by them."""

from __future__ import annotations

from typing import Any

from benchmarker.agent.ledger import (
    LedgerSnapshot,
    ModelTotals,
    Price,
    PricedTotals,
    RoleTotals,
    TokenLedger,
    Usage,
    UsageTotals,
    batch_price,
)


def keys(typed: Any) -> set[str]:
    return set(typed.__required_keys__) | set(typed.__optional_keys__)


def test_a_snapshot_holds_the_keys_of_its_types() -> None:
    ledger = TokenLedger(prices={"gpt": {"input": 1.0, "output": 2.0}})
    ledger.record_usage("qa", "gpt", Usage(calls=1, input_tokens=100, output_tokens=10, cache_read_tokens=40))
    ledger.record_usage("agent", "offline-memory-agent", Usage(calls=2))
    snapshot = ledger.snapshot()
    assert set(snapshot) == keys(LedgerSnapshot) and set(snapshot["total"]) == keys(PricedTotals)
    for role in snapshot["roles"].values():
        assert set(role) == keys(RoleTotals)
        assert all(set(model) == keys(ModelTotals) for model in role["models"].values())
    assert next(iter(snapshot["roles"]["qa"])) == "models"  # the manifest's order: the models, then the role's totals
    assert set(Usage(calls=1).as_dict()) == keys(UsageTotals)
    assert batch_price({"input": 1.0}, 0.5) == {"input": 0.5, "output": None, "cached_input": None, "cache_write": None}
    assert set(ledger.price_of("gpt") or {}) == keys(Price)


def test_the_journal_a_case_and_the_carried_totals_hold_the_keys_of_their_types() -> None:
    from benchmarker.agent.ledger import CaseUsage, EarlierRole, EarlierTotals, JournalLine, UsageCounts, journal_totals

    written: list[JournalLine] = []
    ledger = TokenLedger(prices={"gpt": {"input": 1.0, "output": 2.0}})
    ledger.journal_to(written.append)
    ledger.record_usage("agent", "gpt", Usage(calls=1, input_tokens=10, output_tokens=5), case_id="c1")
    # a journal line is the role, the model, then the raw counts, in this order (ledger.jsonl's bytes)
    assert list(written[0]) == ["role", "model", "calls", "input_tokens", "output_tokens", "cache_read_tokens",
                                "cache_write_tokens"]
    assert set(written[0]) == keys(JournalLine) - {"carried"}
    assert all(set(usage) == keys(UsageCounts) for _, _, usage in ledger.tallies())
    case = ledger.case_usage("c1", "gpt")
    assert set(case) == keys(CaseUsage) and case["cost_usd"] == (10 * 1.0 + 5 * 2.0) / 1e6
    totals = journal_totals(written)
    assert totals is not None and set(totals) == keys(EarlierTotals)
    assert set(totals["roles"]["agent"]) == keys(EarlierRole)
    assert set(totals["roles"]["agent"]["models"]["gpt"]) == keys(UsageTotals)
    assert TokenLedger(earlier=totals).snapshot()["total"]["input_tokens"] == 10  # what a resume starts from
