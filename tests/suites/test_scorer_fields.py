"""A judge's grade as typed results keys (`Judge.results_fields`, which every suite scorer uses), byte for byte and
key order included, as results.jsonl held them before `Scorer.score` returned a `ResultLine` (pinned from that code)."""

from __future__ import annotations

import json

import pytest

from benchmarker.log.lines import ResultLine
from benchmarker.scoring.grade import Grade, GradeTokens
from benchmarker.scoring.judges import DeterministicGrader, Judge, LLMJudge, with_eval_tokens
from benchmarker.suites.scorer import judge_grade

ANSWER: ResultLine = {"question_id": "q1", "question_type": "single-session-user", "answer": "3",
                      "hypothesis": "three", "tokens": {"qa": {"input": 500, "output": 20}}}
GRADES = [Grade(label=True, judge="llm", model="m", reason="judge replied yes", tokens=GradeTokens(input=50, output=1),
                template="judge_base", reply="yes", attempts=2),
          Grade(label=None, judge="llm", model="m", reason="judge call failed", error="timeout"),
          Grade(label=False, judge="deterministic", reason="no match", score=0.0)]


GRADE_KEYS = [  # each grade's label, autoeval_label and grade keys, as written
    '"label": true, "autoeval_label": {"model": "m", "label": true}, "grade": {"judge": "llm", "model": "m", '
    '"reason": "judge replied yes", "attempts": 2, "unjudged": false, "template": "judge_base", "reply": "yes", '
    '"score": null, "tokens": {"input": 50, "output": 1}}',
    '"label": null, "autoeval_label": null, "grade": {"judge": "llm", "model": "m", "reason": "judge call failed", '
    '"attempts": 1, "unjudged": true, "template": null, "reply": null, "score": null, "tokens": {"input": 0, '
    '"output": 0}, "judge_error": "timeout"}',
    '"label": false, "autoeval_label": {"model": "deterministic", "label": false}, "grade": {"judge": '
    '"deterministic", "model": null, "reason": "no match", "attempts": 1, "unjudged": false, "template": null, '
    '"reply": null, "score": 0.0, "tokens": {"input": 0, "output": 0}}',
]
EVAL_TOKENS = ['{"qa": {"input": 500, "output": 20}, "eval": {"input": 50, "output": 1}}',
               '{"qa": {"input": 500, "output": 20}, "eval": {"input": 0, "output": 0}}',
               '{"qa": {"input": 500, "output": 20}, "eval": {"input": 0, "output": 0}}']


@pytest.mark.parametrize("index", range(3), ids=["judged", "failed", "grader"])
def test_a_model_judges_grade_is_its_keys_then_the_answers_tokens_with_the_judges_under_eval(index: int) -> None:
    fields = LLMJudge(model="a chat model").results_fields(ANSWER, GRADES[index])
    assert json.dumps(fields) == "{" + GRADE_KEYS[index] + ', "tokens": ' + EVAL_TOKENS[index] + "}"


@pytest.mark.parametrize("index", range(3), ids=["judged", "failed", "grader"])
def test_the_grader_bills_no_tokens_its_keys_are_the_grades_alone(index: int) -> None:
    judge: Judge = DeterministicGrader()
    assert json.dumps(judge.results_fields(ANSWER, GRADES[index])) == "{" + GRADE_KEYS[index] + "}"


@pytest.mark.parametrize("index", range(3), ids=["judged", "failed", "grader"])
def test_the_judges_tokens_join_the_answers_under_eval(index: int) -> None:
    assert json.dumps(with_eval_tokens(ANSWER, GRADES[index])) == EVAL_TOKENS[index]
    assert ANSWER["tokens"] == {"qa": {"input": 500, "output": 20}}   # the answer line itself is left as it was


async def test_the_default_scorer_grades_with_the_judge_and_bills_a_grader_nothing() -> None:
    fields = await judge_grade(ANSWER, None, DeterministicGrader())
    assert list(fields) == ["label", "autoeval_label", "grade"]
    assert fields["grade"]["judge"] == "deterministic" and isinstance(fields["label"], bool)
