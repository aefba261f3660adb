"""The offline memory agent driving create_agent through a real MCP session."""

from __future__ import annotations

from langchain_core.messages import ToolMessage

from benchmarker.agent.memory_agent import run_agent_turn, turn_message
from benchmarker.agent.offline_agent import CONTEXT_MAX, build_context, summarize_message
from benchmarker.agent.prompts import TurnHeader
from tests.agent.support import (
    SESSION_DATE,
    LoopingToolModel,
    agent_context,
    memory_session,
    offline_setup,
    run_session,
)
from tests.fakes.mcp_memory import PLACEHOLDER_CONTEXT

SESSION = [
    ("user", "Hi! I just adopted 2 cats named Luna and Milo from the Oakland shelter."),
    ("assistant", "Congratulations! Luna and Milo are lovely names."),
    ("user", "I prefer wet food for them. It costs me $45 a month."),
    ("assistant", "Wet food is a good choice for hydration."),
    ("user", "I decided to book a vet visit on June 3 with Dr. Patel."),
    ("assistant", "Great, early checkups help."),
    ("user", "Thanks, that's all for today."),
]
HARNESS_TAGS = {"run_id", "case_id", "question_id", "session_id", "session_date", "turn_index", "role"}


def agent_calls(server):
    """The tool calls that came from the agent (the harness's own setup calls dropped)."""
    skip = {"list_vaults", "create_vault", "create_memory_in_vault", "get_default_prompts"}
    return [(tool, args) for tool, args in server.calls if tool not in skip]


async def test_a_session_follows_the_capture_rules(memory_server):
    decisions = []
    async with memory_session(memory_server) as (client, vault_id, memory_id, prompts):
        agent = offline_setup(client, decisions=decisions)
        outcomes = await run_session(agent, agent_context(vault_id, memory_id, prompts, cadence=3), SESSION)
    assert all(o.ok and o.failed_reason is None for o in outcomes)
    names = [tool for tool, _ in agent_calls(memory_server)]
    flush = ["add_entry", "await_consistency", "get_context", "put_context"]
    assert names == ["get_context", "list_entries", "add_entry", "add_entry"] + flush + ["add_entry", "add_entry"] \
        + flush + flush
    assert [o.tool_calls for o in outcomes] == [3, 1, 4, 1, 1, 4, 4]
    list_args = next(a for t, a in agent_calls(memory_server) if t == "list_entries")
    assert list_args["limit"] == 10

    entries = memory_server.state.entries[memory_id]
    assert len(entries) == len(SESSION)
    first = entries[0]
    assert first["rawEntry"].startswith(f"[{SESSION_DATE}] user: Hi! I just adopted 2 cats")
    assert first["summary"].startswith("On 2023-05-20 the user said:") and "2 cats" in first["summary"]
    assert "Luna" in first["summary"] and len(first["summary"]) <= 512
    assert "$45" in entries[2]["summary"]
    assert HARNESS_TAGS <= set(first["tags"]) and first["tags"]["turn_index"] == "0"
    assert first["tags"]["session_date"] == SESSION_DATE and first["tags"]["question_id"] == "q-1"
    assert entries[1]["tags"]["role"] == "assistant" and entries[1]["tags"]["turn_index"] == "1"

    contexts = memory_server.state.contexts[memory_id]
    assert len(contexts) == 1 + 3  # placeholder + messages 3, 6, 7
    final = contexts[-1]
    assert PLACEHOLDER_CONTEXT not in final and len(final) <= CONTEXT_MAX
    for expected in ("## facts", "2023-05-20: I just adopted 2 cats", "## preferences", "I prefer wet food",
                     "## decisions", "I decided to book a vet visit on June 3 with Dr. Patel.", "## entities",
                     "Luna", "## timeline", "2023-05-20 user: I just adopted 2 cats named Luna and Milo"):
        assert expected in final

    records = [r for _, r in decisions]
    assert [r["tool"] for r in records] == names
    assert all(r["error"] is None and r["latency_ms"] > 0 for r in records)
    assert records[0]["result_preview"] == PLACEHOLDER_CONTEXT
    assert decisions[0][0].session_id == "s1"
    add = next(r for r in records if r["tool"] == "add_entry")
    assert HARNESS_TAGS <= set(add["args"]["tags"])  # the sink sees the args as sent
    tool_messages = [m for o in outcomes for m in o.new_messages if isinstance(m, ToolMessage)]
    assert tool_messages and all(isinstance(m.content, str) for m in tool_messages)


async def test_a_new_session_bootstraps_and_keeps_the_earlier_context(memory_server):
    async with memory_session(memory_server) as (client, vault_id, memory_id, prompts):
        agent = offline_setup(client)
        await run_session(agent, agent_context(vault_id, memory_id, prompts), SESSION[:2])
        second = agent_context(vault_id, memory_id, prompts, session_id="s2", session_date="2023/06/10 (Sat) 10:00")
        outcomes = await run_session(agent, second, [("user", "Milo weighs 4 kg now."), ("assistant", "Nice.")])
    assert all(o.ok for o in outcomes)
    assert outcomes[0].tool_calls == 3 and outcomes[1].tool_calls == 4
    final = memory_server.state.contexts[memory_id][-1]
    assert "2023-05-20: I just adopted 2 cats" in final and "2023-06-10: Milo weighs 4 kg now." in final
    assert memory_server.state.entries[memory_id][2]["summary"].startswith("On 2023-06-10 the user said:")


