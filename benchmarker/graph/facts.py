"""Node: after a fact-extraction case is ingested, read back what the agent wrote.

The memory was seeded with the case's existing facts before the conversation; what the agent
added on top (new entries and the latest context) is the extracted output that gets scored.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from benchmarker.graph.context import RunContext
from benchmarker.graph.state import CaseState
from benchmarker.log.records import AnswerRecord
from benchmarker.memory.placeholder import is_placeholder_context

SEED_TAG = "seed"


async def read_back(state: CaseState, runtime: Runtime[RunContext]) -> CaseState:
    ctx = runtime.context
    if state.get("skipped"):
        return {}
    case, memory = state["case"], state["memory"]
    if case.case_id in ctx.log.done.answered:
        return {"answers": [ctx.log.done.answered[case.case_id]]}
    if "qa" not in ctx.phases:
        return {}
    await ctx.memory.settle(memory)
    entries = await ctx.memory.client.list_all_entries(memory.vault_id, memory.memory_id)
    new_entries = [e for e in entries if not (isinstance(tags := e.get("tags"), dict) and tags.get(SEED_TAG))]
    context = await ctx.memory.client.get_context(memory.vault_id, memory.memory_id)
    if is_placeholder_context(context):
        context = ""
    record = AnswerRecord(
        case_id=case.case_id, question_id=case.case_id, question_type=case.metadata.get("scenario", ""),
        category=case.metadata.get("scenario", ""), kind=case.kind, is_abstention=False,
        question="", answer="", hypothesis=context, mode=ctx.mode, offline=ctx.offline,
        new_entries=[{"summary": e.get("summary", ""), "rawEntry": e.get("rawEntry", ""),
                      "tags": e.get("tags") or {}} for e in new_entries],
        latest_context=context, memory_id=memory.memory_id,
        tool_calls=[d.trace_step() for d in ctx.log.agent_tool_calls(case.case_id, memory.memory_id)],
    )
    ctx.log.append(record)
    return {"answers": [record]}
