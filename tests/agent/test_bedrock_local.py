"""The bedrock provider end to end: the real langchain-aws ChatBedrockConverse + botocore client
against a local server speaking the Bedrock Runtime Converse API (tests/fakes/bedrock_server.py).

Nothing leaves 127.0.0.1: dummy static credentials come from the environment (SigV4 still signs
every request), shared AWS config files, profiles, bearer tokens and IMDS are switched off.
"""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from benchmarker.agent.ledger import TokenLedger
from benchmarker.agent.memory_agent import final_text, run_agent_turn, turn_message
from benchmarker.agent.providers import make_chat_model
from benchmarker.agent.retry import RetryingModel, RetryPolicy, ainvoke_with_retry, is_retryable, model_name_of
from benchmarker.memory.client import MemoryClient
from tests.agent.support import SESSION_DATE, agent_context, offline_setup
from tests.fakes.bedrock_server import (
    ScriptedBedrockServer,
    aws_error,
    bedrock_request_problem,
    reply,
    throttling,
    tool_call,
    use_local_aws,
    validation_error,
)
from tests.fakes.openai_server import http_error

MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"
REGION = "us-west-2"
FAST = RetryPolicy(max_attempts=4, initial_backoff_s=0.01, max_backoff_s=0.2)


@pytest.fixture(autouse=True)
def aws_env(monkeypatch, tmp_path):
    """Dummy static credentials; no profile, config file, bearer token, proxy or metadata service."""
    use_local_aws(monkeypatch, tmp_path)


def bedrock_model(server: ScriptedBedrockServer, role: str = "qa"):
    return make_chat_model("bedrock", MODEL, role=role, region=REGION, base_url=server.endpoint_url)


def texts(message: dict) -> list[str]:
    return [b["text"] for b in message["content"] if "text" in b]


# --- QA / judge calls: ainvoke_with_retry and RetryingModel ------------------------------------

async def test_plain_answer_over_the_real_client_is_counted_in_the_ledger():
    ledger = TokenLedger({MODEL: {"input": 0.8, "output": 4.0}})
    with ScriptedBedrockServer([reply("Paris", usage={"inputTokens": 37, "outputTokens": 3})]) as server:
        model = bedrock_model(server)
        qa = RetryingModel(model, policy=FAST, ledger=ledger, role="qa", provider="bedrock")
        answer = await qa.ainvoke([SystemMessage("Answer in one word."), HumanMessage("Capital of France?")])
    assert type(model).__name__ == "ChatBedrockConverse" and model_name_of(model) == MODEL
    assert isinstance(answer, AIMessage) and answer.text == "Paris"
    assert answer.usage_metadata["input_tokens"] == 37 and answer.usage_metadata["output_tokens"] == 3
    # the wire: the model id is the URI label (URL-encoded by botocore), the rest is the JSON body
    assert server.model_ids == [MODEL]
    assert server.raw_paths == [f"/model/{MODEL.replace(':', '%3A')}/converse"]
    body = server.requests[0]
    assert body["system"] == [{"text": "Answer in one word."}]
    assert body["messages"] == [{"role": "user", "content": [{"text": "Capital of France?"}]}]
    assert body["inferenceConfig"] == {"maxTokens": 1024, "temperature": 0.0}
    assert "toolConfig" not in body
    # SigV4 with the region and signing name from the config, and botocore's own retries off
    headers = server.headers[0]
    assert headers["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDLOCALTEST/")
    assert f"/{REGION}/bedrock/aws4_request" in headers["authorization"]
    assert headers["amz-sdk-request"] == "attempt=1; max=1"
    qa_tally = ledger.snapshot()["roles"]["qa"]
    assert (qa_tally["calls"], qa_tally["input_tokens"], qa_tally["output_tokens"]) == (1, 37, 3)
    assert qa_tally["models"][MODEL]["cost_usd"] == pytest.approx((37 * 0.8 + 3 * 4.0) / 1e6)


