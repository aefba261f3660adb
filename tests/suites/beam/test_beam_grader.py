"""The deterministic BEAM grader (no model): a rubric item holds when the answer carries its expected words,
abstention items by the grader's abstention check; the same path through `SUITE.scorer.score`."""

from __future__ import annotations

import pytest

from benchmarker.datasets.schema import Case, Message, Question, Session
from benchmarker.scoring.judges import make_judge
from benchmarker.suites.beam import SUITE
from benchmarker.suites.beam.scoring import deterministic_item, expected_text, parse_item_score

ITEM = "LLM response should state: the launch is on March 29"


def test_expected_text_drops_the_rubric_preamble() -> None:
    assert expected_text(ITEM) == "the launch is on March 29"
    assert expected_text("Response should mention: Lisbon office") == "Lisbon office"
    assert expected_text("Lisbon") == "Lisbon"


@pytest.mark.parametrize(("answer", "score"), [
    ("Your launch is on March 29, as planned.", 1.0),
    ("The launch was moved; I think it is on March 3.", 0.5),   # launch + March: half the content words
    ("You never told me about a trip to Paris.", 0.0),
    ("", 0.0),
])
def test_information_extraction_items(answer: str, score: float) -> None:
    assert deterministic_item(ITEM, answer, abstention=False) == score


@pytest.mark.parametrize(("answer", "score"), [
    ("I don't know; there is no information about that in our conversations.", 1.0),
    ("Your manager is called Dana.", 0.0),
])
def test_abstention_items(answer: str, score: float) -> None:
    item = "LLM response should state: there is no information about the manager's name"
    assert deterministic_item(item, answer, abstention=True) == score


def test_item_replies_parse_json_or_a_score_in_text() -> None:
    assert parse_item_score('{"score": 0.5, "reason": "partly"}') == 0.5
    assert parse_item_score('Sure. "score": 1.0 because ...') == 1.0
    with pytest.raises(ValueError):
        parse_item_score("no idea")
    with pytest.raises(ValueError, match="outside"):
        parse_item_score('{"score": 3}')


async def test_suite_score_with_the_deterministic_grader() -> None:
    ie = Question("beam-100K-9-information_extraction-0", "information_extraction", "When is the launch?",
                  "March 29", rubric={"items": [ITEM]})
    abst = Question("beam-100K-9-abstention-0_abs", "abstention", "What is my manager's name?", "unknown",
                    rubric={"items": ["LLM response should state: there is no information about the manager"]})
    case = Case("beam-100K-9", "beam", (Session("beam-9-b1", "2024/03/15 (Fri) 00:00", (Message("user", "hi"),)),),
                (ie, abst))
    judge = make_judge("deterministic")

    async def score(q: Question, answer: str) -> dict:
        return await SUITE.scorer.score({"question_id": q.question_id, "kind": "beam", "hypothesis": answer}, case, judge)

    right, wrong = await score(ie, "The launch is on March 29."), await score(ie, "Sometime in June.")
    assert (right["beam"]["score"], right["label"]) == (1.0, True)
    assert (wrong["beam"]["score"], wrong["label"]) == (0.0, False)
    assert right["grade"]["judge"] == "deterministic" and right["grade"]["template"] is None
    assert right["grade"]["tokens"] == {"input": 0, "output": 0}  # no model, no tokens
    assert (right.get("tokens") or {}).get("eval", {"input": 0, "output": 0}) == {"input": 0, "output": 0}
    abstained = await score(abst, "I don't know - there is no information about that.")
    assert abstained["beam"]["score"] == 1.0 and abstained["label"] is True
    assert (await score(abst, "Your manager is Dana."))["beam"]["score"] == 0.0
