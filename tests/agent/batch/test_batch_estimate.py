"""`estimate` prices the batched roles at the batch price and shows what they would cost without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarker.verbs.estimate import comparison, cost, estimate_json, estimate_run, format_estimate
from tests.verbs.test_estimate import config

PRICES = '"m" = { input = 1.0, output = 2.0 }\n"j" = { input = 3.0, output = 5.0 }\n'


def test_batched_qa_and_eval_cost_half_by_hand(tmp_path: Path) -> None:
    cfg, _ = config(tmp_path, prices=PRICES, extra="[batch]\nqa = true\neval = true\n")
    est = estimate_run(cfg, tmp_path)
    usd = cost(est, est.settings.pricing)
    # QA 1550 in / 60 out at half of (1.0, 2.0); the judge 350 in / 5 out at half of (3.0, 5.0)
    assert usd["qa"] == pytest.approx((1550 * 0.5 + 60 * 1.0) / 1e6, abs=1e-15)
    assert usd["eval"] == pytest.approx((350 * 1.5 + 5 * 2.5) / 1e6, abs=1e-15)
    a = est.agent
    assert usd["agent"] == pytest.approx((a.input_tokens * 1.0 + a.output_tokens * 2.0) / 1e6)  # the agent never batches
    data = estimate_json(est)
    assert data["roles"]["qa"]["batch"] and data["roles"]["qa"]["sync_usd"] == pytest.approx(2 * usd["qa"])
    assert not data["roles"]["agent"]["batch"]
    row = next(r for r in comparison(est, est.settings.pricing) if r["matches_config"])
    assert row["total_usd"] == pytest.approx(row["agent_usd"] + usd["qa"] + usd["eval"])
    assert "| qa | m |" in format_estimate(est) and "x0.5 (was" in format_estimate(est)


def test_without_batch_nothing_changes(tmp_path: Path) -> None:
    cfg, _ = config(tmp_path, prices=PRICES)
    est = estimate_run(cfg, tmp_path)
    assert cost(est, est.settings.pricing)["qa"] == pytest.approx((1550 * 1.0 + 60 * 2.0) / 1e6, abs=1e-15)
    assert not estimate_json(est)["roles"]["qa"]["batch"]
