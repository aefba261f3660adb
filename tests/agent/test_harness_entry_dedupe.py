"""`raw_entry = "harness"`: a message is stored once per turn (naming it again is refused, after the server
took it; a refused call may be retried), and a failed call's huge arguments are not kept whole (issue 36, 6)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from benchmarker.agent.harness_entry import EntryFillError, fill_add_entry, mark_stored
from benchmarker.log.records import FAILED_ARG_CHARS, DecisionRecord


def test_a_message_named_again_after_it_was_stored_is_refused():
    context = SimpleNamespace(unit_entries=((1, "user", "[d] user: hi"), (2, "assistant", "[d] assistant: hello")),
                              session_date="d", vault_id="v", memory_id="m", stored_messages=set())
    first = fill_add_entry({"message": 1, "summary": "greeting"}, context)
    assert first["raw_entry"] == "[d] user: hi"
    fill_add_entry({"message": 1, "summary": "greeting again"}, context)  # not stored yet (refused, say): allowed
    mark_stored(context, {"message": 1})
    with pytest.raises(EntryFillError, match="message 1 is already stored in this turn"):
        fill_add_entry({"message": "1", "summary": "a copy"}, context)
    assert fill_add_entry({"message": 2, "summary": "reply"}, context)["raw_entry"] == "[d] assistant: hello"


def test_a_failed_calls_arguments_are_capped_and_a_stored_ones_are_whole():
    huge = "s" * 1_000_000
    failed = DecisionRecord(case_id="c", caller="agent", tool="add_entry", args={"summary": huge, "tags": {"x": huge}},
                            error="summary too long")
    assert len(failed.args["summary"]) < FAILED_ARG_CHARS + 100 and "the call failed" in failed.args["summary"]
    assert len(failed.args["tags"]["x"]) < FAILED_ARG_CHARS + 100
    stored = DecisionRecord(case_id="c", caller="agent", tool="add_entry", args={"raw_entry": huge})
    assert stored.args["raw_entry"] == huge