@pytest.mark.parametrize("error", [
    throttling(),
    aws_error("ServiceUnavailableException", "Service unavailable"),
    aws_error("ModelNotReadyException", "Model is not ready"),
    aws_error("InternalServerException", "Internal server error"),
], ids=lambda spec: spec["aws_error"]["code"])
async def test_retryable_aws_errors_are_retried_by_our_layer(error):
    ledger = TokenLedger()
    with ScriptedBedrockServer([error, reply("Paris")]) as server:
        answer = await ainvoke_with_retry(bedrock_model(server), "Capital of France?", policy=FAST, ledger=ledger,
                                          role="qa", provider="bedrock")
    assert answer.text == "Paris"
    assert len(server.requests) == 2 and server.requests[0] == server.requests[1]
    # each HTTP request is botocore's first and only attempt: the retry was ours
    assert [h["amz-sdk-request"] for h in server.headers] == ["attempt=1; max=1"] * 2
    assert ledger.snapshot()["roles"]["qa"]["calls"] == 1  # only the successful call is counted


async def test_throttling_without_our_retry_surfaces_as_a_retryable_client_error():
    """botocore makes exactly one attempt: the ThrottlingException reaches our layer intact."""
    with ScriptedBedrockServer([throttling(), reply("never")]) as server:
        with pytest.raises(ClientError) as caught:
            await ainvoke_with_retry(bedrock_model(server), "q", policy=RetryPolicy(max_attempts=1),
                                     provider="bedrock")
        assert len(server.requests) == 1
    err = caught.value
    assert err.response["Error"]["Code"] == "ThrottlingException"
    assert err.response["ResponseMetadata"]["HTTPStatusCode"] == 429
    assert err.response["ResponseMetadata"]["RetryAttempts"] == 0
    assert is_retryable(err)


async def test_throttling_retries_stop_at_max_attempts():
    with ScriptedBedrockServer([throttling() for _ in range(5)]) as server:
        with pytest.raises(ClientError) as caught:
            await ainvoke_with_retry(bedrock_model(server), "q", policy=RetryPolicy(3, 0.01, 0.05),
                                     provider="bedrock")
        assert len(server.requests) == 3
    assert caught.value.response["Error"]["Code"] == "ThrottlingException"


async def test_connection_refused_is_retried_then_raised(caplog):
    from botocore.exceptions import EndpointConnectionError

    with ScriptedBedrockServer([]) as server:
        model = bedrock_model(server)
    # the server is gone: every attempt is refused at connect time
    with caplog.at_level("WARNING", logger="benchmarker.agent.retry"):
        with pytest.raises(EndpointConnectionError) as caught:
            await ainvoke_with_retry(model, "q", policy=RetryPolicy(3, 0.01, 0.05), provider="bedrock")
    assert is_retryable(caught.value)
    assert [r.getMessage().split(": ")[0] for r in caplog.records] == [
        "qa model call failed (attempt 1/3)", "qa model call failed (attempt 2/3)"]
    assert server.requests == []


@pytest.mark.parametrize("error", [
    validation_error("The provided model identifier is invalid."),
    aws_error("AccessDeniedException", "You don't have access to the model with the specified model ID."),
    aws_error("ResourceNotFoundException", "Model not found"),
], ids=lambda spec: spec["aws_error"]["code"])
async def test_request_errors_fail_at_once(error):
    ledger = TokenLedger()
    with ScriptedBedrockServer([error, reply("never")]) as server:
        qa = RetryingModel(bedrock_model(server), policy=FAST, ledger=ledger, role="eval")
        with pytest.raises(ClientError) as caught:
            await qa.ainvoke("Is the answer right?")
        assert len(server.requests) == 1
    assert caught.value.response["Error"]["Code"] == error["aws_error"]["code"]
    assert not is_retryable(caught.value)
    assert ledger.snapshot()["roles"] == {}


async def test_callable_script_and_http_error_specs_map_to_aws_codes():
    def script(body: dict) -> dict:
        if len(server.requests) == 1:
            return http_error(503, "busy")
        return reply("echo: " + texts(body["messages"][-1])[0])

    with ScriptedBedrockServer(script) as server:
        answer = await ainvoke_with_retry(bedrock_model(server), "ping", policy=FAST)
    assert answer.text == "echo: ping"
    assert [(status, body.get("code")) for status, body in server.responses] == [
        (503, "ServiceUnavailableException"), (200, None)]


USE = {"toolUse": {"toolUseId": "t1", "name": "add_entry", "input": {}}}
RESULT = {"toolResult": {"toolUseId": "t1", "content": [{"text": "enqueued"}]}}
TOOLS = {"tools": [{"toolSpec": {"name": "add_entry", "inputSchema": {"json": {"type": "object"}}}}]}


def user(*blocks: dict | str) -> dict:
    return {"role": "user", "content": [{"text": b} if isinstance(b, str) else b for b in blocks]}


