"""Statistics and QA metrics on inputs worked out by hand."""

from __future__ import annotations

import pytest

from benchmarker.scoring.qa_metrics import qa_metrics
from benchmarker.scoring.stats import mcnemar_exact, paired_bootstrap, wilson


@pytest.mark.parametrize("k,n,lo,hi", [
    # Wilson, z = 1.96: 8/10 -> centre (0.8 + 0.19207)/1.38415 = 0.71681, half 0.22657
    (8, 10, 0.4902, 0.9433),
    # 0/10 -> centre 0.19207/1.38415 = 0.13877 = half  -> (0, 0.2775)
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    # 50/100 -> half = 1.96 * sqrt(0.0025 + 0.000096) / 1.038415 = 0.09617
    (50, 100, 0.4038, 0.5962),
])
def test_wilson_known_values(k, n, lo, hi):
    got = wilson(k, n)
    assert got[0] == pytest.approx(lo, abs=1e-4) and got[1] == pytest.approx(hi, abs=1e-4)


@pytest.mark.parametrize("k,n,lo,hi", [
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Stat Med 17:857,
    # Table I, method 3 (Wilson score interval without continuity correction): published values.
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
    # by hand, z^2 = 3.8415: 0/1 -> upper z^2 / (1 + z^2) = 0.7935; 1/1 mirrors it
    (0, 1, 0.0, 0.7935),
    (1, 1, 0.2065, 1.0),
    # 1/2 -> centre 0.5, half = z * sqrt(0.125 + z^2 / 16) / (1 + z^2 / 2) = 0.4055
    (1, 2, 0.0945, 0.9055),
])
def test_wilson_published_and_hand_values(k, n, lo, hi):
    assert wilson(k, n) == pytest.approx((lo, hi), abs=1e-4)


@pytest.mark.parametrize("n", range(1, 13))
def test_wilson_matches_scipy_for_every_k_up_to_n(n):
    """An independent implementation as the oracle (scipy's binomtest), k = 0..n; and the interval is
    symmetric: k/n mirrors (n-k)/n."""
    from scipy.stats import binomtest

    for k in range(n + 1):
        ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert wilson(k, n) == pytest.approx((ci.low, ci.high), abs=1e-9), (k, n)
        lo, hi = wilson(k, n)
        assert (1 - hi, 1 - lo) == pytest.approx(wilson(n - k, n), abs=1e-12)


def test_wilson_empty_is_uninformative():
    assert wilson(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("b,c,p", [
    (1, 6, 0.125),   # 2 * P(X <= 1 | n=7) = 2 * (1 + 7) / 128
    (0, 5, 0.0625),  # 2 * (1/2)^5
    (2, 2, 1.0),
    (0, 0, 1.0),
])
def test_mcnemar_exact(b, c, p):
    assert mcnemar_exact(b, c) == pytest.approx(p)


def test_paired_bootstrap_is_seeded_and_brackets_the_difference():
    base = [1, 0, 1, 1, 0, 0, 1, 0, 1, 0]
    other = [1, 1, 1, 1, 0, 1, 1, 1, 1, 0]
    one = paired_bootstrap(base, other, iterations=2000, seed=3)
    two = paired_bootstrap(base, other, iterations=2000, seed=3)
    assert one == two
    assert one["diff"] == pytest.approx(0.3)  # 8/10 - 5/10
    assert one["lo"] <= 0.3 <= one["hi"]
    same = paired_bootstrap(base, base, iterations=500)
    assert same["diff"] == same["lo"] == same["hi"] == 0.0
    assert paired_bootstrap([], [])["diff"] is None


def _r(qid, qtype, label):
    return {"question_id": qid, "question_type": qtype, "label": label}


def test_qa_metrics_by_hand():
    results = [_r("u1", "single-session-user", True), _r("u2", "single-session-user", False),
               _r("u3_abs", "single-session-user", True), _r("m1", "multi-session", True),
               _r("m2", "multi-session", None), _r("t1", "temporal-reasoning", False)]
    qa = qa_metrics(results)
    assert qa["overall"]["n"] == 5 and qa["overall"]["correct"] == 3 and qa["overall"]["accuracy"] == 0.6
    assert qa["overall"]["unjudged"] == 1 and qa["unjudged"] == 1 and qa["judged"] == 5
    assert qa["by_type"]["single-session-user"]["accuracy"] == pytest.approx(2 / 3)
    assert qa["by_type"]["multi-session"] == {"n": 1, "correct": 1, "accuracy": 1.0,
                                              "ci95": pytest.approx([0.2065, 1.0], abs=1e-4), "unjudged": 1}
    # task-averaged = mean(2/3, 1, 0) = 0.5556 (types with judged questions only)
    assert qa["task_averaged"]["accuracy"] == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert qa["task_averaged"]["n_types"] == 3
    assert qa["abstention"]["n"] == 1 and qa["abstention"]["accuracy"] == 1.0
    lo, hi = qa["overall"]["ci95"]
    assert (lo, hi) == pytest.approx((0.2307, 0.8824), abs=1e-4)  # Wilson 3/5 (scipy binomtest agrees)


def test_qa_metrics_all_unjudged_and_empty():
    qa = qa_metrics([_r("a", "x", None), _r("b", "x", None)])
    assert qa["overall"]["n"] == 0 and qa["overall"]["accuracy"] is None and qa["overall"]["ci95"] is None
    assert qa["task_averaged"]["accuracy"] is None and qa["unjudged"] == 2
    empty = qa_metrics([])
    assert empty["overall"]["n"] == 0 and empty["by_type"] == {}
