"""`[run] sample` larger than the data says so (issue 37: `sample = 60` on a 5-question file silently ran 5)."""

from __future__ import annotations

import logging

import pytest

from benchmarker.datasets.selection import select_question_ids

FIVE = [(f"q{i}", t) for i, t in enumerate(["single-session-user", "multi-session", "temporal-reasoning",
                                             "knowledge-update", "single-session-preference"])]


def test_a_sample_larger_than_the_data_warns_with_both_numbers(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="benchmarker.datasets.selection"):
        chosen = select_question_ids(FIVE, sample=60, source="data/five.json")
    assert chosen == [qid for qid, _ in FIVE]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ["[run].sample = 60 but data/five.json has only 5 question(s): running all 5"]


def test_the_warning_names_the_filter_that_narrowed_the_pool(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="benchmarker.datasets.selection"):
        select_question_ids(FIVE, question_types=["multi-session", "knowledge-update"], sample=3, source="two.json")
    assert any("has only 2 question(s) matching [run].question_ids / question_types: running all 2"
               in r.getMessage() for r in caplog.records)


def test_the_warning_is_said_once_per_process(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="benchmarker.datasets.selection"):
        for _ in range(4):   # replay selects the same questions several times
            select_question_ids(FIVE, sample=61, source="once.json")
    assert len(caplog.records) == 1


@pytest.mark.parametrize("sample", [0, 3, 5])
def test_a_sample_that_fits_says_nothing(caplog: pytest.LogCaptureFixture, sample: int) -> None:
    with caplog.at_level(logging.WARNING, logger="benchmarker.datasets.selection"):
        select_question_ids(FIVE, sample=sample)
    assert not caplog.records
