"""The HTTP adapter against the example agent: learn/answer/reset, retries, failures, secret headers."""

from __future__ import annotations

import asyncio
import time

import pytest

from benchmarker.agent.adapters import AdapterError, AgentAdapter, HttpAgentAdapter, HttpAgentSettings, LearnItem
from benchmarker.agent.adapters.wire import problems
from tests.agent.adapters.example_http_agent import ExampleHttpAgent

SECRET = "sk-example-not-a-real-token-4242"
ITEMS = [
    LearnItem("[2023/05/20 (Sat) 02:21] session s1 user: I adopted a beagle called Biscuit last week.",
              "user", "s1", "2023/05/20 (Sat) 02:21"),
    LearnItem("[2023/05/20 (Sat) 02:21] session s1 assistant: Congratulations on the new puppy!",
              "assistant", "s1", "2023/05/20 (Sat) 02:21"),
    LearnItem("[2023/06/02 (Fri) 10:00] session s2 user: My sister moved to Lisbon for work.",
              "user", "s2", "2023/06/02 (Fri) 10:00"),
]
REQUEST_DEFS = {"/learn": "LearnRequest", "/answer": "AnswerRequest", "/reset": "ResetRequest"}


@pytest.fixture
def agent():
    with ExampleHttpAgent() as server:
        yield server


def settings(url: str, **overrides) -> HttpAgentSettings:
    base = {"base_url": url, "name": "example-http", "timeout_s": 2.0, "max_attempts": 3,
            "initial_backoff_s": 0.0, "max_backoff_s": 0.0}
    return HttpAgentSettings(**{**base, **overrides})


async def test_learns_answers_and_forgets_on_reset(agent):
    async with HttpAgentAdapter(settings(agent.url)) as adapter:
        assert isinstance(adapter, AgentAdapter)
        for item in ITEMS:
            await adapter.learn(item)
        reply = await adapter.answer("What breed is the beagle I adopted?", "2023/07/01 (Sat) 09:00")
        assert "Biscuit" in reply.answer
        assert reply.tool_calls[0].name == "keyword_lookup" and reply.tool_calls[0].output == "s1"
        assert reply.confidence is not None and 0 < reply.confidence <= 1
        assert reply.metadata["question_date"] == "2023/07/01 (Sat) 09:00"
        await adapter.reset()
        forgotten = await adapter.answer("What breed is the beagle I adopted?", "")
        assert forgotten.answer == "I don't know."
    paths = [r["path"] for r in agent.requests]
    assert paths == ["/learn"] * 3 + ["/answer", "/reset", "/answer"]


async def test_every_request_and_reply_matches_the_published_schema(agent):
    async with HttpAgentAdapter(settings(agent.url)) as adapter:
        for item in ITEMS:
            await adapter.learn(item)
        await adapter.answer("Where did my sister move?", "2023/07/01 (Sat) 09:00")
        await adapter.reset()
    assert {r["path"] for r in agent.requests} == set(REQUEST_DEFS)
    for request in agent.requests:
        assert problems("http", REQUEST_DEFS[request["path"]], request["body"]) == []
    assert agent.replies and all(problems("http", "AnswerResponse", r) == [] for r in agent.replies)


async def test_retries_500_and_503_then_succeeds(agent):
    agent.fail_next = [500, 503]
    async with HttpAgentAdapter(settings(agent.url)) as adapter:
        await adapter.learn(ITEMS[0])
    assert [r["path"] for r in agent.requests] == ["/learn"] * 3
    assert len(agent.memory.items) == 1


async def test_persistent_500_fails_naming_adapter_url_operation_and_status(agent):
    agent.fail_next = [500] * 10
    async with HttpAgentAdapter(settings(agent.url)) as adapter:
        with pytest.raises(AdapterError) as caught:
            await adapter.answer("Where did my sister move?")
    message = str(caught.value)
    assert "example-http" in message and f"POST {agent.url}/answer" in message
    assert "answer failed" in message and "last status 500" in message and "scripted 500" in message
    assert "after 3 attempts" in message and len(agent.requests) == 3
    assert caught.value.operation == "answer"


async def test_timeout_is_retried_then_fails_clearly(agent):
    agent.answer_delay_s = 5.0
    started = time.monotonic()
    async with HttpAgentAdapter(settings(agent.url, timeout_s=0.2, max_attempts=2)) as adapter:
        with pytest.raises(AdapterError, match=r"timed out after 0.2s \(after 2 attempts\)"):
            await adapter.answer("Where did my sister move?")
    assert time.monotonic() - started < 3.0
    assert [r["path"] for r in agent.requests] == ["/answer", "/answer"]


async def test_connection_refused_names_the_url():
    with ExampleHttpAgent() as gone:
        url = gone.url
    async with HttpAgentAdapter(settings(url, max_attempts=2)) as adapter:
        with pytest.raises(AdapterError, match="connection error") as caught:
            await adapter.reset()
    assert f"POST {url}/reset" in str(caught.value)


