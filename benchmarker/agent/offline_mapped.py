"""The offline memory agent on a mapped (non-Mycelian) server: one write per message, the mapping's way.

The Mycelian policy (offline_agent.py) follows Mycelian's capture rules with Mycelian's tools.
Another server has other tools, so the offline policy there is the simplest faithful one: every
message of the agent turn is stored verbatim, dated and attributed (`raw_entry`), with the call the
mapping's `[write]` template describes, all in one model step; then "Recorded.". It is a floor for
that server (no extraction, no merging), like the Mycelian policy is for Mycelian.
"""

from __future__ import annotations

import re

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from benchmarker.agent.offline_reader import ZERO_USAGE
from benchmarker.agent.offline_summary import raw_entry, summarize_message
from benchmarker.agent.prompts import parse_unit
from benchmarker.log.lines import Json
from benchmarker.memory.tool_mapping import render

_SCOPE = re.compile(r"^Memory scope: (.+)$", re.M)


def mapped_next_step(messages: list[BaseMessage], write: dict[str, Json]) -> AIMessage:
    """The policy's next message: the writes for the newest turn's messages, then "Recorded."."""
    system = next((m.text for m in messages if isinstance(m, SystemMessage)), "")
    scope = _SCOPE.search(system)
    last_human = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    turns = parse_unit(messages[last_human].text) if last_human >= 0 else []
    if not turns:
        return _reply("Nothing to record: the newest message has no turn header.")
    if any(isinstance(m, AIMessage) and m.tool_calls for m in messages[last_human + 1:]):
        return _reply("Recorded.")
    calls = []
    for k, turn in enumerate(turns):
        values = {"text": raw_entry(turn.role, turn.content, turn.session_date),
                  "summary": summarize_message(turn.role, turn.content, turn.session_date),
                  "session_id": turn.session_id, "session_date": turn.session_date,
                  "turn_index": turn.turn_number - 1, "role": turn.role, "case_id": "",
                  "scope": scope.group(1).strip() if scope else ""}
        call_id = re.sub(r"[^A-Za-z0-9_-]", "_", f"call_{turn.session_id}_{turn.turn_number}_{k}")[:64]
        calls.append({"name": write["tool"], "args": render(write["arguments"], values), "id": call_id,
                      "type": "tool_call"})
    return AIMessage(content="", tool_calls=calls, usage_metadata=dict(ZERO_USAGE))


def _reply(text: str) -> AIMessage:
    return AIMessage(content=text, usage_metadata=dict(ZERO_USAGE))
