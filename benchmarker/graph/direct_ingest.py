"""Retrieval-mode ingestion: every dataset message goes straight to memory as one entry (no agent,
no model), so the run measures the index alone.

Every call is logged to decisions.jsonl (caller "retrieval"), as the agent's and a replay's calls
are: the README promises every tool call there, and the run's tool latency then covers the writes.
A record costs about 50 us (bench/bench_retrieval_log.py: 28 ms over a 550-message LongMemEval_S
question whose ingestion takes 2-5 s here), against 4-5 ms for the add_entry it records.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable
from typing import Any

from benchmarker.agent.middleware import trace_tags
from benchmarker.datasets.schema import Case, Message, Session
from benchmarker.graph.context import RunContext
from benchmarker.graph.ingest import turn_context
from benchmarker.log.records import DecisionRecord, MemoryRecord
from benchmarker.memory.limits import RAW_ENTRY_CHARS, SUMMARY_CHARS  # Mycelian's limits
from benchmarker.tool_mapping import render

CALLER = "retrieval"
RESULT_PREVIEW_CHARS = 300


def entry_text(session: Session, message: Message) -> tuple[str, str]:
    """(raw_entry, summary) of one message: dated and attributed, cut to Mycelian's limits."""
    raw = f"[{session.date}] {message.role}: {message.content}"[:RAW_ENTRY_CHARS]
    return raw, raw[:SUMMARY_CHARS]


async def logged_call(ctx: RunContext, tool: str, args: dict[str, Any], call: Awaitable[str], *,
                      case_id: str, question_id: str | None = None, session_id: str | None = None,
                      turn: int | None = None) -> str:
    """Await one memory call (timed from here) and append its DecisionRecord, also when it raises."""
    started = time.perf_counter()
    text, error = "", None
    try:
        text = await call
        return text
    except Exception as err:
        error = f"{type(err).__name__}: {err}"
        raise
    finally:
        ctx.log.append(DecisionRecord(case_id=case_id, question_id=question_id, session_id=session_id, turn=turn,
                                      caller=CALLER, tool=tool, args=args,
                                      result_preview=text[:RESULT_PREVIEW_CHARS], error=error,
                                      latency_ms=round((time.perf_counter() - started) * 1000.0, 3)))
        ctx.progress.add_tool_calls()


async def write_entries_directly(ctx: RunContext, case: Case, record: MemoryRecord) -> int:
    """Write every message of the case as an entry (Mycelian's add_entry, or a mapped server's write
    tool), then wait until it is searchable; return the entries written."""
    count = 0
    for session in case.sessions:
        for turn_index, message in enumerate(session.messages):
            raw, summary = entry_text(session, message)
            where = turn_context(ctx, case, record, session, turn_index, message.role)
            tool, args = write_call(ctx, record, raw, summary, trace_tags(where))
            await logged_call(ctx, tool, args, ctx.client.call(tool, args), case_id=case.case_id,
                              question_id=where.question_id, session_id=session.session_id, turn=turn_index)
            count += 1
    wait = consistency_call(ctx, record)
    if wait is not None:
        await logged_call(ctx, *wait, ctx.client.call(*wait), case_id=case.case_id)
    return count


def write_call(ctx: RunContext, record: MemoryRecord, raw: str, summary: str,
               tags: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(tool, arguments) that store one message: add_entry with the trace tags, or the mapping's write."""
    if ctx.mapping is None:
        return "add_entry", {"vault_id": record.vault_id, "memory_id": record.memory_id, "raw_entry": raw,
                             "summary": summary, "tags": tags}
    from benchmarker.memory.mapped import write_arguments

    values = {**tags, "text": raw, "summary": summary, "scope": record.memory_id}
    assert ctx.mapping.write is not None  # a mapped server's mapping has one (ToolMapping's validator)
    return ctx.mapping.write.tool, write_arguments(ctx.mapping, values)


def consistency_call(ctx: RunContext, record: MemoryRecord) -> tuple[str, dict[str, Any]] | None:
    """(tool, arguments) that wait until writes are searchable; None on a server whose writes are at once."""
    if ctx.mapping is None:
        return "await_consistency", {"memory_id": record.memory_id}
    spec = ctx.mapping.consistency
    return (spec.tool, render(spec.arguments, {"scope": record.memory_id})) if spec.tool else None
