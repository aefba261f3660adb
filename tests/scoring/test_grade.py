"""`Grade` writes the results line's grading keys byte for byte as the dict builder before it did, and
reads them back from any results line, older and shorter ones included."""

from __future__ import annotations

import json
from typing import Any

import pytest

from benchmarker.scoring.grade import Grade, GradeTokens

SECRET = "sk-abcdefghijklmnopqrstuvwxyz0123456789"

# (the grade, its three results-line keys exactly as `grading_fields` wrote them before `Grade` existed)
TABLE: list[tuple[Grade, dict[str, Any]]] = [
    (Grade(label=True, judge="deterministic", reason="phrase match of '3'", score=1.0),
     {"label": True, "autoeval_label": {"model": "deterministic", "label": True},
      "grade": {"judge": "deterministic", "model": None, "reason": "phrase match of '3'", "attempts": 1,
                "unjudged": False, "template": None, "reply": None, "score": 1.0,
                "tokens": {"input": 0, "output": 0}}}),
    (Grade(label=False, judge="llm", model="gpt-4o-mini", reason="judge replied no", attempts=2,
           tokens=GradeTokens(input=120, output=3), template="judge_base", reply="No."),
     {"label": False, "autoeval_label": {"model": "gpt-4o-mini", "label": False},
      "grade": {"judge": "llm", "model": "gpt-4o-mini", "reason": "judge replied no", "attempts": 2,
                "unjudged": False, "template": "judge_base", "reply": "No.", "score": None,
                "tokens": {"input": 120, "output": 3}}}),
    (Grade(label=None, judge="official", model="judge-model", reason="unjudged: judge call failed: RuntimeError: boom",
           template="official:get_anscheck_prompt", reply="", error="judge call failed: RuntimeError: boom"),
     {"label": None, "autoeval_label": None,
      "grade": {"judge": "official", "model": "judge-model", "reason": "unjudged: judge call failed: RuntimeError: boom",
                "attempts": 1, "unjudged": True, "template": "official:get_anscheck_prompt", "reply": "",
                "score": None, "tokens": {"input": 0, "output": 0},
                "judge_error": "judge call failed: RuntimeError: boom"}}),
    (Grade(label=None, judge="llm", model="m", reason="unjudged after 4 attempts: no yes/no", attempts=4,
           tokens=GradeTokens(input=400, output=40), template="judge_abstention", reply="Maybe.", error=""),
     {"label": None, "autoeval_label": None,
      "grade": {"judge": "llm", "model": "m", "reason": "unjudged after 4 attempts: no yes/no", "attempts": 4,
                "unjudged": True, "template": "judge_abstention", "reply": "Maybe.", "score": None,
                "tokens": {"input": 400, "output": 40}}}),
    (Grade(label=True, judge="llm", model="judge-model", reason="judge replied yes",
           template="judge_temporal", reply=f"Yes. {SECRET} " + "a" * 300),
     {"label": True, "autoeval_label": {"model": "judge-model", "label": True},
      "grade": {"judge": "llm", "model": "judge-model", "reason": "judge replied yes", "attempts": 1,
                "unjudged": False, "template": "judge_temporal", "reply": "Yes. *** " + "a" * 191, "score": None,
                "tokens": {"input": 0, "output": 0}}}),
    (Grade(label=False, judge="deterministic", reason="BEAM deterministic: 3 rubric item(s), score 0.333 (0 judge call(s))",
           score=0.333333),
     {"label": False, "autoeval_label": {"model": "deterministic", "label": False},
      "grade": {"judge": "deterministic", "model": None,
                "reason": "BEAM deterministic: 3 rubric item(s), score 0.333 (0 judge call(s))", "attempts": 1,
                "unjudged": False, "template": None, "reply": None, "score": 0.333333,
                "tokens": {"input": 0, "output": 0}}}),
]


@pytest.mark.parametrize(("grade", "expected"), TABLE)
def test_line_fields_are_the_documented_keys_byte_for_byte(grade: Grade, expected: dict[str, Any]) -> None:
    assert json.dumps(grade.line_fields()) == json.dumps(expected)


@pytest.mark.parametrize(("grade", "expected"), TABLE)
def test_of_line_reads_back_what_line_fields_wrote(grade: Grade, expected: dict[str, Any]) -> None:
    line = {"question_id": "q1", "hypothesis": "h"} | expected
    read = Grade.of_line(line)
    assert json.dumps(read.line_fields()) == json.dumps(expected)
    if grade.reply is None or len(grade.reply) <= 200:  # a long reply is kept masked and cut, not whole
        assert read == grade.model_copy(update={"error": grade.error or None})


def test_of_line_reads_older_and_shorter_lines_with_defaults() -> None:
    rubric = {"label": True, "score": 0.8, "grade": {"judge": "rubric", "reason": "3 of 4", "unjudged": False,
                                                      "covers": ["a"]}}
    assert Grade.of_line(rubric) == Grade(label=True, judge="rubric", reason="3 of 4")
    fact = {"label": None, "grade": {"judge": "llm", "reason": "tp=1 fp=0 fn=1", "unjudged": True,
                                     "judge_error": "judge call failed: timeout"}}
    assert Grade.of_line(fact).error == "judge call failed: timeout" and Grade.of_line(fact).unjudged
    retrieval = {"label": None, "autoeval_label": None,
                 "grade": {"judge": "none", "reason": "retrieval-only run: no answer to judge", "unjudged": False}}
    assert Grade.of_line(retrieval).judge == "none"
    assert Grade.of_line({"question_id": "q1"}) == Grade(label=None, judge="")


def test_of_line_reads_a_damaged_value_as_its_default() -> None:
    line = {"label": "yes", "grade": {"judge": "llm", "attempts": "two", "score": True,
                                      "tokens": {"input": None, "output": "9"}}}
    assert Grade.of_line(line) == Grade(label=None, judge="llm")
    assert Grade.of_line({"label": False, "grade": "not an object"}) == Grade(label=False, judge="")


def test_a_grade_is_frozen_and_refuses_unknown_fields() -> None:
    grade = TABLE[0][0]
    with pytest.raises(ValueError):
        grade.label = False  # type: ignore[misc]
    with pytest.raises(ValueError):
        Grade(label=True, judge="llm", unknown=1)  # type: ignore[call-arg]


def test_a_model_judge_bills_its_tokens_under_eval_and_the_grader_bills_none() -> None:
    from benchmarker.scoring.judges import DeterministicGrader, LLMJudge

    record = {"question_id": "q1", "tokens": {"qa": {"input": 500, "output": 20}}}
    by_model = Grade(label=True, judge="llm", model="m", reason="judge replied yes",
                     tokens=GradeTokens(input=50, output=1))
    fields = LLMJudge(model="a chat model").results_fields(record, by_model)
    assert list(fields) == ["label", "autoeval_label", "grade", "tokens"]
    assert fields["tokens"] == {"qa": {"input": 500, "output": 20}, "eval": {"input": 50, "output": 1}}
    by_grader = TABLE[0][0]
    assert DeterministicGrader().results_fields(record, by_grader) == by_grader.line_fields()
