"""scoring/headroom.py on known labels: the headroom captured, its paired bootstrap interval, McNemar."""

from __future__ import annotations

import math

import numpy as np

from benchmarker.scoring.headroom import headroom, is_memory_needed, mcnemar


def _labels(bits: str) -> dict[str, bool | None]:
    return {f"q{i}": None if b == "." else b == "1" for i, b in enumerate(bits)}


def test_headroom_is_the_share_of_the_oracle_gain_memory_delivers():
    none, memory, oracle = _labels("0000000011"), _labels("1111100011"), _labels("1111111111")
    h = headroom(memory, none, oracle)
    assert h["n"] == 10 and h["value"] == (0.7 - 0.2) / (1.0 - 0.2)
    lo, hi = h["ci95"]
    assert lo < h["value"] < hi and h == headroom(memory, none, oracle)  # seeded: the same interval every time
    # the interval is a paired one: recomputed by hand with the same draws
    rng = np.random.default_rng(0)
    m, z, o = (np.array([float(d[f"q{i}"]) for i in range(10)]) for d in (memory, none, oracle))
    ratios = []
    for _ in range(10):
        idx = rng.integers(0, 10, size=(1000, 10))
        gap = o[idx].mean(axis=1) - z[idx].mean(axis=1)
        ratios.append(((m[idx].mean(axis=1) - z[idx].mean(axis=1))[gap != 0]) / gap[gap != 0])
    assert [lo, hi] == list(np.percentile(np.concatenate(ratios), [2.5, 97.5]))


def test_only_questions_judged_under_all_three_count():
    none, memory, oracle = _labels("0.00"), _labels("11.1"), _labels("1111")
    h = headroom(memory, none, oracle)
    assert h["n"] == 2 and h["value"] == 1.0  # q0 and q3: memory as good as the oracle


def test_no_gap_between_oracle_and_no_memory_has_no_ratio():
    h = headroom(_labels("10"), _labels("11"), _labels("11"))
    assert h["value"] is None and h["undefined_draws"] == h["iterations"] and h["ci95"] is None


def test_mcnemar_counts_the_discordant_questions():
    from scipy.stats import binomtest

    m = mcnemar(_labels("1111110000."), _labels("1100001111."))
    assert (m["n"], m["memory_only"], m["full_context_only"]) == (10, 4, 4) and m["p_value"] == 1.0
    m = mcnemar(_labels("11111111"), _labels("10000000"))
    assert m["memory_only"] == 7 and math.isclose(m["p_value"], binomtest(0, 7, 0.5).pvalue)


def test_the_block_says_what_is_missing():
    lines = [{"question_id": "a", "question_type": "t", "label": True}]
    block = is_memory_needed({"memory": lines, "no_memory": lines, "oracle": []})
    assert block["conditions"] == ["no_memory", "memory"] and block["headroom"]["value"] is None
    assert "oracle" in block["headroom"]["note"] and "mcnemar_memory_vs_full_context" not in block
