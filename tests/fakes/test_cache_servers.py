"""The prompt-cache simulator (hand-computed cases) and the fake servers behind the real LangChain clients."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from tests.fakes.anthropic_server import AnthropicServer
from tests.fakes.brain import anthropic_request_messages, offline_brain
from tests.fakes.cache_model import CacheRequestError, FakeClock, PromptCache, count_tokens
from tests.fakes.openai_server import ScriptedOpenAIServer, reply

EPHEMERAL = {"type": "ephemeral"}


def text(tokens: int, ch: str = "a", cc: dict | None = None) -> dict:
    """An Anthropic text block of exactly `tokens` tokens: len('{"text":"…","type":"text"}') = n + 25."""
    block = {"type": "text", "text": ch * (4 * tokens - 25)}
    if cc is not None:
        block["cache_control"] = cc
    return block


def user(*blocks: dict) -> dict:
    return {"role": "user", "content": list(blocks)}


def assistant(*blocks: dict) -> dict:
    return {"role": "assistant", "content": list(blocks)}


def cache(min_tokens: int = 100) -> PromptCache:
    return PromptCache(min_cacheable_tokens=min_tokens, clock=FakeClock())


def split(u) -> tuple[int, int, int]:
    return u.cache_read_tokens, u.cache_write_tokens, u.input_tokens


# --- token counting -------------------------------------------------------------------------

def test_count_tokens_is_a_quarter_of_the_canonical_json_rounded_up_and_ignores_cache_markers():
    block = {"type": "text", "text": "abcd"}                       # '{"text":"abcd","type":"text"}': 29 chars
    assert count_tokens(block) == 8
    assert count_tokens({**block, "cache_control": EPHEMERAL}) == 8
    assert count_tokens(text(50)) == 50 and count_tokens(text(50, cc=EPHEMERAL)) == 50


# --- Anthropic semantics --------------------------------------------------------------------

def test_anthropic_breakpoint_writes_then_reads():
    c = cache()
    body = {"model": "m", "system": [text(200, "s", EPHEMERAL)], "messages": [user(text(10, "u"))]}
    first = c.anthropic(body)
    assert split(first) == (0, 200, 10)
    assert first.anthropic_usage(7) == {
        "input_tokens": 10, "output_tokens": 7, "cache_creation_input_tokens": 200, "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 200, "ephemeral_1h_input_tokens": 0}}
    body2 = {**body, "messages": [user(text(30, "v"))]}
    assert split(c.anthropic(body2)) == (200, 0, 30)
    # another model does not share the cache
    assert split(c.anthropic({**body2, "model": "m2"})) == (0, 200, 30)


def test_no_breakpoint_means_no_caching():
    c = cache()
    body = {"model": "m", "system": [text(200, "s")], "messages": [user(text(10, "u"))]}
    assert split(c.anthropic(body)) == (0, 0, 210)
    assert split(c.anthropic(body)) == (0, 0, 210)


def test_top_level_cache_control_marks_the_last_block_and_a_growing_conversation_reads_its_prefix():
    c = cache()
    turn1 = {"model": "m", "cache_control": EPHEMERAL, "system": "S" * (4 * 200 - 25),
             "messages": [user(text(50, "a"))]}
    assert count_tokens({"type": "text", "text": turn1["system"]}) == 200   # a string system is one text block
    assert split(c.anthropic(turn1)) == (0, 250, 0)
    turn2 = {**turn1, "messages": [user(text(50, "a")), assistant(text(20, "b")), user(text(30, "c"))]}
    assert split(c.anthropic(turn2)) == (250, 50, 0)
    # a string message content is the same block as one text block: same key
    turn3 = {**turn1, "messages": [{"role": "user", "content": "a" * (4 * 50 - 25)}]}
    assert split(c.anthropic(turn3)) == (250, 0, 0)


@pytest.mark.parametrize("new_blocks, hit", [(20, True), (21, False)])
def test_lookback_reaches_20_blocks_back_from_a_breakpoint(new_blocks, hit):
    c = cache()
    first = {"model": "m", "cache_control": EPHEMERAL, "system": [text(200, "s")], "messages": [user(text(10, "0"))]}
    assert split(c.anthropic(first)) == (0, 210, 0)        # breakpoint at block 1
    blocks = [text(10, "0")] + [text(10, chr(ord("A") + i)) for i in range(new_blocks)]
    second = {**first, "messages": [user(*blocks)]}         # breakpoint at block 1 + new_blocks
    added = 10 * new_blocks
    assert split(c.anthropic(second)) == ((210, added, 0) if hit else (0, 210 + added, 0))


def test_prefix_below_the_minimum_is_plain_input_and_not_stored():
    c = cache(min_tokens=1000)
    body = {"model": "m", "system": [text(200, "s", EPHEMERAL)], "messages": [user(text(10, "u"))]}
    assert split(c.anthropic(body)) == (0, 0, 210)
    assert split(c.anthropic(body)) == (0, 0, 210)
    # only the breakpoint prefixes that reach the minimum are stored
    c2 = cache(min_tokens=150)
    two = {"model": "m", "system": [text(100, "s", EPHEMERAL), text(100, "t", EPHEMERAL)],
           "messages": [user(text(10, "u"))]}
    assert split(c2.anthropic(two)) == (0, 200, 10)
    assert split(c2.anthropic(two)) == (200, 0, 10)
    only_first = {**two, "system": [text(100, "s", EPHEMERAL), text(100, "x")]}
    assert split(c2.anthropic(only_first)) == (0, 0, 210)   # 100 tokens: never stored, too short to write


def test_ttl_expires_and_a_read_refreshes_it():
    clock = FakeClock()
    c = PromptCache(min_cacheable_tokens=100, clock=clock)
    body = {"model": "m", "system": [text(200, "s", EPHEMERAL)], "messages": [user(text(10, "u"))]}
    assert split(c.anthropic(body)) == (0, 200, 10)
    clock.advance(299)
    assert split(c.anthropic(body)) == (200, 0, 10)
    clock.advance(299)                                      # 598 s after the write, 299 after the refresh
    assert split(c.anthropic(body)) == (200, 0, 10)
    clock.advance(301)
    assert split(c.anthropic(body)) == (0, 200, 10)


def test_one_hour_breakpoints_are_reported_separately_and_live_longer():
    clock = FakeClock()
    c = PromptCache(min_cacheable_tokens=100, clock=clock)
    body = {"model": "m", "system": [text(150, "s", {"type": "ephemeral", "ttl": "1h"}),
                                     text(50, "t", {"type": "ephemeral", "ttl": "5m"})],
            "messages": [user(text(10, "u"))]}
    first = c.anthropic(body)
    assert split(first) == (0, 200, 10)
    assert first.anthropic_usage(0)["cache_creation"] == {"ephemeral_5m_input_tokens": 50,
                                                          "ephemeral_1h_input_tokens": 150}
    clock.advance(600)                                      # the 5m entry is gone, the 1h one is not
    assert split(c.anthropic(body)) == (150, 50, 10)


def test_at_most_four_breakpoints_and_the_automatic_one_takes_a_slot():
    c = cache()
    four = {"model": "m", "system": [text(30, ch, EPHEMERAL) for ch in "abcd"], "messages": [user(text(10, "u"))]}
    assert split(c.anthropic(four)) == (0, 120, 10)
    five = {**four, "messages": [user(text(10, "u", EPHEMERAL))]}
    with pytest.raises(CacheRequestError, match="A maximum of 4 blocks with cache_control may be provided"):
        c.anthropic(five)
    with pytest.raises(CacheRequestError, match="Found 5"):
        c.anthropic({**four, "cache_control": EPHEMERAL})


def test_cache_markers_do_not_change_the_cache_key():
    c = cache()
    marked_system = {"model": "m", "system": [text(200, "s", EPHEMERAL)], "messages": [user(text(10, "u"))]}
    assert split(c.anthropic(marked_system)) == (0, 200, 10)
    # same content, the marker moved to the message: the system prefix is found by the lookback
    marked_message = {"model": "m", "system": [text(200, "s")],
                      "messages": [user(text(10, "u", {"type": "ephemeral", "ttl": "5m"}))]}
    assert split(c.anthropic(marked_message)) == (200, 10, 0)


# --- OpenAI semantics -----------------------------------------------------------------------

def msg(role: str, tokens: int, ch: str = "x") -> dict:
    """An OpenAI message of exactly `tokens` tokens: len('{"content":"…","role":"user"}') = n + 24 + len(role)."""
    return {"role": role, "content": ch * (4 * tokens - 24 - len(role))}


def test_openai_prefix_cache_counts_whole_messages_in_128_token_steps():
    c = PromptCache(clock=FakeClock())
    first = {"model": "gpt", "messages": [msg("system", 1100, "s"), msg("user", 50, "u")]}
    assert count_tokens(first["messages"][0]) == 1100
    u1 = c.openai(first)
    assert (u1.prompt_tokens, u1.cached_tokens) == (1150, 0)
    second = {**first, "messages": first["messages"] + [msg("assistant", 20, "a"), msg("user", 30, "v")]}
    u2 = c.openai(second)
    assert (u2.prompt_tokens, u2.cached_tokens) == (1200, 1024)       # 1150 rounded down to 8 x 128
    assert u2.openai_usage(5)["prompt_tokens_details"]["cached_tokens"] == 1024
    assert c.openai(second).cached_tokens == 1152                      # 1200 -> 9 x 128
    assert c.openai({**second, "model": "other"}).cached_tokens == 0


def test_openai_prompt_cache_key_and_minimum_length():
    c = PromptCache(clock=FakeClock())
    body = {"model": "gpt", "messages": [msg("system", 1100, "s"), msg("user", 50, "u")]}
    assert c.openai({**body, "prompt_cache_key": "k1"}).cached_tokens == 0
    assert c.openai({**body, "prompt_cache_key": "k2"}).cached_tokens == 0    # another key: not shared
    assert c.openai({**body, "prompt_cache_key": "k1"}).cached_tokens == 1024
    assert c.openai(body).cached_tokens == 1024                               # no key: any earlier request
    short = {"model": "gpt", "messages": [msg("system", 900, "t"), msg("user", 50, "u")]}
    c.openai(short)
    assert c.openai(short).cached_tokens == 0                                  # under 1024 tokens
    tools = [{"type": "function", "function": {"name": "f", "parameters": {}}}]
    with_tools = {**body, "tools": tools}
    c.openai(with_tools)
    assert c.openai(with_tools).cached_tokens == (1150 + count_tokens(tools)) // 128 * 128


# --- Bedrock semantics ----------------------------------------------------------------------

POINT = {"cachePoint": {"type": "default"}}


def btext(tokens: int, ch: str = "s") -> dict:
    return {"text": ch * (4 * tokens - 11)}                 # '{"text":"…"}' = n + 11


def test_bedrock_cache_points_mark_the_block_before_them_and_cost_nothing():
    c = cache()
    body = {"system": [btext(200), POINT], "messages": [{"role": "user", "content": [{"text": "hi"}]}]}
    assert c.parse_bedrock(body, "model").tokens == 204      # '{"text":"hi"}' = 13 chars -> 4
    first = c.bedrock(body, "model")
    assert split(first) == (0, 200, 4)
    assert first.bedrock_usage(3) == {"inputTokens": 4, "outputTokens": 3, "totalTokens": 207,
                                      "cacheReadInputTokens": 0, "cacheWriteInputTokens": 200,
                                      "cacheDetails": [{"ttl": "5m", "inputTokens": 200}]}
    second = c.bedrock(body, "model")
    assert split(second) == (200, 0, 4) and "cacheDetails" not in second.bedrock_usage(3)
    tools = {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {}}}}, POINT]}
    with pytest.raises(CacheRequestError, match="cachePoint"):
        c.bedrock({**body, "toolConfig": tools, "system": [btext(10), POINT, btext(10, "t"), POINT],
                   "messages": [{"role": "user", "content": [{"text": "hi"}, POINT, {"text": "yo"}, POINT]}]}, "m")


# --- the servers behind the real LangChain clients ------------------------------------------

LONG = "The operating manual of the test harness. " * 160      # ~1,700 tokens


def details(message) -> dict:
    return message.usage_metadata["input_token_details"]


def test_anthropic_client_reads_cache_and_streams_usage():
    from langchain.chat_models import init_chat_model

    with AnthropicServer([reply("one"), reply("two"), reply("three")]) as server:
        model = init_chat_model("claude-test", model_provider="anthropic", api_key="x", base_url=server.base_url,
                                max_retries=0)
        messages = [SystemMessage(content=[{"type": "text", "text": LONG, "cache_control": EPHEMERAL}]),
                    HumanMessage("What does the manual say?")]
        first = model.invoke(messages, cache_control=EPHEMERAL)
        longer = messages + [AIMessage("one"), HumanMessage("And after that?")]
        second = model.invoke(longer, cache_control=EPHEMERAL)
        third = None
        for chunk in model.stream(longer + [AIMessage("two"), HumanMessage("Last one?")], cache_control=EPHEMERAL):
            third = chunk if third is None else third + chunk
    assert server.requests[0]["cache_control"] == EPHEMERAL                 # top-level automatic caching
    assert server.requests[0]["system"][0]["cache_control"] == EPHEMERAL
    written = server.usages[0]["cache_creation_input_tokens"]
    assert written > 1024 and details(first)["cache_read"] == 0
    assert details(first)["ephemeral_5m_input_tokens"] == written
    assert first.usage_metadata["input_tokens"] == written + server.usages[0]["input_tokens"]
    assert details(second)["cache_read"] == written                        # the whole first prompt
    assert details(second)["ephemeral_5m_input_tokens"] == server.usages[1]["cache_creation_input_tokens"] > 0
    assert third.text == "three" and details(third)["cache_read"] > written
    assert third.usage_metadata["output_tokens"] == server.usages[2]["output_tokens"] == count_tokens(
        {"type": "text", "text": "three"})


def test_anthropic_server_rejects_a_fifth_breakpoint():
    import anthropic
    from langchain.chat_models import init_chat_model

    with AnthropicServer([reply("never")]) as server:
        model = init_chat_model("claude-test", model_provider="anthropic", api_key="x", base_url=server.base_url,
                                max_retries=0)
        system = SystemMessage(content=[{"type": "text", "text": f"part {i}", "cache_control": EPHEMERAL}
                                        for i in range(4)])
        with pytest.raises(anthropic.BadRequestError, match="A maximum of 4 blocks"):
            model.invoke([system, HumanMessage("q")], cache_control=EPHEMERAL)
        assert server.usages == []


def test_openai_client_reports_cached_tokens():
    from langchain_openai import ChatOpenAI

    with ScriptedOpenAIServer([reply("a"), reply("b")], simulate_usage=True) as server:
        model = ChatOpenAI(model="gpt-test", base_url=server.base_url, api_key="x", use_responses_api=False,
                           max_retries=0, stream_usage=True)
        messages = [SystemMessage(LONG), HumanMessage("What does the manual say?")]
        first = model.invoke(messages, prompt_cache_key="run:case")
        second = model.invoke(messages + [AIMessage("a"), HumanMessage("And?")], prompt_cache_key="run:case")
    assert server.requests[1]["prompt_cache_key"] == "run:case"
    assert details(first)["cache_read"] == 0
    prompt1 = server.usages[0]["prompt_tokens"]
    assert details(second)["cache_read"] == prompt1 // 128 * 128 >= 1024
    assert second.usage_metadata["input_tokens"] == server.usages[1]["prompt_tokens"] > prompt1


@pytest.fixture
def aws_env(monkeypatch, tmp_path):
    """Dummy static AWS credentials and no proxy (the Bedrock provider tests' own setup)."""
    from tests.fakes.bedrock_server import use_local_aws

    use_local_aws(monkeypatch, tmp_path)


BEDROCK_MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"


def bedrock_client(server):
    from botocore.config import Config
    from langchain.chat_models import init_chat_model

    return init_chat_model(BEDROCK_MODEL, model_provider="bedrock_converse", region_name="us-west-2",
                           base_url=server.endpoint_url, config=Config(retries={"total_max_attempts": 1}))


def test_bedrock_client_reports_cache_read_and_write(aws_env):
    from tests.fakes.bedrock_server import ScriptedBedrockServer

    with ScriptedBedrockServer([reply("a"), reply("b")], simulate_usage=True) as server:
        model = bedrock_client(server)
        messages = [SystemMessage(LONG), HumanMessage("What does the manual say?")]
        first = model.invoke(messages, cache_control=EPHEMERAL)
        second = model.invoke(messages + [AIMessage("a"), HumanMessage("And?")], cache_control=EPHEMERAL)
    assert POINT in server.requests[0]["system"]
    written = server.usages[0]["cacheWriteInputTokens"]
    assert written > 1024 and details(first)["cache_read"] == 0
    assert details(first).get("ephemeral_5m_input_tokens") == written or details(first)["cache_creation"] == written
    assert details(second)["cache_read"] == written
    assert second.usage_metadata["input_tokens"] == (server.usages[1]["inputTokens"] + written
                                                     + server.usages[1]["cacheWriteInputTokens"])


# --- model-backed mode ----------------------------------------------------------------------

def test_anthropic_request_is_rebuilt_into_langchain_messages():
    body = {"system": [{"type": "text", "text": "SYS", "cache_control": EPHEMERAL}],
            "tools": [{"name": "add_entry", "input_schema": {}}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "h1"},
                                                      {"type": "text", "text": "h2", "cache_control": EPHEMERAL}]},
                         {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "add_entry",
                                                            "input": {"a": 1}}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": True,
                                                      "content": [{"type": "text", "text": "boom"}]}]}]}
    messages, tools = anthropic_request_messages(body)
    assert tools == ["add_entry"]
    assert [type(m).__name__ for m in messages] == ["SystemMessage", "HumanMessage", "HumanMessage", "AIMessage",
                                                    "ToolMessage"]
    assert messages[0].text == "SYS" and [messages[1].text, messages[2].text] == ["h1", "h2"]
    assert messages[3].tool_calls[0]["args"] == {"a": 1} and messages[3].tool_calls[0]["id"] == "t1"
    assert messages[4].tool_call_id == "t1" and messages[4].status == "error" and messages[4].text == "boom"


