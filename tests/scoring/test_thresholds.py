"""[eval.thresholds]: every number that decides a score comes from the config; a non-default
value changes the label or score it decides (the defaults are pinned by the other tests)."""

from __future__ import annotations

import pytest

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.datasets.schema import Question
from benchmarker.scoring.grader import grade_deterministic
from benchmarker.scoring.multiseed import summarize_seeds
from benchmarker.scoring.rubric import grade_answer_deterministic
from benchmarker.scoring.rubric_facts import factual_accuracy
from benchmarker.suites.fact_extraction.data import ExpectedFact
from benchmarker.suites.fact_extraction.facts import match_facts, similarity
from benchmarker.suites.levels.data import ExpectedCall
from benchmarker.suites.levels.scoring import score_decision, score_forgetting, score_tool_trace


def t(**values) -> ThresholdsConfig:
    return ThresholdsConfig(**values)


def test_answer_f1_accepts_a_partial_list():
    args = ("multi-session", "q", "Spotify, Apple Music", "Spotify and Apple")  # token F1 0.67
    assert grade_deterministic(*args).label is False
    assert grade_deterministic(*args, thresholds=t(answer_f1=0.5)).label is True


def test_preference_recall():
    args = ("single-session-preference", "q",
            "The user would prefer suggestions about Adobe Premiere Pro advanced settings and color grading.",
            "Try Premiere's advanced settings.")  # recall 0.43
    assert grade_deterministic(*args).label is True
    wanted = grade_deterministic(*args, thresholds=t(preference_recall=0.6))
    assert wanted.label is False and "(< 0.6)" in wanted.reason


def test_fact_match_rejects_a_paraphrase():
    fact = ExpectedFact("User's budget is $3,000", ("budget", "3000"))
    paraphrase = "Budget 3000, flights excluded, hotels included"
    assert 0.6 <= similarity(fact, paraphrase) < 0.9
    assert match_facts([fact], [paraphrase]).tp == 1
    strict = match_facts([fact], [paraphrase], thresholds=t(fact_match=0.9))
    assert (strict.tp, strict.fn, strict.threshold) == (0, 1, 0.9)


def test_fact_term_weight():
    fact = ExpectedFact("User's budget is $3,000", ("budget", "3000"))
    dice = 2 * 2 / (3 + 3)  # {budget, 3000, dollar} and {budget, 3000, ye}
    assert similarity(fact, "budget 3000 yes") == pytest.approx(0.7 + 0.3 * dice)
    assert similarity(fact, "budget 3000 yes", thresholds=t(fact_term_weight=0.0)) == pytest.approx(dice)


def test_rubric_penalty_and_weights():
    stale = {"required": ["Lisbon"], "stale": ["Porto"]}
    assert factual_accuracy(stale, "Lisbon or Porto")[0] == 0.5
    assert factual_accuracy(stale, "Lisbon or Porto", thresholds=t(rubric_penalty=0.25))[0] == 0.75
    question = Question("x", "t", "How many?", "12 times on Mars", rubric={"numbers": [12]})
    assert grade_answer_deterministic(question, "12").overall == pytest.approx((0.5 + 0.1 * 0.5) / 0.6)
    only_facts = t(rubric_weights={"specificity": 0.0})
    assert grade_answer_deterministic(question, "12", thresholds=only_facts).overall == 1.0


def test_stale_penalty():
    question = Question("x", "t", "Where?", "Lisbon", rubric={"required": ["Lisbon"], "stale": ["Porto"]})
    assert score_forgetting(question, "Lisbon or Porto")["score"] == 0.5
    assert score_forgetting(question, "Lisbon or Porto", thresholds=t(stale_penalty=1.0))["score"] == 0.0


def test_decision_weights():
    rubric = {"choice": {"options": {"A": "Alpha", "B": "Beta"}, "correct": "B"}, "justify": ["cheap"], "recall": ["EU"]}
    question = Question("x", "t", "Which?", "Decision: B", rubric=rubric)
    assert score_decision(question, "Decision: B")["score"] == 0.5
    assert score_decision(question, "Decision: B", thresholds=t(decision_weights={"decision": 1.0}))["score"] == 1.0


def test_trace_weights():
    expected = [ExpectedCall("get_context"), ExpectedCall("add_entry")]
    reversed_trace = [{"tool": "add_entry", "args": {}}, {"tool": "get_context", "args": {}}]
    assert score_tool_trace(expected, reversed_trace).score == pytest.approx(0.4 + 0.3 * 0.5 + 0.3)
    order_only = t(trace_weights={"selection": 0.0, "order": 1.0, "args": 0.0})
    assert score_tool_trace(expected, reversed_trace, thresholds=order_only).score == 0.5


def test_noise_spread():
    rows = [{"seed": s, "question_key": "q", "score": v} for s, v in ((1, 0.5), (2, 0.6))]
    assert summarize_seeds(rows)["noisy_questions"] == []
    wide = summarize_seeds(rows, thresholds=t(noise_spread=0.05))
    assert [q["question_key"] for q in wide["noisy_questions"]] == ["q"] and wide["noise_threshold"] == 0.05
