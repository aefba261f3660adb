"""Levels L1-L16 build deterministically for several seeds, vary with the seed, and carry their scoring."""

from __future__ import annotations

import pytest

from benchmarker.suites.levels.data import LEVEL_IDS, build_level, normalize_level_id
from benchmarker.suites.levels.scoring import score_level

SCORING = {"L13": "tool_trace", "L14": "forgetting", "L15": "adversarial", "L16": "decision"}


@pytest.mark.parametrize("level_id", LEVEL_IDS)
def test_level_builds_with_its_shape(level_id):
    for seed in (0, 1, 2):
        spec = build_level(level_id, seed)
        assert spec.level_id == level_id and spec.seed == seed and spec.title and spec.description
        case = spec.case
        assert case.kind == "level" and case.case_id == f"level-{level_id}-{seed}"
        assert len(case.questions) >= 5 and case.sessions
        assert spec.scoring == SCORING.get(level_id, "rubric")
        ids = [q.question_id for q in case.questions]
        assert len(set(ids)) == len(ids)
        dates = [s.date for s in case.sessions]
        assert dates == sorted(dates)
        for q in case.questions:
            assert q.answer and q.rubric and q.question_date > dates[-1] and q.category
            assert set(q.answer_session_ids) <= {s.session_id for s in case.sessions}
        assert build_level(level_id, seed) == spec


def test_seeds_change_the_questions():
    changed = sum({q.answer for q in build_level(lid, 1).case.questions} != {q.answer for q in build_level(lid, 2).case.questions}
                  for lid in LEVEL_IDS)
    assert changed >= 15


def test_difficulty_metadata_and_ids():
    assert LEVEL_IDS == tuple(f"L{i}" for i in range(1, 17))
    assert normalize_level_id("l7") == "L7" and normalize_level_id(7) == "L7"
    with pytest.raises(ValueError, match="L1, L2"):
        build_level("L17", 0)


@pytest.mark.parametrize("level_id", LEVEL_IDS)
def test_gold_answers_score_one_and_refusals_do_not(level_id):
    spec = build_level(level_id, 3)
    gold = {q.question_id: q.answer for q in spec.case.questions}
    assert score_level(spec, gold)["score"] == 1.0
    refusal = score_level(spec, {q.question_id: "I don't know." for q in spec.case.questions})
    limit = 0.5 if level_id in ("L8", "L15") else 0.0  # these levels reward declining the unanswerable
    assert refusal["score"] <= limit