SESSION = [("user", "I adopted two cats, Miso and Tofu, on 2023-05-01."),
           ("assistant", "Congratulations on Miso and Tofu!"),
           ("user", "I prefer dry food for them, from Petco.")]


async def _offline_session(model, provider: str, model_id: str = "claude-test") -> tuple[list, list, dict]:
    """One 3-message session through the harness's memory agent (prompt caching on); outcomes, tool calls."""
    from benchmarker.agent.ledger import TokenLedger
    from benchmarker.agent.memory_agent import build_memory_agent
    from benchmarker.agent.retry import RetryPolicy
    from tests.agent.support import agent_context, memory_session, run_session
    from tests.fakes.mcp_memory import FakeMemoryServer

    ledger = TokenLedger({model_id: {"input": 1.0, "output": 5.0, "cached_input": 0.1, "cache_write": 1.25}})
    with FakeMemoryServer() as memory:
        async with memory_session(memory) as (client, vault_id, memory_id, prompts):
            agent = build_memory_agent(model, client.tools, max_tool_calls_per_turn=5, ledger=ledger,
                                       retry_policy=RetryPolicy(max_attempts=1), provider=provider,
                                       model_id=model_id, prompt_cache=True)
            setup = len(memory.calls)
            outcomes = await run_session(agent, agent_context(vault_id, memory_id, prompts, cadence=6), SESSION)
            calls = [(name, {k: v for k, v in args.items() if k not in ("vault_id", "memory_id")})
                     for name, args in memory.calls[setup:]]
    return outcomes, calls, ledger.snapshot()


