"""Two grader rules no earlier test pinned (planted bugs survived): a hedge is not an answer, and a number
inside a date is not a count."""

from __future__ import annotations

import pytest

from benchmarker.scoring.grader import grade_deterministic


@pytest.mark.parametrize("hedge", ["I'm not sure.", "I don't know.", "I'm not sure, sorry."])
@pytest.mark.parametrize("qtype,gold", [("multi-session", "4 weeks"), ("single-session-user", "Biscuit"),
                                        ("knowledge-update", "Lisbon")])
def test_a_hedge_is_wrong_on_an_answerable_question(qtype, gold, hedge):
    assert grade_deterministic(qtype, "q1", gold, hedge).label is False


def test_a_hedge_is_right_on_an_abstention_question():
    assert grade_deterministic("multi-session", "q1_abs", "You never mentioned it.", "I'm not sure.").label is True


@pytest.mark.parametrize("hypothesis,label", [("It was on March 4.", False), ("on 4 March", False),
                                              ("It took 4 weeks.", True), ("four weeks", True)])
def test_a_number_inside_a_date_without_a_year_is_not_a_count(hypothesis, label):
    assert grade_deterministic("temporal-reasoning", "q1", "4 weeks", hypothesis).label is label


@pytest.mark.parametrize("qtype,gold,hypothesis", [("multi-session", "4", "It was on March 4."),
                                                   ("temporal-reasoning", "4", "on 4 March"),
                                                   ("multi-session", "4 times", "I went on March 4 a few times.")])
def test_a_count_is_never_the_day_of_a_date_without_a_year(qtype, gold, hypothesis):
    """The count alone is the answer here, so only the md: (month-day) rule stands between the day and a
    false match; "4 weeks" above also needs its unit and let the mutant `("date:",)` live."""
    assert grade_deterministic(qtype, "q1", gold, hypothesis).label is False