def assistant(*blocks: dict | str) -> dict:
    return {"role": "assistant", "content": [{"text": b} if isinstance(b, str) else b for b in blocks]}


@pytest.mark.parametrize(("body", "problem"), [
    ({"messages": [user("hi")]}, None),
    ({"messages": []}, "must start with a user message"),
    ({"messages": [assistant("hi")]}, "must start with a user message"),
    ({"messages": [user("a"), user("b")]}, "must alternate"),
    ({"messages": [user(" ")]}, "is blank"),
    ({"messages": [user("hi\n")]}, "trailing whitespace"),
    ({"messages": [user("hi"), assistant("ok ")]}, "final assistant content cannot end with trailing whitespace"),
    ({"messages": [user("hi "), assistant("ok")]}, None),   # only the final content is checked
    ({"messages": [user("hi"), assistant(USE), user(RESULT)]}, "toolConfig field must be defined"),
    ({"messages": [user("hi"), assistant(USE), user("no result")], "toolConfig": TOOLS}, "Expected toolResult"),
    ({"messages": [user("hi"), assistant(USE), user(RESULT)], "toolConfig": TOOLS}, None),
])
def test_the_fake_applies_bedrocks_request_rules(body, problem):
    found = bedrock_request_problem(body)
    assert (found is None) if problem is None else (problem in (found or "")), found


# --- Bedrock's trailing-whitespace rule ------------------------------------------------------------

CONVERSATION = [
    SystemMessage("You answer questions about the user."),
    HumanMessage("I adopted two cats in 2021.  \n"),
    AIMessage("Noted: two cats.\n\n"),
    HumanMessage([{"type": "text", "text": "How many cats do I have?"},
                  {"type": "text", "text": "Answer briefly. \t\n"}]),
]


async def test_the_fake_rejects_trailing_whitespace_like_bedrock():
    """Control: without the normaliser the request is refused (so the next test proves something)."""
    with ScriptedBedrockServer([reply("never")]) as server:
        with pytest.raises(ClientError) as caught:
            await bedrock_model(server).ainvoke(CONVERSATION)  # no strip_trailing_whitespace on this path
        assert len(server.requests) == 1
    assert caught.value.response["Error"]["Code"] == "ValidationException"
    assert "trailing whitespace" in caught.value.response["Error"]["Message"]
    assert texts(server.requests[0]["messages"][-1])[-1].endswith(" \t\n")


@pytest.mark.parametrize("provider", ["bedrock", None], ids=["provider-named", "detected-from-model"])
async def test_trailing_whitespace_is_stripped_before_the_request(provider):
    with ScriptedBedrockServer([reply("Two.")]) as server:
        qa = RetryingModel(bedrock_model(server), policy=FAST, ledger=None, role="qa", provider=provider)
        answer = await qa.ainvoke(CONVERSATION)
    assert answer.text == "Two." and len(server.requests) == 1
    body = server.requests[0]
    assert bedrock_request_problem(body) is None
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    for message in body["messages"]:
        for text in texts(message):
            assert text == text.rstrip(), (message["role"], text)
    assert texts(body["messages"][0]) == ["I adopted two cats in 2021."]
    assert texts(body["messages"][1]) == ["Noted: two cats."]
    assert texts(body["messages"][2])[-1] == "Answer briefly."
    assert body["system"] == [{"text": "You answer questions about the user."}]
    # the caller's messages are not mutated
    assert CONVERSATION[1].content.endswith("  \n") and CONVERSATION[3].content[-1]["text"].endswith(" \t\n")


async def test_a_plain_string_question_with_trailing_newline_is_stripped():
    with ScriptedBedrockServer([reply("42")]) as server:
        await ainvoke_with_retry(bedrock_model(server), "What is six times seven?\n", policy=FAST)
    assert server.requests[0]["messages"][0]["content"] == [{"text": "What is six times seven?"}]


# --- the memory agent over Bedrock with the embedded memory service's MCP tools ----------------------



