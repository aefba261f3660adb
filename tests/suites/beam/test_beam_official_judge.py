"""BEAM's official judge over real HTTP: a real langchain-openai client talks to the scripted OpenAI-compatible
server; the prompts come from a fake BEAM clone (tmp_path, read with `ast`, never run). One call per rubric item
on the clone's prompt with `<rubric_item>` / `<llm_response>` replaced and `<question>` left as written; a 0.5
counts 0 in the official score (the repository adds int(score)) and 0.5 in score_half; event ordering's YES/NO
alignment uses the clone's `llm_equivalence` messages and scores normalised tau-b. Tokens go to the line's eval."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import kendalltau

from benchmarker.agent.providers import make_chat_model
from benchmarker.datasets.schema import Case, Message, Question, Session
from benchmarker.scoring.judges import make_judge
from benchmarker.suites.beam import SUITE
from benchmarker.suites.beam.official import OfficialPrompts, load_official_prompts
from tests.fakes.openai_server import ScriptedOpenAIServer, reply
from tests.suites.beam.beam_fakes import FAKE_RUBRIC_PROMPT, FAKE_SYSTEM, fake_user_message

IE_RUBRIC = ["LLM response should state: the launch is on March 29", "LLM response should state: in Lisbon"]
IE_ANSWER = "The launch is on March 29."
EO_RUBRIC = ["Mention first: venue booked", "Mention second: invites sent", "Mention third: cake ordered"]
EO_ANSWER = "invites sent\nvenue booked\nbought balloons"


def case_of(*questions: Question) -> Case:
    return Case(case_id="beam-100K-9", kind="beam", questions=questions,
                sessions=(Session("beam-9-b1", "2024/03/15 (Fri) 00:00", (Message("user", "hi"),)),))


def question(ability: str, rubric: list[str], index: int = 0) -> Question:
    return Question(question_id=f"beam-100K-9-{ability}-{index}", question_type=ability,
                    question=f"A {ability} question?", answer="reference", category=ability,
                    rubric={"items": rubric, "ability": ability, "fields": {}})


def record(q: Question, answer: str) -> dict[str, Any]:
    return {"question_id": q.question_id, "kind": "beam", "question_type": q.question_type, "question": q.question,
            "answer": q.answer, "hypothesis": answer, "tokens": {"qa": {"input": 5, "output": 1}}}


def official_prompts(clone: Path) -> OfficialPrompts:
    prompts, why = load_official_prompts(clone)
    assert prompts is not None, why
    return prompts


def user_text(request: dict[str, Any]) -> str:
    (message,) = [m for m in request["messages"] if m["role"] == "user"]
    return message["content"] if isinstance(message["content"], str) else message["content"][0]["text"]


def test_the_fake_clone_is_read_not_run(fake_clone: Path) -> None:
    for path in (fake_clone / "src" / "prompts.py", fake_clone / "src" / "evaluation" / "compute_metrics.py"):
        with pytest.raises(ModuleNotFoundError, match="nltk_not_installed"):  # running either file fails
            exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), {})
    prompts = official_prompts(fake_clone)  # so this read them without running them
    assert prompts.rubric == FAKE_RUBRIC_PROMPT and prompts.equivalence_system == FAKE_SYSTEM
    assert prompts.rubric_prompt("I", "R") == "TEST PROMPT <question> item=I answer=R"
    assert prompts.equivalence_messages("a", "b") == [("system", FAKE_SYSTEM), ("user", fake_user_message("a", "b"))]
    assert SUITE.official_judge is not None and SUITE.official_judge.load.__doc__
    # the suite finds the clone above a chats/<size> file too:
    from benchmarker.suites.beam import _clone_root

    assert _clone_root(fake_clone / "chats" / "100K") == fake_clone


async def test_official_rubric_items_over_http(fake_clone: Path, openai_key: str) -> None:
    q = question("information_extraction", IE_RUBRIC)
    first = reply('{"score": 1.0, "reason": "date given"}', usage={"prompt_tokens": 11, "completion_tokens": 3})
    second = reply('```json\n{"score": 0.5, "reason": "no city"}\n```', usage={"prompt_tokens": 13, "completion_tokens": 4})
    script: list[dict[str, Any] | str] = [first, second]
    with ScriptedOpenAIServer(script) as server:
        model = make_chat_model("openai", "gpt-judge", role="eval", base_url=server.base_url, api_key_env=openai_key)
        judge = make_judge("official", model=model, official_prompt=official_prompts(fake_clone))
        line = await SUITE.scorer.score(record(q, IE_ANSWER), case_of(q), judge)
        assert len(server.requests) == 2  # one call per rubric item, nothing else
        assert [user_text(r) for r in server.requests] == [
            f"TEST PROMPT <question> item={item} answer={IE_ANSWER}" for item in IE_RUBRIC]
        assert all(len(r["messages"]) == 1 and r["model"] == "gpt-judge" for r in server.requests)
    block = line["beam"]
    assert [i["score"] for i in block["items"]] == [1.0, 0.5] and block["items"][1]["reason"] == "no city"
    assert block["score"] == 0.5 and block["score_half"] == 0.75  # int(1.0) + int(0.5) over 2; halves kept
    assert line["label"] is True and line["grade"]["score"] == 0.5 and line["grade"]["template"] == "beam_official"
    assert line["grade"]["judge"] == "official" and "2 judge call(s)" in line["grade"]["reason"]
    assert line["tokens"] == {"qa": {"input": 5, "output": 1}, "eval": {"input": 24, "output": 7}}


async def test_official_event_ordering_aligns_with_the_clones_messages(fake_clone: Path, openai_key: str) -> None:
    q = question("event_ordering", EO_RUBRIC)
    asked: list[tuple[str, str]] = []

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        roles = [m["role"] for m in request["messages"]]
        if roles == ["user"]:
            return reply('{"score": 1.0, "reason": "ok"}', usage={"prompt_tokens": 10, "completion_tokens": 2})
        assert roles == ["system", "user"] and request["messages"][0]["content"] == FAKE_SYSTEM
        first, second = user_text(request).removeprefix("First: ").split(" | Second: ")
        asked.append((first, second))
        return reply("YES" if second in first else "NO", usage={"prompt_tokens": 7, "completion_tokens": 1})

    with ScriptedOpenAIServer(answer) as server:
        model = make_chat_model("openai", "gpt-judge", role="eval", base_url=server.base_url, api_key_env=openai_key)
        judge = make_judge("official", model=model, official_prompt=official_prompts(fake_clone))
        line = await SUITE.scorer.score(record(q, EO_ANSWER), case_of(q), judge)
        rubric_calls = [r for r in server.requests if len(r["messages"]) == 1]
        assert len(rubric_calls) == 3 and len(server.requests) == 3 + 4
    # "invites sent": item 0 NO, item 1 YES; "venue booked": item 0 YES; "bought balloons": only item 2 is unused
    assert asked == [(EO_RUBRIC[0], "invites sent"), (EO_RUBRIC[1], "invites sent"),
                     (EO_RUBRIC[0], "venue booked"), (EO_RUBRIC[2], "bought balloons")]
    aligned = [EO_RUBRIC[1], EO_RUBRIC[0], "bought balloons"]
    union = list(dict.fromkeys(EO_RUBRIC + aligned))
    last = len(union) + 1
    ref = [EO_RUBRIC.index(u) + 1 if u in EO_RUBRIC else last for u in union]
    got = [aligned.index(u) + 1 if u in aligned else last for u in union]
    tau_norm = (float(kendalltau(ref, got, variant="b").statistic) + 1) / 2
    block = line["beam"]
    assert block["score"] == round(tau_norm, 6) and block["score_half"] == round(tau_norm, 6)
    assert block["ordering"]["tau_norm"] == tau_norm
    assert (block["ordering"]["precision"], block["ordering"]["recall"]) == (2 / 3, 2 / 3)
    assert line["tokens"]["eval"] == {"input": 3 * 10 + 4 * 7, "output": 3 * 2 + 4 * 1}
    assert "7 judge call(s)" in line["grade"]["reason"]


async def test_our_llm_judge_keeps_the_half_point(openai_key: str) -> None:
    q = question("information_extraction", IE_RUBRIC)
    with ScriptedOpenAIServer([reply('{"score": 1.0, "reason": "a"}'), reply('{"score": 0.5, "reason": "b"}')]) \
            as server:
        model = make_chat_model("openai", "gpt-judge", role="eval", base_url=server.base_url, api_key_env=openai_key)
        line = await SUITE.scorer.score(record(q, IE_ANSWER), case_of(q), make_judge("llm", model=model))
        prompts = [user_text(r) for r in server.requests]
    assert len(prompts) == 2 and all(q.question in p and IE_ANSWER in p for p in prompts)  # our prompt fills the question
    assert IE_RUBRIC[0] in prompts[0] and IE_RUBRIC[1] in prompts[1] and "<question>" not in prompts[0]
    assert line["beam"]["score"] == 0.75 and line["beam"]["score_half"] == 0.75  # (1 + 0.5) / 2, the half kept
    assert line["grade"]["judge"] == "llm" and line["grade"]["template"] == "judge_beam_rubric"
    assert line["tokens"]["eval"] == {"input": 200, "output": 40}  # the server's default usage, twice
    assert json.dumps(line)  # a results line
