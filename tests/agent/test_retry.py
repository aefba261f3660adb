"""Retry classification, Retry-After parsing, backoff bounds and Bedrock's whitespace rule."""

from __future__ import annotations

import email.utils
import time
from typing import Any

import httpx
import pytest
from botocore.exceptions import ClientError, EndpointConnectionError
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from benchmarker.agent.memory_agent import build_memory_agent
from benchmarker.agent.retry import (
    RetryPolicy,
    aretry,
    backoff_s,
    is_retryable,
    retry_after_s,
    strip_trailing_whitespace,
)


def client_error(code: str, status: int, headers: dict[str, str] | None = None) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": code},
                        "ResponseMetadata": {"HTTPStatusCode": status, "HTTPHeaders": headers or {}}}, "Converse")


class StatusError(Exception):
    def __init__(self, status: int, headers: dict[str, str] | None = None):
        super().__init__(f"HTTP {status}")
        self.status_code = status
        self.response = httpx.Response(status, headers=headers or {})


@pytest.mark.parametrize("code,status,expected", [
    ("ThrottlingException", 400, True),
    ("ServiceUnavailableException", 503, True),
    ("ModelNotReadyException", 429, True),
    ("InternalServerException", 500, True),
    ("ModelTimeoutException", 408, True),
    ("ValidationException", 400, False),
    ("AccessDeniedException", 403, False),
    ("ResourceNotFoundException", 404, False),
])
def test_bedrock_client_errors_are_classified_by_code(code, status, expected):
    assert is_retryable(client_error(code, status)) is expected


@pytest.mark.parametrize("status,expected", [(429, True), (500, True), (502, True), (503, True), (529, True),
                                             (400, False), (401, False), (403, False), (404, False), (422, False)])
def test_http_status_classification(status, expected):
    assert is_retryable(StatusError(status)) is expected


def test_connection_errors_are_retryable_and_plain_bugs_are_not():
    assert is_retryable(httpx.ConnectError("refused"))
    assert is_retryable(EndpointConnectionError(endpoint_url="https://bedrock"))
    assert is_retryable(ConnectionResetError())
    assert not is_retryable(ValueError("bad"))
    assert not is_retryable(KeyError("x"))


def test_retry_after_in_seconds_ms_and_http_date():
    assert retry_after_s(StatusError(429, {"Retry-After": "7"})) == 7.0
    assert retry_after_s(StatusError(429, {"retry-after-ms": "250"})) == 0.25
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= retry_after_s(StatusError(429, {"Retry-After": future})) <= 31
    assert retry_after_s(client_error("ThrottlingException", 429, {"retry-after": "3"})) == 3.0
    assert retry_after_s(StatusError(429)) is None


def test_backoff_grows_with_jitter_and_is_capped():
    policy = RetryPolicy(max_attempts=6, initial_backoff_s=1.0, max_backoff_s=8.0)
    for attempt, (low, high) in enumerate([(0.5, 1.0), (1.0, 2.0), (2.0, 4.0), (4.0, 8.0), (4.0, 8.0)], start=1):
        waits = [backoff_s(policy, attempt, StatusError(503)) for _ in range(50)]
        assert all(low <= w <= high for w in waits) and len(set(waits)) > 1
    assert backoff_s(policy, 1, StatusError(429, {"Retry-After": "3"})) == pytest.approx(3.0, rel=0.11)
    assert backoff_s(policy, 1, StatusError(429, {"Retry-After": "600"})) == 8.0


async def test_aretry_stops_at_max_attempts_and_fails_fast_on_client_errors():
    calls = []

    async def flaky():
        calls.append(1)
        raise StatusError(503)

    with pytest.raises(StatusError):
        await aretry(flaky, policy=RetryPolicy(3, 0.001, 0.002))
    assert len(calls) == 3

    calls.clear()

    async def bad_request():
        calls.append(1)
        raise StatusError(400)

    with pytest.raises(StatusError):
        await aretry(bad_request, policy=RetryPolicy(3, 0.001, 0.002))
    assert len(calls) == 1


def test_policy_from_config_section():
    class Section:
        max_attempts, initial_backoff_s, max_backoff_s = 2, 0.5, 4.0

    assert RetryPolicy.from_config(Section()) == RetryPolicy(2, 0.5, 4.0)
    assert RetryPolicy.from_config({"max_attempts": 9}) == RetryPolicy(9, 1.0, 60.0)


def test_strip_trailing_whitespace_on_ai_and_human_texts_only():
    messages = [SystemMessage("sys  "), HumanMessage("hello \n"), AIMessage("answer  "),
                AIMessage([{"type": "text", "text": "a "}, {"type": "text", "text": "b\n"}]),
                ToolMessage("result ", tool_call_id="1")]
    out = strip_trailing_whitespace(messages)
    assert [m.content for m in out] == ["sys  ", "hello", "answer",
                                        [{"type": "text", "text": "a "}, {"type": "text", "text": "b"}], "result "]
    assert messages[1].content == "hello \n"  # inputs untouched


class RecordingModel(BaseChatModel):
    seen: list[list[BaseMessage]] = []

    @property
    def _llm_type(self) -> str:
        return "recording"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "RecordingModel":
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=AIMessage("done"))])


async def test_bedrock_agents_get_stripped_messages():
    from benchmarker.agent.memory_agent import MemoryAgentContext

    model = RecordingModel(seen=[])
    agent = build_memory_agent(model, [], max_tool_calls_per_turn=3, retry_policy=RetryPolicy(), provider="bedrock")
    context = MemoryAgentContext("system", "r", "c", "q", "v", "m", "s", "d")
    await agent.ainvoke({"messages": [HumanMessage("first  "), AIMessage("ok \n"), HumanMessage("second\n\n")]},
                        context=context, config={"recursion_limit": 10})
    sent = model.seen[0]
    # stripped, and human messages as one text block each (so langchain-aws keeps them as separate blocks)
    assert [m.text for m in sent] == ["system", "first", "ok", "second"]
    assert sent[1].content == [{"type": "text", "text": "first"}] and sent[2].content == "ok"
