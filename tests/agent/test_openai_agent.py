"""The memory agent and QA calls through the real langchain-openai client against ScriptedOpenAIServer."""

from __future__ import annotations

import json
import time

import openai
import pytest
from langchain_core.messages import HumanMessage

from benchmarker.agent.ledger import TokenLedger
from benchmarker.agent.memory_agent import run_agent_turn, turn_message
from benchmarker.agent.providers import make_chat_model
from benchmarker.agent.retry import RetryPolicy, ainvoke_with_retry
from benchmarker.errors import UserError
from tests.agent.support import SESSION_DATE, agent_context, memory_session, offline_setup
from tests.fakes.mcp_memory import DEFAULT_PROMPTS
from tests.fakes.openai_server import ScriptedOpenAIServer, http_error, reply, tool_call

FAST = RetryPolicy(max_attempts=4, initial_backoff_s=0.01, max_backoff_s=5.0)
PRICES = {"gpt-test": {"input": 0.15, "output": 0.60}}


def without_titles(schema):
    if isinstance(schema, dict):
        return {k: without_titles(v) for k, v in schema.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(schema, list):
        return [without_titles(v) for v in schema]
    return schema


def openai_model(server, key_env):
    return make_chat_model("openai", "gpt-test", role="agent", base_url=server.base_url, api_key_env=key_env)


async def test_agent_turn_over_openai_sends_prompts_ids_schemas_and_string_tool_results(memory_server, openai_key):
    decisions, ledger = [], TokenLedger(PRICES)
    async with memory_session(memory_server) as (client, vault_id, memory_id, prompts):
        script = [tool_call("add_entry", {"vault_id": vault_id, "memory_id": memory_id,
                                          "raw_entry": f"[{SESSION_DATE}] user: I have 2 cats.",
                                          "summary": "On 2023-05-20 the user said they had 2 cats.",
                                          "tags": {"topic": "pets", "role": "model-guess"}}),
                  reply("Recorded.", usage={"prompt_tokens": 300, "completion_tokens": 5})]
        with ScriptedOpenAIServer(script) as server:
            agent = offline_setup(client, model=openai_model(server, openai_key), decisions=decisions,
                                  ledger=ledger, provider="openai")
            context = agent_context(vault_id, memory_id, prompts)
            transcript = [turn_message("s1", SESSION_DATE, 1, 3, "user", "I have 2 cats.")]
            outcome = await run_agent_turn(agent, transcript, context.for_turn(0, "user"))
            requests = server.requests
    assert outcome.ok and outcome.tool_calls == 1 and len(requests) == 2

    system, human = requests[0]["messages"][0], requests[0]["messages"][1]
    assert system["role"] == "system"
    for text in (DEFAULT_PROMPTS["context_summary_rules"], *DEFAULT_PROMPTS["templates"].values(),
                 f"- vault_id: {vault_id}", f"- memory_id: {memory_id}"):
        assert text in system["content"]
    # the session and its date travel in the turn header, so the system prompt is the same for every session
    assert SESSION_DATE not in system["content"]
    assert human == {"role": "user",
                     "content": f"[session s1 | {SESSION_DATE} | message 1 of 3] user:\nI have 2 cats."}

    # langchain-core's OpenAI conversion drops the cosmetic "title" keys; everything else is the server's.
    schemas = {name: without_titles(schema) for name, schema in memory_server.tool_schemas().items()}
    sent = {t["function"]["name"]: without_titles(t["function"]["parameters"]) for t in requests[0]["tools"]}
    assert sent.keys() == schemas.keys()
    for name, parameters in sent.items():
        assert parameters["properties"] == schemas[name]["properties"], name
        assert set(parameters.get("required", [])) == set(schemas[name].get("required", [])), name

    tool_result = requests[1]["messages"][-1]
    assert tool_result["role"] == "tool" and tool_result["content"] == "enqueued"

    [entry] = memory_server.state.entries[memory_id]
    assert entry["tags"]["topic"] == "pets" and entry["tags"]["role"] == "user"  # harness wins on its keys
    assert entry["tags"]["session_date"] == SESSION_DATE and entry["tags"]["run_id"] == "run-1"
    assert decisions[0][1]["tool"] == "add_entry" and decisions[0][1]["result_preview"] == "enqueued"

    snap = ledger.snapshot()
    agent_tally = snap["roles"]["agent"]
    assert (agent_tally["calls"], agent_tally["input_tokens"], agent_tally["output_tokens"]) == (2, 400, 25)
    assert agent_tally["cost_usd"] == pytest.approx((400 * 0.15 + 25 * 0.60) / 1e6)
    assert snap["unpriced_models"] == []


async def test_agent_retries_a_throttled_model_call(memory_server, openai_key):
    async with memory_session(memory_server) as (client, vault_id, memory_id, prompts):
        script = [http_error(429, "slow down", headers={"Retry-After": "0.3"}), reply("Recorded.")]
        with ScriptedOpenAIServer(script) as server:
            agent = offline_setup(client, model=openai_model(server, openai_key), provider="openai", policy=FAST)
            transcript = [turn_message("s1", SESSION_DATE, 2, 3, "assistant", "ok")]
            outcome = await run_agent_turn(agent, transcript, agent_context(vault_id, memory_id, prompts))
            gap = server.request_times[1] - server.request_times[0]
    assert outcome.ok and outcome.tool_calls == 0 and 0.28 <= gap < 1.5


async def test_429_with_retry_after_is_retried_after_the_wait(openai_key, caplog):
    with ScriptedOpenAIServer([http_error(429, "rate limited", headers={"Retry-After": "1"}), reply("42")]) as server:
        model = make_chat_model("openai", "gpt-test", role="qa", base_url=server.base_url, api_key_env=openai_key)
        ledger = TokenLedger(PRICES)
        started = time.monotonic()
        answer = await ainvoke_with_retry(model, [HumanMessage("q")], policy=FAST, ledger=ledger, role="qa")
        elapsed = time.monotonic() - started
        gap = server.request_times[1] - server.request_times[0]
    assert answer.text == "42" and len(server.requests) == 2
    assert 0.95 <= gap < 2.0 and elapsed < 3.0
    assert ledger.snapshot()["roles"]["qa"]["calls"] == 1
    assert any("retrying in" in r.getMessage() and "RateLimitError" in r.getMessage() for r in caplog.records)


async def test_400_is_not_retried(openai_key):
    with ScriptedOpenAIServer([http_error(400, "bad request"), reply("never")]) as server:
        model = make_chat_model("openai", "gpt-test", role="qa", base_url=server.base_url, api_key_env=openai_key)
        with pytest.raises(openai.BadRequestError):
            await ainvoke_with_retry(model, "q", policy=FAST)
        assert len(server.requests) == 1


async def test_server_errors_retry_until_the_attempt_cap(openai_key):
    with ScriptedOpenAIServer(lambda request: http_error(503, "overloaded")) as server:
        model = make_chat_model("openai", "gpt-test", role="qa", base_url=server.base_url, api_key_env=openai_key)
        with pytest.raises(openai.InternalServerError):
            await ainvoke_with_retry(model, "q", policy=RetryPolicy(3, 0.01, 0.05))
        assert len(server.requests) == 3


async def test_connection_errors_are_retried(openai_key):
    model = make_chat_model("openai", "gpt-test", role="qa", base_url="http://127.0.0.1:9/v1", api_key_env=openai_key)
    with pytest.raises(openai.APIConnectionError):
        await ainvoke_with_retry(model, "q", policy=RetryPolicy(2, 0.01, 0.05))


async def test_streaming_reports_usage_through_the_fake(openai_key):
    with ScriptedOpenAIServer([reply("streamed text", usage={"prompt_tokens": 7, "completion_tokens": 3})]) as server:
        model = make_chat_model("openai", "gpt-test", role="qa", base_url=server.base_url, api_key_env=openai_key)
        chunks = [chunk async for chunk in model.astream("hi")]
        body = server.requests[0]
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert merged.text == "streamed text"
    assert merged.usage_metadata["input_tokens"] == 7 and merged.usage_metadata["output_tokens"] == 3


async def test_tool_call_arguments_reach_langchain_intact(openai_key):
    with ScriptedOpenAIServer([tool_call("get_context", {"vault_id": "v", "memory_id": "m"})]) as server:
        model = make_chat_model("openai", "gpt-test", role="agent", base_url=server.base_url, api_key_env=openai_key)
        message = await model.ainvoke("hi")
    assert message.tool_calls[0]["name"] == "get_context"
    assert message.tool_calls[0]["args"] == {"vault_id": "v", "memory_id": "m"}
    assert json.loads(json.dumps(message.usage_metadata))["input_tokens"] == 100


def test_missing_api_key_is_a_user_error_naming_the_variable(monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    with pytest.raises(UserError, match="NO_SUCH_KEY_VAR"):
        make_chat_model("openai", "gpt-test", role="qa", api_key_env="NO_SUCH_KEY_VAR")
