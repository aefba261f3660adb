"""Gold self-check: every generated question's gold answer passes its own rubric; wrong answers fail."""

from __future__ import annotations

import re

import pytest

from benchmarker.suites.levels.data import LEVEL_IDS, build_level
from benchmarker.suites.long_horizon.data import generate_long_horizon
from benchmarker.scoring.normalize import canonical_number, numbers_in
from benchmarker.scoring.normalize import token_texts as tokens
from benchmarker.scoring.rubric import grade_answer_deterministic as grade


def wrong_numbers(text: str) -> str:
    return re.sub(r"\d[\d,]*", lambda m: str(int(m.group(0).replace(",", "")) + 7), text)


def check(q) -> list[str]:
    errors = []
    if grade(q, q.answer).overall != 1.0:
        errors.append(f"gold fails: {q.question_id} {q.question!r} -> {q.answer!r}")
    idk = grade(q, "I don't know.").overall
    if q.rubric.get("abstain"):
        if idk != 1.0:
            errors.append(f"abstention not credited: {q.question_id}")
        if grade(q, "It was 4,812, according to the notes.").overall != 0.0:
            errors.append(f"fabricated value credited: {q.question_id}")
        return errors
    if idk != 0.0:
        errors.append(f"'I don't know' credited: {q.question_id}")
    if q.rubric.get("numbers") and grade(q, wrong_numbers(q.answer)).overall != 0.0:
        errors.append(f"wrong number credited: {q.question_id} {wrong_numbers(q.answer)!r}")
    if q.rubric.get("forbidden") and grade(q, str(q.rubric["forbidden"][0])).overall != 0.0:
        errors.append(f"distractor credited: {q.question_id}")
    return errors


@pytest.mark.parametrize("turns", [100, 500, 2000, 5000])
def test_long_horizon_gold_self_check(turns):
    errors = []
    for seed in range(20):
        for holdout in (False, True):
            for q in generate_long_horizon(turns, seed, questions=200, holdout=holdout).questions:
                errors += check(q)
    assert not errors, errors[:10]


def test_levels_gold_self_check():
    errors = []
    for seed in range(12):
        for level_id in LEVEL_IDS:
            spec = build_level(level_id, seed)
            assert len(spec.case.questions) >= 5, level_id
            for q in spec.case.questions:
                errors += check(q)
    assert not errors, errors[:10]


def test_no_answer_number_is_echoed_by_its_question():
    """Repeating the question must never satisfy a numeric rubric."""
    questions = [q for seed in range(60) for lid in LEVEL_IDS for q in build_level(lid, seed).case.questions]
    questions += [q for seed in range(10) for turns in (100, 1000, 5000)
                  for q in generate_long_horizon(turns, seed, questions=200).questions]
    echoed = [q.question for q in questions
              if {canonical_number(n) for n in q.rubric.get("numbers", [])} & numbers_in(tokens(q.question))]
    assert not echoed, echoed[:5]
    for q in questions:
        if not q.rubric.get("abstain"):
            assert grade(q, q.question).overall == 0.0, q.question
