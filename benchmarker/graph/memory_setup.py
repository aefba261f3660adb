"""Node: give the case a memory — the finished one from an earlier attempt, or a fresh one.

A case whose ingestion was cut off gets a NEW memory (next attempt, suffixed title), because
Mycelian has no idempotency key: re-sending the same entries into the old memory would
duplicate them.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from benchmarker.graph.context import RunContext
from benchmarker.graph.state import CaseState


async def prepare_memory(state: CaseState, runtime: Runtime[RunContext]) -> CaseState:
    ctx = runtime.context
    case = state["case"]
    known = ctx.log.done.memories.get(case.case_id)
    if known is not None and known.ingested and (known.held_by == ctx.memory.holder or not _asks_memory(ctx, case)):
        return {"memory": known}
    if (replay := ctx.agent_subject.replay) is not None and (reason := replay.missing_reason(case.case_id)):
        return {"skipped": reason}  # nothing recorded to replay: no memory is created
    if "ingest" not in ctx.phases:
        reason = f"case {case.case_id} has no finished ingestion in this run; add 'ingest' to [run].phases"
        return {"skipped": reason}
    record = await ctx.memory.create_memory(case, state["setup"]["vault_id"], ctx.log, ctx.memory_place())
    ctx.log.append(record)
    return {"memory": record}


def _asks_memory(ctx: RunContext, case) -> bool:
    """Whether this case still searches its memory here: a question (or a fact-extraction read-back)
    not answered yet. A finished case whose memory a gone Ray worker held is scored from its logs."""
    answered = ctx.log.done.answered
    if ctx.suite.protocol.reads_back:
        return case.case_id not in answered
    return any(q.question_id not in answered for q in case.questions)
