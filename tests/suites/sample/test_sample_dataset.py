"""The generated LongMemEval-format dataset: deterministic, complete, consistent, loadable."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from benchmarker.suites.longmemeval.data import QUESTION_TYPES, iter_longmemeval, parse_date
from benchmarker.suites.sample.data import ABSTENTION_TYPES, generate_sample, sample_bytes, sample_cases, write_sample

FIELDS = ["question_id", "question_type", "question", "answer", "question_date",
          "haystack_dates", "haystack_session_ids", "haystack_sessions", "answer_session_ids"]


def test_same_seed_same_bytes_other_seed_other_bytes() -> None:
    assert sample_bytes(seed=42) == sample_bytes(seed=42)
    assert sample_bytes(seed=42) != sample_bytes(seed=43)


@pytest.mark.parametrize("seed", [0, 1, 42, 2024])
def test_all_types_and_abstention(seed: int) -> None:
    items = generate_sample(seed=seed, questions_per_type=2)
    types = Counter(i["question_type"] for i in items if not i["question_id"].endswith("_abs"))
    assert types == {t: 2 for t in QUESTION_TYPES}
    abstention = [i for i in items if i["question_id"].endswith("_abs")]
    assert sorted(i["question_type"] for i in abstention) == sorted(ABSTENTION_TYPES)
    assert len({i["question_id"] for i in items}) == len(items)


@pytest.mark.parametrize("seed", range(8))
def test_instances_are_consistent(seed: int) -> None:
    for item in generate_sample(seed=seed, questions_per_type=3, sessions_per_question=6):
        assert sorted(item) == sorted(FIELDS)
        ids, dates, sessions = (item["haystack_session_ids"], item["haystack_dates"],
                                item["haystack_sessions"])
        assert len(ids) == len(dates) == len(sessions) == 6 and len(set(ids)) == 6
        when = [parse_date(d) for d in dates]
        assert all(w is not None for w in when)
        assert parse_date(item["question_date"]) > max(when)
        assert item["answer_session_ids"] and set(item["answer_session_ids"]) <= set(ids)
        for sid, session in zip(ids, sessions):
            evidence = any(m["has_answer"] for m in session)
            assert all(set(m) == {"role", "content", "has_answer"} for m in session)
            assert [m["role"] for m in session] == ["user", "assistant"] * (len(session) // 2)
            if item["question_id"].endswith("_abs") or sid not in item["answer_session_ids"]:
                assert not evidence
            else:
                assert evidence
        if item["question_id"].endswith("_abs"):
            assert item["answer"].startswith("The information provided is not enough")


def test_temporal_answers_follow_session_dates() -> None:
    for seed in range(10):
        for item in generate_sample(seed=seed):
            if item["question_type"] != "temporal-reasoning" or "_abs" in item["question_id"]:
                continue
            by_id = dict(zip(item["haystack_session_ids"], item["haystack_dates"]))
            first, second = (parse_date(by_id[s]).date() for s in item["answer_session_ids"])
            if item["question"].startswith("How many days passed"):
                assert item["answer"].startswith(f"{(second - first).days} days")
            elif item["question"].startswith("How many days ago"):
                ago = (parse_date(item["question_date"]).date() - second).days
                assert item["answer"].startswith(f"{ago} days ago")


def test_preference_answers_are_rubrics() -> None:
    for item in generate_sample(seed=5):
        if item["question_type"] == "single-session-preference":
            assert item["answer"].startswith("The user would prefer")


def test_loads_through_the_loader(tmp_path: Path) -> None:
    path = write_sample(tmp_path / "sample.json", seed=7)
    cases = list(iter_longmemeval(path))
    assert [c.case_id for c in cases] == [c.case_id for c in sample_cases(seed=7)]
    assert all(c.kind == "longmemeval" and c.message_count > 0 for c in cases)
    numeric = [c for c in cases if c.questions[0].question.startswith("How many concerts")]
    assert all(c.questions[0].answer.isdigit() for c in numeric)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        generate_sample(questions_per_type=0)
    with pytest.raises(ValueError):
        generate_sample(sessions_per_question=2)
