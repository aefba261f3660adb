"""`[agent] raw_entry = "harness"` and `context_update = "session"`: the model names the message it records
(the harness stores its exact text), and a session is recorded in one writing reply."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from benchmarker.agent.memory_agent import run_agent_turn
from benchmarker.agent.prompts import (
    MEMORY_AGENT_PREFIX,
    compose_memory_system_prompt,
    load_prompt,
    render_unit,
    unit_instructions,
)
from benchmarker.graph.ingest import ingest_units
from benchmarker.memory.client import MemoryClient
from tests.agent.support import SESSION_DATE, agent_context, memory_session, offline_setup
from tests.fakes.openai_server import ScriptedOpenAIServer, reply, tool_calls

SESSION = [
    ("user", "I moved to Denver in March 2021 and I run 3 times a week."),
    ("assistant", "Denver is great for running at altitude. {Braces} and \"quotes\" stay as they are."),
    ("user", "My favourite trail is Chautauqua with my friend Priya.\n\nSecond paragraph, kept verbatim.  "),
]


def _context(vault_id: str, memory_id: str, prompts: dict, *, unit: str, raw_entry: str, context_update: str):
    system = compose_memory_system_prompt(load_prompt(MEMORY_AGENT_PREFIX), prompts, vault_id=vault_id,
                                          memory_id=memory_id, context_cadence=2,
                                          unit_text=unit_instructions(unit, None, context_update),
                                          raw_entry=raw_entry, context_update=context_update)
    base = agent_context(vault_id, memory_id, prompts)
    return base.__class__(**{**base.__dict__, "system_prompt": system})


async def _ingest(agent: Any, base: Any, messages: list[tuple[str, str]], unit: str, *, once: bool) -> list[Any]:
    """One session the way graph/ingest.py feeds it: units, the context-due line on the last turn."""
    transcript, outcomes, n = [], [], len(messages)
    for group in ingest_units([role for role, _ in messages], unit):
        due = once and group[-1] == n - 1
        turns = [("s1", SESSION_DATE, i + 1, n, messages[i][0], messages[i][1]) for i in group]
        transcript.append(HumanMessage(render_unit(turns, context_due=due)))
        ctx = base.for_unit([(i, messages[i][0], messages[i][1]) for i in group], context_due=due, end_when_done=once)
        outcomes.append(await run_agent_turn(agent, list(transcript), ctx))
    return outcomes


async def _entries(embedded, unit: str, raw_entry: str, context_update: str = "cadence"):
    decisions: list = []
    async with MemoryClient.connect(embedded.mcp_url, headers=embedded.auth_headers) as client:
        vault_id = await client.ensure_vault("harness-tests")
        memory_id = (await client.create_memory(vault_id, f"{unit}-{raw_entry}-{context_update}"))["memoryId"]
        prompts = await client.get_default_prompts("chat")
        agent = offline_setup(client, decisions=decisions)
        if raw_entry == "harness":
            from benchmarker.agent.memory_agent import build_memory_agent
            from benchmarker.agent.offline import OfflineMemoryAgentModel
            from benchmarker.agent.retry import RetryPolicy

            agent = build_memory_agent(OfflineMemoryAgentModel(), client.tools, max_tool_calls_per_turn=5,
                                       retry_policy=RetryPolicy(max_attempts=1), raw_entry="harness",
                                       decision_sink=lambda ctx, record: decisions.append((ctx, record)))
        base = _context(vault_id, memory_id, prompts, unit=unit, raw_entry=raw_entry, context_update=context_update)
        outcomes = await _ingest(agent, base, SESSION, unit, once=context_update == "session")
        await client.await_consistency(memory_id)
        entries = await client.list_all_entries(vault_id, memory_id)
        context = await client.get_context(vault_id, memory_id)
    assert all(o.ok for o in outcomes), [o.failed_reason for o in outcomes]
    stored = [(e["rawEntry"], e["summary"], e["tags"]) for e in entries]
    return stored, decisions, outcomes, context


@pytest.mark.parametrize("unit", ["message", "session"])
async def test_harness_mode_stores_byte_identical_entries(embedded, unit):
    model_entries, _, _, _ = await _entries(embedded, unit, "model")
    harness_entries, decisions, _, _ = await _entries(embedded, unit, "harness")
    # parallel add_entry calls (session unit) reach the server in any order: compare as sets of entries
    assert sorted(map(repr, harness_entries)) == sorted(map(repr, model_entries))
    assert sorted(raw for raw, _, _ in harness_entries) == sorted(f"[{SESSION_DATE}] {r}: {t}" for r, t in SESSION)
    writes = [record for _, record in decisions if record["tool"] == "add_entry"]
    assert len(writes) == 3
    from benchmarker.agent.middleware import ToolDecision

    named = set(ToolDecision.__required_keys__) | set(ToolDecision.__optional_keys__)
    for _, record in decisions:  # a sink gets the keys ToolDecision names: decisions.jsonl's own fields
        assert named - {"model_args"} <= set(record) <= named
    for record in writes:  # decisions.jsonl: what the model sent, and what the server got
        assert "raw_entry" not in record["model_args"] and "vault_id" not in record["model_args"]
        assert record["args"]["raw_entry"].startswith(f"[{SESSION_DATE}]")
        assert record["args"]["tags"]["message"] == str(record["model_args"]["message"])


async def test_session_unit_records_a_session_in_one_writing_reply(embedded):
    _, decisions, outcomes, context = await _entries(embedded, "session", "harness", "session")
    (outcome,) = outcomes
    replies = [m for m in outcome.new_messages if isinstance(m, AIMessage)]
    # the bootstrap reply, then ONE reply with every add_entry and the put_context; no closing call
    assert [[c["name"] for c in m.tool_calls] for m in replies] == [
        ["get_context", "list_entries"], ["add_entry", "add_entry", "add_entry", "put_context"]]
    assert "Chautauqua" in context and not any(r["error"] for _, r in decisions)


async def test_message_unit_with_session_context_ends_turns_without_a_closing_call(embedded):
    _, _, outcomes, context = await _entries(embedded, "message", "harness", "session")
    calls = [[c["name"] for m in o.new_messages if isinstance(m, AIMessage) for c in m.tool_calls] for o in outcomes]
    assert calls == [["get_context", "list_entries", "add_entry"], ["add_entry"],
                     ["get_context", "add_entry", "put_context"]]
    assert all(isinstance(o.new_messages[-1], HumanMessage) is False for o in outcomes)
    assert not any(isinstance(m, AIMessage) and not m.tool_calls for o in outcomes for m in o.new_messages)
    assert "Chautauqua" in context


async def test_a_models_add_entry_with_a_message_number_gets_the_exact_text(memory_server, openai_key):
    from benchmarker.agent.memory_agent import build_memory_agent
    from benchmarker.agent.providers import make_chat_model
    from benchmarker.agent.retry import RetryPolicy

    decisions: list = []
    messages = [("user", "I have 2 cats."), ("assistant", "Lovely: what are their names?\n  Tell me!")]
    async with memory_session(memory_server) as (client, vault_id, memory_id, prompts):
        script = [tool_calls([("add_entry", {"message": 2, "summary": "The assistant asked for the cats' names."}),
                              ("add_entry", {"message": 7, "summary": "not in this turn"})]),
                  reply("Recorded.")]
        with ScriptedOpenAIServer(script) as server:
            model = make_chat_model("openai", "gpt-test", role="agent", base_url=server.base_url,
                                    api_key_env=openai_key)
            agent = build_memory_agent(model, client.tools, max_tool_calls_per_turn=5, raw_entry="harness",
                                       retry_policy=RetryPolicy(max_attempts=1), provider="openai",
                                       decision_sink=lambda ctx, record: decisions.append(record))
            base = _context(vault_id, memory_id, prompts, unit="exchange", raw_entry="harness",
                            context_update="cadence")
            text = render_unit([("s1", SESSION_DATE, i + 1, 2, r, c) for i, (r, c) in enumerate(messages)])
            ctx = base.for_unit([(i, r, c) for i, (r, c) in enumerate(messages)])
            outcome = await run_agent_turn(agent, [HumanMessage(text)], ctx)
            first = server.requests[0]
    schema = next(t["function"] for t in first["tools"] if t["function"]["name"] == "add_entry")
    assert set(schema["parameters"]["properties"]) == {"message", "summary", "tags", "raw_entry"}
    assert schema["description"] == load_prompt("tool_add_entry_harness")
    assert "with message (its number" in first["messages"][0]["content"]
    entries = memory_server.state.entries[memory_id]
    assert [e["rawEntry"] for e in entries] == [f"[{SESSION_DATE}] assistant: Lovely: what are their names?\n  Tell me!"]
    assert entries[0]["tags"]["message"] == "2" and entries[0]["tags"]["turn_index"] == "1"
    wrong = next(d for d in decisions if d["model_args"]["message"] == 7)
    assert "message 7 is not in this chat turn" in wrong["error"] and wrong["model_args"]["message"] == 7
    assert outcome.tool_calls == 1  # the refused call never reached the server
