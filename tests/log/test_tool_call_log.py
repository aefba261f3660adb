"""One memory tool call, timed and logged (log/tool_call_log.py): the decisions.jsonl line retrieval ingestion,
`replay` and the batched writer's lone add_entry all write, pinned byte for byte (keys, order, the preview cut,
the capped arguments of a failed call), with the error each path names and what it raises."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmarker.errors import MemoryToolError
from benchmarker.log.store import RunLog
from benchmarker.log.tool_call_log import CallOutcome, CallSite, logged_tool_call

LONG = "y" * 2500  # over FAILED_ARG_CHARS: a failed call keeps 2,000 characters of it
ANSWER = '{"status": "enqueued"} ' + "x" * 400  # over the 300-character preview


class Calls:
    def __init__(self) -> None:
        self.n = 0

    def add_tool_calls(self, n: int = 1) -> None:
        self.n += n


async def _answer() -> str:
    return ANSWER


async def _refused() -> str:
    raise MemoryToolError("add_entry", "entry too long")


async def _gone() -> str:
    raise OSError("connection reset")


def _lines(log: RunLog) -> list[str]:
    log.close()
    text = log.decisions_path.read_text(encoding="utf-8")
    return [re.sub(r'"latency_ms": \d+(\.\d+)?(e-\d+)?, ', '"latency_ms": L, ', line) for line in text.splitlines()]


def _failed(caller: str, error: str) -> str:
    capped = "y" * 2000 + "... (2,500 characters; the rest not kept: the call failed)"
    return ('{"schema_version": 1, "case_id": "c1", "caller": "' + caller + '", "tool": "add_entry", "question_id": '
            'null, "session_id": null, "turn": null, "args": {"raw_entry": "' + capped + '"}, "result_preview": "", '
            '"latency_ms": L, "error": "' + error + '"}')


async def test_an_answered_call_leaves_this_line_and_returns_the_answer(tmp_path: Path) -> None:
    log, calls = RunLog(tmp_path), Calls()
    site = CallSite("c1", "retrieval", "add_entry", {"vault_id": "v", "memory_id": "m", "raw_entry": "hello"},
                    "q1", "s1", 2)
    assert await logged_tool_call(log, calls, site, _answer()) == CallOutcome(ANSWER, None)
    assert calls.n == 1
    preview = ANSWER[:300].replace('"', '\\"')
    assert _lines(log) == [
        '{"schema_version": 1, "case_id": "c1", "caller": "retrieval", "tool": "add_entry", "question_id": "q1", '
        '"session_id": "s1", "turn": 2, "args": {"vault_id": "v", "memory_id": "m", "raw_entry": "hello"}, '
        f'"result_preview": "{preview}", "latency_ms": L, "error": null}}']
    assert json.loads(log.decisions_path.read_text(encoding="utf-8"))["latency_ms"] >= 0


async def test_a_refusal_is_raised_and_named_by_its_exception_unless_the_caller_keeps_going(tmp_path: Path) -> None:
    log, calls = RunLog(tmp_path), Calls()
    with pytest.raises(MemoryToolError):
        await logged_tool_call(log, calls, CallSite("c1", "retrieval", "add_entry", {"raw_entry": LONG}), _refused())
    kept = await logged_tool_call(log, calls, CallSite("c1", "replay", "add_entry", {"raw_entry": LONG}), _refused(),
                                  keep_going=True)
    assert kept == CallOutcome("", "entry too long")  # the server's own words, as a replay logs them
    assert calls.n == 2
    assert _lines(log) == [_failed("retrieval", "MemoryToolError: add_entry: entry too long"),
                           _failed("replay", "entry too long")]


async def test_any_other_error_is_logged_and_raised_even_when_the_caller_keeps_going(tmp_path: Path) -> None:
    log, calls = RunLog(tmp_path), Calls()
    for keep_going in (False, True):
        with pytest.raises(OSError):
            await logged_tool_call(log, calls, CallSite("c1", "replay", "add_entry", {"raw_entry": LONG}), _gone(),
                                   keep_going=keep_going)
    assert calls.n == 2
    assert _lines(log) == [_failed("replay", "OSError: connection reset")] * 2