_REFERENCE: dict[str, tuple] = {}


@pytest.mark.parametrize("provider", ["anthropic", "bedrock", "openai"])
async def test_offline_memory_agent_runs_through_the_server_with_cache_reads(provider, request):
    """The harness's memory agent (prompt caching on) behind the real client, the offline agent as brain:
    the same tool calls as the offline model called directly, and the ledger sees cache reads."""
    from langchain.chat_models import init_chat_model
    from langchain_openai import ChatOpenAI

    from benchmarker.agent.offline import OfflineMemoryAgentModel
    from tests.fakes.bedrock_server import ScriptedBedrockServer

    if "ref" not in _REFERENCE:
        _REFERENCE["ref"] = await _offline_session(OfflineMemoryAgentModel(), "offline")
    reference, ref_calls, _ = _REFERENCE["ref"]
    if provider == "anthropic":
        server, model_id = AnthropicServer(brain=offline_brain()), "claude-test"
        make = lambda: init_chat_model(model_id, model_provider="anthropic", api_key="x",  # noqa: E731
                                       base_url=server.base_url, max_retries=0)
    elif provider == "bedrock":
        request.getfixturevalue("aws_env")
        server, model_id = ScriptedBedrockServer(brain=offline_brain()), BEDROCK_MODEL
        make = lambda: bedrock_client(server)  # noqa: E731
    else:
        server, model_id = ScriptedOpenAIServer(brain=offline_brain()), "gpt-test"
        make = lambda: ChatOpenAI(model=model_id, base_url=server.base_url, api_key="x",  # noqa: E731
                                  use_responses_api=False, max_retries=0)
    with server:
        outcomes, calls, snapshot = await _offline_session(make(), provider, model_id)
    assert server.brain_errors == []
    assert [(o.ok, o.tool_calls) for o in outcomes] == [(o.ok, o.tool_calls) for o in reference] == [
        (True, 3), (True, 1), (True, 4)]
    assert calls == ref_calls
    if provider == "anthropic":  # consecutive dataset messages were merged into one user turn, and split back
        assert any(len(m["content"]) > 1 for r in server.requests for m in r["messages"] if m["role"] == "user")
    _assert_markers_and_stable_prefix(provider, server.requests)
    agent = snapshot["roles"]["agent"]
    assert agent["calls"] == len(server.requests) == len(server.usages)
    assert agent["cache_read_tokens"] > 0 and agent["cache_hit_share"] > 0.5
    assert (agent["cache_write_tokens"] > 0) == (provider != "openai")


