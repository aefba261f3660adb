"""Node: score every answer of the case that has no result yet (benchmarker.score), attribute
each verdict to the stage that lost it (scoring/attribution.py), then the whole case where its suite
scores one (a level's own score).

The answers come from state (qa / read_back put every answer of the case there, resumed ones
included); results go to the run log one durable line at a time.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from benchmarker.graph.context import RunContext
from benchmarker.graph.state import CaseState
from benchmarker.score import score
from benchmarker.scoring.attribution import attribute, case_writes


async def score_answers(state: CaseState, runtime: Runtime[RunContext]) -> CaseState:
    ctx = runtime.context
    if state.get("skipped") or "eval" not in ctx.phases:
        return {}
    case, memory = state["case"], state.get("memory")
    pending = [a for a in state.get("answers") or [] if a.question_id not in ctx.log.done.judged]
    results = []
    if pending:
        ctx.progress.set_phase("eval")
    writes = None
    for answer in pending:
        with ctx.traced(case_id=case.case_id, role="eval", phase="eval", question_id=answer.question_id):
            result = await score(answer, case, ctx.judge, failed_turns=memory.failed_turns if memory else None,
                                 suite=ctx.suite)
        if writes is None:  # the case's stored entries, read once for all its questions
            tools = frozenset({ctx.memory.write_tool})
            calls = ctx.log.memory_writes(case.case_id, memory.memory_id if memory else None, tools)
            writes = case_writes(calls, tools).get(case.case_id, [])
        found = attribute(result.result_line(), writes)
        if found is not None:
            for key, value in found.fields().items():
                setattr(result, key, value)
        ctx.log.append(result)
        results.append(result)
    # also writes a level line a killed run never wrote (from the level's own questions, never a round's)
    level = ctx.suite.scorer.score_case(case, ctx.log, default_cadence=ctx.cadence, thresholds=ctx.judge.thresholds)
    if level is not None:
        ctx.log.append(level)
    return {"results": results} if results else {}
