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
