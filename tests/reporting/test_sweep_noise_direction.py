"""The sweep verdict's paired test points the right way and can say "outside the noise" (two planted bugs
survived the old tests: arguments swapped, within_noise forced true)."""

from __future__ import annotations

import random

from benchmarker.reporting.sweep_metric import PointScore, _versus

NDCG = "session.ndcg_any@10"
RECALL = "session.recall_any@5"


def point(label: str, values: list[float]) -> PointScore:
    return PointScore(label, 0.5, 10, sum(values) / len(values), None,
                      per_question={f"q{i}": v for i, v in enumerate(values)})


def test_a_decisive_ndcg_win_is_positive_and_outside_the_noise():
    rng = random.Random(3)
    best = point("a0.5_k10", [0.85 + rng.uniform(-0.05, 0.05) for _ in range(40)])
    runner = point("a0.0_k10", [0.25 + rng.uniform(-0.05, 0.05) for _ in range(40)])
    out = _versus(best, runner, NDCG, ranked_by=NDCG)
    assert out["test"] == "paired_bootstrap" and out["diff"] > 0.5  # winner minus runner-up, not the reverse
    assert out["ci95"][0] > 0.5 and out["within_noise"] is False


def test_a_lead_smaller_than_its_spread_is_within_the_noise():
    rng = random.Random(5)
    runner_values = [rng.uniform(0.0, 1.0) for _ in range(30)]
    best = point("b", [min(1.0, v + rng.uniform(-0.3, 0.32)) for v in runner_values])
    out = _versus(best, point("r", runner_values), NDCG, ranked_by=NDCG)
    assert out["ci95"][0] <= 0.0 and out["within_noise"] is True


def test_mcnemar_says_outside_the_noise_for_a_clear_binary_win_and_within_for_a_tie():
    clear = _versus(point("b", [1.0] * 25 + [0.0] * 5), point("r", [0.0] * 25 + [0.0] * 5), RECALL, ranked_by=RECALL)
    assert (clear["winner_only"], clear["runner_up_only"]) == (25, 0) and clear["within_noise"] is False
    even = _versus(point("b", [1.0, 0.0] * 5), point("r", [0.0, 1.0] * 5), RECALL, ranked_by=RECALL)
    assert even["within_noise"] is True
