"""The one judge retry policy (judge_policy.py) as the yes/no judge, the fact judge and the
rubric's LLM dimensions apply it: re-ask only an unusable reply, stop at a model error."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage

from benchmarker.agent.retry import RetryingModel, RetryPolicy
from benchmarker.datasets.schema import Question
from benchmarker.scoring.judge import judge_answer
from benchmarker.scoring.judge_policy import ask_until_parsed
from benchmarker.scoring.rubric import LLM_DIMENSIONS, grade_answer
from benchmarker.suites.fact_extraction.data import load_fact_cases
from benchmarker.suites.fact_extraction.fact_judge import judge_facts

RECORD = {"question_type": "multi-session", "question_id": "m1", "question": "How many?", "answer": "3",
          "hypothesis": "three"}
FACT_CASE = load_fact_cases()[0]
QUESTION = Question("t-1", "test", "How many times?", "12 times", "2024/05/01 (Wed) 10:00", rubric={"numbers": [12]})


class ServerError(Exception):
    """What a provider raises on a 503: the model wrapper retries it, the judge must not."""

    status_code = 503


class CountingModel:
    """A chat model that always raises `error`, or always replies `reply`; it counts its calls."""

    def __init__(self, reply: str = "", error: Exception | None = None):
        self.reply, self.error, self.calls = reply, error, 0

    async def ainvoke(self, messages, **_):
        self.calls += 1
        if self.error is not None:
            raise self.error
        return AIMessage(content=self.reply, usage_metadata={"input_tokens": 10, "output_tokens": 2, "total_tokens": 12})


async def test_ask_until_parsed_counts_tokens_and_says_why():
    model = CountingModel(reply="maybe")
    got = await ask_until_parsed(lambda _: model.ainvoke([]), lambda text: None, retries=2)
    assert (got.value, got.attempts, got.failed, model.calls) == (None, 3, False, 3)
    assert got.error == "unparsable judge reply 'maybe'" and got.reply == "maybe"
    assert (got.input_tokens, got.output_tokens, got.total_tokens) == (30, 6, 36)

    def parse(text: str) -> int:
        raise ValueError("no number in the reply")

    problems: list[str] = []

    async def call(problem: str):
        problems.append(problem)
        return await model.ainvoke([])

    got = await ask_until_parsed(call, parse, retries=1)
    assert problems == ["", "no number in the reply"] and got.error == "no number in the reply"


async def test_a_model_that_always_raises_is_called_once_per_judged_answer():
    model = CountingModel(error=RuntimeError("connection reset"))
    verdict = await judge_answer(model, RECORD, retries=3)
    assert model.calls == 1 and verdict.label is None and verdict.attempts == 1
    assert verdict.reason == "unjudged: judge call failed: RuntimeError: connection reset"
    assert verdict.line_fields()["grade"]["unjudged"] is True and verdict.line_fields()["autoeval_label"] is None

    model = CountingModel(error=RuntimeError("connection reset"))
    facts = await judge_facts(model, FACT_CASE, "- a fact", retries=3)
    assert model.calls == 1 and facts.status == "unjudged" and "connection reset" in facts.error

    model = CountingModel(error=RuntimeError("connection reset"))
    grade = await grade_answer(QUESTION, "12 times", judge_model=model, votes=2, retries=3)
    assert model.calls == 2 * len(LLM_DIMENSIONS)  # one call per vote, none repeated
    assert grade.ungraded_dimensions == list(LLM_DIMENSIONS) and grade.overall == 1.0
    assert all(v["unparsable"] is False and v["attempts"] == 1 for v in grade.votes["temporal_awareness"])
    assert grade.reasons["temporal_awareness"] == "not graded: judge call failed: RuntimeError: connection reset"


@pytest.mark.parametrize("retries", [0, 2])
async def test_unparsable_replies_are_asked_one_plus_retries_times(retries):
    model = CountingModel(reply="It depends.")
    verdict = await judge_answer(model, RECORD, retries=retries)
    assert model.calls == 1 + retries and verdict.label is None and verdict.attempts == 1 + retries
    assert verdict.reason == f"unjudged after {1 + retries} attempts: unparsable judge reply 'It depends.'"

    model = CountingModel(reply="no JSON here")
    facts = await judge_facts(model, FACT_CASE, "- a fact", retries=retries)
    assert model.calls == 1 + retries and facts.attempts == 1 + retries and facts.error == "no JSON object in the reply"

    model = CountingModel(reply='{"score": 7}')
    grade = await grade_answer(QUESTION, "12 times", judge_model=model, votes=1, retries=retries,
                               dimensions=["factual_accuracy", "temporal_awareness"])
    assert model.calls == 1 + retries and grade.scores["temporal_awareness"] is None
    assert grade.votes["temporal_awareness"][0]["unparsable"] is True


async def test_transport_errors_are_retried_by_the_wrapper_only():
    inner = CountingModel(error=ServerError("HTTP 503"))
    policy = RetryPolicy(max_attempts=3, initial_backoff_s=0.001, max_backoff_s=0.001)
    model = RetryingModel(inner, policy=policy, ledger=None, role="judge", model_id="judge-model")
    verdict = await judge_answer(model, RECORD, retries=3)
    assert inner.calls == 3  # the wrapper's 3 attempts, not 3 x (1 + 3 judge retries)
    assert verdict.label is None and verdict.attempts == 1 and verdict.model == "judge-model"


async def test_a_usable_reply_after_an_unusable_one():
    replies = iter(["", json.dumps({"score": 0.5, "reason": "ok"})])

    class TwoReplies(CountingModel):
        async def ainvoke(self, messages, **_):
            self.calls += 1
            return AIMessage(content=next(replies))

    model = TwoReplies()
    grade = await grade_answer(QUESTION, "12 times", judge_model=model, retries=1,
                               dimensions=["factual_accuracy", "source_attribution"])
    assert model.calls == 2 and grade.scores["source_attribution"] == 0.5
    assert grade.votes["source_attribution"][0]["attempts"] == 2