def _unmarked(obj):
    """A request part without cache markers (cache_control keys, cachePoint blocks): what the cache keys on."""
    if isinstance(obj, dict):
        return {k: _unmarked(v) for k, v in obj.items() if k != "cache_control"}
    if isinstance(obj, list):
        return [_unmarked(v) for v in obj if not (isinstance(v, dict) and "cachePoint" in v)]
    return obj


def _assert_markers_and_stable_prefix(provider: str, requests: list[dict]) -> None:
    """Every call carries the provider's cache markers, and tools + system + the session's first message
    are the same bytes on every call (no timestamp or counter before the transcript)."""
    import json

    def prefix(body):
        tools = body.get("tools") or (body.get("toolConfig") or {}).get("tools")
        system = body.get("system") if provider != "openai" else body["messages"][0]
        first = body["messages"][0 if provider != "openai" else 1]
        if provider == "anthropic":  # a string is one text block to the API; merged later turns may follow
            blocks = first["content"] if isinstance(first["content"], list) else [
                {"type": "text", "text": first["content"]}]
            first = {**first, "content": blocks[:1]}
        if provider == "bedrock":
            first = {**first, "content": [b for b in first["content"] if "text" in b][:1]}
        return json.dumps(_unmarked([tools, system, first]), sort_keys=True)

    assert len({prefix(body) for body in requests}) == 1
    for body in requests:
        if provider == "anthropic":
            assert body["cache_control"]["type"] == "ephemeral"
            assert "cache_control" in body["system"][-1] and "cache_control" in body["tools"][-1]
        elif provider == "bedrock":
            assert any("cachePoint" in b for b in body["system"])
            assert any("cachePoint" in t for t in body["toolConfig"]["tools"])
        else:
            assert body["prompt_cache_key"] == "run-1:case-1"
    if provider == "openai":  # automatic caching needs exact bytes: each call extends the kept transcript
        for before, after in zip(requests, requests[1:]):
            kept = next((i for i, m in enumerate(before["messages"]) if m["role"] == "assistant"),
                        len(before["messages"]))
            assert json.dumps(after["messages"][:kept]) == json.dumps(before["messages"][:kept])


