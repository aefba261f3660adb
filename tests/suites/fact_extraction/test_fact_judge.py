"""The LLM fact-enumeration judge against a scripted chat model."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from benchmarker.suites.fact_extraction.data import fact_case_to_case, load_fact_cases
from benchmarker.suites.fact_extraction.fact_judge import (
    JudgeReplyError,
    format_extracted_output,
    judge_facts,
    judged_case_score,
    parse_judge_reply,
    render_fact_judge_prompt,
)
from benchmarker.suites.fact_extraction.facts import summarize_fact_scores

CASES = {c.id: c for c in load_fact_cases()}
FC = CASES["conflict_resolution_01"]
GOOD = {
    "conversation_facts": ["budget: $4,500", "person: sister joins the trip"],
    "extracted_facts": ["budget: $4,500", "hotel: beach hotel"],
    "missed_facts": ["person: sister joins the trip"],
    "hallucinated_facts": ["hotel: beach hotel"],
}


class ScriptedChat(BaseChatModel):
    """Replies from a script, one per call (the last one repeats); an Exception item is raised."""

    script: list[Any]
    prompts: list[str] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        self.prompts.append(messages[-1].content)
        item = self.script[min(len(self.prompts), len(self.script)) - 1]
        if isinstance(item, Exception):
            raise item
        usage = {"input_tokens": 100, "output_tokens": 10, "total_tokens": 110}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=item, usage_metadata=usage))])


async def test_judged_reply_is_counted_in_code():
    model = ScriptedChat(script=[json.dumps(GOOD)])
    result = await judge_facts(model, FC, "- Budget $4,500\n- Beach hotel")
    assert result.status == "judged" and result.attempts == 1
    assert result.counts == (1, 1, 1)
    assert result.scores == (0.5, 0.5, 0.5)
    assert (result.input_tokens, result.output_tokens, result.total_tokens) == (100, 10, 110)
    assert result.to_dict()["precision"] == 0.5


@pytest.mark.parametrize("reply", [
    "```json\n" + json.dumps(GOOD, indent=2) + "\n```",
    "Here is my audit:\n```\n" + json.dumps(GOOD) + "\n```\nLet me know if you need more.",
    "Sure. " + json.dumps(GOOD) + "\n\nNote: the sister fact {was} missed.",
    json.dumps({"audit": GOOD}),
    [{"type": "text", "text": json.dumps(GOOD)}],
])
async def test_reply_shapes_that_parse(reply):
    result = await judge_facts(ScriptedChat(script=[reply]), FC, "- Budget $4,500")
    assert result.judged and result.counts == (1, 1, 1)


@pytest.mark.parametrize("reply, reason", [
    ("I think the extraction looks fine.", "no JSON object"),
    ('{"conversation_facts": [], "extracted_facts": []}', "lacks missed_facts, hallucinated_facts"),
    (json.dumps(GOOD | {"missed_facts": "sister"}), "'missed_facts' is str, not a list"),
    (json.dumps(GOOD | {"extracted_facts": [{"fact": "x"}]}), "holds a dict"),
    (json.dumps(GOOD | {"hallucinated_facts": ["a", "b", "c"]}), "more hallucinated_facts than extracted_facts"),
    ('```json\n{"conversation_facts": [1,]}\n```', "no JSON object"),
])
def test_malformed_replies_are_rejected_with_a_reason(reply, reason):
    with pytest.raises(JudgeReplyError, match=reason):
        parse_judge_reply(reply)


async def test_malformed_reply_is_retried_with_the_reason():
    model = ScriptedChat(script=["no idea", json.dumps(GOOD)])
    result = await judge_facts(model, FC, "- Budget $4,500")
    assert result.judged and result.attempts == 2
    assert result.total_tokens == 220
    assert "could not be used (no JSON object in the reply)" in model.prompts[1]


async def test_always_malformed_is_unjudged_not_zero():
    model = ScriptedChat(script=["nope"])
    result = await judge_facts(model, FC, "- Budget $4,500", retries=2)
    assert result.status == "unjudged" and result.attempts == 3 and len(model.prompts) == 3
    assert result.scores is None and "no JSON object" in result.error
    score = judged_case_score(FC, ["Budget $4,500"], result)
    assert score.judged is False and score.precision is None and score.method == "llm"
    good = judged_case_score(CASES["append_02"], ["MVP includes CSV export"], await judge_facts(
        ScriptedChat(script=[json.dumps({k: [] for k in GOOD} | {"conversation_facts": ["scope: CSV export"],
                                                                 "extracted_facts": ["scope: CSV export"]})]),
        CASES["append_02"], "- MVP includes CSV export"))
    summary = summarize_fact_scores([score, good])
    assert summary["unjudged"] == [FC.id]
    assert summary["macro"]["f1"] == 1.0 and summary["macro"]["cases"] == 1


async def test_a_model_error_ends_the_judging_unjudged():
    # The model wrapper already retried transport errors: the judge does not ask again (judge_policy.py).
    model = ScriptedChat(script=[RuntimeError("429 Too Many Requests"), json.dumps(GOOD)])
    result = await judge_facts(model, FC, "- Budget $4,500")
    assert result.status == "unjudged" and result.attempts == 1 and len(model.prompts) == 1
    assert "RuntimeError: 429 Too Many Requests" in result.error and result.scores is None


async def test_judge_accepts_a_harness_case():
    model = ScriptedChat(script=[json.dumps(GOOD)])
    result = await judge_facts(model, fact_case_to_case(FC), "- Budget $4,500")
    assert result.case_id == FC.id and result.judged


def test_prompt_holds_the_three_inputs_and_survives_braces():
    fc = CASES["non_agreement_02"]
    out = format_extracted_output(["User wants a cooking class in Lisbon", "weird {extracted_output} text"])
    prompt = render_fact_judge_prompt(fc, out)
    assert "ASSISTANT: Would you like to add a day trip to Sintra?" in prompt
    assert "USER: Hmm, maybe, not sure yet." in prompt
    assert "- User is visiting Lisbon in May" in prompt
    assert "- weird {extracted_output} text" in prompt
    assert '"hallucinated_facts"' in prompt and "{conversation_text}" not in prompt
    empty = render_fact_judge_prompt(CASES["simple_extraction_01"], "")
    assert "(empty)" in empty and "(nothing was written)" in empty


async def test_judged_case_score_keeps_deterministic_conflict_check():
    model = ScriptedChat(script=[json.dumps(GOOD)])
    result = await judge_facts(model, FC, "- Budget $4,500")
    stale_context = ["Trip budget is $3,000", "Trip budget is $4,500"]
    score = judged_case_score(FC, ["Trip budget is $4,500"], result, context_facts=stale_context)
    assert (score.tp, score.fp, score.fn, score.method) == (1, 1, 1, "llm")
    assert score.conflict_resolved is False
    assert score.details["judge"]["status"] == "judged"
