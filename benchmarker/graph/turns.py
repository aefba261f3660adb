"""Who and where one dataset message is, for the memory agent's turn and for the harness's own writes."""

from __future__ import annotations

from typing import Any

from benchmarker.agent.memory_agent import MemoryAgentContext
from benchmarker.datasets.schema import Case, Session
from benchmarker.graph.context import RunContext
from benchmarker.log.records import DecisionRecord, MemoryRecord


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
