"""The case graph for an outside agent (`[agent].type` http or subprocess), which keeps its own memory.

    run graph:   START -> setup (the agent answers a reset) -> cases | level_L1 ... -> summarise -> END
    case graph:  START -> converse -> score -> END

`converse` leases one agent for the whole case: reset it, feed it every message of every
session in date order (the text names speaker, session and date), then ask every question that
has no answer yet. The harness sees no memory, so answers carry no `retrieved` hits and retrieval
metrics are "not available", never zero. The agent's reported tool calls are logged as the
memory agent's are (caller "agent"): learn-time ones with their session, for level L13.

Resume: an answered question is never asked again. A case with questions left is learned again
from the start after a reset, whether or not an earlier process finished learning it: what an
outside agent still remembers after the harness stopped is unknowable (a subprocess agent was
restarted with an empty memory). memories.jsonl records each learning attempt (status created,
then ingested) the way it records our memories, with the agent in place of a memory id.
"""

from __future__ import annotations

import json
import time
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from benchmarker.agent.adapters import AgentAdapter, ToolCall, learn_item
from benchmarker.datasets.schema import Case, Question
from benchmarker.graph.budget import reported_context
from benchmarker.graph.context import RunContext
from benchmarker.graph.qa import base_record
from benchmarker.graph.scoring import score_answers
from benchmarker.graph.state import CaseState
from benchmarker.log.records import AnswerRecord, DecisionRecord, MemoryRecord
from benchmarker.redact import masked_preview
from benchmarker.subjects import OutsideAgentSubject

PREVIEW_CHARS = 300


def outside_agent(ctx: RunContext) -> OutsideAgentSubject:
    """The agent under test; only this case graph runs with one."""
    assert isinstance(ctx.subject, OutsideAgentSubject), "the memory agent runs the memory case graph"
    return ctx.subject


def agent_identity(ctx: RunContext) -> dict[str, str]:
    """Which agent answered, as answers and memory records name it."""
    return outside_agent(ctx).identity()


async def converse(state: CaseState, runtime: Runtime[RunContext]) -> CaseState:
    """Every answer of the case goes on in state: the ones an earlier process wrote, then the new ones."""
    ctx = runtime.context
    case = state["case"]
    done = ctx.log.done.answered
    answers = [done[q.question_id] for q in case.questions if q.question_id in done]
    pending = [q for q in case.questions if q.question_id not in done]
    known = ctx.log.done.memories.get(case.case_id)
    if not pending or "qa" not in ctx.phases:  # an eval-only run scores what earlier runs answered
        if not answers:
            return {}
        resumed: CaseState = {"answers": answers}
        if known is not None:
            resumed["memory"] = known
        return resumed
    async with outside_agent(ctx).pool.lease() as agent:
        learned = await _learn(ctx, agent, case)
        ctx.progress.set_phase("qa")
        for question in pending:
            answer = await _answer(ctx, agent, case, question, learned)
            ctx.log.append(answer)  # one durable line per question: a crash loses at most the one in flight
            answers.append(answer)
    return {"memory": learned, "answers": answers}


async def _learn(ctx: RunContext, agent: AgentAdapter, case: Case) -> MemoryRecord:
    ctx.progress.set_phase("ingest")
    started = time.monotonic()
    record = MemoryRecord(case_id=case.case_id, memory_id="", vault_id="", title=agent.name,
                          attempt=ctx.log.next_attempt(case.case_id), status="created",
                          agent=agent_identity(ctx))
    ctx.log.append(record)  # learning started: a cut-off attempt is visible, and the next one is numbered after it
    await agent.reset()
    question_id = case.questions[0].question_id if len(case.questions) == 1 else case.case_id
    count = 0
    for session in case.sessions:  # in date order (the loaders sort them)
        for turn, message in enumerate(session.messages):
            calls = await agent.learn(learn_item(message, session, case_id=case.case_id, turn=turn,
                                                   attempt=record.attempt))
            _log_calls(ctx, case, calls, record.attempt, question_id=question_id, session_id=session.session_id,
                       turn=turn)
            count += 1
    record = record.model_copy(update={"status": "ingested", "ingested": True, "entries": count,
                                       "ingest_s": round(time.monotonic() - started, 3)})
    ctx.log.append(record)
    ctx.log.append(DecisionRecord(case_id=case.case_id, caller="harness", tool="_ingest_done",
                                  latency_ms=round((time.monotonic() - started) * 1000, 1),
                                  result_preview=f"{count} messages learned by agent {agent.name}"))
    return record


async def _answer(ctx: RunContext, agent: AgentAdapter, case: Case, question: Question,
                  learned: MemoryRecord) -> AnswerRecord:
    started = time.monotonic()
    reply = await agent.answer(question.question, question.question_date)
    qa_s = round(time.monotonic() - started, 4)
    _log_calls(ctx, case, reply.tool_calls, learned.attempt, question_id=question.question_id)
    return AnswerRecord(**base_record(ctx.suite, case, question), **{
        "hypothesis": reply.answer,
        # no "retrieved": the harness never sees what the agent searched (retrieval: not available)
        "agent": agent_identity(ctx),
        "tool_calls": [call.name for call in reply.tool_calls],
        "reasoning_trace": reply.reasoning_trace,
        "confidence": reply.confidence,
        "agent_metadata": dict(reply.metadata),
        **reported_context(reply.context_tokens, ctx.run.context_budget_tokens),
        # ingest_s is the whole case's learning, repeated on each of its questions.
        "timings": {"ingest_s": learned.ingest_s, "qa_s": qa_s},
        "mode": ctx.mode,
        "offline": ctx.offline,
    })


def _log_calls(ctx: RunContext, case: Case, calls: tuple[ToolCall, ...], attempt: int, *, question_id: str,
               session_id: str | None = None, turn: int | None = None) -> None:
    """The agent's reported tool calls, in order, as decisions; level L13 reads the learn-time ones per
    session, of the case's latest learning `attempt` only."""
    for call in calls:
        ctx.log.append(DecisionRecord(case_id=case.case_id, question_id=question_id, session_id=session_id,
                                      turn=turn, caller="agent", tool=call.name, args=dict(call.arguments),
                                      result_preview=_preview(call.output), attempt=attempt))
    if calls:
        ctx.progress.add_tool_calls(len(calls))


def _preview(output: Any) -> str | None:
    if output is None:
        return None
    text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)
    return masked_preview(text, PREVIEW_CHARS, "...")  # masked whole first: a cut key is no longer recognised


def build_agent_case_graph():
    graph = StateGraph(CaseState, context_schema=RunContext)
    graph.add_node("converse", converse)
    graph.add_node("score", score_answers)
    graph.add_edge(START, "converse")
    graph.add_edge("converse", "score")
    graph.add_edge("score", END)
    return graph.compile(name="agent_case")


AGENT_CASE_GRAPH = build_agent_case_graph()
