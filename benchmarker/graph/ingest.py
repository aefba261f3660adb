"""Node: stream the case's sessions into memory, in date order.

Agent mode: a fresh agent state per session; the session's messages are grouped by `[agent]
ingest_unit` (one message, one exchange, or the whole session), each group is appended to the
session's rolling transcript as one chat turn and the memory agent is invoked with it. Retrieval
mode: every message is written straight to memory as an entry (no agent, no model) to isolate the
index (graph/direct_ingest.py). Replay: a finished run's recorded writes are re-applied (graph/replay.py).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from benchmarker.agent.memory_agent import run_agent_turn
from benchmarker.agent.prompts import AgentPrompts, load_prompt, render_unit, unit_instructions
from benchmarker.datasets.schema import Case, Session
from benchmarker.graph.context import RunContext
from benchmarker.graph.direct_ingest import write_entries_directly
from benchmarker.graph.replay import replay_into_memory
from benchmarker.graph.setup import agent_tools
from benchmarker.graph.state import CaseState
from benchmarker.graph.turns import turn_context
from benchmarker.log.lines import Json
from benchmarker.log.records import DecisionRecord, MemoryRecord

log = logging.getLogger(__name__)


async def ingest(state: CaseState, runtime: Runtime[RunContext]) -> CaseState:
    ctx = runtime.context
    if state.get("skipped") or state["memory"].ingested:
        return {}
    record = state["memory"].model_copy()
    case = state["case"]
    ctx.progress.set_phase("ingest")
    started = time.monotonic()
    if ctx.suite.protocol.seeds_memory:
        await _seed_existing_memory(ctx, case, record)
    subject = ctx.agent_subject
    if subject.replay is not None:
        entries, failed = await replay_into_memory(ctx, subject.replay, case, record)
    elif ctx.mode == "retrieval":
        entries, failed = await write_entries_directly(ctx, case, record), 0  # it awaits (and logs) itself
    else:
        entries, failed = await _ingest_with_agent(ctx, case, record, state["setup"]["default_prompts"])
    if ctx.mode != "retrieval" or subject.replay is not None:
        await ctx.memory.settle(record)
    record.status, record.ingested, record.entries, record.failed_turns = "ingested", True, entries, failed
    record.ingest_s = round(time.monotonic() - started, 3)
    # What the server took, not what the agent was shown: a model that never wrote stores nothing.
    record.stored = len(ctx.log.memory_writes(case.case_id, record.memory_id, frozenset({ctx.memory.write_tool})))
    if entries and not record.stored and ctx.mode == "agent":
        log.warning("case %s: %d messages ingested but the memory server stored no entry (%s was never called "
                    "successfully)", case.case_id, entries, ctx.memory.write_tool)
    if subject.has_agent and subject.replay is None and ctx.mode == "agent":
        record.agent_usage = dict(ctx.ledger.case_usage(case.case_id, ctx.models.agent))
    ctx.log.append(record)
    ctx.log.append(DecisionRecord(case_id=case.case_id, caller="harness", tool="_ingest_done",
                                  latency_ms=round((time.monotonic() - started) * 1000, 1),
                                  result_preview=f"{entries} messages, {record.stored} entries stored, "
                                                 f"{failed} failed turns"))
    return {"memory": record}


async def _seed_existing_memory(ctx: RunContext, case: Case, record: MemoryRecord) -> None:
    """Fact-extraction cases start from a memory that already holds the case's existing facts."""
    from benchmarker.suites.fact_extraction.data import fact_case_of, seed_memory_plan

    for tool, args in seed_memory_plan(fact_case_of(case)):
        if tool == "await_consistency":
            await ctx.memory.settle(record)
            continue
        await ctx.memory.client.call(tool, {"vault_id": record.vault_id, "memory_id": record.memory_id, **args})


def context_due(session_number: int, session_count: int, every: int) -> bool:
    """`[agent] context_update = "session"`: whether session `session_number` (1-based) of a case writes
    the context: every `every`-th session, and the case's last one (so questions see a current context)."""
    return session_number == session_count or session_number % max(1, every) == 0


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
                             default_prompts: dict[str, Json]) -> tuple[int, int]:
    agent_cfg = ctx.agent
    unit, once = agent_cfg.ingest_unit, agent_cfg.context_update == "session"
    turn_template = load_prompt("agent_turn.txt", directory=ctx.prompts_dir) if ctx.prompts_dir else None
    # One system prompt per case: the same bytes on every call of every session (a cacheable prefix).
    unit_text = unit_instructions(unit, ctx.prompts_dir, agent_cfg.context_update)
    kit = AgentPrompts(ctx.prompts_dir, ctx.cadence, unit_text, agent_cfg.raw_entry, agent_cfg.context_update)
    system_prompt = ctx.memory.system_prompt(record, kit, default_prompts=default_prompts, unit_text=unit_text,
                                             tool_names=list(agent_tools(ctx)))
    agent = ctx.agent_subject.agent_for(ctx.memory)
    count = failed = 0
    for number, session in enumerate(case.sessions, start=1):
        transcript: list[HumanMessage] = []  # fresh agent state per session
        n = len(session.messages)
        session_due = once and context_due(number, len(case.sessions), agent_cfg.context_every_sessions)
        for group in ingest_units([m.role for m in session.messages], unit):
            turns = [(session.session_id, session.date, i + 1, n, session.messages[i].role,
                      session.messages[i].content) for i in group]
            last = group[-1]
            due = session_due and last == n - 1
            transcript.append(HumanMessage(render_unit(turns, template=turn_template, context_due=due)))
            agent_ctx = turn_context(ctx, case, record, session, last, session.messages[last].role, system_prompt)
            agent_ctx = agent_ctx.for_unit([(i, session.messages[i].role, session.messages[i].content) for i in group],
                                           context_due=due, end_when_done=once)
            if ctx.tracing is None:
                outcome = await run_agent_turn(agent, list(transcript), agent_ctx,
                                               recursion_limit=ctx.params.recursion_limit * len(group))
            else:
                outcome = await _traced_turn(ctx, agent, case, record, session, group, agent_ctx, transcript)
            count += len(group)
            if not outcome.ok:
                failed += 1
                log.warning("case %s session %s messages %d-%d failed: %s", case.case_id, session.session_id,
                            group[0], last, outcome.failed_reason)
                ctx.log.append(DecisionRecord(case_id=case.case_id, question_id=agent_ctx.question_id,
                                              session_id=session.session_id, turn=last, turns=group,
                                              caller="harness", tool="_turn_failed", error=outcome.failed_reason))
    return count, failed


async def _traced_turn(ctx: RunContext, agent: Any, case: Case, record: MemoryRecord, session: Session, group: list[int],
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
        outcome = await run_agent_turn(agent, list(transcript), agent_ctx,
                                       recursion_limit=ctx.params.recursion_limit * len(group))
        turn.written = written_texts(ctx.log.agent_tool_calls(case.case_id, record.memory_id))[len(before):]
        turn.failed = None if outcome.ok else outcome.failed_reason
    return outcome
