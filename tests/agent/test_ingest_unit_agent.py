"""Several messages in one agent turn: each add_entry is tagged with the message it records, and the
tool-call cap scales with the number of messages."""

from __future__ import annotations

import dataclasses
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from benchmarker.agent.memory_agent import run_agent_turn
from benchmarker.agent.prompts import render_unit
from tests.agent.support import SESSION_DATE, agent_context, memory_session, offline_setup


class TwoWritesModel(BaseChatModel):
    """Writes two entries in one reply (the second names its message, the first does not), then stops."""

    tags: list[dict[str, Any]] = [{}, {"message": 4}]
    ids: tuple[str, str] = ("", "")

    @property
    def _llm_type(self) -> str:
        return "two-writes"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "TwoWritesModel":
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        if isinstance(messages[-1], HumanMessage):
            calls = [{"name": "add_entry", "id": f"w{i}", "type": "tool_call",
                      "args": {"vault_id": self.ids[0], "memory_id": self.ids[1], "raw_entry": f"entry {i}",
                               "summary": f"entry {i}", "tags": tags}} for i, tags in enumerate(self.tags)]
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", tool_calls=calls))])
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="Recorded."))])


def _unit_context(vault_id, memory_id, prompts, turns):
    base = agent_context(vault_id, memory_id, prompts)
    return dataclasses.replace(base, turn_index=turns[-1][0], role=turns[-1][1], unit_turns=tuple(turns))


async def test_entries_of_a_unit_carry_their_own_turn(memory_server):
    decisions = []
    async with memory_session(memory_server) as (client, vault_id, memory_id, prompts):
        model = TwoWritesModel(ids=(vault_id, memory_id), tags=[{}, {"message": 4}])
        agent = offline_setup(client, model=model, decisions=decisions)
        text = render_unit([("s1", SESSION_DATE, 3, 9, "user", "I have 2 cats."),
                            ("s1", SESSION_DATE, 4, 9, "assistant", "Nice!")])
        outcome = await run_agent_turn(agent, [HumanMessage(text)],
                                       _unit_context(vault_id, memory_id, prompts, [(2, "user"), (3, "assistant")]))
    assert outcome.ok and outcome.tool_calls == 2
    entries = memory_server.state.entries[memory_id]
    by_text = {e["rawEntry"]: e["tags"] for e in entries}
    # no number: the first add_entry records the first message; "message": 4 names the second
    assert (by_text["entry 0"]["turn_index"], by_text["entry 0"]["role"]) == ("2", "user")
    assert (by_text["entry 1"]["turn_index"], by_text["entry 1"]["role"]) == ("3", "assistant")
    assert by_text["entry 1"]["message"] == "4"  # every tag value is a string (Mycelian drops the rest)
    assert sorted(ctx.turn_index for ctx, _ in decisions) == [2, 3]


async def test_the_tool_call_cap_is_per_message_of_the_unit(memory_server):
    async with memory_session(memory_server) as (client, vault_id, memory_id, prompts):
        model = TwoWritesModel(ids=(vault_id, memory_id), tags=[{}, {}])
        agent = offline_setup(client, model=model, cap=1)
        text = render_unit([("s1", SESSION_DATE, 1, 2, "user", "a"), ("s1", SESSION_DATE, 2, 2, "assistant", "b")])
        two = await run_agent_turn(agent, [HumanMessage(text)],
                                   _unit_context(vault_id, memory_id, prompts, [(0, "user"), (1, "assistant")]))
        one = await run_agent_turn(agent, [HumanMessage(text)], agent_context(vault_id, memory_id, prompts))
    assert two.ok and two.tool_calls == 2
    assert not one.ok and "cap" in one.failed_reason
