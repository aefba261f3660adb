"""A suite scorer's typed results keys (suites/scorer.py) are the judges' own, byte for byte, key order included:
`Scorer.score` returns a `ResultLine`, and results.jsonl must not change a byte for it."""

from __future__ import annotations

import json

import pytest

from benchmarker.log.lines import ResultLine
from benchmarker.scoring.grade import Grade, GradeTokens
from benchmarker.scoring.judges import DeterministicGrader, Judge, LLMJudge, with_eval_tokens
from benchmarker.suites.scorer import judge_grade, judged_fields, with_judge_tokens

ANSWER: ResultLine = {"question_id": "q1", "question_type": "single-session-user", "answer": "3",
                      "hypothesis": "three", "tokens": {"qa": {"input": 500, "output": 20}}}
GRADES = [Grade(label=True, judge="llm", model="m", reason="judge replied yes", tokens=GradeTokens(input=50, output=1),
                template="judge_base", reply="yes", attempts=2),
          Grade(label=None, judge="llm", model="m", reason="judge call failed", error="timeout"),
          Grade(label=False, judge="deterministic", reason="no match", score=0.0)]


@pytest.mark.parametrize("judge", [LLMJudge(model="a chat model"), DeterministicGrader()], ids=["model", "grader"])
@pytest.mark.parametrize("grade", GRADES, ids=["judged", "failed", "grader"])
def test_a_judges_grade_as_typed_keys_is_its_results_fields_byte_for_byte(judge: Judge, grade: Grade) -> None:
    assert json.dumps(judged_fields(ANSWER, grade, judge)) == json.dumps(judge.results_fields(ANSWER, grade))


@pytest.mark.parametrize("grade", GRADES, ids=["judged", "failed", "grader"])
def test_the_judges_tokens_join_the_answers_under_eval_as_with_eval_tokens_adds_them(grade: Grade) -> None:
    fields = grade.result_fields()
    fields["beam"] = {"score": 0.5}
    fields["tokens"] = with_judge_tokens(ANSWER, grade)
    assert json.dumps(fields) == json.dumps(with_eval_tokens(ANSWER, grade, {"beam": {"score": 0.5}}))
    assert ANSWER["tokens"] == {"qa": {"input": 500, "output": 20}}   # the answer line itself is left as it was


async def test_the_default_scorer_grades_with_the_judge_and_bills_a_grader_nothing() -> None:
    fields = await judge_grade(ANSWER, None, DeterministicGrader())
    assert list(fields) == ["label", "autoeval_label", "grade"]
    assert fields["grade"]["judge"] == "deterministic" and isinstance(fields["label"], bool)
