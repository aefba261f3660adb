"""LoCoMo's token F1 and mem0's BLEU-1 on hand-computed inputs, numbers as answers, and F1's properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarker.suites.locomo.metrics import (
    answer_scores,
    bleu1,
    bleu_tokens,
    f1_tokens,
    locomo_f1,
    mean_ci,
    multi_answer_f1,
    normalize_answer,
    token_f1,
)


def test_normalisation_is_locomos():
    # commas, punctuation and the words a / an / the / and go; case folds; spaces collapse
    assert normalize_answer("The cat, and a Dog!") == "cat dog"
    assert normalize_answer("$1,200 at 3:30 p.m.") == "1200 at 330 pm"
    assert f1_tokens("Running in the Parks") == ["run", "in", "park"]  # Porter stems


def test_token_f1_hand_computed():
    # reply: she went run in park (5), gold: run in park (3); 3 shared -> P 3/5, R 1, F1 0.75
    assert token_f1("She went running in the park", "running in parks") == pytest.approx(0.75)
    assert token_f1("Paris", "paris.") == 1.0
    assert token_f1("Lyon", "Paris") == 0.0
    assert token_f1("", "Paris") == 0.0 and token_f1("the", "a") == 0.0  # nothing left: 0, as in LoCoMo
    # multisets, not sets: "dog dog" vs "dog": 1 shared -> P 1/2, R 1 -> 2/3
    assert token_f1("dog dog", "dog") == pytest.approx(2 / 3)


def test_category_rules():
    # category 1: mean over gold comma parts of the best F1 against any reply comma part
    assert multi_answer_f1("Norway, Sweden", "Sweden, Norway") == 1.0
    # "Sweden and Norway" is one part ("and" dropped): each gold part gets P 1/2, R 1 -> 2/3
    assert locomo_f1("Sweden and Norway", "Sweden, Norway", "1") == pytest.approx(2 / 3)
    assert locomo_f1("Sweden and Norway", "Sweden, Norway", "4") == 1.0  # plain F1 elsewhere
    # category 3: the gold's first ";" part only: "likely yes" -> [like, ye]; reply [ye] -> 2/3
    assert locomo_f1("Yes", "Likely yes; she collects classic books", "3") == pytest.approx(2 / 3)


def test_numbers_as_answers():
    # LoCoMo's F1 and mem0's BLEU-1 are lexical: "three" shares no token with "3" (the judge and the
    # deterministic grader count them equal; see test_locomo_judge.py)
    assert locomo_f1("three", "3", "4") == 0.0 and bleu1("three", "3") == 0.0
    assert locomo_f1("3", 3, "4") == 1.0  # an int gold answer is read as its text
    assert locomo_f1("3 kids", 3, "4") == pytest.approx(2 / 3)
    assert locomo_f1("7 May 2023", "7 May, 2023", "2") == 1.0  # commas are dropped


def test_bleu_tokens_split_like_word_tokenize():
    assert bleu_tokens("On May 7, 2023.") == ["on", "may", "7", ",", "2023", "."]
    assert bleu_tokens("$1,200 at 3:30; well-known") == ["$", "1,200", "at", "3:30", ";", "well-known"]
    assert bleu_tokens("don't") == ["don't"]  # word_tokenize would make "do" "n't" (documented)


def test_bleu1_hand_computed():
    # 1 of 4 reply tokens in the reference, reply longer than reference (no brevity penalty): 1/4
    assert bleu1("It was Paris.", "Paris") == pytest.approx(0.25)
    # precision 1, brevity penalty exp(1 - 5/1)
    assert bleu1("dog", "adopted a dog in May") == pytest.approx(math.exp(-4))
    assert bleu1("Paris", "Paris") == 1.0
    assert bleu1("", "Paris") == 0.0 and bleu1("Paris", "") == 0.0


def test_answer_scores_per_category():
    four = answer_scores("She has 3 kids.", "3", "4")
    assert four["category"] == "4" and four["category_name"] == "single-hop"
    # F1: [she, ha, 3, kid] vs [3] -> P 1/4, R 1 -> 0.4; BLEU-1: 1 of 5 tokens (the "." counts) -> 0.2
    assert four["f1"] == pytest.approx(0.4) and four["bleu1"] == pytest.approx(0.2)
    assert "f1_gold" not in four
    three = answer_scores("yes", "Likely yes; she loves books", "3")
    assert three["f1_gold"] == "Likely yes"  # says what F1 compared with
    adversarial = answer_scores("It was never mentioned.", "Not mentioned in the conversation.", "5")
    assert adversarial["f1"] is None and adversarial["bleu1"] is None  # judged as abstention only
    empty = answer_scores(None, "Paris", "2")
    assert empty["f1"] == 0.0 and empty["bleu1"] == 0.0


def test_mean_ci_is_seeded_and_brackets_the_mean():
    assert mean_ci([]) == {"n": 0, "mean": None, "ci95": None}
    assert mean_ci([0.5, 0.5, 0.5]) == {"n": 3, "mean": 0.5, "ci95": [0.5, 0.5]}
    values = [0.0, 1.0, 0.5, 0.25, 1.0, 0.0, 0.75, 1.0]
    stat = mean_ci(values)
    assert stat["mean"] == pytest.approx(sum(values) / len(values))
    assert 0.0 <= stat["ci95"][0] < stat["mean"] < stat["ci95"][1] <= 1.0
    assert mean_ci(values) == stat  # seed 0: the same interval every time


words = st.lists(st.sampled_from(["cat", "cats", "dog", "the", "ran", "running", "3", "May", "and", "Paris,"]),
                 max_size=8).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(words, words)
def test_f1_is_symmetric_and_bounded(a, b):
    assert token_f1(a, b) == pytest.approx(token_f1(b, a))
    assert 0.0 <= token_f1(a, b) <= 1.0
    assert token_f1(a, a) == (1.0 if f1_tokens(a) else 0.0)
    assert 0.0 <= bleu1(a, b) <= 1.0
