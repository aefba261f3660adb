"""Question selection: ids, types, stratified sample and limit, with property tests."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarker.datasets.selection import allocate, select_question_ids
from benchmarker.errors import DatasetError
from benchmarker.suites.longmemeval.data import QUESTION_TYPES

INDEX = [(f"q{i}" + ("_abs" if i % 10 == 0 else ""), QUESTION_TYPES[i % 6]) for i in range(60)]


def test_no_filters_returns_everything_in_order() -> None:
    assert select_question_ids(INDEX) == [qid for qid, _ in INDEX]


def test_ids_keep_dataset_order_and_unknown_ids_fail() -> None:
    assert select_question_ids(INDEX, question_ids=["q5", "q1"]) == ["q1", "q5"]
    with pytest.raises(DatasetError, match="question_ids.*nope"):
        select_question_ids(INDEX, question_ids=["q1", "nope"])


def test_types_filter_and_unknown_type() -> None:
    chosen = select_question_ids(INDEX, question_types=["multi-session"])
    assert chosen and all(dict(INDEX)[q] == "multi-session" for q in chosen)
    with pytest.raises(DatasetError, match="question_types.*multi"):
        select_question_ids(INDEX, question_types=["multi"])


def test_empty_selection_is_an_error() -> None:
    with pytest.raises(DatasetError, match="matches no question"):
        select_question_ids(INDEX, question_ids=["q1"], question_types=["multi-session"])


def test_limit_after_sample() -> None:
    sampled = select_question_ids(INDEX, sample=12, sample_seed=3)
    assert select_question_ids(INDEX, sample=12, sample_seed=3, limit=5) == sampled[:5]


def test_allocation_gives_every_type_one_when_possible() -> None:
    assert allocate(3, {"a": 98, "b": 1, "c": 1}) == {"a": 1, "b": 1, "c": 1}
    assert allocate(2, {"a": 98, "b": 1, "c": 1}) == {"a": 2, "b": 0, "c": 0}
    assert allocate(10, {"a": 50, "b": 30, "c": 20}) == {"a": 5, "b": 3, "c": 2}


indexes = st.lists(st.sampled_from(QUESTION_TYPES), min_size=1, max_size=120).map(
    lambda types: [(f"id{i}", t) for i, t in enumerate(types)])


@settings(max_examples=150, deadline=None)
@given(index=indexes, size=st.integers(1, 130), seed=st.integers(0, 2**32))
def test_stratified_sample_properties(index: list[tuple[str, str]], size: int, seed: int) -> None:
    chosen = select_question_ids(index, sample=size, sample_seed=seed)
    assert chosen == select_question_ids(index, sample=size, sample_seed=seed)  # deterministic
    assert len(chosen) == min(size, len(index))  # exact size
    position = {qid: i for i, (qid, _) in enumerate(index)}
    assert set(chosen) <= set(position)  # subset
    assert [position[q] for q in chosen] == sorted(position[q] for q in chosen)  # dataset order
    counts = Counter(t for _, t in index)
    got = Counter(dict(index)[q] for q in chosen)
    n = len(chosen)
    if size < len(index):
        ideal = {t: n * c / len(index) for t, c in counts.items()}
        forced = n >= len(counts) and any(v < 1 for v in ideal.values())
        for qtype, count in counts.items():
            assert got[qtype] <= count
            if not forced:  # the "one per type" rule is the only thing allowed to bend this
                assert abs(got[qtype] - ideal[qtype]) < 1
        if n >= len(counts):
            assert all(got[t] >= 1 for t in counts)


def test_seed_changes_the_sample_but_not_its_shape() -> None:
    samples = {tuple(select_question_ids(INDEX, sample=12, sample_seed=seed)) for seed in range(6)}
    assert len(samples) > 1
    for chosen in samples:
        assert Counter(dict(INDEX)[q] for q in chosen) == {t: 2 for t in QUESTION_TYPES}


def test_abstention_questions_are_sampled_within_their_type() -> None:
    index = [("a_abs", "multi-session"), ("b", "multi-session"), ("c", "temporal-reasoning"),
             ("d", "temporal-reasoning")]
    picked = {tuple(select_question_ids(index, sample=2, sample_seed=s)) for s in range(20)}
    assert all(len({dict(index)[q] for q in p}) == 2 for p in picked)
    assert any("a_abs" in p for p in picked) and any("b" in p for p in picked)
