"""The published schemas are valid, documented and strict where it matters; message text and the contract."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from benchmarker.agent.adapters import (
    AgentAdapter,
    AgentResponse,
    HttpAgentAdapter,
    HttpAgentSettings,
    SubprocessAgentAdapter,
    SubprocessAgentSettings,
    ToolCall,
    session_items,
)
from benchmarker.agent.adapters.wire import SCHEMA_FILES, problems, schema
from benchmarker.datasets.schema import Message, Session


@pytest.mark.parametrize("protocol", sorted(SCHEMA_FILES))
def test_each_schema_is_valid_2020_12_and_every_definition_is_documented(protocol):
    document = schema(protocol)
    Draft202012Validator.check_schema(document)
    assert len(document["description"]) > 200
    undocumented = [name for name, d in document["$defs"].items() if not d.get("description")]
    assert undocumented == []


@pytest.mark.parametrize("protocol, definition, instance, ok", [
    ("http", "LearnRequest", {"content": "x", "role": "user", "session_id": "s", "date": ""}, True),
    ("http", "LearnRequest", {"content": "x", "role": "user", "session_id": "s"}, False),
    ("http", "ResetRequest", {"force": True}, False),
    ("http", "AnswerResponse", {"answer": "Lisbon", "future_field": 1}, True),
    ("http", "AnswerResponse", {"answer": "Lisbon", "confidence": 1.5}, False),
    ("http", "AnswerResponse", {"answer": "Lisbon", "tool_calls": [{"arguments": {}}]}, False),
    ("subprocess", "Request", {"id": 1, "op": "answer", "question": "q", "question_date": ""}, True),
    ("subprocess", "Request", {"op": "answer", "question": "q", "question_date": ""}, False),  # version 2: id
    ("subprocess", "Request", {"id": 1, "op": "forget"}, False),
    ("subprocess", "Ack", {"id": 3, "ok": True}, True),
    ("subprocess", "Ack", {"id": "3", "ok": True}, False),
    ("subprocess", "ErrorReply", {"id": 3, "error": "boom"}, True),
    ("subprocess", "Ack", {"id": 1, "ok": True}, True),
    ("subprocess", "Ack", {"ok": True}, False),  # version 2: every reply echoes its id
    ("subprocess", "Ack", {"id": 1, "ok": True, "tool_calls": [{"name": "add_entry", "arguments": {"raw_entry": "x"}}]},
     True),
    ("subprocess", "Ack", {"id": 1, "ok": True, "tool_calls": [{"arguments": {}}]}, False),
    ("http", "LearnResponse", {"tool_calls": [{"name": "add_entry"}], "other": 1}, True),
    ("http", "LearnResponse", {"tool_calls": {"name": "add_entry"}}, False),
    ("subprocess", "Ack", {"id": 1, "ok": True, "error": "half done"}, False),
    ("subprocess", "AnswerReply", {"id": 1, "answer": "", "error": "boom"}, False),
    ("subprocess", "ErrorReply", {"id": 1, "error": "boom"}, True),
    ("subprocess", "ErrorReply", {"error": "boom"}, False),
])
def test_definitions_accept_and_reject(protocol, definition, instance, ok):
    assert (problems(protocol, definition, instance) == []) is ok


def test_unknown_definition_is_named():
    with pytest.raises(KeyError, match=r"http_agent\.schema\.json has no definition 'Nope'"):
        problems("http", "Nope", {})


def test_message_text_carries_date_session_and_speaker():
    session = Session("sess_7", "2023/05/20 (Sat) 02:21",
                      (Message("user", "I moved to Lisbon."), Message("assistant", "How exciting!")))
    items = session_items(session)
    assert [i.content for i in items] == ["[2023/05/20 (Sat) 02:21] session sess_7 user: I moved to Lisbon.",
                                          "[2023/05/20 (Sat) 02:21] session sess_7 assistant: How exciting!"]
    assert items[1].fields() == {"content": items[1].content, "role": "assistant", "session_id": "sess_7",
                                 "date": "2023/05/20 (Sat) 02:21"}
    assert problems("http", "LearnRequest", items[0].fields()) == []


def test_agent_response_from_a_minimal_and_a_full_reply():
    assert AgentResponse.from_wire({"answer": "Lisbon"}) == AgentResponse("Lisbon")
    full = AgentResponse.from_wire({"answer": "Lisbon", "confidence": 1, "reasoning_trace": "r",
                                    "tool_calls": [{"name": "search", "arguments": {"q": "sister"}}],
                                    "metadata": {"model": "m"}})
    assert full.confidence == 1.0 and full.tool_calls == (ToolCall("search", {"q": "sister"}),)
    assert full.metadata == {"model": "m"}


async def test_both_adapters_meet_the_protocol():
    http = HttpAgentAdapter(HttpAgentSettings("http://127.0.0.1:9"))
    sub = SubprocessAgentAdapter(SubprocessAgentSettings("true"))
    assert isinstance(http, AgentAdapter) and isinstance(sub, AgentAdapter)
    assert "tool_calls" in http.capabilities and sub.name == "subprocess"
    await http.close()
    await sub.close()