async def test_memory_agent_records_an_entry_through_bedrock_tool_use(embedded):
    ledger = TokenLedger()
    decisions: list = []
    raw = f"[{SESSION_DATE}] user: I adopted two cats, Miso and Tofu."
    async with MemoryClient.connect(embedded.mcp_url, headers=embedded.auth_headers) as client:
        vault_id = await client.ensure_vault("bedrock-tests")
        memory_id = (await client.create_memory(vault_id, "bedrock-agent"))["memoryId"]
        prompts = await client.get_default_prompts("chat")
        context = agent_context(vault_id, memory_id, prompts)
        args = {"vault_id": vault_id, "memory_id": memory_id, "raw_entry": raw,
                "summary": "On 2023-05-20 the user said they adopted two cats, Miso and Tofu."}
        # tool use, a throttled call (retried by RetryMiddleware), then the closing text
        script = [tool_call("add_entry", args, usage={"inputTokens": 1000, "outputTokens": 50}),
                  throttling(), reply("Recorded.", usage={"inputTokens": 1200, "outputTokens": 5})]
        with ScriptedBedrockServer(script) as server:
            model = bedrock_model(server, role="agent")
            agent = offline_setup(client, model=model, ledger=ledger, provider="bedrock", policy=FAST,
                                  decisions=decisions)
            # dataset text often ends in whitespace: BedrockWhitespaceMiddleware must strip it
            transcript = [turn_message("s1", SESSION_DATE, 1, 2, "user", "I adopted two cats, Miso and Tofu.  \n")]
            outcome = await run_agent_turn(agent, transcript, context.for_turn(0, "user"))
        await client.await_consistency(memory_id)
        entries = await client.list_all_entries(vault_id, memory_id)
        mcp_tools = {t.name: t for t in client.tools}

    assert outcome.ok, outcome.failed_reason
    assert outcome.tool_calls == 1 and final_text(outcome) == "Recorded."
    assert len(server.requests) == 3 and server.requests[1] == server.requests[2]
    assert all(bedrock_request_problem(r) is None for r in server.requests)
    first, second = server.requests[0], server.requests[1]

    # tools: every MCP tool as a Converse toolSpec with the MCP input schema
    specs = {t["toolSpec"]["name"]: t["toolSpec"] for t in first["toolConfig"]["tools"]}
    assert set(specs) == set(mcp_tools) and {"add_entry", "get_context", "search_memories"} <= set(specs)
    for name, spec in specs.items():
        mcp_schema = mcp_tools[name].args_schema
        mcp_schema = mcp_schema if isinstance(mcp_schema, dict) else mcp_schema.model_json_schema()
        sent = spec["inputSchema"]["json"]
        assert sent.get("type") == "object", name
        assert set(sent.get("properties", {})) == set(mcp_schema.get("properties", {})), name
        assert set(sent.get("required", [])) == set(mcp_schema.get("required", [])), name
        assert spec["description"] == mcp_tools[name].description
    assert set(specs["add_entry"]["inputSchema"]["json"]["required"]) >= {"vault_id", "memory_id", "raw_entry",
                                                                          "summary"}
    assert second["toolConfig"] == first["toolConfig"]

    # the system prompt travels in `system`, not as a message
    assert [b["text"] for b in first["system"]] == [context.system_prompt]
    assert f"- vault_id: {vault_id}" in first["system"][0]["text"]
    assert all(m["role"] in ("user", "assistant") for m in first["messages"])
    assert len(first["messages"]) == 1
    turn_text = texts(first["messages"][0])[-1]
    assert turn_text.endswith("I adopted two cats, Miso and Tofu.")  # whitespace stripped

    # the tool call went out as toolUse and its result came back as a toolResult block
    user1, assistant, user2 = second["messages"]
    assert texts(user1) == texts(first["messages"][0])
    tool_use = next(b["toolUse"] for b in assistant["content"] if "toolUse" in b)
    assert tool_use["name"] == "add_entry" and tool_use["input"] == args
    tool_result = next(b["toolResult"] for b in user2["content"] if "toolResult" in b)
    assert tool_result["toolUseId"] == tool_use["toolUseId"]
    result_text = " ".join(c.get("text", "") or json.dumps(c.get("json")) for c in tool_result["content"])
    assert "enqueued" in result_text.lower()
    assert tool_result.get("status", "success") == "success"

    # the entry really is in the memory, with the harness's trace tags merged in
    assert [e["rawEntry"] for e in entries] == [raw]
    assert entries[0]["summary"] == args["summary"]
    assert entries[0]["tags"]["session_id"] == "s1" and entries[0]["tags"]["turn_index"] == "0"
    assert [(r["tool"], r["error"]) for _, r in decisions] == [("add_entry", None)]

    agent_tally = ledger.snapshot()["roles"]["agent"]
    assert (agent_tally["calls"], agent_tally["input_tokens"], agent_tally["output_tokens"]) == (2, 2200, 55)
    assert set(agent_tally["models"]) == {MODEL}
