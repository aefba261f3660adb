"""Issue 42 survivors: BEAM's headline numbers on fixed inputs. The mean over abilities weighs each ability once
(not each question), its 95% interval is pinned, and event ordering counts a blank answer line as the repository's
`event_ordering_score` does (the answer split on every newline)."""

from __future__ import annotations

import pytest

from benchmarker.suites.beam.scoring import Grader, grade_answer
from benchmarker.suites.beam.summary import beam_summary


def _lines(scores: dict[str, list[float]]) -> list[dict]:
    return [{"kind": "beam", "question_id": f"{ability}-{i}", "question_type": ability,
             "beam": {"ability": ability, "score": s, "score_half": s}}
            for ability, values in scores.items() for i, s in enumerate(values)]


def test_the_headline_is_the_mean_of_the_per_ability_means() -> None:
    overall = beam_summary(_lines({"information_extraction": [1.0], "temporal_reasoning": [0.0, 0.0, 0.0]}))["overall"]
    assert overall["mean_over_abilities"] == 0.5  # the mean over the 4 questions would be 0.25
    assert overall["mean_over_questions"] == 0.25 and overall["abilities"] == 2


def test_the_headline_interval_is_pinned_on_a_fixed_input() -> None:
    # 2,000 seeded draws, questions resampled within each ability, each draw the mean of the two ability means;
    # the interval is the 2.5th and 97.5th percentiles of those draws
    summary = beam_summary(_lines({"information_extraction": [1.0, 0.0, 0.5, 1.0, 0.5],
                                   "temporal_reasoning": [0.0, 0.0, 1.0]}))
    assert summary["overall"]["mean_over_abilities"] == pytest.approx((0.6 + 1 / 3) / 2, abs=1e-4)
    assert summary["overall"]["ci95"] == [0.2, 0.7833]


async def test_a_blank_answer_line_counts_as_an_unmatched_event() -> None:
    grader = Grader(None, None, rubric_template="", same_template="", retries=0)
    block = await grade_answer(grader, ability="event_ordering", question="In what order?",
                               rubric=["booked the venue", "held the party"],
                               answer="booked the venue\n\nheld the party", abstention=False)
    ordering = block["ordering"]
    assert ordering["precision"] == pytest.approx(2 / 3) and ordering["recall"] == 1.0  # 3 lines, 2 events
    assert ordering["f1"] == pytest.approx(0.8)