async def test_a_one_message_session_fits_the_default_cap(memory_server):
    async with memory_session(memory_server) as (client, vault_id, memory_id, prompts):
        agent = offline_setup(client, cap=5)
        [outcome] = await run_session(agent, agent_context(vault_id, memory_id, prompts), SESSION[:1])
    assert outcome.ok and outcome.tool_calls == 5
    assert [t for t, _ in agent_calls(memory_server)] == ["get_context", "list_entries", "add_entry",
                                                          "await_consistency", "put_context"]


async def test_tool_call_cap_fails_the_turn_and_the_run_goes_on(memory_server):
    decisions = []
    async with memory_session(memory_server) as (client, vault_id, memory_id, prompts):
        context = agent_context(vault_id, memory_id, prompts)
        looping = LoopingToolModel(args={"vault_id": vault_id, "memory_id": memory_id})
        stuck = offline_setup(client, cap=3, model=looping, decisions=decisions)
        transcript = [turn_message("s1", SESSION_DATE, 1, 2, "user", "I have 2 cats.")]
        outcome = await run_agent_turn(stuck, transcript, context.for_turn(0, "user"), recursion_limit=40)
        assert not outcome.ok and "tool-call cap" in outcome.failed_reason
        assert outcome.tool_calls == 3 and len(decisions) == 3 and looping.calls == 4

        transcript.append(turn_message("s1", SESSION_DATE, 2, 2, "assistant", "Nice."))
        healthy = offline_setup(client)
        after = await run_agent_turn(healthy, transcript, context.for_turn(1, "assistant"))
    assert after.ok and after.tool_calls == 4


async def test_recursion_limit_fails_the_turn(memory_server):
    async with memory_session(memory_server) as (client, vault_id, memory_id, prompts):
        looping = LoopingToolModel(args={"vault_id": vault_id, "memory_id": memory_id})
        agent = offline_setup(client, cap=1000, model=looping)
        transcript = [turn_message("s1", SESSION_DATE, 1, 1, "user", "hello")]
        outcome = await run_agent_turn(agent, transcript, agent_context(vault_id, memory_id, prompts),
                                       recursion_limit=8)
    assert not outcome.ok and "recursion limit 8" in outcome.failed_reason and outcome.tool_calls >= 1


async def test_tool_errors_go_back_to_the_model_as_text(memory_server):
    decisions = []
    async with memory_session(memory_server) as (client, vault_id, memory_id, prompts):
        looping = LoopingToolModel(args={"vault_id": vault_id, "memory_id": "missing"})
        agent = offline_setup(client, cap=1, model=looping, decisions=decisions)
        transcript = [turn_message("s1", SESSION_DATE, 1, 1, "user", "hello")]
        outcome = await run_agent_turn(agent, transcript, agent_context(vault_id, memory_id, prompts))
    error_message = next(m for m in outcome.new_messages if isinstance(m, ToolMessage))
    assert error_message.status == "error" and "not found" in error_message.content
    assert isinstance(error_message.content, str)
    assert "not found" in decisions[0][1]["error"]


def test_summary_keeps_numbers_and_names_within_512_chars():
    filler = "This is a long sentence about nothing in particular that goes on and on. " * 12
    content = filler + "My sister Maria paid $2,400 for the Lisbon trip in 2022. " + filler
    summary = summarize_message("user", content, SESSION_DATE)
    assert len(summary) <= 512 and summary.startswith("On 2023-05-20 the user said:")
    assert "Maria paid $2,400 for the Lisbon trip in 2022." in summary
    assert summarize_message("assistant", "", SESSION_DATE) == "On 2023-05-20 the assistant sent an empty message."


def test_context_drops_the_placeholder_and_trims_oldest_timeline_first():
    turns = [TurnHeader("s1", SESSION_DATE, i + 1, 300, "user", f"On day {i} I walked {i} km with Rex.")
             for i in range(300)]
    text = build_context(PLACEHOLDER_CONTEXT, turns)
    assert len(text) <= CONTEXT_MAX and PLACEHOLDER_CONTEXT not in text
    timeline = text.split("## timeline\n", 1)[1].splitlines()
    assert timeline[-1].endswith("On day 299 I walked 299 km with Rex.")
    assert not any("On day 0 I walked" in line for line in timeline)
    assert "## facts" in text and "Rex" in text
    again = build_context(text, turns[-2:])  # a re-read context is merged, not duplicated
    assert again.count("On day 299 I walked 299 km with Rex.") == text.count("On day 299 I walked 299 km with Rex.")
