"""The LLM judge through a real ChatOpenAI against a local OpenAI-compatible server."""

from __future__ import annotations

import pytest
from fake_judge_server import FakeJudgeServer
from langchain_openai import ChatOpenAI

from benchmarker.scoring.judge import choose_prompt, judge_answer, parse_yes_no
from benchmarker.scoring.judges import DeterministicGrader, LLMJudge
from benchmarker.score import score


def chat(server: FakeJudgeServer, temperature: float | None = 0.0) -> ChatOpenAI:
    return ChatOpenAI(model="judge-model", base_url=server.base_url, api_key="dummy",
                      use_responses_api=False, max_retries=0, temperature=temperature)


def record(qtype: str, qid: str, answer: str = "7 days", hypothesis: str = "8 days") -> dict:
    return {"case_id": qid, "question_type": qtype, "question_id": qid, "question": "How many days between A and B?",
            "answer": answer, "hypothesis": hypothesis}


@pytest.mark.parametrize("text,expected", [
    ("yes", True), ("Yes.", True), ("**No**", False), ("Answer: yes", True), ("no", False),
    ("", None), ("   ", None), ("I know", None), ("maybe", None), ("yes and no", None),
    ("<think>no wait</think>Yes", True), ("No. The response says yes to the wrong thing.", False),
])
def test_parse_yes_no(text, expected):
    assert parse_yes_no(text) is expected


@pytest.mark.parametrize("qtype,qid,template", [
    ("single-session-user", "q1", "judge_base"),
    ("single-session-assistant", "q1", "judge_base"),
    ("multi-session", "q1", "judge_base"),
    ("temporal-reasoning", "q1", "judge_temporal"),
    ("knowledge-update", "q1", "judge_knowledge_update"),
    ("single-session-preference", "q1", "judge_preference"),
    ("temporal-reasoning", "q1_abs", "judge_abstention"),
    ("knowledge-update", "q1_abs", "judge_abstention"),
    ("L3", "lvl-q", "judge_base"),
])
def test_choose_prompt_routes_by_type_abstention_first(qtype, qid, template):
    name, text = choose_prompt(qtype, qid)
    assert name == template
    assert "{question}" in text and "{answer}" in text and "{hypothesis}" in text


async def test_each_type_sends_its_prompt_at_temperature_zero():
    cases = [
        (record("temporal-reasoning", "t1"), "off by exactly one"),
        (record("temporal-reasoning", "t1_abs", answer="You never said when."), "CANNOT be answered"),
        (record("knowledge-update", "k1", "Denver", "Denver, previously Chicago"), "older, superseded"),
        (record("single-session-preference", "p1", "The user would prefer Adobe Premiere Pro tips.",
                "Try Premiere's advanced settings."), "Rubric: The user would prefer Adobe Premiere Pro tips."),
        (record("multi-session", "m1", "3", "three"), "only part of what the reference answer requires"),
    ]
    with FakeJudgeServer(["yes"]) as server:
        model = chat(server, temperature=0.7)  # the judge must still send 0
        for rec, _ in cases:
            verdict = await judge_answer(model, rec)
            assert verdict.label is True and verdict.attempts == 1
    prompts = server.prompts()
    for (rec, marker), prompt in zip(cases, prompts):
        assert marker in prompt
        assert rec["hypothesis"] in prompt and rec["question"] in prompt
    assert "off by exactly one" not in prompts[1]  # abstention wins over the temporal type
    assert all(r["temperature"] == 0 for r in server.requests)


async def test_empty_reply_is_retried_then_judged():
    with FakeJudgeServer(["", "Yes"]) as server:
        verdict = await judge_answer(chat(server), record("multi-session", "m1"), retries=3)
    assert verdict.label is True and not verdict.unjudged
    assert verdict.attempts == 2 and len(server.requests) == 2
    assert verdict.tokens.input == 100 and verdict.tokens.output == 2  # usage summed over both calls
    fields = verdict.line_fields()
    assert fields["label"] is True
    assert fields["autoeval_label"] == {"model": "judge-model", "label": True}
    assert fields["grade"]["judge"] == "llm" and fields["grade"]["template"] == "judge_base"


async def test_always_empty_is_unjudged_not_wrong():
    with FakeJudgeServer([""]) as server:
        verdict = await judge_answer(chat(server), record("multi-session", "m1"), retries=2)
    assert verdict.label is None and verdict.unjudged
    assert verdict.attempts == 3 and len(server.requests) == 3
    fields = verdict.line_fields()
    assert fields["label"] is None and fields["autoeval_label"] is None and fields["grade"]["unjudged"]
    assert "unjudged after 3 attempts" in fields["grade"]["reason"]


async def test_unparsable_then_server_error_is_unjudged_at_once():
    # The model (max_retries=0 here; the RetryingModel in a run) owns transport retries: the judge stops.
    with FakeJudgeServer(["It depends.", None, "no"]) as server:
        verdict = await judge_answer(chat(server), record("multi-session", "m1"), retries=3)
    assert verdict.label is None and verdict.attempts == 2 and len(server.requests) == 2
    assert verdict.reason.startswith("unjudged: judge call failed:") and "500" in verdict.reason
    assert verdict.line_fields()["grade"]["unjudged"] and verdict.line_fields()["autoeval_label"] is None


async def test_official_builder_replaces_prompts_for_longmemeval_types():
    def builder(task, question, answer, response, abstention=False):
        return f"OFFICIAL {task} abs={abstention} Q={question} A={answer} R={response}"

    with FakeJudgeServer(["yes"]) as server:
        official = await judge_answer(chat(server), record("temporal-reasoning", "t_abs"), prompt_builder=builder)
        ours = await judge_answer(chat(server), record("L3", "lvl"), prompt_builder=builder)
    assert server.prompts()[0].startswith("OFFICIAL temporal-reasoning abs=True")
    assert official.judge == "official" and official.template == "official:get_anscheck_prompt"
    assert ours.judge == "llm" and ours.template == "judge_base"  # not a LongMemEval type


async def test_score_routes_deterministic_and_llm():
    det = await score(record("temporal-reasoning", "t1", "7 days", "6 days"), None, DeterministicGrader())
    assert det.label is True and det.grade["judge"] == "deterministic"
    assert det.autoeval_label == {"model": "deterministic", "label": True}
    with FakeJudgeServer(["no"]) as server:
        llm = await score(record("multi-session", "m1"), None, LLMJudge(model=chat(server)))
    assert llm.label is False and llm.grade["model"] == "judge-model"
    with pytest.raises(ValueError):
        LLMJudge()  # a judge kind that needs a model never falls back silently