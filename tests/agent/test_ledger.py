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
        "calls": 1, "input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "cache_write_tokens": 0,
        "plain_input_tokens": 0, "cache_hit_share": None, "cost_usd": 0.0, "offline": True}


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


CACHED_PRICES = {"claude-haiku": {"input": 0.80, "output": 4.0, "cached_input": 0.08, "cache_write": 1.0}}


def cached(total_input: int, out: int, read: int, write: int, *, anthropic_5m: bool = False) -> AIMessage:
    details = {"cache_read": read, **({"cache_creation": 0, "ephemeral_5m_input_tokens": write} if anthropic_5m
                                       else {"cache_creation": write})}
    return AIMessage("x", usage_metadata={"input_tokens": total_input, "output_tokens": out,
                                         "total_tokens": total_input + out, "input_token_details": details})


def test_cache_reads_and_writes_are_counted_apart_and_priced_by_hand():
    ledger = TokenLedger(CACHED_PRICES)
    ledger.record_message("agent", "claude-haiku", cached(5000, 100, read=0, write=4000), case_id="q1")
    ledger.record_message("agent", "claude-haiku", cached(5200, 80, read=4000, write=1100, anthropic_5m=True),
                          case_id="q1")
    agent = ledger.snapshot()["roles"]["agent"]
    assert (agent["input_tokens"], agent["cache_read_tokens"], agent["cache_write_tokens"]) == (10200, 4000, 5100)
    assert agent["plain_input_tokens"] == 10200 - 4000 - 5100
    assert agent["cache_hit_share"] == pytest.approx(4000 / 10200)
    by_hand = (1100 * 0.80 + 180 * 4.0 + 4000 * 0.08 + 5100 * 1.0) / 1e6
    assert agent["cost_usd"] == pytest.approx(by_hand)
    assert ledger.case_usage("q1", "claude-haiku")["cost_usd"] == pytest.approx(by_hand)
    assert ledger.case_usage("other", "claude-haiku")["calls"] == 0


def test_missing_cache_prices_fall_back_to_the_input_price_and_say_so():
    ledger = TokenLedger({"m": {"input": 1.0, "output": 2.0}})
    ledger.record_message("agent", "m", cached(1000, 0, read=600, write=300))
    snap = ledger.snapshot()
    assert snap["roles"]["agent"]["cost_usd"] == pytest.approx(1000 * 1.0 / 1e6)
    assert any("no cached_input price" in n for n in snap["price_notes"])
    assert any("no cache_write price" in n for n in snap["price_notes"])


def test_a_resumed_ledger_starts_from_the_earlier_attempts_snapshot():
    first = TokenLedger(CACHED_PRICES)
    first.record_message("agent", "claude-haiku", cached(5000, 100, read=1000, write=4000))
    second = TokenLedger(CACHED_PRICES, earlier=first.snapshot())
    second.record_message("agent", "claude-haiku", cached(5000, 100, read=4000, write=1000))
    total = second.snapshot()["total"]
    assert (total["calls"], total["input_tokens"], total["cache_read_tokens"]) == (2, 10000, 5000)
