"""Node: stream the case's sessions into memory, in date order.

Agent mode: a fresh agent state per session; the session's messages are grouped by `[agent]
ingest_unit` (one message, one exchange, or the whole session), each group is appended to the
session's rolling transcript as one chat turn and the memory agent is invoked with it. Retrieval
mode: every message is written straight to memory as an entry (no agent, no model) to isolate the
index (graph/direct_ingest.py). Replay: a finished run's recorded writes are re-applied (graph/replay.py).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from benchmarker.agent.memory_agent import MemoryAgentContext, run_agent_turn
from benchmarker.agent.prompts import compose_memory_system_prompt, load_prompt, render_unit, unit_instructions
from benchmarker.datasets.schema import Case, Session
from benchmarker.graph.context import RunContext
from benchmarker.graph.state import CaseState
from benchmarker.log.records import DecisionRecord, MemoryRecord

log = logging.getLogger(__name__)


def turn_context(ctx: RunContext, case: Case, record: MemoryRecord, session: Session, turn_index: int,
                 role: str, system_prompt: str = "") -> MemoryAgentContext:
    """Who and where one dataset message is: the agent's runtime context and the source of the
    trace tags every entry carries (agent mode merges them in middleware, retrieval mode directly)."""
    question_id = case.questions[0].question_id if len(case.questions) == 1 else case.case_id
    return MemoryAgentContext(system_prompt=system_prompt, run_id=ctx.run_id, case_id=case.case_id,
                              question_id=question_id, vault_id=record.vault_id, memory_id=record.memory_id,
                              session_id=session.session_id, session_date=session.date, turn_index=turn_index,
                              role=role, decision_sink=decision_sink(ctx))


def decision_sink(ctx: RunContext):
    """The memory agent's tool calls go to this context's run log (a candidate's, during self-improve)."""

    def record(agent_ctx: MemoryAgentContext, call: dict[str, Any]) -> None:
        ctx.log.append(DecisionRecord(case_id=agent_ctx.case_id, question_id=agent_ctx.question_id,
                                      session_id=agent_ctx.session_id, turn=agent_ctx.turn_index,
                                      caller="agent", **call))
        ctx.progress.add_tool_calls()

    return record


async def ingest(state: CaseState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    ctx = runtime.context
    if state.get("skipped") or state["memory"].ingested:
        return {}
    record = state["memory"].model_copy()
    case = state["case"]
    ctx.progress.set_phase("ingest")
    started = time.monotonic()
    if case.kind == "fact_extraction":
        await _seed_existing_memory(ctx, case, record)
    if ctx.replay is not None:
        from benchmarker.graph.replay import replay_into_memory

        entries, failed = await replay_into_memory(ctx, case, record)
    elif ctx.mode == "retrieval":
        from benchmarker.graph.direct_ingest import write_entries_directly

        entries, failed = await write_entries_directly(ctx, case, record), 0  # it awaits (and logs) itself
    else:
        entries, failed = await _ingest_with_agent(ctx, case, record, state["setup"]["default_prompts"])
    if ctx.mapping is not None and ctx.mode != "retrieval":
        from benchmarker.graph.mapped_memory import settle

        await settle(ctx, record)
    elif ctx.mode != "retrieval" or ctx.replay is not None:
        await ctx.client.await_consistency(record.memory_id)
    record.status, record.ingested, record.entries, record.failed_turns = "ingested", True, entries, failed
    record.ingest_s = round(time.monotonic() - started, 3)
    if ctx.agent is not None and ctx.replay is None and ctx.mode == "agent":
        record.agent_usage = ctx.ledger.case_usage(case.case_id, ctx.config.models.agent)
    ctx.log.append(record)
    ctx.log.append(DecisionRecord(case_id=case.case_id, caller="harness", tool="_ingest_done",
                                  latency_ms=round((time.monotonic() - started) * 1000, 1),
                                  result_preview=f"{entries} messages, {failed} failed turns"))
    return {"memory": record}


async def _seed_existing_memory(ctx: RunContext, case: Case, record: MemoryRecord) -> None:
    """Fact-extraction cases start from a memory that already holds the case's existing facts."""
    from benchmarker.datasets.fact_extraction import fact_case_of, seed_memory_plan

    for tool, args in seed_memory_plan(fact_case_of(case)):
        if tool == "await_consistency":
            await ctx.client.await_consistency(record.memory_id)
            continue
        await ctx.client.call(tool, {"vault_id": record.vault_id, "memory_id": record.memory_id, **args})


def ingest_units(roles: list[str], unit: str) -> list[list[int]]:
    """Message indices of a session grouped into agent turns: one message, one exchange (a user
    message and the replies after it; between two people, a message of the session's first speaker
    and the replies after it), or the whole session."""
    if unit == "session":
        return [list(range(len(roles)))] if roles else []
    if unit == "message":
        return [[i] for i in range(len(roles))]
    groups: list[list[int]] = []
    opener = "user" if "user" in roles else (roles[0] if roles else "")  # LoCoMo: whoever speaks first
    for i, role in enumerate(roles):
        if role == opener or not groups:
            groups.append([i])
        else:
            groups[-1].append(i)
    return groups


async def _ingest_with_agent(ctx: RunContext, case: Case, record: MemoryRecord,
                             default_prompts: dict[str, Any]) -> tuple[int, int]:
    unit = ctx.config.agent.ingest_unit
    turn_template = load_prompt("agent_turn.txt", directory=ctx.prompts_dir) if ctx.prompts_dir else None
    # One system prompt per case: the same bytes on every call of every session (a cacheable prefix).
    if ctx.mapping is not None:
        from benchmarker.graph.mapped_memory import compose_mapped_prompt
        from benchmarker.graph.setup import agent_tools

        system_prompt = compose_mapped_prompt(ctx, record, unit_instructions(unit, ctx.prompts_dir),
                                              list(agent_tools(ctx)))
    else:
        system_prompt = compose_memory_system_prompt(
            load_prompt("memory_agent_prefix.txt", directory=ctx.prompts_dir), default_prompts,
            vault_id=record.vault_id, memory_id=record.memory_id, context_cadence=ctx.cadence,
            unit_text=unit_instructions(unit, ctx.prompts_dir))
    count = failed = 0
    for session in case.sessions:
        transcript: list[HumanMessage] = []  # fresh agent state per session
        n = len(session.messages)
        for group in ingest_units([m.role for m in session.messages], unit):
            turns = [(session.session_id, session.date, i + 1, n, session.messages[i].role,
                      session.messages[i].content) for i in group]
            transcript.append(HumanMessage(render_unit(turns, template=turn_template)))
            last = group[-1]
            agent_ctx = turn_context(ctx, case, record, session, last, session.messages[last].role, system_prompt)
            if len(group) > 1:
                agent_ctx = dataclasses.replace(agent_ctx, unit_turns=tuple(
                    (i, session.messages[i].role) for i in group))
            if ctx.tracing is None:
                outcome = await run_agent_turn(ctx.agent, list(transcript), agent_ctx,
                                               recursion_limit=ctx.config.params.recursion_limit * len(group))
            else:
                outcome = await _traced_turn(ctx, case, record, session, group, agent_ctx, transcript)
            count += len(group)
            if not outcome.ok:
                failed += 1
                log.warning("case %s session %s messages %d-%d failed: %s", case.case_id, session.session_id,
                            group[0], last, outcome.failed_reason)
                ctx.log.append(DecisionRecord(case_id=case.case_id, question_id=agent_ctx.question_id,
                                              session_id=session.session_id, turn=last, turns=group,
                                              caller="harness", tool="_turn_failed", error=outcome.failed_reason))
    return count, failed


async def _traced_turn(ctx: RunContext, case: Case, record: MemoryRecord, session: Session, group: list[int],
                       agent_ctx: Any, transcript: list[HumanMessage]):
    """The agent turn as a LangSmith `memory_extraction` run: the turn's messages and the memory before
    it in, what the agent wrote out (the input `judge-online` audits)."""
    from benchmarker.log.written import written_texts

    before = written_texts(ctx.log.agent_tool_calls(case.case_id, record.memory_id))
    conversation = [{"role": session.messages[i].role, "content": session.messages[i].content,
                     "date": session.date} for i in group]
    assert ctx.tracing is not None  # called only when tracing is on
    with ctx.tracing.extraction_turn(case_id=case.case_id, conversation=conversation, memory_before=before,
                                     question_id=agent_ctx.question_id, session_id=session.session_id,
                                     turn_index=group[-1]) as turn:
        outcome = await run_agent_turn(ctx.agent, list(transcript), agent_ctx,
                                       recursion_limit=ctx.config.params.recursion_limit * len(group))
        turn.written = written_texts(ctx.log.agent_tool_calls(case.case_id, record.memory_id))[len(before):]
        turn.failed = None if outcome.ok else outcome.failed_reason
    return outcome
