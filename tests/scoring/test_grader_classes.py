"""The grader's disagreement classes with GPT-4o (issue 27), one constructed example each, plus
property tests where inputs are open-ended."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.scoring.abstention import abstains
from benchmarker.scoring.grader import grade_deterministic
from benchmarker.scoring.normalize import STOPWORDS, stem

MS = "multi-session"


def grade(answer: str, hypothesis: str, qtype: str = MS, qid: str = "q") -> bool:
    return grade_deterministic(qtype, qid, answer, hypothesis).label


# ---- too lenient: numbers match only as quantities
def test_gold_number_is_not_found_inside_a_date():
    assert not grade("4 weeks", "You started on March 4, 2023, so it has been about 3 weeks.")
    assert not grade("4", "You mentioned it on March 4, 2023.")


def test_gold_number_is_not_a_session_number_or_list_marker():
    assert not grade("4", "In Session 4 you mentioned buying two plants.")
    assert not grade("3", "You bought:\n1. a lily\n2. a fern\n3. a cactus\n4. a palm")


def test_a_long_answer_is_judged_by_its_conclusion():
    hyp = ("To answer, let's look at the chat history.\n\n1. **Session 2**: you planned two months ahead for a launch.\n"
           "2. **Session 5**: you led the data migration.\n\nTherefore, you have led three projects.")
    assert not grade("2", hyp)
    assert grade("3", hyp)


def test_the_conclusion_wins_over_a_number_in_the_reasoning():
    hyp = ("Let's extract the sessions.\n\n- Session 9 says your list had 25 titles.\n- Session 11 adds two more.\n\n"
           "Therefore, your to-watch list currently has 27 titles.")
    assert not grade("25", hyp, "knowledge-update")


def test_a_refusing_answer_does_not_pass_on_the_gold_phrase():
    assert not grade("Denver", "I don't have access to your sister's address. I hope you have a great visit in Denver!")
    assert not grade("Paris", "There is no information about your trip, so I cannot determine whether you went to Paris.")


def test_a_hedged_answer_still_passes():
    assert grade("Paris", "I'm not sure, but I think it was Paris.")


def test_an_abstention_concluding_with_a_guess_is_wrong():
    hyp = ("Let's look at the sessions.\n\n- There is no mention of buying an iPad.\n- You attended the market on Nov 17.\n\n"
           "Therefore, you attended the Holiday Market 7 days before you bought your iPad.")
    assert not grade("The information provided is not enough.", hyp, qid="q_abs")


def test_an_abstention_given_as_a_reason_for_an_answer_is_not_an_abstention():
    assert not grade("The information provided is not enough.",
                     "You started the Ferrari model first, as there is no mention of a Porsche model.", qid="q_abs")


# ---- too strict
def test_durations_compare_by_value():
    assert grade("1 hour and 30 minutes", "It takes an hour and a half.")
    assert grade("an hour and a half", "The total is 90 minutes.")
    assert grade("90 minutes", "about 1.5 hours")
    assert not grade("1 hour and 30 minutes", "It takes an hour.")


def test_mix_paraphrase():
    assert grade("mixed Irish and Italian", "A mix of Irish and Italian.")


def test_ordered_list_compares_as_a_sequence():
    gold = "First, I attended the NBA game, then I watched the college football championship, and finally the NFL playoffs."
    hyp = "The order is:\n1. NBA game at Staples Center\n2. College Football National Championship game\n3. NFL playoffs"
    assert grade(gold, hyp, "temporal-reasoning")
    wrong = "The order is:\n1. NFL playoffs\n2. NBA game at Staples Center\n3. College Football National Championship game"
    assert not grade(gold, wrong, "temporal-reasoning")


def test_does_not_contain_any_record_is_an_abstention():
    for text in ("The chat history does not contain any record of a trip to Japan.",
                 "There is no mention of a Porsche model.", "There are no explicit mentions of museum visits.",
                 "I cannot find anything about that.", "Your bike is not mentioned in our conversations."):
        assert abstains(text), text
        assert grade("The information provided is not enough.", text, qid="q_abs")


def test_tomatoes_match_tomato():
    assert stem("tomatoes") == stem("tomato")
    assert grade("tomato", "You planted tomatoes.")


def test_months_are_never_stopwords():
    assert "may" not in STOPWORDS
    assert not grade("May 2023", "It was on 1 February 2023.")
    assert grade("May 2023", "It was in May 2023.")


def test_preference_needs_the_specific_preference_not_generic_overlap():
    rubric = ("The user would prefer suggestions that take into account their interest in live music and their "
              "memorable encounter with Brandon Flowers at the Ogden Theatre, such as revisiting the same bar.")
    generic = "Denver has great museums, hiking, and a lively music scene with many bars and restaurants."
    specific = "Since you loved meeting Brandon Flowers at that bar, check the live music listings there again."
    assert not grade(rubric, generic, "single-session-preference")
    assert grade(rubric, specific, "single-session-preference")


def test_preference_threshold_is_validated():
    with pytest.raises(ValueError):
        ThresholdsConfig(preference_recall=1.5)


# ---- properties
_NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen " \
    "sixteen seventeen eighteen nineteen twenty".split()


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=20), st.sampled_from(["days", "weeks", "months", "years", "times"]))
def test_number_words_and_digits_compare_by_value(n, unit):
    assert grade(f"{n} {unit}", f"It was {_NUMBER_WORDS[n]} {unit}.")
    assert not grade(f"{n} {unit}", f"It was {n + 2} {unit}.")


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=5), st.integers(min_value=0, max_value=59))
def test_hours_and_minutes_compare_by_value(hours, minutes):
    total = hours * 60 + minutes
    assert grade(f"{hours} hours and {minutes} minutes", f"In total {total} minutes.")


@settings(max_examples=300, deadline=None)
@given(st.from_regex(r"[a-z]{1,14}", fullmatch=True))
def test_stemmer_is_idempotent(word):
    assert stem(stem(word)) == stem(word)


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"[a-z]{2,8}[aeiou][bdgkmnprt]", fullmatch=True))
@example("aaed")  # step 1b would cut "aaed" to "aa": the plural's own cut must survive that (issue 36)
def test_regular_plurals_meet_their_singulars(word):
    assert stem(word + "s") == stem(word)


def test_irregular_plurals_in_oes_and_ies():
    assert stem("potatoes") == stem("potato") and stem("heroes") == stem("hero")
    assert stem("stories") == stem("story") and stem("berries") == stem("berry")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200), st.text(max_size=60), st.sampled_from(
    ["single-session-user", "temporal-reasoning", "single-session-preference", "knowledge-update"]),
    st.booleans())
def test_grading_never_raises_on_arbitrary_text(hypothesis, answer, qtype, abs_):
    result = grade_deterministic(qtype, "q_abs" if abs_ else "q", answer, hypothesis)
    assert 0.0 <= result.score <= 1.0 and result.reason