def test_bedrock_model_without_prompt_caching_gets_no_cache_points(aws_env):
    from benchmarker.agent.caching import bedrock_supports_cache, prompt_cache_middleware

    assert bedrock_supports_cache(BEDROCK_MODEL) and bedrock_supports_cache("us.amazon.nova-lite-v1:0")
    middleware, note = prompt_cache_middleware("bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0")
    assert middleware == [] and "uncached" in note
    assert prompt_cache_middleware("anthropic", "claude-x", enabled=False)[0] == []


def test_offline_reader_answers_through_the_openai_server():
    from langchain_openai import ChatOpenAI

    from benchmarker.agent.offline import OfflineReaderModel
    from benchmarker.agent.prompts import render_qa_prompt

    prompt = render_qa_prompt("What are the names of my cats?", "2023/06/01 (Thu) 10:00",
                              "[2023/05/01] user: I adopted two cats, Miso and Tofu.\n[2023/05/02] user: I like tea.")
    expected = OfflineReaderModel().invoke([HumanMessage(prompt)]).text
    with ScriptedOpenAIServer(brain=offline_brain()) as server:
        model = ChatOpenAI(model="gpt-test", base_url=server.base_url, api_key="x", use_responses_api=False,
                           max_retries=0)
        answer = model.invoke([HumanMessage(prompt)])
    assert answer.text == expected and "Miso" in expected
    assert server.usages[0]["completion_tokens"] == count_tokens({"type": "text", "text": expected})
