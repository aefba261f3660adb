"""Deterministic matcher: normalisation, number traps, paraphrases, assignment, gold scores."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.suites.fact_extraction.data import (
    ExpectedFact,
    context_facts,
    extracted_facts_from_memory,
    fact_tokens,
    load_fact_cases,
)
from benchmarker.suites.fact_extraction.facts import match_facts, score_case, similarity

MATCH_THRESHOLD = ThresholdsConfig().fact_match

CASES = load_fact_cases()
BUDGET = ExpectedFact("User's budget is $3,000", ("budget", "3000"))


@pytest.mark.parametrize("text", ["$3,000", "3000", "3k", "$3K", "3 thousand", "3,000.00", "€3000"])
def test_money_spellings_normalise_to_one_number(text):
    assert fact_tokens(text) == ["3000"]


def test_other_normalisations():
    assert fact_tokens("$1.5 million") == ["1500000"] == fact_tokens("$1.5m")
    assert fact_tokens("15%") == fact_tokens("15 percent") == ["15", "%"]
    assert fact_tokens("two weeks") == ["2", "week"]
    assert fact_tokens("I can't, it doesn't") == ["i", "can", "not", "it", "doe", "not"]


@pytest.mark.parametrize("extracted", [
    "Budget: 3k",
    "The total trip budget is $3,000.",
    "budget of 3000 USD",
    "User set a budget of three thousand dollars",
])
def test_paraphrase_with_the_same_key_terms_matches(extracted):
    extracted = extracted.replace("three thousand", "3 thousand")
    assert similarity(BUDGET, extracted) >= MATCH_THRESHOLD


@pytest.mark.parametrize("extracted", ["Budget: $4,000", "Budget is $30,000", "Budget: $300", "budget 13000"])
def test_a_different_number_never_matches(extracted):
    assert similarity(BUDGET, extracted) == 0.0


def test_2_never_matches_12():
    kids = ExpectedFact("User has 2 kids", ("2", "kid"))
    assert similarity(kids, "User has 12 kids") == 0.0
    assert similarity(kids, "User has 2 kids") >= MATCH_THRESHOLD
    assert similarity("User has 2 kids", "User has 12 kids") == 0.0  # no terms: numbers from the text
    assert similarity("User has 12 kids", "User has 2 kids") == 0.0


def test_missing_key_term_does_not_match():
    assert similarity(ExpectedFact("Trip ends in Kyoto", ("kyoto",)), "Trip ends in Osaka") == 0.0


def test_terms_are_word_bounded():
    assert similarity(ExpectedFact("User likes Go", ("go",)), "User likes going out") == 0.0


def test_negated_fact_needs_a_negated_statement():
    no_subs = ExpectedFact("User does not want a subscription model", ("subscription",))
    assert similarity(no_subs, "User wants a subscription model") == 0.0
    assert similarity(no_subs, "No subscriptions") >= MATCH_THRESHOLD
    assert similarity(no_subs, "Subscription model rejected by the user") >= MATCH_THRESHOLD


def test_paraphrase_without_terms_uses_word_overlap():
    assert similarity("User's budget is $4,000", "The budget for the trip is $4,000") >= MATCH_THRESHOLD
    assert similarity("User's budget is $4,000", "User likes trains") < MATCH_THRESHOLD


def test_match_lists_tp_fp_fn():
    m = match_facts([BUDGET, ExpectedFact("Trip is to Lisbon", ("lisbon",))],
                    ["Budget: 3k", "User owns a boat"], compound=False)
    assert [(e, x) for e, x, _ in m.true_positives] == [("User's budget is $3,000", "Budget: 3k")]
    assert m.false_positives == ("User owns a boat",)
    assert m.false_negatives == ("Trip is to Lisbon",)
    assert (m.tp, m.fp, m.fn) == (1, 1, 1)
    assert m.precision == m.recall == m.f1 == 0.5


def test_assignment_is_one_to_one_and_optimal():
    budget = ExpectedFact("Trip budget is $3,000", ("budget", "3000"))
    lisbon = ExpectedFact("Trip is to Lisbon", ("lisbon",))
    both, only_budget = "Lisbon trip budget is $3,000", "Budget 3000 dollars"
    # Greedy by best score would give `both` to the budget fact and leave Lisbon unmatched.
    assert similarity(budget, both) > similarity(budget, only_budget) >= MATCH_THRESHOLD
    m = match_facts([budget, lisbon], [both, only_budget], compound=False)
    assert (m.tp, m.fp, m.fn) == (2, 0, 0)
    assert dict((e, x) for e, x, _ in m.true_positives) == {budget.fact: only_budget, lisbon.fact: both}


def test_restatement_is_a_duplicate_not_a_hallucination():
    m = match_facts([BUDGET], ["User's budget is $3,000.", "Budget: $3,000"])
    assert (m.tp, m.fp, m.fn) == (1, 0, 0)
    assert len(m.duplicates) == 1


def test_compound_sentence_states_several_facts():
    facts = [BUDGET, ExpectedFact("Trip is to Lisbon", ("lisbon",))]
    one_sentence = ["User plans a Lisbon trip with a $3,000 budget"]
    assert match_facts(facts, one_sentence).tp == 2
    strict = match_facts(facts, one_sentence, compound=False)
    assert (strict.tp, strict.fn) == (1, 1)


def test_empty_sides():
    assert (match_facts([], []).precision, match_facts([], []).recall) == (1.0, 1.0)
    assert match_facts([], ["Something"]).fp == 1
    assert match_facts([BUDGET], []).fn == 1


@pytest.mark.parametrize("fc", CASES, ids=lambda c: c.id)
def test_gold_expected_facts_score_perfectly(fc):
    gold = [f.fact for f in fc.expected_facts]
    m = match_facts(list(fc.expected_facts), gold, compound=False)
    assert (m.precision, m.recall, m.f1) == (1.0, 1.0, 1.0)


@pytest.mark.parametrize("fc", CASES, ids=lambda c: c.id)
def test_gold_expected_output_read_back_from_a_context_scores_perfectly(fc):
    """A memory whose context is exactly expected_output is a perfect extraction."""
    context = "## Facts\n" + "\n".join(f"- {f}" for f in fc.expected_output)
    extracted = extracted_facts_from_memory([], context, fc.existing_memory)
    score = score_case(fc, extracted, context_facts=context_facts(context))
    assert (score.precision, score.recall, score.f1) == (1.0, 1.0, 1.0), score.details
    assert score.conflict_resolved in (None, True)
    assert score.minimal in (None, True)


@given(st.integers(min_value=0, max_value=10**9))
def test_any_money_formatting_matches_its_plain_number(n):
    fact = ExpectedFact(f"Revenue is {n}", ("revenue", str(n)))
    assert similarity(fact, f"Revenue: ${n:,}") >= MATCH_THRESHOLD


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=10**6))
def test_different_numbers_never_match(a, b):
    if a != b:
        assert similarity(ExpectedFact(f"Rent is {a}", ("rent", str(a))), f"Rent is ${b:,}") == 0.0
