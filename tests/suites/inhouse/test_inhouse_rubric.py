"""Rubric grading: matching traps, dimensions, hybrid grading with and without a judge model."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from benchmarker.datasets.schema import Question
from benchmarker.scoring.abstention import has_abstention_phrase as is_abstention
from benchmarker.scoring.normalize import matches
from benchmarker.scoring.normalize import token_texts as tokens
from benchmarker.scoring.rubric import LLM_DIMENSIONS, grade_answer, grade_answer_deterministic
from benchmarker.scoring.rubric_facts import factual_accuracy
from benchmarker.scoring.rubric_judge import parse_judge_reply, render_prompt


def q(answer: str, **rubric: Any) -> Question:
    return Question("t-1", "test", "How many times?", answer, "2024/05/01 (Wed) 10:00", rubric=rubric)


# ---- matching traps
def test_two_never_matches_twelve():
    assert not matches("It happened 12 times.", "2 times")
    assert factual_accuracy({"numbers": [2]}, "12 times")[0] == 0.0
    assert factual_accuracy({"numbers": [2]}, "2 times")[0] == 1.0
    assert factual_accuracy({"numbers": [12]}, "twelve times")[0] == 1.0


def test_no_never_matches_know():
    assert not matches("I don't know", "no")
    assert factual_accuracy({"required": ["no"]}, "I don't know")[0] == 0.0
    assert factual_accuracy({"required": ["no"]}, "No, it was cancelled")[0] == 1.0
    assert factual_accuracy({"yes_no": "no", "required": []}, "I don't know")[0] == 0.0


@pytest.mark.parametrize("answer,phrase", [
    ("about 1,200 users", "1200"), ("$45,000", "45000"), ("45k a year", "45,000"), ("1.5 million", "1500000"),
    ("twenty-one", "21"), ("one hundred and five", "105"), ("March 3, 2024", "2024-03-03"),
    ("3rd of March 2024", "2024-03-03"), ("on 2024/03/03", "March 3, 2024"), ("12%", "12 percent"),
    ("host db-07", "db-07"), ("from 203.0.113.45", "203.0.113.45"), ("three incidents", "3 incidents"),
])
def test_equivalent_forms_match(answer, phrase):
    assert matches(answer, phrase)


@pytest.mark.parametrize("answer,phrase", [
    ("from 203.0.113.45", "203.0.113.4"), ("2024-03-13", "2024-03-03"), ("1,200", "120"), ("v2", "2"),
    ("knowledge", "no"), ("Cobalt team", "Cobalt Blue"),
])
def test_near_misses_do_not_match(answer, phrase):
    assert not matches(answer, phrase)


@given(st.integers(min_value=0, max_value=10**7), st.integers(min_value=0, max_value=10**7))
def test_numbers_match_only_themselves(a, b):
    assert matches(f"the value is {a:,} today", str(b)) == (a == b)


def test_identifier_digits_are_not_numbers():
    assert factual_accuracy({"numbers": [4]}, "New incident INC-4020 on api-04 lasted 71 minutes")[0] == 0.0
    assert factual_accuracy({"numbers": [4]}, "api-04 was involved 4 times")[0] == 1.0
    assert matches("first INC-4821, then SEC-1200", "SEC-1200") and not matches("SEC-1200", "1200")


def test_abstention_detection():
    for text in ["I don't know.", "That was never mentioned.", "It isn't stated anywhere.", "No information about that.",
                 "I can't find that in my memory.", "Not confirmed yet.", "That hasn't been decided."]:
        assert is_abstention(text), text
    for text in ["No, it shipped.", "The knowledge base says 12.", "Known issue: disk full.", "It is 42."]:
        assert not is_abstention(text), text


def test_stale_values_need_a_marker():
    rub = {"required": ["Lisbon"], "stale": ["Porto"]}
    assert factual_accuracy(rub, "Lisbon")[0] == 1.0
    assert factual_accuracy(rub, "Lisbon, previously Porto")[0] == 1.0
    assert factual_accuracy(rub, "It was Porto, now it's Lisbon")[0] == 1.0
    assert factual_accuracy(rub, "Lisbon or Porto")[0] == 0.5
    assert factual_accuracy(rub, "Porto")[0] == 0.0


def test_forbidden_distractors_and_sequences():
    assert factual_accuracy({"required": ["Biscuit"], "forbidden": ["Pepper"]}, "Biscuit or Pepper")[0] == 0.5
    assert factual_accuracy({"required": ["Biscuit"], "forbidden": ["Pepper"]}, "Biscuit, not Pepper")[0] == 1.0
    seq = {"required": ["INC-1", "INC-2"], "sequence": ["INC-1", "INC-2"]}
    assert factual_accuracy(seq, "INC-1, then INC-2")[0] == 1.0
    assert factual_accuracy(seq, "INC-2, then INC-1")[0] == 0.0


def test_a_rubric_with_nothing_to_check_never_gives_credit():
    assert factual_accuracy({"required": [], "forbidden": ["x"]}, "anything at all")[0] == 0.0


def test_abstention_questions():
    rub = {"abstain": True, "forbidden": ["Trattoria Verde"]}
    assert factual_accuracy(rub, "That was never mentioned.")[0] == 1.0
    assert factual_accuracy(rub, "Trattoria Verde")[0] == 0.0
    assert factual_accuracy(rub, "Not mentioned, but probably Trattoria Verde")[0] == 0.5
    assert factual_accuracy(rub, "Only the first night (Trattoria Verde) was mentioned; the second night was not mentioned.")[0] == 1.0


# ---- grade_answer without a judge
def test_deterministic_grade_marks_llm_dimensions_ungraded():
    question = q("12 times", numbers=[12])
    grade = grade_answer_deterministic(question, "12 times")
    assert grade.scores["factual_accuracy"] == 1.0 and grade.scores["specificity"] == 1.0
    assert grade.graded_dimensions == ["factual_accuracy", "specificity"]
    assert grade.ungraded_dimensions == list(LLM_DIMENSIONS)
    assert all(grade.scores[d] is None for d in LLM_DIMENSIONS)
    assert grade.overall == 1.0 and grade.overall_covers == ["factual_accuracy", "specificity"]
    assert grade.judge is None and "no judge" in grade.reasons["temporal_awareness"]
    assert grade_answer_deterministic(question, "2 times").overall == 0.0


async def test_async_grade_without_judge_is_the_deterministic_grade():
    question = q("12 times", numbers=[12])
    grade = await grade_answer(question, "12 times")
    assert grade.to_dict() == grade_answer_deterministic(question, "12 times").to_dict()


# ---- grade_answer with a scripted judge
class ScriptedJudge(BaseChatModel):
    """Replies with the scripted texts in call order (the last one repeats)."""

    replies: list[str]
    prompts: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-judge"

    def _reply(self, messages) -> ChatResult:
        self.prompts.append(str(messages[-1].content))
        text = self.replies[min(len(self.prompts), len(self.replies)) - 1]
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        return self._reply(messages)

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        return self._reply(messages)


async def test_judge_votes_are_kept_and_the_median_taken():
    judge = ScriptedJudge(replies=["I think it is fine", '{"score": 0.2, "reason": "a"}',
                                   'Sure! ```json\n{"score": 0.9, "reason": "b"}\n```', '{"score": 0.6}'])
    question = q("12 times", numbers=[12], stale=["10"])
    grade = await grade_answer(question, "12 times", judge_model=judge, votes=3,
                               dimensions=["factual_accuracy", "temporal_awareness"])
    votes = grade.votes["temporal_awareness"]
    assert len(votes) == 3 and len(judge.prompts) == 4
    assert sorted(v["score"] for v in votes) == [0.2, 0.6, 0.9]
    assert sorted(v["attempts"] for v in votes) == [1, 1, 2]
    assert grade.scores["temporal_awareness"] == 0.6
    assert grade.graded_dimensions == ["factual_accuracy", "temporal_awareness"]
    assert grade.judge == "ScriptedJudge"
    assert grade.overall == pytest.approx((0.5 * 1.0 + 0.15 * 0.6) / 0.65)
    assert "How many times?" in judge.prompts[0] and "12 times" in judge.prompts[0]


async def test_unparsable_judge_is_ungraded_not_zero():
    judge = ScriptedJudge(replies=["no json here", '{"score": 7}', '{"reason": "missing score"}'])
    question = q("12 times", numbers=[12])
    grade = await grade_answer(question, "12 times", judge_model=judge, votes=2, retries=1,
                               dimensions=["factual_accuracy", "confidence_calibration"])
    assert grade.scores["confidence_calibration"] is None
    assert grade.ungraded_dimensions == ["confidence_calibration"]
    assert all(v["unparsable"] and v["score"] is None for v in grade.votes["confidence_calibration"])
    assert grade.overall == 1.0 and grade.overall_covers == ["factual_accuracy"]
    assert "unparsable" in grade.reasons["confidence_calibration"]


def test_parse_judge_reply():
    assert parse_judge_reply('{"score": 1, "reason": "ok"}') == {"score": 1.0, "reason": "ok"}
    assert parse_judge_reply('prefix {"score": "0.5"} suffix') == {"score": 0.5, "reason": ""}
    assert parse_judge_reply('{"score": 1.5}') is None
    assert parse_judge_reply("score: 0.5") is None


def test_prompts_exist_and_render():
    question = q("12 times", numbers=[12])
    for dim in LLM_DIMENSIONS:
        text = render_prompt(dim, question, "twelve")
        assert "How many times?" in text and "twelve" in text and '"score"' in text
        assert not any(f"${name}" in text for name in ("question", "answer", "gold_answer", "rubric", "question_date"))


def test_unknown_dimension_is_an_error():
    with pytest.raises(ValueError, match="unknown rubric dimension"):
        grade_answer_deterministic(q("x", required=["x"]), "x", dimensions=["vibes"])


def test_tokens_are_canonical():
    assert tokens("It's 1,200 USD on March 3, 2024") == ["it", "1200", "dollar", "on", "date:2024-03-03"]


def test_question_without_rubric_uses_the_gold_answer():
    question = Question("x", "t", "Where?", "Lisbon")
    assert grade_answer_deterministic(question, "It is Lisbon").overall == 1.0
    assert grade_answer_deterministic(question, "Porto").overall == 0.0
