"""The strict LoCoMo judge: its parser, its routing, and score() through a real ChatOpenAI against a
local OpenAI-compatible server (the HTTP wire is the only thing faked), plus the deterministic path."""

from __future__ import annotations

import pytest
from langchain_openai import ChatOpenAI

from benchmarker.datasets.schema import Case, Question
from benchmarker.registry import suite_of_record
from benchmarker.scoring.judge import choose_prompt, judge_answer, parse_label
from benchmarker.scoring.judges import DeterministicGrader, LLMJudge
from benchmarker.suites.locomo.data import NOT_MENTIONED
from benchmarker.score import score
from tests.scoring.fake_judge_server import FakeJudgeServer

TRAP = "self-care is important"


def chat(server: FakeJudgeServer) -> ChatOpenAI:
    return ChatOpenAI(model="judge-model", base_url=server.base_url, api_key="dummy",
                      use_responses_api=False, max_retries=0, temperature=0.0)


def question(n: int, category: int, answer: str) -> Question:
    names = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
    qid = f"conv-26-q{n:03d}" + ("_abs" if category == 5 else "")
    return Question(qid, names[category], f"Question {n}?", answer, category=str(category),
                    rubric={"adversarial_answer": TRAP} if category == 5 else {},
                    evidence={"dia_ids": ["D1:3"]})


CASE = Case("conv-26", "locomo", (), (question(1, 4, "3"), question(2, 5, NOT_MENTIONED),
                                      question(3, 1, "Sweden, Norway"), question(4, 2, "7 May 2023")))


def answer(q: Question, hypothesis: str) -> dict:
    """An answers line as the QA phase writes it for LoCoMo."""
    return {"case_id": "conv-26", "question_id": q.question_id, "question_type": q.question_type, "kind": "locomo",
            "category": q.category, "question": q.question, "answer": q.answer, "hypothesis": hypothesis,
            "question_date": "2023/05/08 (Mon) 13:56", "answer_session_ids": ["session_1"],
            "evidence_turns": [["session_1", 2]], "is_abstention": q.is_abstention}


@pytest.mark.parametrize("text,expected", [
    ('{"label": "CORRECT", "reason": "same number"}', True),
    ('{"label": "WRONG", "reason": "different city"}', False),
    ('```json\n{"label": "WRONG", "reason": "x"}\n```', False),
    ('Reasoning first.\n{"label": "CORRECT"}', True),
    ('{"verdict": {"label": "correct"}}', True),
    ("CORRECT", True), ("**WRONG**", False), ("Correct.", True), ("CORRECT\nIt names Paris.", True),
    ("<think>maybe WRONG</think>CORRECT", True),
    # never by substring: each of these contains "correct" and none is a label
    ("INCORRECT", None), ("incorrect.", None), ("not correct", None), ("Not CORRECT", None),
    ("CORRECT? no", None), ("Label: CORRECT", None), ("The answer is CORRECT", None),
    ("It is partially correct", None), ("CORRECT\nOn second thought, WRONG", None),
    ("", None), ("   ", None), ("yes", None),
])
def test_parse_label_is_strict(text, expected):
    assert parse_label(text) is expected


@pytest.mark.parametrize("text", ['{"label": "INCORRECT"}', '{"label": "not correct"}', '{"label": true}',
                                  '{"label": "CORRECT"} {"label": "WRONG"}'])
def test_a_bad_json_label_is_a_problem_not_a_verdict(text):
    with pytest.raises(ValueError, match="CORRECT or WRONG"):  # the judge asks again, then leaves it unjudged
        parse_label(text)


@pytest.mark.parametrize("qtype,qid,kind,template", [
    ("single-hop", "conv-26-q001", "locomo", "judge_locomo"),
    ("temporal", "conv-26-q004", "locomo", "judge_locomo"),
    ("adversarial", "conv-26-q002_abs", "locomo", "judge_locomo_adversarial"),
    ("temporal-reasoning", "q1", "longmemeval", "judge_temporal"),  # LongMemEval routing unchanged
    ("temporal-reasoning", "q1_abs", "longmemeval", "judge_abstention"),
    ("temporal", "q1", "longmemeval", "judge_base"),
])
def test_choose_prompt_routes_locomo_by_kind(qtype, qid, kind, template):
    name, text = choose_prompt(qtype, qid, suite_of_record(kind).scorer.judge_template(qtype, qid.endswith("_abs")))
    assert name == template and "{question}" in text and "{hypothesis}" in text


async def test_score_locomo_with_the_llm_judge():
    q1, q2 = CASE.questions[0], CASE.questions[1]
    with FakeJudgeServer(['{"label": "CORRECT", "reason": "3 = three"}',
                          '{"label": "WRONG", "reason": "asserted the trap"}']) as server:
        judge = LLMJudge(model=chat(server))
        right = await score(answer(q1, "She has three kids."), CASE, judge)
        trapped = await score(answer(q2, "She realized self-care is important."), CASE, judge)
    assert right.label is True and right.grade["template"] == "judge_locomo"
    assert right.grade["reason"] == "judge replied CORRECT" and right.tokens["eval"] == {"input": 50, "output": 1}
    assert right.locomo == {"category": "4", "category_name": "single-hop", "f1": 0.0, "bleu1": 0.0}
    assert trapped.label is False and trapped.grade["template"] == "judge_locomo_adversarial"
    assert trapped.locomo["f1"] is None and trapped.locomo["adversarial_answer"] == TRAP
    first, second = server.prompts()
    assert "Question type: single-hop" in first and "Reference answer: 3" in first and "three kids" in first
    assert '{"label": "CORRECT"' in first and "{{" not in first
    assert TRAP in second and "CANNOT be answered" in second and "Reference answer" not in second
    assert all(r["temperature"] == 0 for r in server.requests)


async def test_incorrect_is_never_counted_correct():
    q1 = CASE.questions[0]
    with FakeJudgeServer(["INCORRECT", '{"label": "INCORRECT"}', "not correct"]) as server:
        verdict = await score(answer(q1, "She has two kids."), CASE, LLMJudge(model=chat(server), retries=2))
    assert verdict.label is None and verdict.grade["unjudged"] and verdict.grade["attempts"] == 3
    assert "unjudged after 3 attempts" in verdict.grade["reason"]
    with FakeJudgeServer(["INCORRECT", '{"label": "WRONG"}']) as server:
        verdict = await judge_answer(chat(server), answer(q1, "two"), retries=3, template="judge_locomo")
    assert verdict.label is False and verdict.attempts == 2


async def test_score_locomo_deterministic():
    q1, q2, q3, q4 = CASE.questions
    judge = DeterministicGrader()
    assert (await score(answer(q1, "She has three kids."), CASE, judge)).label is True  # number words -> digits
    assert (await score(answer(q1, "She has 13 kids."), CASE, judge)).label is False  # "3" is not in "13"
    assert (await score(answer(q2, "That was never mentioned in the conversation."), CASE, judge)).label is True
    hedged = await score(answer(q2, "I'm not sure, but probably that self-care is important."), CASE, judge)
    assert hedged.label is False and hedged.locomo["adversarial_answer"] == TRAP
    both = await score(answer(q3, "Norway and Sweden."), CASE, judge)
    assert both.label is True and both.locomo["f1"] == pytest.approx(2 / 3, abs=1e-4)
    assert (await score(answer(q3, "Sweden."), CASE, judge)).label is False  # half a list is not the answer
    dated = await score(answer(q4, "On 7 May 2023."), CASE, judge)
    assert dated.label is True and dated.grade["judge"] == "deterministic" and dated.autoeval_label["label"] is True
