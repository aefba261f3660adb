"""TokenLedger: tokens per role and model, cost from the price table, safe under concurrency."""

from __future__ import annotations

import threading

import pytest
from langchain_core.messages import AIMessage

from benchmarker.agent.ledger import TokenLedger

PRICES = {"gpt-4o-mini": {"input": 0.15, "output": 0.60}, "judge": {"input": 2.5, "output": 10.0}}


def usage(i: int, o: int) -> AIMessage:
    return AIMessage("x", usage_metadata={"input_tokens": i, "output_tokens": o, "total_tokens": i + o})


def test_tokens_and_cost_per_role_and_model():
    ledger = TokenLedger(PRICES)
    ledger.record_message("agent", "gpt-4o-mini", usage(1000, 100))
    ledger.record_message("agent", "gpt-4o-mini", usage(2000, 200))
    ledger.record_message("qa", "gpt-4o-mini", usage(500, 50))
    ledger.record_message("eval", "judge", usage(100, 10))
    ledger.record_message("eval", "judge", AIMessage("no usage"))
    snap = ledger.snapshot()
    agent = snap["roles"]["agent"]
    assert (agent["calls"], agent["input_tokens"], agent["output_tokens"]) == (2, 3000, 300)
    assert agent["cost_usd"] == pytest.approx((3000 * 0.15 + 300 * 0.60) / 1e6)
    assert snap["roles"]["eval"]["calls"] == 2
    assert snap["roles"]["eval"]["cost_usd"] == pytest.approx((100 * 2.5 + 10 * 10.0) / 1e6)
    assert snap["total"]["input_tokens"] == 3600 and snap["total"]["calls"] == 5
    assert snap["total"]["cost_usd"] == pytest.approx(sum(r["cost_usd"] for r in snap["roles"].values()))
    assert snap["unpriced_models"] == []


def test_unpriced_and_offline_models_are_labelled():
    ledger = TokenLedger(PRICES)
    ledger.record("agent", "mystery-model", 10, 1)
    ledger.record("qa", "offline-reader", 0, 0)
    snap = ledger.snapshot()
    assert snap["unpriced_models"] == ["mystery-model"]
    assert snap["roles"]["agent"]["models"]["mystery-model"]["cost_usd"] is None
    assert snap["roles"]["qa"]["models"]["offline-reader"] == {
        "calls": 1, "input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0, "offline": True}


def test_concurrent_recording_loses_nothing():
    ledger = TokenLedger(PRICES)

    def work():
        for _ in range(1000):
            ledger.record("agent", "gpt-4o-mini", 3, 1)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    agent = ledger.snapshot()["roles"]["agent"]
    assert agent["calls"] == 8000 and agent["input_tokens"] == 24000
