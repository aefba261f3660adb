"""One memory tool call, timed, its error caught, and its decisions.jsonl line written.

Retrieval-mode ingestion, `replay` and the batched writer's lone add_entry each made the same call and wrote the
same line by hand, three copies that could drift apart; they all go through `logged_tool_call`, so every such
line has the same keys, the same preview cut and the same latency rounding.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Protocol

from benchmarker.errors import MemoryToolError
from benchmarker.log.lines import Json
from benchmarker.log.records import DecisionRecord
from benchmarker.log.store import RunLog
from benchmarker.redact import masked_preview

RESULT_PREVIEW_CHARS = 300


class ToolCallCounter(Protocol):
    """What counts the run's tool calls (graph/progress.py's RunProgress)."""

    def add_tool_calls(self, n: int = 1) -> None: ...


@dataclass(frozen=True)
class CallSite:
    """Who makes the call, of which tool with which arguments, and where in the case: its line's own keys."""

    case_id: str
    caller: str
    tool: str
    args: dict[str, Json]
    question_id: str | None = None
    session_id: str | None = None
    turn: int | None = None


@dataclass(frozen=True)
class CallOutcome:
    """The server's answer, or (`keep_going`) its refusal: `error` is then the server's own words."""

    text: str
    error: str | None = None


async def logged_tool_call(log: RunLog, counter: ToolCallCounter, site: CallSite, call: Awaitable[str], *,
                           keep_going: bool = False) -> CallOutcome:
    """Await `call` (timed from here) and append its DecisionRecord, also when it raises.

    A refusal (MemoryToolError) is returned as the outcome's error when `keep_going` (a replay goes on, as the
    agent would have), else raised like any other error, whose line names the exception."""
    started = time.perf_counter()
    text, error = "", None
    try:
        text = await call
    except MemoryToolError as err:
        if not keep_going:
            error = f"{type(err).__name__}: {err}"
            raise
        error = err.message
    except Exception as err:
        error = f"{type(err).__name__}: {err}"
        raise
    finally:
        log.append(DecisionRecord(case_id=site.case_id, question_id=site.question_id, session_id=site.session_id,
                                  turn=site.turn, caller=site.caller, tool=site.tool, args=site.args,
                                  result_preview=masked_preview(text, RESULT_PREVIEW_CHARS), error=error,
                                  latency_ms=round((time.perf_counter() - started) * 1000.0, 3)))
        counter.add_tool_calls()
    return CallOutcome(text, error)
