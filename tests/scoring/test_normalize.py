"""The one normaliser: where the grader, the rubric and the fact matcher used to disagree, and why
the stricter reading won (each case says what one of the three copies did before)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from benchmarker.scoring.abstention import abstains, has_abstention_phrase
from benchmarker.scoring.grader import grade_deterministic
from benchmarker.scoring.normalize import canonical_number, clean, matches, numbers_in, same, token_texts
from benchmarker.scoring.rubric_facts import factual_accuracy
from benchmarker.suites.fact_extraction.data import ExpectedFact
from benchmarker.suites.fact_extraction.facts import similarity


def grade(answer: str, hypothesis: str, qid: str = "q") -> bool | None:
    return grade_deterministic("multi-session", qid, answer, hypothesis).label


@pytest.mark.parametrize("text,tokens", [
    ("one two", ["1", "2"]),                     # the rubric read 3
    ("1.5 million", ["1500000"]),                # the grader read 1.5 and 1000000
    ("3 thousand", ["3000"]), ("$3K", ["3000", "dollar"]), ("$1.5m", ["1500000", "dollar"]),
    ("50 USD", ["50", "dollar"]), ("15%", ["15", "percent"]), ("15 per cent", ["15", "percent"]),
    ("on api-04", ["on", "api-04"]),             # the grader read the number 4
    ("3rd of March 2024", ["date:2024-03-03"]), ("March 3", ["md:03-03"]),
    ("at 09:20", ["at", "9:20"]),                # the rubric split "09" and "20"
    ("twice as many", ["twice", "as", "mani"]),   # a ratio, not "2 times" ("many" stems to "mani")
    ("emojis", ["emoji"]), ("stories", ["stori"]), ("story", ["stori"]),  # the grader kept "emojis", the rubric "storie"
    ("It doesn't", ["it", "doesnt"]),
])
def test_one_token_stream(text, tokens):
    assert token_texts(text) == tokens


def test_date_tokens_hold_their_parts_but_no_numbers():
    full = token_texts("May 20, 2023")[0]
    assert all(same(part, full) for part in ("md:05-20", "may", "20", "2023"))
    assert not any(same(part, full) for part in ("md:05-02", "june", "2", "2024", "date:2023-05-21"))
    assert numbers_in(token_texts("on May 20, 2023")) == set()


def test_canonical_number_reads_rubric_values():
    assert [canonical_number(v) for v in ("1,200", 1200.0, "$1.2k", "0.50", "12%", "twelve")] == \
        ["1200", "1200", "1200", "0.5", "12", "12"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcdeimnorstuy0123456789 ,.:;-$%'/")), max_size=40))
@example("$$0")  # found by hypothesis in CI: a second "$" survived the first pass
@example("$ $0")
def test_clean_is_idempotent(text):
    # The grader tokenises text that strip_abstention has already cleaned.
    assert clean(clean(text)) == clean(text)


# ---- the grader, now stricter or more exact
def test_grader_identifier_digits_are_not_counts():
    assert not grade("4", "It ran on api-04")
    assert not grade("Download it from the backup-store-7 bucket", "Download it from the backup-store-14 bucket")


def test_grader_reads_magnitudes_dates_and_clock_times():
    assert grade("1,500,000", "about 1.5 million")
    assert grade("3000", "3 thousand")
    assert grade("May 20th", "It was on 2023-05-20.")
    assert not grade("May 20th", "It was on 2023-05-02.")
    assert grade("9:20", "at 09:20")


def test_grader_twice_as_many_is_not_two_times():
    assert grade("2 times", "twice") and not grade("2 times", "twice as many people")


def test_grader_plural_ending_in_is():
    assert grade("emoji", "emojis")


# ---- one list of abstention phrases for the grader and the rubric
@pytest.mark.parametrize("text", ["That has not been decided yet.", "Not confirmed yet.", "It's unclear.",
                                  "I don't have that.", "It didn't come up."])
def test_rubric_phrases_now_count_for_the_grader(text):
    assert has_abstention_phrase(text) and abstains(text)
    assert grade("x", text, qid="q_abs")


def test_grader_phrases_now_count_for_the_rubric():
    assert factual_accuracy({"abstain": True}, "There is no record of that.")[0] == 1.0
    assert factual_accuracy({"abstain": True}, "It does not appear to be in my notes.")[0] == 1.0


# ---- the rubric
def test_rubric_number_words_do_not_add_up():
    assert factual_accuracy({"numbers": [3]}, "one two")[0] == 0.0
    assert factual_accuracy({"numbers": [12]}, "twelve")[0] == 1.0


def test_rubric_contractions_negate_a_distractor():
    rub = {"required": ["Biscuit"], "forbidden": ["Pepper"]}
    assert factual_accuracy(rub, "Biscuit. I didn't pick Pepper.")[0] == 1.0
    assert factual_accuracy(rub, "Biscuit or Pepper")[0] == 0.5


def test_rubric_finds_a_month_day_inside_a_full_date():
    assert factual_accuracy({"required": ["May 20"]}, "It is May 20, 2024.")[0] == 1.0
    assert factual_accuracy({"required": ["March"]}, "On March 3, 2024.")[0] == 1.0
    assert not matches("It is May 20, 2024.", "May 2")


# ---- the fact matcher
def test_fact_terms_are_found_in_any_date_spelling():
    release = ExpectedFact("Release date is March 17", ("release", "march", "17"))
    assert similarity(release, "Release moved to 2025-03-17") >= 0.6
    assert similarity(release, "Release moved to March 7") == 0.0


def test_fact_negation_reads_contractions():
    no_emoji = ExpectedFact("User does not want emojis", ("emoji",))
    assert similarity(no_emoji, "User doesn't want emojis") >= 0.6
    assert similarity(no_emoji, "User wants emojis") == 0.0
