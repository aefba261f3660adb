"""The anthropic provider against a local server speaking Anthropic's Messages API."""

from __future__ import annotations

import pytest

from benchmarker.agent.ledger import TokenLedger
from benchmarker.agent.memory_agent import run_agent_turn, turn_message
from benchmarker.agent.providers import make_chat_model
from benchmarker.agent.retry import RetryPolicy, ainvoke_with_retry
from tests.agent.fake_anthropic import ScriptedAnthropicServer
from tests.agent.support import SESSION_DATE, agent_context, memory_session, offline_setup
from tests.fakes.openai_server import http_error, reply, tool_call

FAST = RetryPolicy(max_attempts=4, initial_backoff_s=0.01, max_backoff_s=5.0)


@pytest.fixture
def anthropic_key(monkeypatch):
    monkeypatch.setenv("TEST_ANTHROPIC_KEY", "sk-ant-test")
    return "TEST_ANTHROPIC_KEY"


async def test_agent_turn_with_tool_use_over_anthropic(memory_server, anthropic_key):
    ledger = TokenLedger({"claude-test": {"input": 1.0, "output": 5.0}})
    async with memory_session(memory_server) as (client, vault_id, memory_id, prompts):
        script = [tool_call("get_context", {"vault_id": vault_id, "memory_id": memory_id}), reply("Recorded.")]
        with ScriptedAnthropicServer(script) as server:
            model = make_chat_model("anthropic", "claude-test", role="agent", base_url=server.base_url,
                                    api_key_env=anthropic_key)
            agent = offline_setup(client, model=model, ledger=ledger, provider="anthropic", policy=FAST)
            transcript = [turn_message("s1", SESSION_DATE, 1, 2, "user", "I have 2 cats.")]
            outcome = await run_agent_turn(agent, transcript, agent_context(vault_id, memory_id, prompts))
            requests, headers = server.requests, server.headers
    assert outcome.ok and outcome.tool_calls == 1
    # the key from the named env var reaches the server (SDK 2.x sends it as a bearer token)
    sent_key = headers[0].get("x-api-key") or headers[0].get("authorization", "").removeprefix("Bearer ")
    assert sent_key == "sk-ant-test"
    first = requests[0]
    assert "- vault_id: " + vault_id in (first["system"] if isinstance(first["system"], str)
                                         else " ".join(b["text"] for b in first["system"]))
    assert {t["name"] for t in first["tools"]} >= {"add_entry", "get_context", "put_context"}
    tool_result = requests[1]["messages"][-1]["content"][0]
    assert tool_result["type"] == "tool_result" and "default context" in str(tool_result["content"])
    assert ledger.snapshot()["roles"]["agent"]["input_tokens"] == 200


async def test_anthropic_429_honours_retry_after(anthropic_key):
    script = [http_error(429, "rate limited", headers={"retry-after": "1"}), reply("Paris")]
    with ScriptedAnthropicServer(script) as server:
        model = make_chat_model("anthropic", "claude-test", role="qa", base_url=server.base_url,
                                api_key_env=anthropic_key)
        answer = await ainvoke_with_retry(model, "Where?", policy=FAST)
        gap = server.request_times[1] - server.request_times[0]
    assert answer.text == "Paris" and len(server.requests) == 2 and 0.95 <= gap < 2.0


async def test_anthropic_400_fails_at_once(anthropic_key):
    import anthropic

    with ScriptedAnthropicServer([http_error(400, "bad"), reply("never")]) as server:
        model = make_chat_model("anthropic", "claude-test", role="qa", base_url=server.base_url,
                                api_key_env=anthropic_key)
        with pytest.raises(anthropic.BadRequestError):
            await ainvoke_with_retry(model, "q", policy=FAST)
        assert len(server.requests) == 1
