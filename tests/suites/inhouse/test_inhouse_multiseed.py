"""Multi-seed statistics on a fixed, hand-computed table."""

from __future__ import annotations

import json

import pytest

from benchmarker.scoring.multiseed import summarize_seeds

ROWS = [
    # seed, question_key, category, level, score
    (1, "a#0", "A", "L1", 1.0), (1, "a#1", "A", "L1", 0.0), (1, "b#0", "B", "L2", 1.0), (1, "c#0", "C", "L2", 0.5),
    (2, "a#0", "A", "L1", 1.0), (2, "a#1", "A", "L1", 0.5), (2, "b#0", "B", "L2", 0.0), (2, "c#0", "C", "L2", 0.6),
    (3, "a#0", "A", "L1", 0.95), (3, "a#1", "A", "L1", 0.0), (3, "b#0", "B", "L2", 1.0), (3, "c#0", "C", "L2", 0.55),
]
TABLE = [dict(zip(("seed", "question_key", "category", "level", "score"), r)) for r in ROWS]


def test_category_mean_sd_and_t_interval():
    out = summarize_seeds(TABLE)
    a = out["by_category"]["A"]
    # seed means 0.5, 0.75, 0.475 -> mean 0.575; squared deviations .005625 + .030625 + .01 = .04625;
    # sd = sqrt(.04625 / 2) = 0.152069; t(0.975, 2) = 4.302653; half width = 4.302653 * 0.152069 / sqrt(3) = 0.377760
    assert a["seed_means"] == {"1": 0.5, "2": 0.75, "3": 0.475}
    assert a["mean"] == pytest.approx(0.575)
    assert a["stdev"] == pytest.approx(0.152069, abs=1e-6)
    assert a["ci95_low"] == pytest.approx(0.575 - 0.377760, abs=1e-5)
    assert a["ci95_high"] == pytest.approx(0.575 + 0.377760, abs=1e-5)
    assert a["n_seeds"] == 3 and a["n_scores"] == 6
    b = out["by_category"]["B"]  # 1, 0, 1 -> mean 2/3, sd sqrt(1/3)
    assert b["mean"] == pytest.approx(2 / 3, abs=1e-6) and b["stdev"] == pytest.approx(3 ** -0.5, abs=1e-6)


def test_level_table():
    lv = summarize_seeds(TABLE)["by_level"]
    assert set(lv) == {"L1", "L2"}
    assert lv["L2"]["seed_means"] == {"1": 0.75, "2": 0.3, "3": 0.775}
    assert lv["L2"]["mean"] == pytest.approx((0.75 + 0.3 + 0.775) / 3, abs=1e-6)


def test_noisy_questions_vary_by_more_than_ten_points():
    noisy = summarize_seeds(TABLE)["noisy_questions"]
    assert [n["question_key"] for n in noisy] == ["a#1", "b#0"]  # a#0 spans 0.05, c#0 exactly 0.10: not noisy
    assert noisy[0]["range"] == 0.5 and noisy[0]["scores"] == {"1": 0.0, "2": 0.5, "3": 0.0}
    assert noisy[1]["category"] == "B" and noisy[1]["level"] == "L2"


def test_output_is_json_ready_and_single_seed_has_no_interval():
    out = summarize_seeds(TABLE)
    json.dumps(out)
    assert out["seeds"] == [1, 2, 3] and out["overall"]["n_seeds"] == 3
    one = summarize_seeds([r for r in TABLE if r["seed"] == 1])
    assert one["by_category"]["A"]["stdev"] is None and one["by_category"]["A"]["ci95_low"] is None
    assert one["noisy_questions"] == []
    assert summarize_seeds([])["overall"] is None


def test_missing_keys_are_an_error():
    with pytest.raises(ValueError, match="question_key"):
        summarize_seeds([{"seed": 1, "score": 1.0}])
