"""Retrieval-mode ingestion: every dataset message goes straight to memory as one entry (no agent,
no model), so the run measures the index alone.

Every call is logged to decisions.jsonl (caller "retrieval"), as the agent's and a replay's calls
are: the README promises every tool call there, and the run's tool latency then covers the writes.
A record costs about 50 us (bench/bench_retrieval_log.py: 28 ms over a 550-message LongMemEval_S
question whose ingestion takes 2-5 s here), against 4-5 ms for the add_entry it records.
"""

from __future__ import annotations

from collections.abc import Awaitable

from benchmarker.agent.middleware import trace_tags
from benchmarker.datasets.schema import Case
from benchmarker.graph.context import RunContext
from benchmarker.graph.turns import turn_context
from benchmarker.graph.write_batches import EntryBatcher, Write, batch_size
from benchmarker.log.lines import Json
from benchmarker.log.records import MemoryRecord
from benchmarker.log.tool_call_log import RESULT_PREVIEW_CHARS as RESULT_PREVIEW_CHARS  # the preview's cut, named here too
from benchmarker.log.tool_call_log import CallSite, logged_tool_call
from benchmarker.memory.entries import entry_text

CALLER = "retrieval"


async def logged_call(ctx: RunContext, tool: str, args: dict[str, Json], call: Awaitable[str], *,
                      case_id: str, question_id: str | None = None, session_id: str | None = None,
                      turn: int | None = None) -> str:
    """Await one memory call and log it as caller "retrieval" (log/tool_call_log.py); any error is raised."""
    site = CallSite(case_id, CALLER, tool, args, question_id, session_id, turn)
    return (await logged_tool_call(ctx.log, ctx.progress, site, call)).text


async def write_entries_directly(ctx: RunContext, case: Case, record: MemoryRecord) -> int:
    """Write every message of the case as an entry (Mycelian's add_entry, or a mapped server's write
    tool), in batches where the server takes them (graph/write_batches.py), then wait until it is
    searchable; return the entries written."""
    count = 0
    batcher: EntryBatcher | None = None
    for session in case.sessions:
        for turn_index, message in enumerate(session.messages):
            raw, summary = entry_text(session, message)
            where = turn_context(ctx, case, record, session, turn_index, message.role)
            tool, args = ctx.memory.write_call(record, raw, summary, trace_tags(where))
            if batcher is None and (size := batch_size(ctx, tool)):
                batcher = EntryBatcher(ctx, CALLER, size)
            if batcher is not None:
                await batcher.add(Write(args, case.case_id, where.question_id, session.session_id, turn_index))
            else:
                await logged_call(ctx, tool, args, ctx.memory.client.call(tool, args), case_id=case.case_id,
                                  question_id=where.question_id, session_id=session.session_id, turn=turn_index)
            count += 1
    if batcher is not None:
        await batcher.flush()
    wait = ctx.memory.consistency_call(record)
    if wait is not None:
        await logged_call(ctx, *wait, ctx.memory.client.call(*wait), case_id=case.case_id)
    return count
