"""Long-horizon generator: determinism, variation across seeds, fact spread, holdout, shape, speed."""

from __future__ import annotations

import time

import pytest

from benchmarker.suites.long_horizon.data import CATEGORIES, generate_long_horizon


def test_same_seed_same_bytes():
    a = generate_long_horizon(800, 11, questions=60).to_json()
    b = generate_long_horizon(800, 11, questions=60).to_json()
    assert a.encode() == b.encode()
    assert generate_long_horizon(800, 11, questions=60, holdout=True).to_json() != a


@pytest.mark.parametrize("turns", [100, 500, 5000])
def test_different_seeds_draw_different_worlds(turns):
    a = generate_long_horizon(turns, 1, questions=200)
    b = generate_long_horizon(turns, 2, questions=200)
    answers_a, answers_b = {q.answer for q in a.questions}, {q.answer for q in b.questions}
    assert len(answers_a & answers_b) / min(len(answers_a), len(answers_b)) < 0.5
    texts_a, texts_b = {q.question for q in a.questions}, {q.question for q in b.questions}
    assert len(texts_a & texts_b) / min(len(texts_a), len(texts_b)) < 0.2
    assert a.case.sessions[0].messages != b.case.sessions[0].messages


def test_which_values_change_and_when_depends_on_the_seed():
    def histories(seed):
        facts = generate_long_horizon(1000, seed).facts
        return {(f["subject"], f["attribute"]): [(h["value"], h["turn"]) for h in f["history"]]
                for f in facts.values() if f.get("history")}
    assert histories(3) != histories(4)
    assert all(len(h) >= 3 for h in histories(3).values())


@pytest.mark.parametrize("turns,seed", [(100, 0), (100, 9), (1000, 5), (5000, 2)])
def test_facts_and_evidence_cover_every_quartile(turns, seed):
    ds = generate_long_horizon(turns, seed, questions=200)
    n = ds.case.message_count
    quart = lambda ts: {min(3, 4 * t // n) for t in ts}  # noqa: E731
    assert quart(f["turn"] for f in ds.facts.values()) == {0, 1, 2, 3}
    assert quart(t for q in ds.questions for t in q.evidence["turns"]) == {0, 1, 2, 3}


def test_every_fact_has_its_turn_and_updates_keep_every_value():
    ds = generate_long_horizon(600, 8)
    msgs = [m for s in ds.case.sessions for m in s.messages]
    for fact in ds.facts.values():
        assert 0 <= fact["turn"] < len(msgs)
        assert fact["session_id"].startswith("lh8-s")
        if fact.get("history"):
            turns = [h["turn"] for h in fact["history"]]
            assert turns == sorted(turns) and len(set(turns)) == len(turns)
            assert fact["value"] == fact["history"][-1]["value"]
    assistant_facts = [f for f in ds.facts.values() if f["role"] == "assistant"]
    assert assistant_facts and all(msgs[f["turn"]].role == "assistant" for f in assistant_facts)


@pytest.mark.parametrize("turns", [100, 300, 2000, 5000])
def test_holdout_shares_no_question_and_no_evidence_fact(turns):
    std = generate_long_horizon(turns, 4, questions=200)
    hold = generate_long_horizon(turns, 4, questions=200, holdout=True)
    text = lambda ds: [(s.session_id, s.date, [(m.role, m.content) for m in s.messages]) for s in ds.case.sessions]  # noqa: E731
    assert text(std) == text(hold)  # same dialogue; only the questions (and has_answer flags) differ
    assert not {q.question for q in std.questions} & {q.question for q in hold.questions}
    facts = lambda ds: {f for q in ds.questions for f in q.evidence["facts"]}  # noqa: E731
    assert not facts(std) & facts(hold)
    assert not {q.question_id for q in std.questions} & {q.question_id for q in hold.questions}
    assert len(hold.questions) >= 10


def test_case_shape():
    ds = generate_long_horizon(1001, 6, questions=80)
    case = ds.case
    assert case.case_id == "lh-6-1001" and case.kind == "long_horizon" and case.message_count == 1001
    dates = [s.date for s in case.sessions]
    assert dates == sorted(dates) and len(set(dates)) == len(dates)
    for n, session in enumerate(case.sessions, start=1):
        assert session.session_id == f"lh6-s{n}"
        assert 25 <= len(session.messages) <= 60
        roles = [m.role for m in session.messages]
        assert roles[0] == "user"
        assert all(a != b for a, b in zip(roles, roles[1:]))
    assert set(CATEGORIES) == {q.category for q in case.questions}
    assert len(CATEGORIES) >= 15
    for i, q in enumerate(case.questions, start=1):
        suffix = "_abs" if q.rubric.get("abstain") else ""  # LongMemEval's abstention convention (Question.is_abstention)
        assert q.question_id == f"lh6-q{i}{suffix}" and q.question_type == q.category
        assert q.is_abstention == (q.category == "never_mentioned")
        assert q.question_date > dates[-1]
        assert set(q.evidence) >= {"turns", "facts", "question_key"}
        assert q.rubric.get("abstain") or (q.evidence["turns"] and q.answer_session_ids)
    has_answer = {i for i, m in enumerate(m for s in case.sessions for m in s.messages) if m.has_answer}
    assert has_answer == {t for q in case.questions for t in q.evidence["turns"]}


def test_question_keys_match_across_seeds():
    """Keys name 'the k-th question of a category', so multi-seed statistics can line questions up."""
    keys = lambda seed: [q.evidence["question_key"] for q in generate_long_horizon(1000, seed, questions=50).questions]  # noqa: E731
    a, b = keys(1), keys(2)
    assert len(set(a)) == len(a) == 50
    assert len(set(a) & set(b)) >= 45
    assert all(k.split("#")[0] in CATEGORIES for k in a)


def test_bad_sizes_are_errors_with_a_message():
    with pytest.raises(ValueError, match="100 to 5000"):
        generate_long_horizon(99, 1)
    with pytest.raises(ValueError, match="100 to 5000"):
        generate_long_horizon(5001, 1)
    with pytest.raises(ValueError, match="positive"):
        generate_long_horizon(200, 1, questions=0)


def test_5000_turns_200_questions_under_two_seconds():
    start = time.perf_counter()
    ds = generate_long_horizon(5000, 123, questions=200)
    assert time.perf_counter() - start < 2.0
    assert ds.case.message_count == 5000 and len(ds.questions) == 200
