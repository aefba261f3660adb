"""The graph's memory steps on a mapped (non-Mycelian) server: the agent's prompt, the consistency
wait, and QA-time search with hits traced back to dataset messages (direct writes in retrieval
mode share direct_ingest.py's loop: `write_call` / `consistency_call` pick the tools).

Each function is the mapped counterpart of a Mycelian step in ingest.py and
qa.py / retrieval.py; those nodes branch here when `ctx.mapping` is set.
"""

from __future__ import annotations

from typing import Any

from benchmarker.agent.prompts import load_prompt
from benchmarker.datasets.schema import Case
from benchmarker.graph.context import RunContext
from benchmarker.log.records import MemoryRecord
from benchmarker.memory import mapped
from benchmarker.tool_mapping import ToolMapping

PREVIEW_CHARS = 300


def mapping_of(ctx: RunContext) -> ToolMapping:
    assert ctx.mapping is not None, "a mapped step runs only on a mapped server"
    return ctx.mapping


def compose_mapped_prompt(ctx: RunContext, record: MemoryRecord, unit_text: str, tool_names: list[str]) -> str:
    """The memory agent's system prompt for this server (prompts/<mapping.agent.prompt>)."""
    mapping = mapping_of(ctx)
    template = load_prompt(mapping.agent.prompt, directory=ctx.prompts_dir)
    if mapping.scope.kind in ("namespace", "container") and mapping.scope.argument:
        scope_text = (f"Pass {mapping.scope.argument} = \"{record.memory_id}\" on every tool call that takes it: "
                      "it keeps this conversation's memory apart from the others.")
    else:
        scope_text = "This memory server holds only this conversation's memory."
    return template.format(server_name=mapping.name, scope=record.memory_id, scope_instructions=scope_text,
                           unit_instructions=unit_text, write_tool=mapping.write.tool if mapping.write else "",
                           tools=", ".join(tool_names), guidance=mapping.agent.guidance.strip() or "(none)")


async def settle(ctx: RunContext, record: MemoryRecord) -> None:
    """The mapping's consistency wait, when the server has one (else writes are searchable at once)."""
    from benchmarker.graph.direct_ingest import consistency_call

    wait = consistency_call(ctx, record)
    if wait is not None:
        await ctx.client.call(*wait)


def written_texts(ctx: RunContext, case: Case, record: MemoryRecord) -> mapped.WrittenTexts:
    """What was written into this memory and from which message: the harness's own writes in
    retrieval mode (known from the case), the memory agent's recorded write calls otherwise."""
    from benchmarker.graph.direct_ingest import entry_text

    mapping = mapping_of(ctx)
    dates = {s.session_id: s.date for s in case.sessions}
    written = mapped.WrittenTexts()
    if ctx.mode == "retrieval":
        for session in case.sessions:
            for turn_index, message in enumerate(session.messages):
                written.add(entry_text(session, message)[0], {"session_id": session.session_id,
                                                              "session_date": session.date,
                                                              "turn_index": turn_index, "role": message.role})
        return written
    roles: dict[tuple[str | None, int | None], str] = {
        (s.session_id, i): m.role for s in case.sessions for i, m in enumerate(s.messages)}
    write_tools = set(mapping.write_tools())
    for call in ctx.log.agent_tool_calls(case.case_id):
        if call.tool in write_tools and call.error is None:
            origin = {"session_id": call.session_id, "session_date": dates.get(call.session_id or ""),
                      "turn_index": call.turn, "role": roles.get((call.session_id, call.turn))}
            for text in mapped.written_texts_of(mapping, call.tool, call.args):
                written.add(text, origin)
    return written


async def search_hits(ctx: RunContext, case: Case, record: MemoryRecord, query: str,
                      written: mapped.WrittenTexts) -> tuple[list[dict[str, Any]], int]:
    """Ranked hits in the results.jsonl shape (session / turn where traced) and the calls it took."""
    hits, calls = await mapped.search(ctx.client, mapping_of(ctx), record.memory_id, query, ctx.search.top_k)
    shaped = []
    for hit in hits:
        origin = written.trace(hit.text) or {}
        shaped.append({"entry_id": hit.id, "score": hit.score, "rank": hit.rank,
                       "session_id": origin.get("session_id"), "session_date": origin.get("session_date"),
                       "turn_index": origin.get("turn_index"), "role": origin.get("role"),
                       "traced": bool(origin), "summary": "", "raw_preview": hit.text[:PREVIEW_CHARS],
                       "raw_entry": hit.text})
    return shaped, calls
