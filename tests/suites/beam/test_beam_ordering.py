"""Event ordering's numbers as the repository's `event_ordering_score` computes them: Kendall tau-b (scipy,
variant b) over the union of reference and answer items, an item missing from one side ranked last; precision /
recall / F1 of the aligned items; and `align` in `align_with_llm`'s order (first unused reference item wins)."""

from __future__ import annotations

import math
import warnings

import pytest
from scipy.stats import kendalltau

from benchmarker.suites.beam.scoring import align, ordering_metrics, tau_b_ranks

REF = ["booked venue", "sent invites", "ordered cake", "held party"]


def scipy_tau_norm(reference: list[str], system: list[str]) -> float:
    """(tau + 1) / 2 with the union ranks built independently of the code under test."""
    union = list(dict.fromkeys(reference + system))
    last = len(union) + 1
    ref = [reference.index(u) + 1 if u in reference else last for u in union]
    sys_ = [system.index(u) + 1 if u in system else last for u in union]
    return (float(kendalltau(ref, sys_, variant="b").statistic) + 1) / 2


def test_identical_order_is_one_and_reversed_is_zero() -> None:
    same = ordering_metrics(REF, list(REF))
    assert same["tau_norm"] == pytest.approx(1.0) and same["tau_b"] == pytest.approx(1.0)
    assert (same["precision"], same["recall"], same["f1"], same["final_score"]) == (1.0, 1.0, 1.0, pytest.approx(1.0))
    backwards = ordering_metrics(REF, REF[::-1])
    assert backwards["tau_norm"] == pytest.approx(0.0) and backwards["tau_b"] == pytest.approx(-1.0)
    assert backwards["f1"] == 1.0 and backwards["final_score"] == pytest.approx(0.0)
    assert "tau_undefined" not in same and "tau_undefined" not in backwards


def test_partial_overlap_ranks_missing_items_last_like_scipy() -> None:
    system = ["sent invites", "booked venue", "went shopping"]  # one swap, one extra line, two items missing
    assert tau_b_ranks(REF, system) == ([1, 2, 3, 4, 6], [2, 1, 6, 6, 3])  # union: REF + the extra line; last = 6
    got = ordering_metrics(REF, system)
    assert got["tau_norm"] == pytest.approx(scipy_tau_norm(REF, system))
    assert got["tau_b"] == pytest.approx(float(kendalltau([1, 2, 3, 4, 6], [2, 1, 6, 6, 3], variant="b").statistic))
    assert 0.0 < got["tau_norm"] < 1.0
    # tp 2 (venue, invites); fp 1 (shopping); fn 2 (cake, party)
    assert got["precision"] == pytest.approx(2 / 3) and got["recall"] == pytest.approx(2 / 4)
    assert got["f1"] == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert got["final_score"] == pytest.approx(got["tau_norm"] * got["f1"])


@pytest.mark.parametrize("system", [["held party", "ordered cake"], ["ordered cake", "booked venue", "x", "y"],
                                    ["x"]])
def test_tau_norm_matches_scipy_on_more_hand_cases(system: list[str]) -> None:
    assert ordering_metrics(REF, system)["tau_norm"] == pytest.approx(scipy_tau_norm(REF, system))


def test_no_overlap_scores_zero_precision_recall() -> None:
    got = ordering_metrics(["a", "b"], ["c"])
    assert (got["precision"], got["recall"], got["f1"], got["final_score"]) == (0.0, 0.0, 0.0, 0.0)


def test_a_single_item_has_no_tau_and_is_flagged() -> None:
    got = ordering_metrics(["only event"], ["only event"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert math.isnan(float(kendalltau([1], [1], variant="b").statistic))  # scipy has no tau for one item
        assert math.isnan(scipy_tau_norm(REF, []))  # nor when every answer rank ties (an empty answer)
    assert got["tau_undefined"] is True and got["tau_b"] is None and got["tau_norm"] == 0.0
    assert got["f1"] == 1.0 and got["final_score"] == 0.0
    empty = ordering_metrics(REF, [])
    assert empty["tau_undefined"] is True and empty["tau_norm"] == 0.0 and empty["f1"] == 0.0


async def test_align_takes_the_first_unused_reference_item_in_align_with_llms_order() -> None:
    calls: list[tuple[str, str]] = []

    async def same(first: str, second: str) -> bool:  # first letter decides, so several items "match"
        calls.append((first, second))
        return first[0] == second[0]

    reference = ["apple", "avocado", "banana"]
    got = await align(reference, ["a1", "a2", "a3", "b1", "c1"], same)
    assert got == ["apple", "avocado", "a3", "banana", "c1"]  # a3: both a-items are used; c1 matches nothing
    assert calls == [("apple", "a1"),    # a1 stops at its first match
                     ("avocado", "a2"),  # a used item is never asked again
                     ("banana", "a3"),   # a3 is tried against the only unused item, and fails
                     ("banana", "b1")]   # c1: every reference item is used, so no call at all