async def test_headers_come_from_env_and_never_appear_in_errors(agent, monkeypatch):
    monkeypatch.setenv("EXAMPLE_AGENT_TOKEN", f"Bearer {SECRET}")
    adapter = HttpAgentAdapter(settings(agent.url, header_env={"Authorization": "EXAMPLE_AGENT_TOKEN"},
                                        headers={"X-Run": "r1"}))
    async with adapter:
        await adapter.learn(ITEMS[0])
        agent.fail_next = [401] * 3  # the error body echoes every request header back
        with pytest.raises(AdapterError) as caught:
            await adapter.answer("anything?")
    assert agent.requests[0]["headers"]["Authorization"] == f"Bearer {SECRET}"
    assert agent.requests[0]["headers"]["X-Run"] == "r1"
    assert "saw_headers" in str(caught.value) and SECRET not in str(caught.value)


def test_a_missing_header_variable_fails_before_any_request(monkeypatch):
    monkeypatch.delenv("EXAMPLE_AGENT_TOKEN_UNSET", raising=False)
    with pytest.raises(AdapterError, match="EXAMPLE_AGENT_TOKEN_UNSET, which is not set") as caught:
        HttpAgentAdapter(settings("http://127.0.0.1:9", header_env={"Authorization": "EXAMPLE_AGENT_TOKEN_UNSET"}))
    assert caught.value.operation == "start"


@pytest.mark.parametrize("body, expected", [
    (b"<html>oops</html>", "body that is not JSON"),
    (b'{"answer": 42}', "does not match AnswerResponse"),
    (b'{"reply": "Lisbon"}', "'answer' is a required property"),
])
async def test_a_2xx_answer_that_breaks_the_schema_fails_without_retry(agent, body, expected):
    agent.answer_body = body
    async with HttpAgentAdapter(settings(agent.url)) as adapter:
        with pytest.raises(AdapterError, match=expected):
            await adapter.answer("Where did my sister move?")
    assert len(agent.requests) == 1


async def test_a_base_url_path_prefix_is_kept(agent):
    async with HttpAgentAdapter(settings(agent.url + "/v1/agent", max_attempts=1)) as adapter:
        with pytest.raises(AdapterError, match="last status 404"):
            await adapter.reset()
    assert agent.requests[0]["path"] == "/v1/agent/reset"


def test_a_credential_given_as_a_literal_header_is_refused():
    with pytest.raises(AdapterError, match="Authorization look like credentials; give them as environment"):
        HttpAgentAdapter(settings("http://127.0.0.1:9", headers={"Authorization": f"Bearer {SECRET}"}))


async def test_concurrent_calls_reach_the_agent_one_at_a_time(agent):
    agent.answer_delay_s = 0.1
    async with HttpAgentAdapter(settings(agent.url)) as adapter:
        await asyncio.gather(adapter.answer("first?"), adapter.answer("second?"))
    assert agent.max_in_flight == 1


@pytest.mark.parametrize("body, expected", [
    (b"", []),
    (b"ok", []),
    (b'{"stored": true}', []),
    (b'{"tool_calls": [{"name": "store", "arguments": {"k": 1}, "output": "id-1"}]}', ["store"]),
])
async def test_learn_reports_tool_calls_only_from_a_json_object_that_has_them(agent, body, expected):
    agent.handle = lambda path, request, headers: (200, body)  # type: ignore[method-assign]
    async with HttpAgentAdapter(settings(agent.url)) as adapter:
        calls = await adapter.learn(ITEMS[0])
    assert [c.name for c in calls] == expected
    assert not calls or (calls[0].arguments == {"k": 1} and calls[0].output == "id-1")


async def test_learn_tool_calls_that_break_the_schema_fail_without_retry(agent):
    agent.handle = lambda path, request, headers: (200, b'{"tool_calls": [{"arguments": {}}]}')  # type: ignore[method-assign]
    async with HttpAgentAdapter(settings(agent.url)) as adapter:
        with pytest.raises(AdapterError, match="learn failed: reply does not match LearnResponse"):
            await adapter.learn(ITEMS[0])


async def test_a_learn_retried_after_a_timeout_carries_the_same_key_and_is_stored_once(agent):
    """The agent took the message but its reply was lost to the timeout: the retry carries the same
    Idempotency-Key (case / attempt / session / turn), so the agent stores it once (issue 36, 7)."""
    from benchmarker.agent.adapters import learn_item
    from benchmarker.datasets.schema import Message, Session

    session = Session("s1", "2023/05/20 (Sat) 02:21", (Message("user", "I adopted a beagle called Biscuit."),
                                                      Message("assistant", "Congratulations!")))
    items = [learn_item(m, session, case_id="case-1", turn=turn) for turn, m in enumerate(session.messages)]
    agent.slow_learns = [1.0]
    async with HttpAgentAdapter(settings(agent.url, timeout_s=0.3, max_attempts=3)) as adapter:
        for item in items:
            await adapter.learn(item)
    learns = [r for r in agent.requests if r["path"] == "/learn"]
    keys = [{k.lower(): v for k, v in r["headers"].items()}["idempotency-key"] for r in learns]
    assert keys == ["case-1/1/s1/0", "case-1/1/s1/0", "case-1/1/s1/1"]  # the first one twice: its reply was lost
    assert [i["content"] for i in agent.memory.items] == [i.content for i in items]  # each stored once
